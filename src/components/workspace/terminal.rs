//! Terminal tab: run commands in the conversation's working directory (streamed by paging the
//! command's outputs; stoppable), history ↑/↓, exit codes, a timeout; and a read-only view of
//! the agent's own terminal actions.

use super::{InlineError, PanelProps};
use crate::state::api::client;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::workspace::{ConvWorkspace, Run};
use canvas_core::api::dto::BashRequest;
use canvas_core::api::routing::ConversationRef;
use canvas_core::api::view::EventQuery;
use canvas_core::errors::ApiError;
use canvas_core::events::Timeline;
use canvas_core::workspace::terminal::{agent_commands, exit_label, parse_timeout, CommandOutput};
use futures::future::{select, Either};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::time::Duration;

const POLL: Duration = Duration::from_millis(300);

async fn sleep(d: Duration) {
    gloo_timers::future::sleep(d).await;
}

fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// Starts `command` and follows it to the end (or until stopped / abandoned).
fn start(backends: BackendsCtx, conv: ConversationRef, root: Option<String>, ws: ConvWorkspace) {
    let command = ws.input.get_untracked();
    if command.trim().is_empty() {
        return;
    }
    let seq = ws.next_seq.get_value();
    ws.next_seq.set_value(seq + 1);
    let timeout = parse_timeout(&ws.timeout.get_untracked());
    ws.history.update_value(|h| h.push(&command));
    ws.input.set(String::new());
    let mut run = Run {
        seq,
        command: command.clone(),
        output: CommandOutput::default(),
        running: true,
        command_id: None,
        note: None,
    };
    let timeout = match timeout {
        Ok(t) => t,
        Err(e) => {
            run.running = false;
            run.note = Some(e);
            ws.runs.update(|r| r.push(run));
            return;
        }
    };
    ws.runs.update(|r| r.push(run));
    spawn_local(async move {
        let active = backends.active.get_untracked();
        let c = client(backends, &active);
        let req = BashRequest {
            command,
            cwd: root,
            timeout_seconds: Some(timeout),
        };
        let started = match c.api.start_bash(Some(&conv), &req) {
            Ok(call) => call.send(&c.transport).await,
            Err(e) => Err(e),
        };
        let id = match started {
            Ok(cmd) if !cmd.id.is_empty() => cmd.id,
            Ok(_) | Err(ApiError::NotFound) | Err(ApiError::Server { status: 405, .. }) => {
                // No streaming on this server: wait for the final answer (stop = stop waiting).
                ws.update_run(seq, |r| {
                    r.note = Some(
                        "This server cannot stream or stop commands: Stop only stops waiting."
                            .into(),
                    )
                });
                let exec = async {
                    match c.api.execute_bash(Some(&conv), &req) {
                        Ok(call) => call.send(&c.transport).await,
                        Err(e) => Err(e),
                    }
                };
                let abandoned = async {
                    while !ws.abandoned.with_value(|a| a.contains(&seq)) {
                        sleep(POLL).await;
                    }
                };
                let done = select(Box::pin(exec), Box::pin(abandoned)).await;
                ws.update_run(seq, |r| {
                    r.running = false;
                    match done {
                        Either::Left((Ok(res), _)) => {
                            let mut res = res;
                            if res.exit_code.is_none() {
                                res.exit_code = Some(-1);
                            }
                            r.output.apply(&res);
                            r.note = None;
                        }
                        Either::Left((Err(e), _)) => r.note = Some(e.user_message()),
                        Either::Right(_) => {
                            r.note = Some("Stopped waiting for this command.".into())
                        }
                    }
                });
                return;
            }
            Err(e) => {
                ws.update_run(seq, |r| {
                    r.running = false;
                    r.note = Some(e.user_message());
                });
                return;
            }
        };
        ws.update_run(seq, |r| r.command_id = Some(id.clone()));
        // Follow the outputs until the exit code arrives.
        let deadline = now_ms() + (f64::from(timeout) + 15.0) * 1000.0;
        let mut failures = 0;
        loop {
            if ws.abandoned.with_value(|a| a.contains(&seq)) {
                ws.update_run(seq, |r| {
                    r.running = false;
                    r.note = Some("Stopped waiting for this command.".into());
                });
                return;
            }
            sleep(POLL).await;
            let after = ws.runs.with_untracked(|runs| {
                runs.iter()
                    .find(|r| r.seq == seq)
                    .and_then(|r| r.output.last_order())
            });
            let page = match c.api.bash_outputs(Some(&conv), &id, after) {
                Ok(call) => call.send(&c.transport).await,
                Err(e) => Err(e),
            };
            match page {
                Ok(page) => {
                    failures = 0;
                    let mut finished = false;
                    ws.update_run(seq, |r| {
                        r.output.apply_events(page.items.iter().map(|e| e.json()));
                        if r.output.done() {
                            r.running = false;
                            finished = true;
                        }
                    });
                    if finished {
                        return;
                    }
                }
                Err(e) => {
                    failures += 1;
                    if failures >= 3 {
                        ws.update_run(seq, |r| {
                            r.running = false;
                            r.note = Some(e.user_message());
                        });
                        return;
                    }
                }
            }
            if now_ms() > deadline {
                ws.update_run(seq, |r| {
                    r.running = false;
                    r.note = Some("No exit code within the timeout: stopped waiting.".into());
                });
                return;
            }
        }
    });
}

