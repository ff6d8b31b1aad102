//! The terminal runner as a pure state machine (issue #31): one command run from the
//! workspace's terminal tab. It is started on the server and followed by paging its outputs
//! until the exit code arrives (stoppable); on a server that cannot stream, the runner waits
//! for the final answer instead (then Stop only stops waiting). Following gives up after
//! [`MAX_POLL_FAILURES`] failed pages in a row, or [`DEADLINE_GRACE_SECONDS`] after the
//! command's own timeout.
//!
//! A [`Run`] is both what the tab shows and the machine's state. The app performs each
//! [`Effect`] (send a request, wait) and feeds the answer back as an [`Input`] with the time
//! it arrived; core reads no clock.

use serde_json::Value;

use crate::agent_server::dto::{BashCommand, BashRequest, BashResult};
use crate::error::ApiError;
use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
#[cfg(test)]
use crate::workspace::terminal::parse_timeout;
use crate::workspace::terminal::{parse_timeout_text, CommandOutput};

/// How long the runner waits before asking for a running command's next outputs.
pub const POLL_MS: u32 = 300;
/// Failed output pages in a row before the runner gives up.
pub const MAX_POLL_FAILURES: u32 = 3;
/// How long after the command's own timeout the runner still waits for an exit code.
pub const DEADLINE_GRACE_SECONDS: u32 = 15;

/// Shown while waiting on a server that cannot stream.
pub const NO_STREAMING: MessageRef = message("workspace.terminal.note.no_streaming");
/// Shown when the user stopped waiting.
pub const STOPPED_WAITING: MessageRef = message("workspace.terminal.note.stopped_waiting");
/// Shown when no exit code came within the deadline.
pub const DEADLINE: MessageRef = message("workspace.terminal.note.deadline");
/// [`NO_STREAMING`] in English.
pub const NO_STREAMING_NOTE: &str = NO_STREAMING.english_static();
/// [`STOPPED_WAITING`] in English.
pub const STOPPED_WAITING_NOTE: &str = STOPPED_WAITING.english_static();
/// [`DEADLINE`] in English.
pub const DEADLINE_NOTE: &str = DEADLINE.english_static();

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The start request is on its way.
    Starting,
    /// A server without streaming: waiting for the final answer.
    Executing,
    /// Paging the command's outputs.
    Following,
    /// Ended (exit code, error, given up, stopped waiting).
    Done,
}

/// One command run from the terminal tab.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The run's number in its terminal (its key).
    pub seq: u64,
    /// The command line.
    pub command: String,
    /// Its output so far.
    pub output: CommandOutput,
    /// Still waiting for the end.
    pub running: bool,
    /// The server's command id (stop needs it).
    pub command_id: Option<String>,
    /// A note shown under the output (error, "stopped waiting", …), in English.
    pub note: Option<String>,
    /// The same note as words to say.
    pub note_text: Option<Text>,
    request: BashRequest,
    phase: Phase,
    /// Epoch ms after which following gives up.
    deadline_ms: i64,
    /// Failed output pages in a row.
    failures: u32,
    /// The user asked to stop waiting (checked before each next page).
    abandoned: bool,
    /// The user pressed Stop before the start answered: stop the command once it has an id.
    stop_asked: bool,
}

/// What happened to a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// The start request ([`Effect::Start`]) answered, at `now_ms` (epoch ms).
    Started {
        /// The server's answer.
        answer: Result<BashCommand, ApiError>,
        /// When it arrived.
        now_ms: i64,
    },
    /// The final answer ([`Effect::Execute`]) arrived.
    Executed(Result<BashResult, ApiError>),
    /// A page of the command's events ([`Effect::Poll`]) arrived, at `now_ms`.
    Outputs {
        /// The page's events (JSON; only `BashOutput` ones count).
        answer: Result<Vec<Value>, ApiError>,
        /// When it arrived.
        now_ms: i64,
    },
    /// The user pressed Stop.
    Stop,
    /// The server could not stop the command ([`Effect::Stop`] failed).
    StopFailed(ApiError),
}

