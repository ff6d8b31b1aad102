//! The live link of a conversation view as a pure state machine (issue #31): connecting,
//! the handshake watchdog, reconnecting with backoff, giving up. One machine serves both live
//! sources: the agent server's events websocket (its "open" is the handshake, watched for
//! [`HANDSHAKE_TIMEOUT_MS`]) and an Omnigent session's server-sent events (its "open" is the
//! first heartbeat; silence is caught by the missed-heartbeat rule,
//! `omnigent::stream::SessionStream::needs_reconnect`, reported as [`Input::Silent`]).
//!
//! Every connection gets a generation ([`SocketGeneration`]); inputs about a replaced
//! connection change nothing. The app performs the [`Effect`]s (open the connection, start a
//! timer, set the status signal) and feeds back what happened with the time it happened
//! (epoch ms); core reads no clock.

use crate::conversations::live::events::stream::{
    close_disposition, Backoff, CloseDisposition, SocketGeneration, HANDSHAKE_TIMEOUT_MS,
};
use crate::error::ApiError;
use crate::i18n::text::text;
use crate::i18n::{Text, Words};

/// What the status bar shows about the link.
#[derive(Clone, Debug, PartialEq)]
pub enum Link {
    /// Waiting for the first history page.
    Idle,
    /// First connection attempt (or "Retry now").
    Connecting,
    /// Live.
    Open,
    /// Closed; the next attempt is scheduled at `until_ms` (epoch ms).
    Reconnecting {
        /// When the next attempt starts.
        until_ms: f64,
    },
    /// Given up (key refused, conversation gone, no usable address): why.
    Failed(Words),
}

/// How a connection ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// Something that may pass: reconnect with backoff.
    Retry,
    /// Retrying cannot help: what to tell the user, in English.
    GiveUp(String),
    /// Retrying cannot help: what to tell the user.
    GiveUpText(Text),
}

impl End {
    /// The events websocket closed with `code` (4001 key refused, 4004 no such conversation;
    /// anything else is transient).
    pub fn from_close_code(code: u16) -> End {
        match close_disposition(code) {
            CloseDisposition::Reconnect => End::Retry,
            CloseDisposition::Unauthorized => End::GiveUpText(text!("live.link.key_refused")),
            CloseDisposition::NotFound => End::GiveUpText(text!("live.link.no_conversation")),
        }
    }

    /// A session stream ended (`Ok`: the server closed it) or failed: a refused key or a
    /// session that is gone gives up (why in English), anything else is retried.
    pub fn from_stream(result: &Result<(), ApiError>) -> End {
        match End::from_stream_text(result) {
            End::GiveUpText(why) => End::GiveUp(why.english()),
            end => end,
        }
    }

    /// A session stream ended (`Ok`: the server closed it) or failed: a refused key or a
    /// session that is gone gives up, anything else is retried.
    pub fn from_stream_text(result: &Result<(), ApiError>) -> End {
        match result {
            Err(e) if e.is_auth() || matches!(e, ApiError::NotFound) => {
                End::GiveUpText(e.user_text())
            }
            _ => End::Retry,
        }
    }
}

/// What happened to the link.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Connect now (the first time, or the user pressed "Retry now"): a new connection.
    Connect,
    /// The retry timer of [`Effect::RetryAfter`] fired.
    RetryDue {
        /// The generation it was started for.
        generation: u64,
    },
    /// The connection opened (socket handshake done; stream subscribed by its first heartbeat).
    Opened {
        /// Which connection.
        generation: u64,
    },
    /// The handshake watchdog of [`Effect::Watchdog`] fired, at `now_ms`.
    HandshakeDue {
        /// The generation it was started for.
        generation: u64,
        /// When.
        now_ms: f64,
    },
    /// The connection ended (closed, failed, the stream's body ended), at `now_ms`.
    Ended {
        /// Which connection.
        generation: u64,
        /// How.
        end: End,
        /// When.
        now_ms: f64,
    },
    /// The current connection stayed silent too long (missed heartbeats), at `now_ms`.
    Silent {
        /// When.
        now_ms: f64,
    },
    /// The connection could not even be started (the browser refused its address).
    OpenFailed {
        /// Which connection.
        generation: u64,
        /// Why.
        message: Words,
    },
}

