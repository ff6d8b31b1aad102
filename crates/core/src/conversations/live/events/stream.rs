//! Stream-control rules for the events websocket (spec `agent-server.md`, "Stream rules").
//! Pure: the app owns the socket and the timers and asks these rules what to do.

use serde_json::json;

use crate::transport::encode::encode_segment;

/// Close the socket and reconnect if it is not open (handshake done) within this time.
pub const HANDSHAKE_TIMEOUT_MS: u32 = 10_000;
/// First reconnect delay.
pub const BACKOFF_INITIAL_MS: u32 = 1_000;
/// Longest reconnect delay.
pub const BACKOFF_MAX_MS: u32 = 30_000;

/// Whole seconds left until `until_ms` at `now_ms` (both epoch ms), rounded up, never below 0:
/// what a "next try in N s" countdown shows.
pub fn seconds_left(until_ms: f64, now_ms: f64) -> u32 {
    let left = ((until_ms - now_ms) / 1000.0).ceil();
    if left.is_nan() || left <= 0.0 {
        0
    } else {
        left.min(f64::from(u32::MAX)) as u32
    }
}

/// Reconnect delays: 1 s, 2 s, 4 s, … capped at 30 s; back to 1 s after a successful open.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Backoff {
    failures: u32,
}

impl Backoff {
    /// A fresh backoff (next delay 1 s).
    pub fn new() -> Backoff {
        Backoff::default()
    }

    /// The delay before the next attempt, and count the failure.
    pub fn next_delay_ms(&mut self) -> u32 {
        let delay = self.peek_delay_ms();
        self.failures = self.failures.saturating_add(1);
        delay
    }

    /// The delay [`Backoff::next_delay_ms`] would return, without counting.
    pub fn peek_delay_ms(&self) -> u32 {
        let factor = 1u32.checked_shl(self.failures).unwrap_or(u32::MAX);
        BACKOFF_INITIAL_MS
            .saturating_mul(factor)
            .min(BACKOFF_MAX_MS)
    }

    /// Consecutive failed attempts so far.
    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// The socket opened: start over at 1 s.
    pub fn reset(&mut self) {
        self.failures = 0;
    }
}

/// Which socket is the live one. Every new socket gets a new generation; events from an older
/// (replaced) socket must not change the connection state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SocketGeneration {
    current: u64,
    closed: bool,
}

impl SocketGeneration {
    /// No socket yet (generation 0 is never handed out).
    pub fn new() -> SocketGeneration {
        SocketGeneration {
            current: 0,
            closed: true,
        }
    }

    /// A new socket replaces the previous one: its generation.
    pub fn begin(&mut self) -> u64 {
        self.current += 1;
        self.closed = false;
        self.current
    }

    /// The live socket's generation (0: none yet).
    pub fn current(&self) -> u64 {
        self.current
    }

    /// `generation` is the live socket.
    pub fn is_current(&self, generation: u64) -> bool {
        generation != 0 && generation == self.current
    }

    /// A socket opened: `true` if it is the live one (then mark connected, reset the backoff);
    /// `false` for a replaced socket (close it and ignore it).
    pub fn on_open(&self, generation: u64) -> bool {
        self.is_current(generation) && !self.closed
    }

    /// A socket closed (or errored): `true` only the first time for the live socket (then mark
    /// disconnected and schedule a reconnect); `false` for a replaced socket or a repeat.
    pub fn on_close(&mut self, generation: u64) -> bool {
        if self.is_current(generation) && !self.closed {
            self.closed = true;
            true
        } else {
            false
        }
    }
}

/// What a close code means for reconnecting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseDisposition {
    /// Transient: reconnect with backoff.
    Reconnect,
    /// 4001: the key was refused. Do not retry until the key changes.
    Unauthorized,
    /// 4004: the conversation does not exist. Do not retry.
    NotFound,
}

/// Classify a websocket close code (agent server: 4001 wrong/missing key, 4004 unknown
/// conversation; anything else is transient).
pub fn close_disposition(code: u16) -> CloseDisposition {
    match code {
        4001 => CloseDisposition::Unauthorized,
        4004 => CloseDisposition::NotFound,
        _ => CloseDisposition::Reconnect,
    }
}

