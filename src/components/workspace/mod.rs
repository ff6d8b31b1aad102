//! The workspace panel beside a conversation: tabs Terminal, Files, Changes (issue #7) and
//! Planner (the working directory's `PLAN.md`), Tasks (the agent's task list) and Browser (the
//! last page its browser saw), issue #36. Each
//! tab keeps its state per conversation (`state::workspace`); the panel is resizable (drag the
//! handle, or focus it and use ←/→) and collapsible. All rules live in `canvas_core::workspace`.

mod browser;
mod changes;
mod files;
mod planner;
mod shell;
mod tasks;
mod terminal;

use crate::components::icon::{icons, Icon};
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::workspace::{use_workspace, ConvWorkspace, Tab, MAX_WIDTH, MIN_WIDTH};
use canvas_core::transport::routing::ConversationRef;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// What every tab gets: the conversation, its working directory and its panel state.
#[derive(Clone)]
pub(crate) struct PanelProps {
    pub conv: ConversationRef,
    /// Absolute working directory (local backends), `None` when unknown (cloud: workspace).
    pub root: Option<String>,
    pub ws: ConvWorkspace,
}

/// An error shown in place (never a blank panel).
#[component]
pub(crate) fn InlineError(
    #[prop(into)] message: String,
    #[prop(optional, into)] testid: Option<String>,
) -> impl IntoView {
    view! {
        <div class="ws-error" role="alert" data-testid=testid.unwrap_or_else(|| "workspace-error".into())>
            {message}
        </div>
    }
}

#[component]
pub fn WorkspacePanel(
    /// The conversation (`None` while it loads).
    #[prop(into)]
    conversation: Signal<Option<ConversationRef>>,
    /// Its working directory, when known (local backends).
    #[prop(into)]
    working_dir: Signal<Option<String>>,
) -> impl IntoView {
    let backends = use_backends();
    let store = use_workspace();
    let width = store.width;
    let collapsed = store.collapsed;

    let body = move || {
        let Some(conv) = conversation.get() else {
            return view! { <p class="ws-muted" data-testid="workspace-loading">{t!("workspace.loading")}</p> }
                .into_any();
        };
        let ws = backends
            .active
            .with(|a| use_workspace().for_conversation(a, &conv.id));
        let root = working_dir.get();
        view! { <PanelBody props=PanelProps { conv, root, ws } /> }.into_any()
    };

    // Resizing: pointer drag on the handle, or ←/→ while it has focus.
    let dragging = RwSignal::new(None::<(i32, u32)>);
    let on_move = window_event_listener(leptos::ev::pointermove, move |ev| {
        if let Some((x0, w0)) = dragging.get_untracked() {
            // The panel sits on the right: dragging left makes it wider.
            let w = (w0 as i32 + (x0 - ev.client_x())).clamp(MIN_WIDTH as i32, MAX_WIDTH as i32);
            width.set(w as u32);
        }
    });
    let on_up = window_event_listener(leptos::ev::pointerup, move |_| dragging.set(None));
    on_cleanup(move || {
        on_move.remove();
        on_up.remove();
    });

    view! {
        <aside
            class="workspace-panel"
            class:collapsed=move || collapsed.get()
            data-testid="workspace-panel"
            aria-label=t!("workspace.title")
            style:width=move || if collapsed.get() { None } else { Some(format!("{}px", width.get())) }
        >
            <div
                class="ws-resize"
                role="separator"
                aria-orientation="vertical"
                aria-label=t!("workspace.resize")
                aria-valuemin=MIN_WIDTH
                aria-valuemax=MAX_WIDTH
                aria-valuenow=move || width.get()
                tabindex="0"
                data-testid="workspace-resize"
                hidden=move || collapsed.get()
                on:pointerdown=move |ev: leptos::ev::PointerEvent| {
                    ev.prevent_default();
                    dragging.set(Some((ev.client_x(), width.get_untracked())));
                }
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    let step = if ev.shift_key() { 80 } else { 20 };
                    let w = width.get_untracked();
                    let next = match ev.key().as_str() {
                        "ArrowLeft" => w.saturating_add(step),
                        "ArrowRight" => w.saturating_sub(step),
                        "Home" => MIN_WIDTH,
                        "End" => MAX_WIDTH,
                        _ => return,
                    };
                    ev.prevent_default();
                    width.set(next.clamp(MIN_WIDTH, MAX_WIDTH));
                }
            ></div>
            <div class="ws-inner">
                <button
                    class="btn ws-collapse"
                    data-testid="workspace-collapse"
                    aria-expanded=move || (!collapsed.get()).to_string()
                    aria-label=move || if collapsed.get() { t!("workspace.show_panel") } else { t!("workspace.hide_panel") }
                    on:click=move |_| collapsed.update(|c| *c = !*c)
                >
                    {move || if collapsed.get() {
                        view! { <Icon icon=icons::PANEL_SHOW />{t!("workspace.title")} }.into_any()
                    } else {
                        view! { <Icon icon=icons::PANEL_HIDE />{t!("workspace.hide")} }.into_any()
                    }}
                </button>
                <div class="ws-content" hidden=move || collapsed.get()>
                    {body}
                </div>
            </div>
        </aside>
    }
}