/// What the app does for a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Start the command (streaming); answer with [`Input::Started`].
    Start(BashRequest),
    /// Run the command and wait for its final answer; answer with [`Input::Executed`]. Stop
    /// waiting (drop the request) as soon as the run is no longer running.
    Execute(BashRequest),
    /// After `delay_ms`, ask for the command's outputs after order `after`; answer with
    /// [`Input::Outputs`].
    Poll {
        /// The server's command id.
        command_id: String,
        /// The last output order already shown.
        after: Option<i64>,
        /// How long to wait first.
        delay_ms: u32,
    },
    /// Ask the server to stop the command; on failure answer with [`Input::StopFailed`].
    Stop {
        /// The server's command id.
        command_id: String,
    },
}

impl Run {
    /// A new run of `command` with the timeout field's text `timeout_input`, in `cwd`: running
    /// and asking to start it, or — when the timeout is not valid — ended at once with why.
    pub fn start(
        seq: u64,
        command: String,
        timeout_input: &str,
        cwd: Option<String>,
    ) -> (Run, Vec<Effect>) {
        let timeout = parse_timeout_text(timeout_input);
        let mut run = Run {
            seq,
            command: command.clone(),
            output: CommandOutput::default(),
            running: true,
            command_id: None,
            note: None,
            note_text: None,
            request: BashRequest {
                command,
                cwd,
                timeout_seconds: timeout.as_ref().ok().copied(),
            },
            phase: Phase::Starting,
            deadline_ms: 0,
            failures: 0,
            abandoned: false,
            stop_asked: false,
        };
        match timeout {
            Ok(_) => {
                let start = Effect::Start(run.request.clone());
                (run, vec![start])
            }
            Err(e) => {
                run.finish(Some(e));
                (run, Vec::new())
            }
        }
    }

    /// One step: the input changes the run and says what to do next.
    pub fn step(&mut self, input: Input) -> Vec<Effect> {
        match (self.phase, input) {
            (Phase::Starting, Input::Started { answer, now_ms }) => self.started(answer, now_ms),
            (Phase::Executing, Input::Executed(answer)) => {
                match answer {
                    Ok(mut res) => {
                        if res.exit_code.is_none() {
                            res.exit_code = Some(-1);
                        }
                        self.output.apply(&res);
                        self.finish(None);
                    }
                    Err(e) => self.finish(Some(e.user_text())),
                }
                Vec::new()
            }
            (Phase::Following, Input::Outputs { answer, now_ms }) => self.outputs(answer, now_ms),
            (Phase::Following, Input::Stop) => match &self.command_id {
                Some(id) => vec![Effect::Stop {
                    command_id: id.clone(),
                }],
                None => {
                    self.abandoned = true;
                    Vec::new()
                }
            },
            (Phase::Starting, Input::Stop) => {
                // No command id yet: stop the command once the start answers with one (or stop
                // waiting, on a server that cannot stream).
                self.stop_asked = true;
                Vec::new()
            }
            (Phase::Executing, Input::Stop) => {
                self.finish(Some(Text::new(STOPPED_WAITING)));
                Vec::new()
            }
            (_, Input::StopFailed(e)) => {
                self.abandoned = true;
                self.set_note(Some(
                    text!("workspace.terminal.note.stop_failed").with_text("error", e.user_text()),
                ));
                Vec::new()
            }
            // Late or out-of-place answers (the run ended meanwhile) change nothing.
            _ => Vec::new(),
        }
    }

    fn started(&mut self, answer: Result<BashCommand, ApiError>, now_ms: i64) -> Vec<Effect> {
        match answer {
            Ok(cmd) if !cmd.id.is_empty() => {
                let timeout = i64::from(self.request.timeout_seconds.unwrap_or(0));
                let grace = i64::from(DEADLINE_GRACE_SECONDS);
                self.deadline_ms = now_ms.saturating_add((timeout + grace) * 1000);
                self.phase = Phase::Following;
                let mut effects = Vec::new();
                if self.stop_asked {
                    // Killed on the server; the pages that follow bring its exit code.
                    effects.push(Effect::Stop {
                        command_id: cmd.id.clone(),
                    });
                }
                self.command_id = Some(cmd.id);
                effects.extend(self.follow());
                effects
            }
            Ok(_)
            | Err(ApiError::NotFound | ApiError::Unsupported(_))
            | Err(ApiError::Server { status: 405, .. }) => {
                // No streaming on this server: wait for the final answer (stop = stop waiting).
                self.set_note(Some(Text::new(NO_STREAMING)));
                self.phase = Phase::Executing;
                if self.abandoned || self.stop_asked {
                    self.finish(Some(Text::new(STOPPED_WAITING)));
                    return Vec::new();
                }
                vec![Effect::Execute(self.request.clone())]
            }
            Err(e) => {
                self.finish(Some(e.user_text()));
                Vec::new()
            }
        }
    }

