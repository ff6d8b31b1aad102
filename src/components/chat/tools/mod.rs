//! The conversation's tools (issue #15): the header's `⋯` menu (export Markdown/JSON, the
//! server's trajectory, fork, condense) and what the composer's slash commands run (the same
//! operations plus switching the LLM profile and asking the agent a side question). One
//! [`ConversationTools`] per page runs them and says what happened.

use crate::components::menu;
use crate::links::use_go;
use crate::platform::storage::WebStorage;
use crate::services::conversation_tools as svc;
use crate::state::backends::BackendsCtx;
use crate::state::events::Row;
use canvas_core::api::ConversationRef;
use canvas_core::llm_switches::{self, LlmSwitch};
use canvas_core::selection::ActiveBackend;
use canvas_core::slash::ExportFormat;
use leptos::html;
use leptos::prelude::*;

/// One operation on the open conversation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ToolOp {
    /// Download the transcript.
    Export(ExportFormat),
    /// Download the server's trajectory zip.
    Trajectory,
    /// Fork and open the fork.
    Fork,
    /// Condense the history now.
    Condense,
    /// Switch to an LLM profile.
    SwitchProfile(String),
    /// Ask the agent without interrupting it.
    Ask(String),
    /// Ask before every action (`true`) or never.
    ConfirmMode(bool),
}

impl ToolOp {
    fn busy_text(&self) -> String {
        match self {
            ToolOp::Export(_) => "Exporting the transcript…".into(),
            ToolOp::Trajectory => "Downloading the trajectory…".into(),
            ToolOp::Fork => "Forking…".into(),
            ToolOp::Condense => "Asking the server to condense the history…".into(),
            ToolOp::SwitchProfile(p) => format!("Switching to profile “{p}”…"),
            ToolOp::Ask(_) => "Asking the agent…".into(),
            ToolOp::ConfirmMode(_) => "Changing the confirmation mode…".into(),
        }
    }
}

/// What an operation left to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// Working on it.
    Busy(String),
    /// Done (one line).
    Done(String),
    /// Failed (what to do is in the text).
    Failed(String),
    /// The agent's answer to a side question.
    Answer { question: String, answer: String },
}

/// Runs [`ToolOp`]s for one conversation; `notice` says what happened.
#[derive(Clone, Copy)]
pub struct ConversationTools {
    action: Action<ToolOp, ()>,
    pub notice: RwSignal<Option<Notice>>,
    /// Whether the agent asks before actions (`None`: the server did not say).
    pub confirm_mode: RwSignal<Option<bool>>,
    /// The agent's LLM model, as the server last said.
    pub model: RwSignal<Option<String>>,
    /// The LLM switches made from this browser, for the timeline's markers.
    pub switches: RwSignal<Vec<LlmSwitch>>,
}

/// What a conversation's tools start from.
pub struct ToolsInit {
    pub title: RwSignal<String>,
    pub confirm_mode: Option<bool>,
    pub model: Option<String>,
    /// The timeline's rows (a switch is marked after the last one).
    pub rows: RwSignal<Vec<Row>>,
}

impl ConversationTools {
    pub fn new(
        backends: BackendsCtx,
        active: ActiveBackend,
        conv: ConversationRef,
        init: ToolsInit,
    ) -> Self {
        let ToolsInit {
            title,
            confirm_mode,
            model,
            rows,
        } = init;
        let notice = RwSignal::new(None::<Notice>);
        let confirm_mode = RwSignal::new(confirm_mode);
        let model = RwSignal::new(model);
        let switches_key = StoredValue::new(llm_switches::storage_key(
            &active.backend.id,
            active.org_id.as_deref(),
            &conv.id,
        ));
        let switches = RwSignal::new(
            llm_switches::load(&WebStorage::local(), &switches_key.get_value()).unwrap_or_default(),
        );
        let go = use_go();
        let action = Action::new_local(move |op: &ToolOp| {
            let (op, active, conv, go) = (op.clone(), active.clone(), conv.clone(), go.clone());
            let title = title.get_untracked();
            notice.set(Some(Notice::Busy(op.busy_text())));
            async move {
                let done = match op {
                    ToolOp::Export(format) => svc::export(backends, &active, &conv, &title, format)
                        .await
                        .map(|name| Notice::Done(format!("Saved {name}"))),
                    ToolOp::Trajectory => svc::trajectory(backends, &active, &conv, &title)
                        .await
                        .map(|name| Notice::Done(format!("Saved {name}"))),
                    ToolOp::Fork => match svc::fork(backends, &active, &conv, &title).await {
                        Ok(href) => {
                            go(&href, false);
                            Ok(Notice::Done("Opened the fork.".into()))
                        }
                        Err(e) => Err(e),
                    },
                    ToolOp::Condense => svc::condense(backends, &active, &conv).await.map(|()| {
                        Notice::Done("The server condenses the history (a card shows it).".into())
                    }),
                    ToolOp::SwitchProfile(name) => {
                        match svc::switch_profile(backends, &active, &conv, &name).await {
                            Ok(now) => {
                                let switch = LlmSwitch {
                                    after: rows
                                        .with_untracked(|r| r.last().map(|r| r.item.key.clone())),
                                    profile: name.clone(),
                                    model: now.clone(),
                                };
                                model.try_set(now.or_else(|| model.get_untracked()));
                                let kept = llm_switches::record(
                                    &WebStorage::local(),
                                    &switches_key.get_value(),
                                    switch.clone(),
                                );
                                switches.try_update(|l| match kept {
                                    Ok(all) => *l = all,
                                    Err(_) => l.push(switch),
                                });
                                Ok(Notice::Done(format!(
                                    "Now on LLM profile “{name}” (from the next step on)."
                                )))
                            }
                            Err(e) => Err(e),
                        }
                    }
                    ToolOp::Ask(question) => svc::ask(backends, &active, &conv, &question)
                        .await
                        .map(|answer| Notice::Answer { question, answer }),
                    ToolOp::ConfirmMode(ask) => {
                        match svc::confirmation_mode(backends, &active, &conv, ask).await {
                            Ok(()) => {
                                confirm_mode.try_set(Some(ask));
                                Ok(Notice::Done(
                                    if ask {
                                        "The agent now asks before each action."
                                    } else {
                                        "The agent now runs actions without asking."
                                    }
                                    .into(),
                                ))
                            }
                            Err(e) => Err(e),
                        }
                    }
                };
                notice.try_set(Some(done.unwrap_or_else(Notice::Failed)));
            }
        });
        Self {
            action,
            notice,
            confirm_mode,
            model,
            switches,
        }
    }

