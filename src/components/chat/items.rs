//! One timeline card per `ViewItem` (derived by `canvas_core::conversations::live::events::Timeline`). Agent text is
//! rendered through the safe Markdown renderer; everything else as text.

use super::images::MessageImages;
use super::markdown::Markdown;
use super::tools::{ConversationTools, ToolOp};
use crate::state::i18n::{t, tn};
use canvas_core::conversations::live::events::{EditDiff, ItemKind, ViewItem};
use leptos::prelude::*;

fn kind_name(k: &ItemKind) -> &'static str {
    match k {
        ItemKind::UserMessage { .. } => "user",
        ItemKind::AgentMessage { .. } => "agent",
        ItemKind::Thought { .. } => "thought",
        ItemKind::Terminal { .. } => "terminal",
        ItemKind::FileEdit { .. } => "file-edit",
        ItemKind::ToolCall { .. } => "tool",
        ItemKind::Finish { .. } => "finish",
        ItemKind::Error { .. } => "error",
        ItemKind::Rejected { .. } => "rejected",
        ItemKind::Paused => "paused",
        ItemKind::ModelSwitched(_) => "model-switched",
        ItemKind::Goal(_) => "goal",
        ItemKind::Condensation { .. } => "condensation",
        ItemKind::Generic { .. } => "generic",
    }
}

/// A message's "Branch from here" (issue #36): a new conversation with the history up to and
/// including this event, opened pinned to this backend. Only where the page runs the tools
/// (events with an id).
fn branch_here(event_id: &str) -> Option<impl IntoView> {
    let tools = use_context::<ConversationTools>().filter(|t| t.branches)?;
    let id = (!event_id.is_empty()).then(|| event_id.to_string())?;
    let busy = tools.busy();
    Some(view! {
        <button type="button" class="msg-action" data-testid="branch-here"
            title=t!("chat.items.branch_here_hint")
            disabled=move || busy.get()
            on:click=move |_| tools.run(ToolOp::Branch(id.clone()))>
            {t!("chat.items.branch_here")}
        </button>
    })
}

#[component]
pub fn TimelineItem(item: ViewItem) -> impl IntoView {
    let kind = kind_name(&item.kind);
    let branch = matches!(
        item.kind,
        ItemKind::UserMessage { .. }
            | ItemKind::AgentMessage {
                streaming: false,
                ..
            }
    )
    .then(|| branch_here(&item.id))
    .flatten();
    let body = match item.kind {
        ItemKind::UserMessage { text, images } => view! {
            {(!images.is_empty()).then(|| view! { <MessageImages images=images /> })}
            <div class="bubble user-bubble" data-testid="user-message">{text}</div>
        }
        .into_any(),
        ItemKind::AgentMessage { text, streaming } => view! {
            <div class="bubble agent-bubble" data-testid="agent-message" class:streaming=streaming>
                <Markdown text=text />
            </div>
        }
        .into_any(),
        ItemKind::Thought { text } => view! {
            <details class="card thought" open=true>
                <summary>{t!("chat.items.thought")}</summary>
                <Markdown text=text />
            </details>
        }
        .into_any(),
        ItemKind::Terminal {
            command,
            output,
            exit_code,
            running,
        } => terminal_card(command, output, exit_code, running),
        ItemKind::FileEdit {
            path,
            command,
            summary,
            diff,
            output,
            is_error,
            running,
        } => file_edit_card(path, command, summary, diff, output, is_error, running),
        ItemKind::ToolCall {
            tool,
            summary,
            output,
            is_error,
            running,
            images,
        } => tool_card(tool, summary, output, is_error, running, images),
        ItemKind::Finish { message } => view! {
            <div class="card finish" data-testid="finish-message">
                <div class="card-head"><span class="card-title">{t!("chat.items.finished")}</span></div>
                <Markdown text=message />
            </div>
        }
        .into_any(),
        ItemKind::Error { title, detail } => view! {
            <div class="card error-card" role="alert" data-testid="error-item">
                <div class="card-head"><span class="card-title">{crate::state::i18n::say(title.text())}</span></div>
                <pre class="output">{detail}</pre>
            </div>
        }
        .into_any(),
        ItemKind::Rejected { reason, .. } => view! {
            <div class="card rejected"><span class="card-title">{t!("chat.items.rejected")}</span>" "{crate::state::i18n::say(reason.text())}</div>
        }
        .into_any(),
        ItemKind::Paused => view! { <div class="divider">{t!("chat.items.paused")}</div> }.into_any(),
        ItemKind::ModelSwitched(model) => view! {
            <div class="divider" data-testid="model-switched" data-model=model.clone().unwrap_or_default()>
                {match model.clone() {
                    Some(m) => t!("chat.items.model_switched", model = m),
                    None => t!("chat.items.model_default"),
                }}
            </div>
        }.into_any(),
        ItemKind::Goal(goal) => view! {
            <div class="divider goal-mark" data-testid="goal-update" data-goal-status=goal.status.token().to_string()
                data-goal-round=goal.iteration.to_string()>
                {crate::state::i18n::say(&goal.text())}
            </div>
        }
        .into_any(),
        ItemKind::Condensation { summary, forgotten } => view! {
            <details class="card condensation">
                <summary>{tn!("chat.items.condensed", forgotten)}</summary>
                {summary.map(|s| view! { <Markdown text=s /> })}
            </details>
        }
        .into_any(),
        ItemKind::Generic {
            kind,
            summary,
            json,
        } => {
            let pretty = serde_json::to_string_pretty(&json).unwrap_or_default();
            view! {
                <details class="card generic" data-testid="generic-item">
                    <summary>
                        <span class="card-title">{if kind.is_empty() { t!("chat.items.event") } else { kind }}</span>
                        " "<span class="muted">{crate::state::i18n::say(summary.text())}</span>
                    </summary>
                    <pre class="output">{pretty}</pre>
                </details>
            }
            .into_any()
        }
    };
    // In a group of actions (issue #36): the first row carries the group's header; while the
    // group is closed the others are hidden and the first shows only the header.
    let folds = use_context::<super::folds::Folds>();
    let place = folds.map(|f| (f, super::folds::membership(f, item.key.clone())));
    let folded = move || {
        place.is_some_and(|(f, m)| m.with(|m| m.as_ref().is_some_and(|(g, _)| !f.is_open(g))))
    };
    let first =
        move || place.is_some_and(|(_, m)| m.with(|m| m.as_ref().is_some_and(|(_, first)| *first)));
    let header = move || {
        place.and_then(|(f, m)| {
            m.get()
                .filter(|(_, first)| *first)
                .map(|(g, _)| super::folds::group_header(f, g))
        })
    };
    view! {
        <li class="timeline-item" data-testid="timeline-item" data-key=item.key data-event-id=item.id data-kind=kind
            class:folded=folded class:group-first=first>
            {header}
            {body}
            {branch}
        </li>
    }
}