/// What the app does, in this order.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Show this in the status bar.
    Show(Link),
    /// Open a new connection with this generation (replacing any previous one); report on it
    /// with the generation.
    Open {
        /// The new connection's generation.
        generation: u64,
    },
    /// Feed [`Input::HandshakeDue`] after `delay_ms` (replacing any previous watchdog).
    Watchdog {
        /// The connection watched.
        generation: u64,
        /// How long.
        delay_ms: u32,
    },
    /// The connection is live: the backend answers again (re-check its health), and a
    /// session stream fetches its snapshot now.
    Up {
        /// Which connection.
        generation: u64,
    },
    /// The connection is over: let go of it (once outside its own callbacks).
    Release {
        /// Which connection.
        generation: u64,
    },
    /// Feed [`Input::RetryDue`] after `delay_ms` (replacing any previous retry timer).
    RetryAfter {
        /// The generation that ended.
        generation: u64,
        /// How long.
        delay_ms: u32,
    },
}

/// The link machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveLink {
    generation: SocketGeneration,
    opened: bool,
    backoff: Backoff,
    handshake_ms: Option<u32>,
}

impl LiveLink {
    /// The events websocket's link: a connection must open within [`HANDSHAKE_TIMEOUT_MS`].
    pub fn socket() -> LiveLink {
        LiveLink {
            generation: SocketGeneration::new(),
            opened: false,
            backoff: Backoff::new(),
            handshake_ms: Some(HANDSHAKE_TIMEOUT_MS),
        }
    }

    /// A session stream's link: no handshake watchdog (the missed-heartbeat rule reports a
    /// silent stream as [`Input::Silent`]).
    pub fn stream() -> LiveLink {
        LiveLink {
            handshake_ms: None,
            ..LiveLink::socket()
        }
    }

    /// `generation` is the current connection (its events count).
    pub fn is_current(&self, generation: u64) -> bool {
        self.generation.is_current(generation)
    }

    /// The current connection opened (it may have closed since).
    pub fn opened(&self) -> bool {
        self.opened
    }

    /// Consecutive failed attempts since the link was last open.
    pub fn failures(&self) -> u32 {
        self.backoff.failures()
    }

    /// One step: the input changes the link and says what to do.
    pub fn step(&mut self, input: Input) -> Vec<Effect> {
        match input {
            Input::Connect => {
                let mut effects = vec![Effect::Show(Link::Connecting)];
                effects.extend(self.open());
                effects
            }
            Input::RetryDue { generation } => {
                if self.generation.current() != generation {
                    return Vec::new(); // a newer connection took over
                }
                self.open()
            }
            Input::Opened { generation } => {
                if !self.generation.on_open(generation) || self.opened {
                    return Vec::new();
                }
                self.opened = true;
                self.backoff.reset();
                vec![Effect::Show(Link::Open), Effect::Up { generation }]
            }
            Input::HandshakeDue { generation, now_ms } => {
                if !self.generation.is_current(generation) || self.opened {
                    return Vec::new();
                }
                self.ended(generation, End::Retry, now_ms)
            }
            Input::Ended {
                generation,
                end,
                now_ms,
            } => self.ended(generation, end, now_ms),
            Input::Silent { now_ms } => self.ended(self.generation.current(), End::Retry, now_ms),
            Input::OpenFailed {
                generation,
                message,
            } => {
                if !self.generation.on_close(generation) {
                    return Vec::new();
                }
                vec![Effect::Show(Link::Failed(message))]
            }
        }
    }

    fn open(&mut self) -> Vec<Effect> {
        self.opened = false;
        let generation = self.generation.begin();
        let mut effects = vec![Effect::Open { generation }];
        if let Some(delay_ms) = self.handshake_ms {
            effects.push(Effect::Watchdog {
                generation,
                delay_ms,
            });
        }
        effects
    }

