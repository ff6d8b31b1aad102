//! The tools' views: what they said last, and the header's `⋯` menu.

use super::{ConversationTools, Notice, ToolOp};
use crate::components::menu;
use crate::state::i18n::{msg, t, Msg};
use canvas_core::conversations::chat::slash::ExportFormat;
use canvas_core::conversations::start::launch_options::AgentChoice;
use canvas_core::settings::agents::AgentSetup;

use leptos::prelude::*;

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
                    {t} " " <button type="button" class="btn small" on:click=dismiss>{t!("chat.tools.ok")}</button>
                </p>
            }
            .into_any(),
            Notice::Failed(t) => view! {
                <p class="tools-notice error-text" data-testid="tools-status" data-state="failed" role="alert">
                    {t} " " <button type="button" class="btn small" on:click=dismiss>{t!("chat.tools.dismiss")}</button>
                </p>
            }
            .into_any(),
            Notice::Answer { question, answer } => view! {
                <div class="ask-answer" data-testid="ask-answer" role="status">
                    <p class="muted">{t!("chat.tools.you_asked")}" " <q>{question}</q></p>
                    <div class="ask-answer-text" data-testid="ask-answer-text">
                        <crate::components::chat::markdown::Markdown text=answer />
                    </div>
                    <button type="button" class="btn small" on:click=dismiss>{t!("chat.tools.close")}</button>
                </div>
            }
            .into_any(),
            Notice::Setup(setup) => setup_view(setup, dismiss).into_any(),
            Notice::Agents(agents) => agents_view(tools, agents, dismiss).into_any(),
            Notice::GoalForm => view! { <crate::components::chat::goal::GoalForm tools=tools /> }.into_any(),
        })
    }
}

/// What the agent runs with: its tools, MCP servers and skills, and its system prompt folded.
fn setup_view(
    setup: AgentSetup,
    dismiss: impl Fn(leptos::ev::MouseEvent) + 'static,
) -> impl IntoView {
    let list = |names: Vec<String>| {
        if names.is_empty() {
            t!("chat.setup.none")
        } else {
            names.join(", ")
        }
    };
    let acp = setup.acp;
    view! {
        <div class="ask-answer agent-setup" data-testid="agent-setup" role="status">
            <p><strong>{t!("chat.setup.title")}</strong></p>
            {acp.then(|| view! { <p class="muted">{t!("chat.setup.acp")}</p> })}
            <dl class="agent-setup-list">
                <dt>{t!("chat.setup.tools")}</dt><dd class="mono" data-testid="setup-tools">{list(setup.tools)}</dd>
                <dt>{t!("chat.setup.mcp")}</dt><dd class="mono" data-testid="setup-mcp">{list(setup.mcp_servers)}</dd>
                <dt>{t!("chat.setup.skills")}</dt><dd class="mono" data-testid="setup-skills">{list(setup.skills)}</dd>
            </dl>
            {setup.policies.map(policies_view)}
            {setup.system_prompt.map(|p| view! {
                <details data-testid="setup-prompt">
                    <summary>{t!("chat.setup.prompt")}</summary>
                    <pre class="output">{p}</pre>
                </details>
            })}
            <button type="button" class="btn small" on:click=dismiss>{t!("chat.tools.close")}</button>
        </div>
    }
}

/// The policies that decide what the agent may do, read-only: each one's name, where it
/// comes from, what it does, and whether it is off.
fn policies_view(list: Vec<canvas_core::settings::agents::Policy>) -> impl IntoView {
    let empty = list.is_empty();
    view! {
        <section class="agent-policies" data-testid="setup-policies" aria-label=t!("chat.setup.policies")>
            <p><strong>{t!("chat.setup.policies")}</strong></p>
            {empty.then(|| view! { <p class="muted">{t!("chat.setup.no_policies")}</p> })}
            <ul class="agent-policy-list">
                {list.into_iter().map(|p| {
                    let name = p.name.clone().or(p.handler.clone()).unwrap_or_default();
                    let source = match p.source.as_deref() {
                        Some("session") => t!("chat.setup.policy_session"),
                        Some("admin") => t!("chat.setup.policy_server"),
                        Some("spec") => t!("chat.setup.policy_agent"),
                        _ => String::new(),
                    };
                    let off = p.enabled == Some(false);
                    let about = p.description.clone().or(p.handler.clone()).filter(|d| *d != name);
                    let shown = name.clone();
                    view! {
                        <li data-testid="setup-policy" data-name=name data-source=p.source.clone() data-enabled=(!off).to_string()>
                            <span class="mono">{shown}</span>
                            {(!source.is_empty()).then(|| view! { " " <span class="badge">{source}</span> })}
                            {off.then(|| view! { " " <span class="badge">{t!("chat.setup.policy_off")}</span> })}
                            {about.map(|a| view! { <br /><span class="muted mono">{a}</span> })}
                        </li>
                    }
                }).collect_view()}
            </ul>
        </section>
    }
}