/// A terminal command: the command line, its output and exit code.
fn terminal_card(
    command: String,
    output: Option<String>,
    exit_code: Option<i64>,
    running: bool,
) -> AnyView {
    let exit = exit_code.map(|c| {
        view! {
            <span class="exit-code" class:bad=c != 0 data-testid="exit-code">
                {t!("chat.items.exit", code = c)}
            </span>
        }
    });
    view! {
        <div class="card terminal" data-testid="terminal-action">
            <div class="card-head">
                <span class="card-title">{t!("chat.items.terminal")}</span>
                {running.then(|| view! { <span class="spinner" aria-label=t!("chat.items.running_label")>{t!("chat.items.running")}</span> })}
                {exit}
            </div>
            <pre class="command" data-testid="terminal-command"><code>{format!("$ {command}")}</code></pre>
            {output.map(|o| view! { <pre class="output" data-testid="terminal-output">{o}</pre> })}
        </div>
    }
    .into_any()
}

/// A file edit or view: the command and path, the server's summary, the diff, the output.
fn file_edit_card(
    path: String,
    command: String,
    summary: Option<String>,
    diff: Option<EditDiff>,
    output: Option<String>,
    is_error: bool,
    running: bool,
) -> AnyView {
    view! {
        <details class="card file-edit" class:is-error=is_error data-testid="file-edit">
            <summary>
                <span class="card-title">{format!("{command} {path}")}</span>
                {running.then(|| view! { <span class="spinner">{t!("chat.items.running")}</span> })}
            </summary>
            {summary.map(|s| view! { <p class="muted">{s}</p> })}
            {diff.map(|d| view! {
                <div class="diff">
                    {(!d.old.is_empty()).then(|| view! { <pre class="diff-old">{d.old}</pre> })}
                    <pre class="diff-new">{d.new}</pre>
                </div>
            })}
            {output.map(|o| view! { <pre class="output">{o}</pre> })}
        </details>
    }
    .into_any()
}

/// Any other tool call: its summary and output, and its images (then it opens by itself).
fn tool_card(
    tool: canvas_core::i18n::Words,
    summary: String,
    output: Option<String>,
    is_error: bool,
    running: bool,
    images: Vec<String>,
) -> AnyView {
    let shown = !images.is_empty();
    view! {
        <details class="card tool" class:is-error=is_error open=shown>
            <summary>
                <span class="card-title">{crate::state::i18n::say(tool.text())}</span>" "<span class="muted">{summary}</span>
                {running.then(|| view! { <span class="spinner">{t!("chat.items.running")}</span> })}
            </summary>
            {output.map(|o| view! { <pre class="output">{o}</pre> })}
            {shown.then(|| view! { <MessageImages images=images /> })}
        </details>
    }
    .into_any()
}