/// Why [`events_socket_url`] could not build a URL.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SocketUrlError {
    /// The base URL is not `http(s)://host…` (or `ws(s)://`).
    #[error("the server address must start with http:// or https://")]
    BadScheme,
    /// No host after the scheme.
    #[error("the server address has no host")]
    NoHost,
    /// The conversation id is empty, `.` or `..`: as a path segment it would name another
    /// endpoint (`/sockets/events/..` is `/sockets/`), so it cannot name a conversation.
    #[error("the conversation id cannot be part of a URL")]
    BadConversationId,
}

/// The events websocket URL: `ws(s)://host[/prefix]/sockets/events/{id}?resend_mode=…`.
///
/// `http` ⇒ `ws`, `https` ⇒ `wss`; a path prefix of the base (a reverse proxy's mount point)
/// is kept; any query or fragment of the base is dropped. With `newest_timestamp`, asks
/// `resend_mode=since&after_timestamp=<percent-encoded>`; without, `resend_mode=all`.
/// The key never goes into the URL (see [`auth_frame`]).
pub fn events_socket_url(
    base_http_url: &str,
    conversation_id: &str,
    newest_timestamp: Option<&str>,
) -> Result<String, SocketUrlError> {
    // Issue #17 (found by `tests/never_panics.rs`): `.` and `..` stay dot segments even
    // percent-encoded, and an empty id leaves `/sockets/events/` itself.
    if matches!(conversation_id, "" | "." | "..") {
        return Err(SocketUrlError::BadConversationId);
    }
    let base = base_http_url.trim();
    let (scheme, rest) = base.split_once("://").ok_or(SocketUrlError::BadScheme)?;
    let ws = match scheme.to_ascii_lowercase().as_str() {
        "http" | "ws" => "ws",
        "https" | "wss" => "wss",
        _ => return Err(SocketUrlError::BadScheme),
    };
    let rest = rest.split(['?', '#']).next().unwrap_or("");
    let (authority, path) = match rest.find('/') {
        Some(i) => rest.split_at(i),
        None => (rest, ""),
    };
    if authority.is_empty() {
        return Err(SocketUrlError::NoHost);
    }
    let prefix = path.trim_end_matches('/');
    let mut url = format!(
        "{ws}://{authority}{prefix}/sockets/events/{}",
        encode_segment(conversation_id)
    );
    match newest_timestamp {
        Some(ts) => {
            url.push_str("?resend_mode=since&after_timestamp=");
            url.push_str(&encode_segment(ts));
        }
        None => url.push_str("?resend_mode=all"),
    }
    Ok(url)
}

/// The first frame to send on the events socket: `{"type":"auth","session_api_key":"…"}`.
pub fn auth_frame(session_api_key: &str) -> String {
    json!({"type": "auth", "session_api_key": session_api_key}).to_string()
}