    fn outputs(&mut self, answer: Result<Vec<Value>, ApiError>, now_ms: i64) -> Vec<Effect> {
        match answer {
            Ok(events) => {
                self.failures = 0;
                self.output.apply_events(&events);
                if self.output.done() {
                    self.running = false;
                    self.phase = Phase::Done;
                    return Vec::new();
                }
            }
            Err(e) => {
                self.failures += 1;
                if self.failures >= MAX_POLL_FAILURES {
                    self.finish(Some(e.user_text()));
                    return Vec::new();
                }
            }
        }
        if now_ms > self.deadline_ms {
            self.finish(Some(Text::new(DEADLINE)));
            return Vec::new();
        }
        self.follow()
    }

    /// The next page, unless the user stopped waiting.
    fn follow(&mut self) -> Vec<Effect> {
        if self.abandoned {
            self.finish(Some(Text::new(STOPPED_WAITING)));
            return Vec::new();
        }
        match &self.command_id {
            Some(id) => vec![Effect::Poll {
                command_id: id.clone(),
                after: self.output.last_order(),
                delay_ms: POLL_MS,
            }],
            None => Vec::new(),
        }
    }

    fn finish(&mut self, note: Option<Text>) {
        self.running = false;
        self.phase = Phase::Done;
        self.set_note(note);
    }