    /// Runs `op` (one at a time: ignored while another runs).
    pub fn run(&self, op: ToolOp) {
        if !self.action.pending().get_untracked() {
            self.action.dispatch(op);
        }
    }

    /// An operation is running.
    pub fn busy(&self) -> Signal<bool> {
        self.action.pending().into()
    }
}

/// What the tools said last: progress, a result, an error, or the agent's answer.
#[component]
pub fn ToolsNotice(tools: ConversationTools) -> impl IntoView {
    let notice = tools.notice;
    let dismiss = move |_| notice.set(None);
    move || {
        notice.get().map(|n| match n {
            Notice::Busy(t) => view! {
                <p class="tools-notice muted" data-testid="tools-status" data-state="busy" role="status">{t}</p>
            }
            .into_any(),
            Notice::Done(t) => view! {
                <p class="tools-notice" data-testid="tools-status" data-state="done" role="status">
                    {t} " " <button type="button" class="btn small" on:click=dismiss>"OK"</button>
                </p>
            }
            .into_any(),
            Notice::Failed(t) => view! {
                <p class="tools-notice error-text" data-testid="tools-status" data-state="failed" role="alert">
                    {t} " " <button type="button" class="btn small" on:click=dismiss>"Dismiss"</button>
                </p>
            }
            .into_any(),
            Notice::Answer { question, answer } => view! {
                <div class="ask-answer" data-testid="ask-answer" role="status">
                    <p class="muted">"You asked (the agent was not interrupted): " <q>{question}</q></p>
                    <div class="ask-answer-text" data-testid="ask-answer-text">
                        <crate::components::chat::markdown::Markdown text=answer />
                    </div>
                    <button type="button" class="btn small" on:click=dismiss>"Close"</button>
                </div>
            }
            .into_any(),
        })
    }
}

/// The header's `⋯` menu of the conversation's tools.
#[component]
pub fn ToolsMenu(tools: ConversationTools) -> impl IntoView {
    let open = RwSignal::new(false);
    let button = NodeRef::<html::Button>::new();
    let list = NodeRef::<html::Div>::new();
    Effect::new(move |_| {
        if let Some(m) = list.get() {
            menu::focus_item(&m, 0);
        }
    });
    let close = move |refocus: bool| {
        open.set(false);
        if refocus {
            if let Some(b) = button.get_untracked() {
                let _ = b.focus();
            }
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if let Some(m) = list.get_untracked() {
            menu::on_menu_key(&ev, &m, close);
        }
    };
    let on_focus_out = move |ev: web_sys::FocusEvent| {
        let within = [
            list.get_untracked().map(Into::into),
            button.get_untracked().map(Into::into),
        ];
        if !menu::focus_stays(ev.related_target(), &within) {
            open.set(false);
        }
    };
    let busy = tools.busy();
    let item = move |testid: &'static str, label: &'static str, op: ToolOp| {
        view! {
            <button type="button" role="menuitem" tabindex="-1" data-testid=testid
                disabled=move || busy.get()
                on:click=move |_| {
                    close(true);
                    tools.run(op.clone());
                }>{label}</button>
        }
    };
    view! {
        <span class="tools-menu" on:focusout=on_focus_out>
            <button type="button" class="btn small" data-testid="conversation-menu" node_ref=button
                aria-haspopup="menu" aria-expanded=move || open.get().to_string()
                aria-label="Conversation actions" title="Export, fork, condense…"
                on:click=move |_| open.update(|o| *o = !*o)>"⋯"</button>
            <Show when=move || open.get()>
                <div class="side-menu tools-menu-list" role="menu" data-testid="conversation-menu-list"
                    aria-label="Conversation actions" node_ref=list on:keydown=on_key>
                    {item("conv-export-md", "Export as Markdown", ToolOp::Export(ExportFormat::Markdown))}
                    {item("conv-export-json", "Export as JSON", ToolOp::Export(ExportFormat::Json))}
                    {item("conv-trajectory", "Download trajectory (.zip)", ToolOp::Trajectory)}
                    {item("conv-fork", "Fork", ToolOp::Fork)}
                    {item("conv-condense", "Condense history", ToolOp::Condense)}
                </div>
            </Show>
        </span>
    }
}