    fn ended(&mut self, generation: u64, end: End, now_ms: f64) -> Vec<Effect> {
        if !self.generation.on_close(generation) {
            return Vec::new(); // a replaced connection, or a repeat (error + close)
        }
        let mut effects = vec![Effect::Release { generation }];
        match end {
            End::Retry => {
                let delay_ms = self.backoff.next_delay_ms();
                effects.push(Effect::Show(Link::Reconnecting {
                    until_ms: now_ms + f64::from(delay_ms),
                }));
                effects.push(Effect::RetryAfter {
                    generation,
                    delay_ms,
                });
            }
            End::GiveUp(message) => effects.push(Effect::Show(Link::Failed(message.into()))),
            End::GiveUpText(why) => effects.push(Effect::Show(Link::Failed(Words::new(why)))),
        }
        effects
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: f64 = 1_000_000.0;

    fn ended(generation: u64, end: End) -> Input {
        Input::Ended {
            generation,
            end,
            now_ms: NOW,
        }
    }

    fn reconnecting(generation: u64, delay_ms: u32) -> Vec<Effect> {
        vec![
            Effect::Release { generation },
            Effect::Show(Link::Reconnecting {
                until_ms: NOW + f64::from(delay_ms),
            }),
            Effect::RetryAfter {
                generation,
                delay_ms,
            },
        ]
    }

    fn watchdog(generation: u64) -> Effect {
        Effect::Watchdog {
            generation,
            delay_ms: HANDSHAKE_TIMEOUT_MS,
        }
    }

    #[test]
    fn connect_opens_a_watched_socket_or_a_stream() {
        let mut s = LiveLink::socket();
        assert_eq!(
            s.step(Input::Connect),
            vec![
                Effect::Show(Link::Connecting),
                Effect::Open { generation: 1 },
                watchdog(1),
            ]
        );
        assert!(s.is_current(1) && !s.opened());
        let mut st = LiveLink::stream();
        assert_eq!(
            st.step(Input::Connect),
            vec![
                Effect::Show(Link::Connecting),
                Effect::Open { generation: 1 }
            ]
        );
    }

    #[test]
    fn opened_once_per_connection() {
        for mut l in [LiveLink::socket(), LiveLink::stream()] {
            l.step(Input::Connect);
            let open = Input::Opened { generation: 1 };
            assert_eq!(
                l.step(open.clone()),
                vec![Effect::Show(Link::Open), Effect::Up { generation: 1 }]
            );
            assert!(l.opened());
            assert_eq!(
                l.step(open),
                vec![],
                "a repeat (every heartbeat) is nothing"
            );
            assert_eq!(l.step(Input::Opened { generation: 7 }), vec![], "unknown");
        }
    }

    #[test]
    fn close_codes_decide_retry_or_give_up() {
        // (code, effects after the close of connection 1)
        let cases: Vec<(u16, Vec<Effect>)> = vec![
            (1000, reconnecting(1, 1_000)),
            (1006, reconnecting(1, 1_000)),
            (1011, reconnecting(1, 1_000)),
            (
                4001,
                vec![
                    Effect::Release { generation: 1 },
                    Effect::Show(Link::Failed(
                        "The server refused the session key for live events.".into(),
                    )),
                ],
            ),
            (
                4004,
                vec![
                    Effect::Release { generation: 1 },
                    Effect::Show(Link::Failed(
                        "This conversation does not exist on the server.".into(),
                    )),
                ],
            ),
        ];
        for (code, want) in cases {
            let mut l = LiveLink::socket();
            l.step(Input::Connect);
            l.step(Input::Opened { generation: 1 });
            assert_eq!(l.step(ended(1, End::from_close_code(code))), want, "{code}");
            assert_eq!(
                l.step(ended(1, End::Retry)),
                vec![],
                "{code}: error + close count once"
            );
        }
    }

    #[test]
    fn stream_ends_decide_retry_or_give_up() {
        let cases: Vec<(Result<(), ApiError>, End)> = vec![
            (Ok(()), End::Retry),
            (Err(ApiError::Timeout), End::Retry),
            (Err(ApiError::Network("reset".into())), End::Retry),
            (
                Err(ApiError::Server {
                    status: 502,
                    detail: String::new(),
                }),
                End::Retry,
            ),
            (
                Err(ApiError::Unauthorized),
                End::GiveUp(ApiError::Unauthorized.user_message()),
            ),
            (
                Err(ApiError::Forbidden),
                End::GiveUp(ApiError::Forbidden.user_message()),
            ),
            (
                Err(ApiError::NotFound),
                End::GiveUp(ApiError::NotFound.user_message()),
            ),
        ];
        for (result, want) in cases {
            assert_eq!(End::from_stream(&result), want, "{result:?}");
        }
    }

    #[test]
    fn backoff_grows_while_failing_and_resets_once_open() {
        let mut l = LiveLink::socket();
        l.step(Input::Connect);
        let mut delays = Vec::new();
        for generation in 1..=7 {
            let effects = l.step(ended(generation, End::Retry));
            let Some(Effect::RetryAfter { delay_ms, .. }) = effects.last() else {
                panic!("{effects:?}");
            };
            delays.push(*delay_ms);
            assert_eq!(
                l.step(Input::RetryDue { generation }),
                vec![
                    Effect::Open {
                        generation: generation + 1
                    },
                    watchdog(generation + 1),
                ],
                "a retry does not show Connecting"
            );
        }
        assert_eq!(delays, [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
        assert_eq!(l.failures(), 7);
        l.step(Input::Opened { generation: 8 });
        assert_eq!(l.failures(), 0);
        assert_eq!(l.step(ended(8, End::Retry)), reconnecting(8, 1_000));
    }

    #[test]
    fn the_handshake_watchdog_retries_a_socket_that_never_opened() {
        let mut l = LiveLink::socket();
        l.step(Input::Connect);
        let due = |generation| Input::HandshakeDue {
            generation,
            now_ms: NOW,
        };
        assert_eq!(l.step(due(1)), reconnecting(1, 1_000));
        assert_eq!(l.step(ended(1, End::Retry)), vec![], "its late close");
        assert_eq!(
            l.step(Input::Opened { generation: 1 }),
            vec![],
            "its late open"
        );
        l.step(Input::RetryDue { generation: 1 });
        l.step(Input::Opened { generation: 2 });
        assert_eq!(l.step(due(2)), vec![], "opened in time");
        assert_eq!(l.step(due(1)), vec![], "an old watchdog");
    }

    #[test]
    fn a_newer_connection_voids_old_timers_and_events() {
        let mut l = LiveLink::socket();
        l.step(Input::Connect);
        l.step(ended(1, End::Retry)); // retry timer for 1 pending
                                      // The user presses "Retry now" before it fires.
        assert_eq!(
            l.step(Input::Connect),
            vec![
                Effect::Show(Link::Connecting),
                Effect::Open { generation: 2 },
                watchdog(2),
            ]
        );
        assert_eq!(l.step(Input::RetryDue { generation: 1 }), vec![]);
        assert!(l.is_current(2) && !l.is_current(1));
        assert_eq!(l.step(ended(1, End::Retry)), vec![]);
        assert_eq!(l.step(Input::Opened { generation: 1 }), vec![]);
        assert_eq!(
            l.step(ended(2, End::Retry)),
            reconnecting(2, 2_000),
            "the backoff kept counting: 2 had not opened"
        );
    }

    #[test]
    fn silence_retries_the_current_stream_once() {
        let mut l = LiveLink::stream();
        assert_eq!(
            l.step(Input::Silent { now_ms: NOW }),
            vec![],
            "no connection yet"
        );
        l.step(Input::Connect);
        l.step(Input::Opened { generation: 1 });
        assert_eq!(
            l.step(Input::Silent { now_ms: NOW }),
            reconnecting(1, 1_000)
        );
        assert_eq!(
            l.step(Input::Silent { now_ms: NOW }),
            vec![],
            "already reconnecting"
        );
        assert_eq!(
            l.step(ended(1, End::from_stream(&Err(ApiError::Timeout)))),
            vec![],
            "the aborted body's end"
        );
        l.step(Input::RetryDue { generation: 1 });
        l.step(ended(2, End::GiveUp("gone".into())));
        assert_eq!(
            l.step(Input::Silent { now_ms: NOW }),
            vec![],
            "given up: no more retries"
        );
    }

    #[test]
    fn a_connection_that_cannot_start_fails_and_connect_tries_again() {
        let mut l = LiveLink::socket();
        l.step(Input::Connect);
        assert_eq!(
            l.step(Input::OpenFailed {
                generation: 1,
                message: "bad address".into()
            }),
            vec![Effect::Show(Link::Failed("bad address".into()))]
        );
        assert_eq!(
            l.step(Input::HandshakeDue {
                generation: 1,
                now_ms: NOW
            }),
            vec![],
            "its watchdog does nothing"
        );
        assert_eq!(l.step(Input::Connect)[1], Effect::Open { generation: 2 });
    }
}
