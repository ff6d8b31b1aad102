//! The sub-agents the backend's server finds (issue #35, on `/settings/agents`): the agents the
//! agent can delegate to — the project's (in the app's default directory), the user's, plugins'
//! and the built-in ones —, with what each is for, its model and tools. Read-only: the server
//! reads them from folders and offers no way to change them.

use crate::components::loaded::{loaded, on_active, ListStates};
use crate::services::agents as svc;
use crate::state::i18n::{say, t};
use canvas_core::settings::agents::SubAgent;
use leptos::prelude::*;

#[component]
pub(super) fn SubAgents() -> impl IntoView {
    let reload = RwSignal::new(0u32);
    // The project's sub-agents are looked for in the app's default directory (Settings → App).
    let list = on_active(reload, |b, a| async move {
        let dir = crate::services::launch::default_dir();
        let dir = (!dir.trim().is_empty()).then_some(dir);
        svc::sub_agents(b, &a, dir.as_deref()).await
    });
    let rows = move || {
        list.get().map(|r| {
            let empty: fn(&Vec<SubAgent>) -> bool = Vec::is_empty;
            loaded(
                r,
                ListStates {
                    prefix: "sub-agents",
                    error_testid: None,
                },
                t!("settings.agents.sub_unavailable"),
                Some((t!("settings.agents.sub_empty"), empty)),
                reload,
                |agents| {
                    view! {
                        <ul class="installed-list" data-testid="sub-agent-list">
                            {agents.into_iter().map(sub_agent_row).collect_view()}
                        </ul>
                    }
                    .into_any()
                },
            )
        })
    };
    view! {
        <section class="settings-section" data-testid="sub-agents" aria-labelledby="sub-agents-title">
            <h2 id="sub-agents-title">{t!("settings.agents.sub_title")}</h2>
            <p class="muted">{t!("settings.agents.sub_intro")}</p>
            <Suspense fallback=|| view! { <p class="loading">{t!("settings.agents.sub_loading")}</p> }>{rows}</Suspense>
        </section>
    }
}

fn sub_agent_row(a: SubAgent) -> impl IntoView {
    let model = a
        .model
        .clone()
        .unwrap_or_else(|| t!("settings.agents.sub_model_inherit"));
    let tools =
        (!a.tools.is_empty()).then(|| t!("settings.agents.sub_tools", names = a.tools.join(", ")));
    view! {
        <li class="installed-row" data-testid="sub-agent" data-name=a.name.clone() data-level=a.level.key()>
            <div class="installed-head">
                <code>{a.name.clone()}</code>
                <span class="badge">{say(&a.level.label_text())}</span>
                <span class="muted">{model}</span>
            </div>
            {(!a.description.is_empty()).then(|| view! { <p>{a.description.clone()}</p> })}
            {tools.map(|t| view! { <p class="muted">{t}</p> })}
        </li>
    }
}
