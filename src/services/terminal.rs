//! The terminal runner: start a command in the conversation's runtime and follow its outputs
//! until the exit code (streamed by paging `bash_outputs`; stoppable), or — on a server that
//! cannot stream — wait for the final answer. Runs live in the per-conversation workspace store.

use crate::platform::time::sleep_ms;
use crate::state::api::client;
use crate::state::backends::BackendsCtx;
use crate::state::workspace::ConvWorkspace;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::unified::EventQuery;
use canvas_core::client::SendPlanned;
use canvas_core::conversations::live::events::Timeline;
use canvas_core::error::ApiError;
use canvas_core::transport::routing::ConversationRef;
use canvas_core::workspace::runner::{Effect, Input, Run, POLL_MS};
use canvas_core::workspace::terminal::{agent_commands, AgentCommand};
use futures::future::{select, Either};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Where one run's requests go: the backend active when it started, its conversation, and
/// the run in the panel's state. The rules are core's [`Run`] machine; this performs its
/// effects and feeds the answers back.
#[derive(Clone)]
struct Driver {
    backends: BackendsCtx,
    active: ActiveBackend,
    conv: ConversationRef,
    ws: ConvWorkspace,
    seq: u64,
}

impl Driver {
    fn step(&self, input: Input) {
        let mut effects = Vec::new();
        self.ws.update_run(self.seq, |r| effects = r.step(input));
        self.perform(effects);
    }

    fn running(&self) -> bool {
        self.ws
            .runs
            .try_with_untracked(|runs| runs.iter().any(|r| r.seq == self.seq && r.running))
            .unwrap_or(false)
    }

    fn perform(&self, effects: Vec<Effect>) {
        for effect in effects {
            let d = self.clone();
            spawn_local(async move {
                let c = client(d.backends, &d.active);
                let conv = Some(&d.conv);
                let input = match effect {
                    Effect::Start(req) => {
                        let answer = c.api.start_bash(conv, &req).send(&c.transport).await;
                        Input::Started {
                            answer,
                            now_ms: now_ms(),
                        }
                    }
                    Effect::Execute(req) => {
                        // Stop waiting (drop the request) once the run ended.
                        let exec = c.api.execute_bash(conv, &req).send(&c.transport);
                        let ended = async {
                            while d.running() {
                                sleep_ms(POLL_MS).await;
                            }
                        };
                        match select(Box::pin(exec), Box::pin(ended)).await {
                            Either::Left((answer, _)) => Input::Executed(answer),
                            Either::Right(_) => return,
                        }
                    }
                    Effect::Poll {
                        command_id,
                        after,
                        delay_ms,
                    } => {
                        sleep_ms(delay_ms).await;
                        let page = c
                            .api
                            .bash_outputs(conv, &command_id, after)
                            .send(&c.transport)
                            .await;
                        Input::Outputs {
                            answer: page.map(|p| p.items.into_iter().map(|e| e.0).collect()),
                            now_ms: now_ms(),
                        }
                    }
                    Effect::Stop { command_id } => {
                        match c.api.stop_bash(conv, &command_id).send(&c.transport).await {
                            Ok(_) => return,
                            Err(e) => Input::StopFailed(e),
                        }
                    }
                };
                d.step(input);
            });
        }
    }
}

fn now_ms() -> i64 {
    js_sys::Date::now() as i64
}

/// Starts the command typed in the terminal and follows it to the end (or until stopped).
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
    ws.history.update_value(|h| h.push(&command));
    ws.input.set(String::new());
    run(backends, conv, root, ws, command);
}

/// Runs `command` in the terminal (its output shows there, live); answers the run's number.
pub fn run(
    backends: BackendsCtx,
    conv: ConversationRef,
    root: Option<String>,
    ws: ConvWorkspace,
    command: String,
) -> u64 {
    let seq = ws.next_seq.get_value();
    ws.next_seq.set_value(seq + 1);
    let (run, effects) = Run::start(seq, command, &ws.timeout.get_untracked(), root);
    ws.runs.update(|r| r.push(run));
    let driver = Driver {
        backends,
        active: backends.active.get_untracked(),
        conv,
        ws,
        seq,
    };
    driver.perform(effects);
    seq
}

/// Stops a running command (the server kills it — pressed before the start answered, as soon
/// as it has an id; on a server that cannot stream we only stop waiting).
pub fn stop(backends: BackendsCtx, conv: ConversationRef, ws: ConvWorkspace, seq: u64) {
    let driver = Driver {
        backends,
        active: backends.active.get_untracked(),
        conv,
        ws,
        seq,
    };
    driver.step(Input::Stop);
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