/// A tab's name in the page's language.
fn tab_label(tab: Tab) -> String {
    match tab {
        Tab::Terminal => t!("workspace.tab.terminal"),
        Tab::Files => t!("workspace.tab.files"),
        Tab::Changes => t!("workspace.tab.changes"),
        Tab::Planner => t!("workspace.tab.planner"),
        Tab::Tasks => t!("workspace.tab.tasks"),
        Tab::Browser => t!("workspace.tab.browser"),
    }
}

#[component]
fn PanelBody(props: PanelProps) -> impl IntoView {
    let tab = props.ws.tab;
    let tab_id = |t: Tab| format!("ws-tab-{}", t.slug());
    let panel_id = |t: Tab| format!("ws-panel-{}", t.slug());
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let i = Tab::ALL
            .iter()
            .position(|t| *t == tab.get_untracked())
            .unwrap_or(0);
        let n = Tab::ALL.len();
        let next = match ev.key().as_str() {
            "ArrowRight" => (i + 1) % n,
            "ArrowLeft" => (i + n - 1) % n,
            "Home" => 0,
            "End" => n - 1,
            _ => return,
        };
        ev.prevent_default();
        tab.set(Tab::ALL[next]);
        if let Some(el) = document().get_element_by_id(&tab_id(Tab::ALL[next])) {
            if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
        }
    };
    let tabs = Tab::ALL
        .into_iter()
        .map(|t| {
            view! {
                <button
                    role="tab"
                    class="ws-tab"
                    id=tab_id(t)
                    data-testid=format!("ws-tab-{}", t.slug())
                    aria-selected=move || (tab.get() == t).to_string()
                    aria-controls=panel_id(t)
                    tabindex=move || if tab.get() == t { "0" } else { "-1" }
                    on:click=move |_| tab.set(t)
                >
                    {tab_label(t)}
                </button>
            }
        })
        .collect_view();
    let p1 = props.clone();
    let p2 = props.clone();
    let p3 = props.clone();
    let p4 = props.clone();
    let p5 = props.clone();
    let p6 = props;
    view! {
        <div class="ws-tabs" role="tablist" aria-label=t!("workspace.tabs") on:keydown=on_key>
            {tabs}
        </div>
        // Each tab is mounted only while selected; its state lives in the store.
        <div class="ws-tabpanel" role="tabpanel" id=move || panel_id(tab.get()) aria-labelledby=move || tab_id(tab.get())>
            {move || match tab.get() {
                Tab::Terminal => view! { <terminal::TerminalTab props=p1.clone() /> }.into_any(),
                Tab::Files => view! { <files::FilesTab props=p2.clone() /> }.into_any(),
                Tab::Changes => view! { <changes::ChangesTab props=p3.clone() /> }.into_any(),
                Tab::Planner => view! { <planner::PlannerTab props=p4.clone() /> }.into_any(),
                Tab::Tasks => view! { <tasks::TasksTab props=p5.clone() /> }.into_any(),
                Tab::Browser => view! { <browser::BrowserTab props=p6.clone() /> }.into_any(),
            }}
        </div>
    }
}