/// The agent profiles a new conversation can start with; one opens the launcher with it and
/// the unsent message.
fn agents_view(
    tools: ConversationTools,
    agents: Vec<AgentChoice>,
    dismiss: impl Fn(leptos::ev::MouseEvent) + 'static,
) -> impl IntoView {
    let empty = agents.is_empty();
    view! {
        <div class="ask-answer" data-testid="other-agents" role="status">
            <p>{if empty { t!("chat.agents.none") } else { t!("chat.agents.intro") }}</p>
            <ul class="inline-actions">
                {agents.into_iter().map(|a| {
                    let label = t!("chat.agents.start_with", name = a.name.clone());
                    view! {
                        <li><button type="button" class="btn small" data-testid="start-with-agent" data-name=a.name.clone()
                            on:click=move |_| tools.run(ToolOp::StartWith(a.clone()))>{label}</button></li>
                    }
                }).collect_view()}
            </ul>
            <button type="button" class="btn small" on:click=dismiss>{t!("chat.tools.close")}</button>
        </div>
    }
}

/// The header's `⋯` menu of the conversation's tools.
#[component]
pub fn ToolsMenu(tools: ConversationTools) -> impl IntoView {
    let m = menu::MenuState::wired();
    let (open, button, list) = (m.open, m.button, m.list);
    let close = move |refocus: bool| m.close(refocus);
    let on_key = move |ev: web_sys::KeyboardEvent| m.on_key(&ev);
    let on_focus_out = move |ev: web_sys::FocusEvent| m.on_focus_out(&ev);
    let busy = tools.busy();
    let item = move |testid: &'static str, label: Msg, op: ToolOp| {
        view! {
            <button type="button" role="menuitem" tabindex="-1" data-testid=testid
                disabled=move || busy.get()
                on:click=move |_| {
                    close(true);
                    tools.run(op.clone());
                }>{label.text()}</button>
        }
    };
    view! {
        <span class="tools-menu" on:focusout=on_focus_out>
            <button type="button" class="btn small" data-testid="conversation-menu" node_ref=button
                aria-haspopup="menu" aria-expanded=move || open.get().to_string()
                aria-label=t!("chat.tools.menu_label") title=t!("chat.tools.menu_hint")
                on:click=move |_| open.update(|o| *o = !*o)>
                <crate::components::icon::Icon icon=crate::components::icon::icons::MORE />
            </button>
            <Show when=move || open.get()>
                <div class="side-menu tools-menu-list" role="menu" data-testid="conversation-menu-list"
                    aria-label=t!("chat.tools.menu_label") node_ref=list on:keydown=on_key>
                    {item("conv-export-md", msg!("chat.tools.export_md"), ToolOp::Export(ExportFormat::Markdown))}
                    {item("conv-export-json", msg!("chat.tools.export_json"), ToolOp::Export(ExportFormat::Json))}
                    {item("conv-trajectory", msg!("chat.tools.trajectory"), ToolOp::Trajectory)}
                    {item("conv-fork", msg!("chat.tools.fork"), ToolOp::Fork)}
                    {item("conv-setup", msg!("chat.tools.setup"), ToolOp::Setup)}
                    {item("conv-other-agent", msg!("chat.tools.other_agent"), ToolOp::OtherAgent)}
                    {item("conv-condense", msg!("chat.tools.condense"), ToolOp::Condense)}
                    {item("conv-goal", msg!("chat.tools.goal"), ToolOp::GoalForm)}
                </div>
            </Show>
        </span>
    }
}