/// A user message sent over the socket: `{"role":"user","content":[{"type":"text","text":…}],"run":…}`.
pub fn user_message_frame(text: &str, run: bool) -> String {
    json!({"role": "user", "content": [{"type": "text", "text": text}], "run": run}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_left_rounds_up_and_stops_at_zero() {
        assert_eq!(seconds_left(10_000.0, 0.0), 10);
        assert_eq!(seconds_left(10_000.0, 1.0), 10);
        assert_eq!(seconds_left(10_000.0, 9_001.0), 1);
        assert_eq!(seconds_left(10_000.0, 10_000.0), 0);
        assert_eq!(seconds_left(10_000.0, 20_000.0), 0);
        assert_eq!(seconds_left(f64::NAN, 0.0), 0);
        assert_eq!(seconds_left(f64::INFINITY, 0.0), u32::MAX);
    }

    #[test]
    fn backoff_doubles_to_the_cap_and_resets() {
        let mut b = Backoff::new();
        let delays: Vec<u32> = (0..8).map(|_| b.next_delay_ms()).collect();
        assert_eq!(
            delays,
            [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000]
        );
        assert_eq!(b.failures(), 8);
        b.reset();
        assert_eq!(b.peek_delay_ms(), 1_000);
        assert_eq!(b.next_delay_ms(), 1_000);
        assert_eq!(b.next_delay_ms(), 2_000);
    }

    #[test]
    fn backoff_never_overflows() {
        let mut b = Backoff::new();
        for _ in 0..200 {
            assert!(b.next_delay_ms() <= BACKOFF_MAX_MS);
        }
        assert_eq!(b.peek_delay_ms(), BACKOFF_MAX_MS);
    }

    #[test]
    fn late_close_of_a_replaced_socket_does_not_affect_the_live_one() {
        let mut g = SocketGeneration::new();
        assert!(!g.on_close(0), "no socket yet");
        let first = g.begin();
        assert!(g.on_open(first));
        let second = g.begin(); // reconnect replaces the first socket
        assert!(!g.on_open(first), "a replaced socket's open is ignored");
        assert!(!g.on_close(first), "a replaced socket's close is ignored");
        assert!(g.on_open(second));
        assert!(g.on_close(second), "the live socket's close counts");
        assert!(!g.on_close(second), "…once (error + close)");
        assert!(!g.on_open(second), "a closed socket does not reopen");
        let third = g.begin();
        assert!(g.is_current(third) && !g.is_current(second));
        assert_eq!(g.current(), 3);
    }

    #[test]
    fn close_codes() {
        assert_eq!(close_disposition(4001), CloseDisposition::Unauthorized);
        assert_eq!(close_disposition(4004), CloseDisposition::NotFound);
        for code in [1000, 1001, 1006, 1011, 4000] {
            assert_eq!(close_disposition(code), CloseDisposition::Reconnect);
        }
    }

    #[test]
    fn socket_url_table() {
        let ts = "2026-11-05T10:07:50.123456";
        let cases: &[(&str, &str, Option<&str>, &str)] = &[
            (
                "http://127.0.0.1:8000",
                "abc",
                None,
                "ws://127.0.0.1:8000/sockets/events/abc?resend_mode=all",
            ),
            (
                "http://127.0.0.1:8000/",
                "abc",
                None,
                "ws://127.0.0.1:8000/sockets/events/abc?resend_mode=all",
            ),
            (
                "https://example.com/agent/",
                "abc",
                Some(ts),
                "wss://example.com/agent/sockets/events/abc?resend_mode=since&after_timestamp=2026-11-05T10%3A07%3A50.123456",
            ),
            (
                "HTTPS://example.com/a/b?x=1#frag",
                "abc",
                None,
                "wss://example.com/a/b/sockets/events/abc?resend_mode=all",
            ),
            (
                "  http://[::1]:3000  ",
                "a b/c",
                Some("2026-11-05 10:07:50+01:00"),
                "ws://[::1]:3000/sockets/events/a%20b%2Fc?resend_mode=since&after_timestamp=2026-11-05%2010%3A07%3A50%2B01%3A00",
            ),
            (
                "wss://host",
                "abc",
                None,
                "wss://host/sockets/events/abc?resend_mode=all",
            ),
        ];
        for (base, id, newest, want) in cases {
            assert_eq!(
                events_socket_url(base, id, *newest).as_deref(),
                Ok(*want),
                "{base}"
            );
        }
        assert_eq!(
            events_socket_url("ftp://h", "a", None),
            Err(SocketUrlError::BadScheme)
        );
        assert_eq!(
            events_socket_url("127.0.0.1:8000", "a", None),
            Err(SocketUrlError::BadScheme)
        );
        assert_eq!(
            events_socket_url("http:///path", "a", None),
            Err(SocketUrlError::NoHost)
        );
        for id in ["", ".", ".."] {
            assert_eq!(
                events_socket_url("http://h/p", id, None),
                Err(SocketUrlError::BadConversationId),
                "{id:?}"
            );
        }
        assert!(events_socket_url("http://h", "...", None).is_ok());
    }

    #[test]
    fn frames_are_escaped_json() {
        let f = auth_frame("k\"ey\\");
        let v: serde_json::Value = serde_json::from_str(&f).expect("json");
        assert_eq!(v, json!({"type": "auth", "session_api_key": "k\"ey\\"}));
        let m: serde_json::Value =
            serde_json::from_str(&user_message_frame("hi \"there\"", true)).expect("json");
        assert_eq!(
            m,
            json!({"role": "user", "content": [{"type": "text", "text": "hi \"there\""}], "run": true})
        );
    }
}
