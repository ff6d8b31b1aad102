//! `/conversations/:id`: a conversation's timeline (history, then live events), status bar and
//! controls, composer, and the workspace panel beside it.

use crate::components::chat::attention::Attention;
use crate::components::chat::composer::Composer;
use crate::components::chat::git_where::GitWhere;
use crate::components::chat::status_bar::StatusBar;
use crate::components::chat::timeline::Timeline;
use crate::components::chat::tools::{ConversationTools, ToolsInit, ToolsMenu, ToolsNotice};
use crate::components::chat::who_runs::WhoRuns;
use crate::components::workspace::WorkspacePanel;
use crate::services::conversation::{kept, load, sandbox_action, user_paused, user_sandbox_action};
use crate::state::backends::use_backends;
use crate::state::events::ConversationStore;
use crate::state::i18n::Said;
use crate::state::i18n::{t, tn};
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::ConversationSummary;
use canvas_core::conversations::live::asks_before_actions;
use leptos::prelude::*;

#[component]
pub fn ConversationPage(id: String) -> impl IntoView {
    let backends = use_backends();
    let id = StoredValue::new(id);
    // Keyed by the active backend: a switch never shows another backend's conversation.
    let info = LocalResource::new(move || {
        let active = backends.active.get();
        let id = id.get_value();
        async move {
            let s = load(backends, &active, &id).await?;
            Ok::<_, canvas_core::error::ApiError>((active, s))
        }
    });
    // A cloud conversation whose sandbox is PAUSED is resumed once when opened, then reloaded
    // (its runtime URL and key only exist while the sandbox runs) — unless the user paused it
    // in this tab.
    let resumed_once = StoredValue::new(false);
    let reload = Callback::new(move |_: ()| info.refetch());
    let resume = Action::new_local(
        move |(active, summary): &(ActiveBackend, ConversationSummary)| {
            let (active, summary) = (active.clone(), summary.clone());
            async move {
                if sandbox_action(backends, &active, &summary, false)
                    .await
                    .is_ok()
                {
                    reload.run(());
                }
            }
        },
    );
    // Opened before in this tab: shown at once from what was kept (the request above refreshes
    // it for next time); else once the server answered.
    move || {
        if let Some(summary) = kept(&backends.active.get(), &id.get_value()) {
            let active = backends.active.get_untracked();
            return view! { <ConversationView active=active summary=summary on_sandbox_change=reload /> }
                .into_any();
        }
        view! {
        <Suspense fallback=|| view! { <p class="loading" data-testid="loading">{t!("conversation.loading")}</p> }>
            {move || Suspend::new(async move {
                match info.await {
                    Ok((active, summary)) => {
                        if summary.needs_resume()
                            && !resumed_once.get_value()
                            && !user_paused(&active, &summary.id)
                        {
                            resumed_once.set_value(true);
                            resume.dispatch((active.clone(), summary.clone()));
                        }
                        view! { <ConversationView active=active summary=summary on_sandbox_change=reload /> }.into_any()
                    }
                    Err(e) => view! {
                        <div class="error" role="alert" data-testid="conversation-error">
                            <p>{e.said()}</p>
                            <button class="btn" on:click=move |_| info.refetch()>{t!("conversation.try_again")}</button>
                        </div>
                    }.into_any(),
                }
            })}
        </Suspense>
        }
        .into_any()
    }
}

/// The cloud sandbox's status and its pause / resume button.
#[component]
fn SandboxControls(
    active: ActiveBackend,
    summary: ConversationSummary,
    on_change: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let status = summary
        .sandbox_status
        .as_ref()
        .map(|s| s.as_str().to_string())
        .unwrap_or_default();
    let label = summary
        .sandbox_status
        .as_ref()
        .map(|s| crate::state::i18n::say(&canvas_core::conversations::list::sandbox_status_text(s)))
        .unwrap_or_default();
    let action = summary.sandbox_action();
    let error = RwSignal::new(None::<String>);
    let act = Action::new_local(move |pause: &bool| {
        let (active, summary, pause) = (active.clone(), summary.clone(), *pause);
        async move {
            match user_sandbox_action(backends, &active, &summary, pause).await {
                Ok(()) => on_change.run(()),
                Err(e) => error.set(Some(e.said())),
            }
        }
    });
    view! {
        <span class="sandbox-controls" data-testid="sandbox-controls" data-status=status>
            <span class="badge">{t!("conversation.sandbox", status = label)}</span>
            {action.map(|pause| view! {
                <button
                    class="btn"
                    data-testid="sandbox-action"
                    disabled=move || act.pending().get()
                    on:click=move |_| { act.dispatch(pause); }
                >
                    {if pause { t!("conversation.pause_sandbox") } else { t!("conversation.resume_sandbox") }}
                </button>
            })}
            {move || error.get().map(|e| view! { <span class="error-text" role="alert">{e}</span> })}
        </span>
    }
}

