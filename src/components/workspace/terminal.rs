//! Terminal tab: run commands in the conversation's working directory (streamed by paging the
//! command's outputs; stoppable), history ↑/↓, exit codes, a timeout; an interactive shell where
//! the backend offers one (`shell`); and a read-only view of the agent's own terminal actions.

use super::{InlineError, PanelProps};
use crate::services::terminal::{agent_terminal, start, stop};
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::transport::routing::ConversationRef;
use canvas_core::workspace::terminal::{exit_text, parse_timeout_text};
use leptos::prelude::*;

#[component]
pub(crate) fn TerminalTab(props: PanelProps) -> impl IntoView {
    let backends = use_backends();
    let shells = props.clone();
    let PanelProps { conv, root, ws } = props;
    let (c1, c2, r1) = (conv.clone(), conv.clone(), root.clone());
    let timeout_error = Memo::new(move |_| {
        parse_timeout_text(&ws.timeout.get())
            .err()
            .map(|e| crate::state::i18n::say(&e))
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        start(backends, c1.clone(), r1.clone(), ws);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let next = match ev.key().as_str() {
            "ArrowUp" => {
                let current = ws.input.get_untracked();
                let mut out = None;
                ws.history.update_value(|h| out = h.up(&current));
                out
            }
            "ArrowDown" => {
                let mut out = None;
                ws.history.update_value(|h| out = h.down());
                out
            }
            _ => return,
        };
        if let Some(text) = next {
            ev.prevent_default();
            ws.input.set(text);
        }
    };
    let run_placeholder = match &root {
        Some(dir) => t!("workspace.terminal.placeholder_dir", dir = dir),
        None => t!("workspace.terminal.placeholder"),
    };
    let runs = move || {
        let c2 = c2.clone();
        ws.runs
            .get()
            .into_iter()
            .rev()
            .map(|r| {
                let seq = r.seq;
                let c = c2.clone();
                let exit = r.output.exit_code;
                let label = match (r.running, exit) {
                    (false, None) => t!("workspace.terminal.no_exit_code"),
                    (running, exit) => crate::state::i18n::say(&exit_text(if running { None } else { exit })),
                };
                let stdout = r.output.stdout();
                let stderr = r.output.stderr();
                view! {
                    <li class="ws-run" data-testid="terminal-run" data-running=r.running.to_string()>
                        <div class="ws-run-head">
                            <code class="ws-run-cmd" data-testid="terminal-command">"$ " {r.command.clone()}</code>
                            <span
                                class="ws-exit"
                                class:bad=exit.is_some_and(|c| c != 0)
                                data-testid="terminal-exit"
                                data-exit-code=exit.map(|c| c.to_string())
                            >{label}</span>
                            {r.running.then(|| view! {
                                <button class="btn small" data-testid="terminal-stop"
                                    aria-label=t!("workspace.terminal.stop_label")
                                    on:click=move |_| stop(backends, c.clone(), ws, seq)>{t!("workspace.terminal.stop")}</button>
                            })}
                        </div>
                        <pre class="ws-output" data-testid="terminal-output">{stdout}</pre>
                        {(!stderr.is_empty()).then(|| view! {
                            <pre class="ws-output ws-stderr" data-testid="terminal-stderr">{stderr}</pre>
                        })}
                        {r.note_text.as_ref().map(|n| view! { <p class="ws-note" data-testid="terminal-note">{crate::state::i18n::say(n)}</p> })}
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <div class="ws-terminal" data-testid="terminal-tab">
            <super::shell::Shells props=shells />
            // Commands through the runtime; hidden (kept as typed) while a shell is open.
            <div class="ws-commands" hidden=move || ws.shell.with(Option::is_some)>
            <form class="ws-term-form" on:submit=submit>
                <label class="ws-sr" for="ws-term-input">{t!("workspace.terminal.command")}</label>
                <input
                    id="ws-term-input"
                    class="ws-term-input"
                    data-testid="terminal-input"
                    autocomplete="off"
                    spellcheck="false"
                    placeholder=run_placeholder
                    prop:value=move || ws.input.get()
                    on:input=move |ev| ws.input.set(event_target_value(&ev))
                    on:keydown=on_key
                />
                <label class="ws-timeout">
                    {t!("workspace.terminal.timeout")}
                    <input
                        class="ws-timeout-input"
                        data-testid="terminal-timeout"
                        inputmode="numeric"
                        aria-invalid=move || timeout_error.get().is_some().to_string()
                        prop:value=move || ws.timeout.get()
                        on:input=move |ev| ws.timeout.set(event_target_value(&ev))
                    />
                </label>
                <button class="btn primary" type="submit" data-testid="terminal-run-button">{t!("workspace.terminal.run")}</button>
            </form>
            {move || timeout_error.get().map(|e| view! { <InlineError message=e testid="terminal-timeout-error" /> })}
            <ol class="ws-runs" aria-live="polite">{runs}</ol>
            </div>
            <AgentCommands conv=conv />
        </div>
    }
}

/// The agent's own terminal actions (read-only), from the conversation's recent events.
#[component]
fn AgentCommands(conv: ConversationRef) -> impl IntoView {
    let backends = use_backends();
    let open = RwSignal::new(false);
    let events = LocalResource::new(move || {
        let active = backends.active.get();
        let conv = conv.clone();
        let open = open.get();
        async move {
            if !open {
                return Ok(Vec::new());
            }
            agent_terminal(backends, &active, &conv).await
        }
    });
    view! {
        <details class="ws-agent" data-testid="agent-commands" on:toggle=move |ev| {
            let el: web_sys::HtmlDetailsElement = event_target(&ev);
            open.set(el.open());
        }>
            <summary>{t!("workspace.terminal.agent_commands")}</summary>
            <button class="btn small" on:click=move |_| events.refetch() aria-label=t!("workspace.terminal.refresh_agent_label")>{t!("workspace.refresh")}</button>
            <Transition fallback=|| view! { <p class="ws-muted">{t!("workspace.loading_short")}</p> }>
                {move || Suspend::new(async move {
                    match events.await {
                        Ok(list) if list.is_empty() => view! { <p class="ws-muted">{t!("workspace.terminal.agent_none")}</p> }.into_any(),
                        Ok(list) => view! {
                            <ol class="ws-runs">
                                {list.into_iter().rev().map(|c| view! {
                                    <li class="ws-run" data-testid="agent-command">
                                        <div class="ws-run-head">
                                            <code class="ws-run-cmd">"$ " {c.command}</code>
                                            <span class="ws-exit">{crate::state::i18n::say(&exit_text(if c.running { None } else { c.exit_code }))}</span>
                                        </div>
                                        {c.output.map(|o| view! { <pre class="ws-output">{o}</pre> })}
                                    </li>
                                }).collect_view()}
                            </ol>
                        }.into_any(),
                        Err(e) => view! { <InlineError message=e.said() /> }.into_any(),
                    }
                })}
            </Transition>
        </details>
    }
}
