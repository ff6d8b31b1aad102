//! An incremental parser of server-sent events (the WHATWG "event stream" interpretation),
//! for `GET /v1/sessions/{id}/stream`.
//!
//! Feed it whatever chunks the transport delivers — split anywhere, also between the `\r`
//! and `\n` of a line break or (with [`SseParser::feed_bytes`]) inside a UTF-8 character —
//! and it yields complete events: `event:` sets the type (default `message`), `data:` lines
//! are joined with `\n`, lines starting with `:` are comments, `id:` and `retry:` are read and
//! ignored (Omnigent sends neither), unknown fields are ignored, a blank line dispatches, an
//! event without data is dropped, a leading byte-order mark is skipped. It never panics, on
//! any input. An unfinished event at the end of the stream is dropped (call
//! [`SseParser::reset`] before reading a new connection).

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field (`message` when the event had none).
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// The parser's state between chunks.
#[derive(Debug, Clone, Default)]
pub struct SseParser {
    /// The current line, not yet terminated.
    line: String,
    /// The previous chunk ended with `\r`: a `\n` starting the next one belongs to it.
    after_cr: bool,
    /// Nothing was read yet (a BOM may come first).
    started: bool,
    event: String,
    data: String,
    /// Bytes of an unfinished UTF-8 character ([`SseParser::feed_bytes`]).
    utf8: Vec<u8>,
}

impl SseParser {
    /// A parser at the start of a stream.
    pub fn new() -> SseParser {
        SseParser::default()
    }

    /// Forget everything (a new connection).
    pub fn reset(&mut self) {
        *self = SseParser::default();
    }

    /// Feed a chunk of text; returns the events it completed, in order.
    pub fn feed(&mut self, chunk: &str) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let mut rest = chunk;
        if !self.started && !rest.is_empty() {
            self.started = true;
            rest = rest.strip_prefix('\u{feff}').unwrap_or(rest);
        }
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            rest = rest.strip_prefix('\n').unwrap_or(rest);
        }
        while let Some(i) = rest.find(['\r', '\n']) {
            self.line.push_str(&rest[..i]);
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, &mut out);
            let cr = rest.as_bytes()[i] == b'\r';
            rest = &rest[i + 1..];
            if cr {
                if rest.is_empty() {
                    self.after_cr = true;
                } else {
                    rest = rest.strip_prefix('\n').unwrap_or(rest);
                }
            }
        }
        self.line.push_str(rest);
        out
    }

    /// Feed raw bytes: a UTF-8 character split across chunks is completed by the next chunk;
    /// invalid bytes read as U+FFFD.
    pub fn feed_bytes(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut buf = std::mem::take(&mut self.utf8);
        buf.extend_from_slice(bytes);
        let mut text = String::with_capacity(buf.len());
        let mut rest: &[u8] = &buf;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    text.push_str(s);
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    // `good` is valid UTF-8 by construction.
                    text.push_str(&String::from_utf8_lossy(good));
                    match e.error_len() {
                        Some(n) => {
                            text.push('\u{fffd}');
                            rest = &bad[n.min(bad.len())..];
                        }
                        None => {
                            // An unfinished character at the end: keep it for the next chunk.
                            rest = bad;
                            break;
                        }
                    }
                }
            }
        }
        self.utf8 = rest.to_vec();
        self.feed(&text)
    }

    fn line_done(&mut self, line: &str, out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if self.data.is_empty() {
                self.event.clear();
                return;
            }
            let mut data = std::mem::take(&mut self.data);
            if data.ends_with('\n') {
                data.pop();
            }
            let event = std::mem::take(&mut self.event);
            out.push(SseEvent {
                event: if event.is_empty() {
                    "message".into()
                } else {
                    event
                },
                data,
            });
            return;
        }
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            // `id` and `retry` (and anything else) are not used by Omnigent's stream.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn the_event_stream_rules() {
        let cases: &[(&str, Vec<SseEvent>)] = &[
            ("event: a\ndata: x\n\n", vec![ev("a", "x")]),
            ("data: x\n\n", vec![ev("message", "x")]),
            ("data:x\r\n\r\n", vec![ev("message", "x")]),
            ("data: x\rdata:  y\r\r", vec![ev("message", "x\n y")]),
            ("data\n\n", vec![ev("message", "")]),
            ("data:\ndata:\n\n", vec![ev("message", "\n")]),
            (": comment\n\nevent: only-type\n\n", vec![]),
            ("event: a\n\ndata: b\n\n", vec![ev("message", "b")]),
            (
                "id: 7\nretry: 10\nfoo: bar\ndata: z\n\n",
                vec![ev("message", "z")],
            ),
            ("\u{feff}data: bom\n\n", vec![ev("message", "bom")]),
            ("data: unfinished\n", vec![]),
            ("event:  spaced\ndata: d\n\n", vec![ev(" spaced", "d")]),
        ];
        for (input, want) in cases {
            let mut p = SseParser::new();
            assert_eq!(&p.feed(input), want, "{input:?}");
        }
    }

    #[test]
    fn a_crlf_split_between_chunks_is_one_line_break() {
        let mut p = SseParser::new();
        assert!(p.feed("data: a\r").is_empty());
        assert!(p.feed("\n").is_empty());
        assert_eq!(p.feed("\r").len(), 1);
        assert!(p.feed("\ndata: b\r\n\r\n").len() == 1);
    }

    #[test]
    fn utf8_split_inside_a_character() {
        let text = "data: é😀\n\n".as_bytes();
        let mut p = SseParser::new();
        let mut got = Vec::new();
        for b in text {
            got.extend(p.feed_bytes(std::slice::from_ref(b)));
        }
        assert_eq!(got, vec![ev("message", "é😀")]);
        let mut p = SseParser::new();
        assert_eq!(
            p.feed_bytes(b"data: \xff\xfe\n\n"),
            vec![ev("message", "\u{fffd}\u{fffd}")]
        );
    }
}
