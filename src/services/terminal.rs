//! The terminal runner: start a command in the conversation's runtime and follow its outputs
//! until the exit code (streamed by paging `bash_outputs`; stoppable), or — on a server that
//! cannot stream — wait for the final answer. Runs live in the per-conversation workspace store.

use crate::platform::time::sleep_ms;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use crate::state::workspace::{ConvWorkspace, Run};
use canvas_core::agent_server::dto::BashRequest;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::EventQuery;
use canvas_core::client::SendPlanned;
use canvas_core::conversations::events::Timeline;
use canvas_core::error::ApiError;
use canvas_core::transport::routing::ConversationRef;
use canvas_core::workspace::terminal::{
    agent_commands, parse_timeout, AgentCommand, CommandOutput,
};
use futures::future::{select, Either};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// How often a running command's outputs are fetched.
const POLL_MS: u32 = 300;

/// Starts `command` and follows it to the end (or until stopped / abandoned).
pub fn start(
    backends: BackendsCtx,
    conv: ConversationRef,
    root: Option<String>,
    ws: ConvWorkspace,
) {
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
        let started = c.api.start_bash(Some(&conv), &req).send(&c.transport).await;
        let id = match started {
            Ok(cmd) if !cmd.id.is_empty() => cmd.id,
            Ok(_)
            | Err(ApiError::NotFound | ApiError::Unsupported(_))
            | Err(ApiError::Server { status: 405, .. }) => {
                // No streaming on this server: wait for the final answer (stop = stop waiting).
                ws.update_run(seq, |r| {
                    r.note = Some(
                        "This server cannot stream or stop commands: Stop only stops waiting."
                            .into(),
                    )
                });
                let exec = c.api.execute_bash(Some(&conv), &req).send(&c.transport);
                let abandoned = async {
                    while !ws.abandoned.with_value(|a| a.contains(&seq)) {
                        sleep_ms(POLL_MS).await;
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
        let deadline = js_sys::Date::now() + (f64::from(timeout) + 15.0) * 1000.0;
        let mut failures = 0;
        loop {
            if ws.abandoned.with_value(|a| a.contains(&seq)) {
                ws.update_run(seq, |r| {
                    r.running = false;
                    r.note = Some("Stopped waiting for this command.".into());
                });
                return;
            }
            sleep_ms(POLL_MS).await;
            let after = ws.runs.with_untracked(|runs| {
                runs.iter()
                    .find(|r| r.seq == seq)
                    .and_then(|r| r.output.last_order())
            });
            let page = c
                .api
                .bash_outputs(Some(&conv), &id, after)
                .send(&c.transport)
                .await;
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
            if js_sys::Date::now() > deadline {
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
pub fn stop(backends: BackendsCtx, conv: ConversationRef, ws: ConvWorkspace, seq: u64) {
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
        let res = c.api.stop_bash(Some(&conv), &id).send(&c.transport).await;
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

/// The agent's own terminal actions, from the conversation's 100 newest events.
pub async fn agent_terminal(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
) -> Result<Vec<AgentCommand>, ApiError> {
    let c = client(backends, active);
    let page = c
        .api
        .search_events(conv, &EventQuery::newest(100))
        .send(&c.transport)
        .await?;
    let mut t = Timeline::new();
    t.apply_page(page.items.into_iter().map(|e| e.0));
    Ok(agent_commands(t.items()))
}