    fn set_note(&mut self, note: Option<Text>) {
        self.note = note.as_ref().map(Text::english);
        self.note_text = note;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::unsupported;
    use serde_json::json;

    const T0: i64 = 1_000_000;

    fn started(id: &str) -> Input {
        Input::Started {
            answer: Ok(BashCommand {
                id: id.into(),
                ..BashCommand::default()
            }),
            now_ms: T0,
        }
    }

    fn out(order: i64, stdout: &str, exit: Option<i64>) -> Value {
        json!({"kind": "BashOutput", "order": order, "stdout": stdout, "stderr": "", "exit_code": exit})
    }

    fn outputs(events: Vec<Value>, now_ms: i64) -> Input {
        Input::Outputs {
            answer: Ok(events),
            now_ms,
        }
    }

    fn poll(after: Option<i64>) -> Effect {
        Effect::Poll {
            command_id: "c1".into(),
            after,
            delay_ms: POLL_MS,
        }
    }

    fn req(timeout: u32) -> BashRequest {
        BashRequest {
            command: "ls".into(),
            cwd: Some("/w".into()),
            timeout_seconds: Some(timeout),
        }
    }

    /// A run started with a 60 s timeout (deadline T0 + 75 s).
    fn run() -> Run {
        Run::start(1, "ls".into(), "60", Some("/w".into())).0
    }

    /// A run following command `c1`.
    fn following() -> Run {
        let mut r = run();
        assert_eq!(r.step(started("c1")), vec![poll(None)]);
        r
    }

    #[test]
    fn start_asks_the_server_or_refuses_the_timeout() {
        let (r, effects) = Run::start(7, "ls".into(), "60", Some("/w".into()));
        assert_eq!(effects, vec![Effect::Start(req(60))]);
        assert!(r.running && r.note.is_none() && r.command_id.is_none());
        assert_eq!((r.seq, r.command.as_str()), (7, "ls"));

        let (r, effects) = Run::start(8, "ls".into(), "0", None);
        assert_eq!(effects, vec![]);
        assert!(!r.running);
        assert_eq!(r.note, parse_timeout("0").err());
    }

    #[test]
    fn start_answers() {
        let unsupported = || Effect::Execute(req(60));
        // (answer, effects, running, note, command id)
        type Case = (
            Result<BashCommand, ApiError>,
            Vec<Effect>,
            bool,
            Option<String>,
            Option<&'static str>,
        );
        let with_id = |id: &str| {
            Ok(BashCommand {
                id: id.into(),
                ..BashCommand::default()
            })
        };
        let cases: Vec<Case> = vec![
            (with_id("c1"), vec![poll(None)], true, None, Some("c1")),
            (
                with_id(""),
                vec![unsupported()],
                true,
                Some(NO_STREAMING_NOTE.into()),
                None,
            ),
            (
                Err(ApiError::NotFound),
                vec![unsupported()],
                true,
                Some(NO_STREAMING_NOTE.into()),
                None,
            ),
            (
                Err(unsupported!("feature.terminal")),
                vec![unsupported()],
                true,
                Some(NO_STREAMING_NOTE.into()),
                None,
            ),
            (
                Err(ApiError::Server {
                    status: 405,
                    detail: String::new(),
                }),
                vec![unsupported()],
                true,
                Some(NO_STREAMING_NOTE.into()),
                None,
            ),
            (
                Err(ApiError::Server {
                    status: 500,
                    detail: "boom".into(),
                }),
                vec![],
                false,
                Some(
                    ApiError::Server {
                        status: 500,
                        detail: "boom".into(),
                    }
                    .user_message(),
                ),
                None,
            ),
            (
                Err(ApiError::Timeout),
                vec![],
                false,
                Some(ApiError::Timeout.user_message()),
                None,
            ),
        ];
        for (answer, effects, running, note, id) in cases {
            let mut r = run();
            let label = format!("{answer:?}");
            assert_eq!(
                r.step(Input::Started { answer, now_ms: T0 }),
                effects,
                "{label}"
            );
            assert_eq!(r.running, running, "{label}");
            assert_eq!(r.note, note, "{label}");
            assert_eq!(r.command_id.as_deref(), id, "{label}");
        }
    }

    #[test]
    fn following_pages_until_the_exit_code() {
        let mut r = following();
        assert_eq!(
            r.step(outputs(vec![out(0, "a\n", None)], T0 + 300)),
            vec![poll(Some(0))]
        );
        assert_eq!(
            r.step(outputs(vec![], T0 + 600)),
            vec![poll(Some(0))],
            "nothing new"
        );
        assert_eq!(
            r.step(outputs(
                vec![
                    out(1, "b\n", None),
                    out(0, "a\n", None),
                    json!({"kind": "BashCommand"})
                ],
                T0 + 900
            )),
            vec![poll(Some(1))],
            "duplicates and other kinds ignored"
        );
        assert_eq!(
            r.step(outputs(vec![out(2, "", Some(0))], T0 + 1200)),
            vec![]
        );
        assert!(!r.running);
        assert_eq!(r.output.stdout(), "a\nb\n");
        assert_eq!(r.output.exit_code, Some(0));
        assert_eq!(r.note, None);
        assert_eq!(
            r.step(outputs(vec![out(3, "late", None)], T0 + 1500)),
            vec![],
            "a late page changes nothing"
        );
        assert_eq!(r.output.stdout(), "a\nb\n");
    }

    #[test]
    fn three_failed_pages_in_a_row_give_up() {
        let fail = |now| Input::Outputs {
            answer: Err(ApiError::Timeout),
            now_ms: now,
        };
        let mut r = following();
        assert_eq!(r.step(fail(T0)), vec![poll(None)]);
        assert_eq!(r.step(fail(T0)), vec![poll(None)]);
        assert_eq!(
            r.step(outputs(vec![out(0, "x", None)], T0)),
            vec![poll(Some(0))],
            "a good page starts the count over"
        );
        assert_eq!(r.step(fail(T0)), vec![poll(Some(0))]);
        assert_eq!(r.step(fail(T0)), vec![poll(Some(0))]);
        assert!(r.running);
        assert_eq!(r.step(fail(T0)), vec![]);
        assert!(!r.running);
        assert_eq!(r.note, Some(ApiError::Timeout.user_message()));
        assert_eq!(r.output.stdout(), "x", "the output stays");
    }

    #[test]
    fn the_deadline_is_the_timeout_plus_grace() {
        // The 60 s command's deadline is 75 s after the start answered.
        for (now, effects, running) in [
            (T0 + 75_000, vec![poll(None)], true),
            (T0 + 75_001, vec![], false),
        ] {
            let mut r = following();
            assert_eq!(r.step(outputs(vec![], now)), effects, "{now}");
            assert_eq!(r.running, running);
            if !running {
                assert_eq!(r.note.as_deref(), Some(DEADLINE_NOTE));
            }
        }
        // An exit code that arrives late still counts.
        let mut r = following();
        assert_eq!(
            r.step(outputs(vec![out(0, "", Some(-1))], T0 + 999_999)),
            vec![]
        );
        assert_eq!((r.running, r.note.clone()), (false, None));
    }

    #[test]
    fn stop_asks_the_server_when_the_command_has_an_id() {
        let mut r = following();
        assert_eq!(
            r.step(Input::Stop),
            vec![Effect::Stop {
                command_id: "c1".into()
            }]
        );
        assert!(r.running, "the server's exit code ends it");
        assert_eq!(r.step(outputs(vec![out(0, "", Some(-15))], T0)), vec![]);
        assert!(!r.running);
        assert_eq!(r.note, None);
    }

    #[test]
    fn a_failed_stop_stops_waiting_after_the_page_in_flight() {
        let mut r = following();
        r.step(Input::Stop);
        assert_eq!(r.step(Input::StopFailed(ApiError::Timeout)), vec![]);
        assert_eq!(
            r.note,
            Some(format!(
                "Could not stop: {}",
                ApiError::Timeout.user_message()
            ))
        );
        assert!(r.running);
        assert_eq!(r.step(outputs(vec![out(0, "x", None)], T0)), vec![]);
        assert!(!r.running);
        assert_eq!(r.output.stdout(), "x", "the page in flight is shown");
        assert_eq!(r.note.as_deref(), Some(STOPPED_WAITING_NOTE));
    }

    #[test]
    fn stop_before_the_start_answered_stops_the_command_then() {
        let mut r = run();
        assert_eq!(r.step(Input::Stop), vec![], "no id to stop yet");
        assert!(r.running);
        assert_eq!(
            r.step(started("c1")),
            vec![
                Effect::Stop {
                    command_id: "c1".into()
                },
                poll(None)
            ],
            "stopped on the server as soon as it has an id, and followed to its exit code"
        );
        assert!(r.running, "the server's exit code ends it");
        assert_eq!(r.step(outputs(vec![out(0, "", Some(-15))], T0)), vec![]);
        assert!(!r.running);
        assert_eq!(r.output.exit_code, Some(-15));
        assert_eq!(r.note, None);
    }

    #[test]
    fn stop_before_the_start_answered_without_streaming_stops_waiting() {
        let mut r = run();
        assert_eq!(r.step(Input::Stop), vec![]);
        let answer = Err(ApiError::NotFound);
        assert_eq!(r.step(Input::Started { answer, now_ms: T0 }), vec![]);
        assert!(!r.running);
        assert_eq!(r.note.as_deref(), Some(STOPPED_WAITING_NOTE));
    }

    #[test]
    fn without_streaming_the_final_answer_ends_the_run() {
        let executing = || {
            let mut r = run();
            r.step(Input::Started {
                answer: Err(ApiError::NotFound),
                now_ms: T0,
            });
            r
        };
        let mut r = executing();
        let res = BashResult {
            stdout: "hi\n".into(),
            exit_code: Some(0),
            ..BashResult::default()
        };
        assert_eq!(r.step(Input::Executed(Ok(res))), vec![]);
        assert!(!r.running);
        assert_eq!(
            (r.output.stdout().as_str(), r.output.exit_code),
            ("hi\n", Some(0))
        );
        assert_eq!(r.note, None, "the no-streaming note goes");

        let mut r = executing();
        assert_eq!(r.step(Input::Executed(Ok(BashResult::default()))), vec![]);
        assert_eq!(
            r.output.exit_code,
            Some(-1),
            "no exit code reads as timed out"
        );

        let mut r = executing();
        r.step(Input::Executed(Err(ApiError::Timeout)));
        assert!(!r.running);
        assert_eq!(r.note, Some(ApiError::Timeout.user_message()));

        let mut r = executing();
        assert_eq!(r.step(Input::Stop), vec![], "nothing to stop on the server");
        assert!(!r.running);
        assert_eq!(r.note.as_deref(), Some(STOPPED_WAITING_NOTE));
        assert_eq!(
            r.step(Input::Executed(Ok(BashResult::default()))),
            vec![],
            "the answer after stopping is dropped"
        );
        assert_eq!(r.output.exit_code, None);
    }

    #[test]
    fn inputs_out_of_place_change_nothing() {
        let mut r = run();
        let before = r.clone();
        assert_eq!(r.step(outputs(vec![out(0, "x", Some(0))], T0)), vec![]);
        assert_eq!(r.step(Input::Executed(Ok(BashResult::default()))), vec![]);
        assert_eq!(r, before);
        let mut r = following();
        let before = r.clone();
        assert_eq!(r.step(started("c2")), vec![]);
        assert_eq!(r, before);
    }
}