#[component]
fn ConversationView(
    active: ActiveBackend,
    summary: ConversationSummary,
    on_sandbox_change: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let sandbox = summary.sandbox_id.is_some().then(|| {
        view! {
            <SandboxControls active=active.clone() summary=summary.clone() on_change=on_sandbox_change />
        }
    });
    let handle = summary.handle();
    let attention_active = active.clone();
    let (git_active, git_conv, git_dir, git_branch) = (
        active.clone(),
        handle.clone(),
        summary.working_dir.clone(),
        summary.selected_branch.clone(),
    );
    // The server names a new conversation in the background; `Attention` asks for it.
    let title = RwSignal::new(crate::state::i18n::say(&summary.title_text()));
    let store = ConversationStore::new(backends, active.clone(), handle.clone());
    store.start();
    let picker_backend = active.clone();
    let tools = ConversationTools::new(
        backends,
        active,
        handle.clone(),
        ToolsInit {
            title,
            confirm_mode: asks_before_actions(summary.confirmation_policy.as_deref()),
            model: summary.model.clone(),
            rows: store.rows,
        },
    );
    // The timeline's messages branch from themselves with it ("Branch from here").
    provide_context(tools);
    let named = summary.title.clone().filter(|t| !t.trim().is_empty());
    // The LLM banner only where this conversation has no model of its own: one that has keeps
    // running on it whatever new conversations would get.
    let without_llm = summary.model.as_deref().is_none_or(|m| m.trim().is_empty());
    let working_dir = summary.working_dir.clone();
    let composer_dir = working_dir.clone();
    let placement = summary.placement.map(|p| {
        view! { <span class="muted placement" data-testid="placement" data-host-online=p.host_online.to_string()>{crate::state::i18n::say(&p.words_text())}</span> }
    });

    let who_conv = handle.clone();
    let conv_sig = Signal::derive(move || Some(handle.clone()));
    let dir_sig = Signal::derive(move || working_dir.clone());
    let count = store.event_count;
    view! {
        <div class="conversation-page" data-testid="conversation-page">
            <section class="chat" aria-label=t!("conversation.label")>
                <header class="chat-header">
                    <h1 data-testid="conversation-heading" title=title>{title}</h1>
                    {sandbox}
                    {placement}
                    <GitWhere active=git_active conv=git_conv working_dir=git_dir reported_branch=git_branch status=store.status store=store.clone() />
                    <WhoRuns active=picker_backend conv=who_conv status=store.status tools=tools />
                    <crate::components::chat::goal::GoalControl rows=store.rows tools=tools />
                    <Attention active=attention_active id=summary.id.clone() named=named
                        title=title status=store.status />
                    <span class="muted event-count" data-testid="event-count" data-count=move || count.get().to_string()>
                        {move || tn!("conversation.events", count.get())}
                    </span>
                    <ToolsMenu tools=tools />
                </header>
                {without_llm.then(|| crate::lazy::lazy_quiet(crate::state::i18n::msg!("app.part.llm_banner"), crate::components::first_run::preload_llm_banner, crate::components::first_run::llm_banner))}
                <StatusBar store=store.clone() tools=tools />
                <Timeline store=store.clone() tools=tools />
                <ToolsNotice tools=tools />
                <Composer store=store.clone() tools=tools working_dir=composer_dir />
            </section>
            <aside class="workspace-aside" aria-label=t!("workspace.title")>
                <WorkspacePanel conversation=conv_sig working_dir=dir_sig />
            </aside>
        </div>
    }
}

crate::lazy::lazy_view! {
    /// A conversation: timeline, chat, Markdown, composer, workspace panel.
    pub fn conversation_page(id: String) in conversation, preload preload_conversation {
        view! { <crate::pages::conversation::ConversationPage id=id /> }
    }
}