/// Stops a running command (the server kills it; without a command id we only stop waiting).
fn stop(backends: BackendsCtx, conv: ConversationRef, ws: ConvWorkspace, seq: u64) {
    let id = ws.runs.with_untracked(|runs| {
        runs.iter()
            .find(|r| r.seq == seq)
            .and_then(|r| r.command_id.clone())
    });
    let Some(id) = id else {
        ws.abandoned.update_value(|a| {
            a.insert(seq);
        });
        return;
    };
    spawn_local(async move {
        let active = backends.active.get_untracked();
        let c = client(backends, &active);
        let res = match c.api.stop_bash(Some(&conv), &id) {
            Ok(call) => call.send(&c.transport).await,
            Err(e) => Err(e),
        };
        if let Err(e) = res {
            ws.abandoned.update_value(|a| {
                a.insert(seq);
            });
            ws.update_run(seq, |r| {
                r.note = Some(format!("Could not stop: {}", e.user_message()))
            });
        }
    });
}

#[component]
pub(crate) fn TerminalTab(props: PanelProps) -> impl IntoView {
    let backends = use_backends();
    let PanelProps { conv, root, ws } = props;
    let (c1, c2, r1) = (conv.clone(), conv.clone(), root.clone());
    let timeout_error = Memo::new(move |_| parse_timeout(&ws.timeout.get()).err());
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
    let cwd_label = root.clone().unwrap_or_else(|| "the workspace".into());
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
                    (false, None) => "no exit code".to_string(),
                    (running, exit) => exit_label(if running { None } else { exit }),
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
                                    aria-label="Stop this command"
                                    on:click=move |_| stop(backends, c.clone(), ws, seq)>"Stop"</button>
                            })}
                        </div>
                        <pre class="ws-output" data-testid="terminal-output">{stdout}</pre>
                        {(!stderr.is_empty()).then(|| view! {
                            <pre class="ws-output ws-stderr" data-testid="terminal-stderr">{stderr}</pre>
                        })}
                        {r.note.clone().map(|n| view! { <p class="ws-note" data-testid="terminal-note">{n}</p> })}
                    </li>
                }
            })
            .collect_view()
    };
    view! {
        <div class="ws-terminal" data-testid="terminal-tab">
            <form class="ws-term-form" on:submit=submit>
                <label class="ws-sr" for="ws-term-input">"Command"</label>
                <input
                    id="ws-term-input"
                    class="ws-term-input"
                    data-testid="terminal-input"
                    autocomplete="off"
                    spellcheck="false"
                    placeholder=format!("Run a command in {cwd_label}")
                    prop:value=move || ws.input.get()
                    on:input=move |ev| ws.input.set(event_target_value(&ev))
                    on:keydown=on_key
                />
                <label class="ws-timeout">
                    "Timeout (s)"
                    <input
                        class="ws-timeout-input"
                        data-testid="terminal-timeout"
                        inputmode="numeric"
                        aria-invalid=move || timeout_error.get().is_some().to_string()
                        prop:value=move || ws.timeout.get()
                        on:input=move |ev| ws.timeout.set(event_target_value(&ev))
                    />
                </label>
                <button class="btn primary" type="submit" data-testid="terminal-run-button">"Run"</button>
            </form>
            {move || timeout_error.get().map(|e| view! { <InlineError message=e testid="terminal-timeout-error" /> })}
            <ol class="ws-runs" aria-live="polite">{runs}</ol>
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
            let c = client(backends, &active);
            let page = c
                .api
                .search_events(&conv, &EventQuery::newest(100))?
                .send(&c.transport)
                .await?;
            let mut t = Timeline::new();
            t.apply_page(page.items.into_iter().map(|e| e.0));
            Ok::<_, ApiError>(agent_commands(t.items()))
        }
    });
    view! {
        <details class="ws-agent" data-testid="agent-commands" on:toggle=move |ev| {
            let el: web_sys::HtmlDetailsElement = event_target(&ev);
            open.set(el.open());
        }>
            <summary>"The agent's commands"</summary>
            <button class="btn small" on:click=move |_| events.refetch() aria-label="Refresh the agent's commands">"Refresh"</button>
            <Transition fallback=|| view! { <p class="ws-muted">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match events.await {
                        Ok(list) if list.is_empty() => view! { <p class="ws-muted">"The agent has not run any command yet."</p> }.into_any(),
                        Ok(list) => view! {
                            <ol class="ws-runs">
                                {list.into_iter().rev().map(|c| view! {
                                    <li class="ws-run" data-testid="agent-command">
                                        <div class="ws-run-head">
                                            <code class="ws-run-cmd">"$ " {c.command}</code>
                                            <span class="ws-exit">{exit_label(if c.running { None } else { c.exit_code })}</span>
                                        </div>
                                        {c.output.map(|o| view! { <pre class="ws-output">{o}</pre> })}
                                    </li>
                                }).collect_view()}
                            </ol>
                        }.into_any(),
                        Err(e) => view! { <InlineError message=e.user_message() /> }.into_any(),
                    }
                })}
            </Transition>
        </details>
    }
}
