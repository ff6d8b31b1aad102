//! `omnigent::sse`: the real stream capture, chunked every way, and properties: splitting a
//! stream anywhere (inside `\r\n`, inside a UTF-8 character) never changes the events, and no
//! input makes the parser panic.

use canvas_core::omnigent::sse::{SseEvent, SseParser};
use proptest::prelude::*;

const STREAM: &str = include_str!("fixtures/omnigent/stream_fresh.txt");

fn whole(text: &str) -> Vec<SseEvent> {
    SseParser::new().feed(text)
}

fn chunked_bytes(bytes: &[u8], cuts: &[usize]) -> Vec<SseEvent> {
    let mut p = SseParser::new();
    let mut out = Vec::new();
    let mut at = 0;
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    for c in cuts {
        out.extend(p.feed_bytes(&bytes[at..c]));
        at = c;
    }
    out.extend(p.feed_bytes(&bytes[at..]));
    out
}

#[test]
fn the_capture_parses_into_its_events() {
    let events = whole(STREAM);
    let types: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(
        types,
        [
            "session.heartbeat",
            "session.changed_files.invalidated",
            "session.presence",
            "session.input.consumed",
            "session.status",
            "session.terminal_pending",
            "session.terminal_pending",
            "response.in_progress",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_text.delta",
            "response.output_item.done",
            "session.model",
            "session.usage",
            "response.completed",
            "session.status",
        ]
    );
    // Every data is one JSON object whose `type` is the SSE event name.
    for e in &events {
        let v: serde_json::Value = serde_json::from_str(&e.data).expect("JSON data");
        assert_eq!(v["type"], e.event.as_str());
    }
}

#[test]
fn the_capture_in_every_chunk_size_and_with_crlf() {
    let want = whole(STREAM);
    let crlf = STREAM.replace('\n', "\r\n");
    let cr = STREAM.replace('\n', "\r");
    assert_eq!(whole(&crlf), want);
    assert_eq!(whole(&cr), want);
    for text in [STREAM, crlf.as_str(), cr.as_str()] {
        for size in 1..=64 {
            let mut p = SseParser::new();
            let mut got = Vec::new();
            for chunk in text.as_bytes().chunks(size) {
                got.extend(p.feed_bytes(chunk));
            }
            assert_eq!(got, want, "chunks of {size}");
        }
    }
}

#[test]
fn reset_starts_a_new_connection() {
    let mut p = SseParser::new();
    assert!(p.feed("event: x\ndata: half").is_empty());
    p.reset();
    assert_eq!(
        p.feed("data: fresh\n\n"),
        vec![SseEvent {
            event: "message".into(),
            data: "fresh".into()
        }]
    );
}

/// Lines of an event stream, with every separator style.
fn stream_text() -> impl Strategy<Value = String> {
    let line = prop_oneof![
        "data: [a-zé😀{}\":, ]{0,12}".prop_map(|s| s),
        "event: [a-z.]{1,10}".prop_map(|s| s),
        ": [a-z ]{0,8}".prop_map(|s| s),
        Just(String::new()),
        Just("data".to_string()),
        "id: [0-9]{1,3}".prop_map(|s| s),
    ];
    let sep = prop_oneof![Just("\n"), Just("\r\n"), Just("\r")];
    proptest::collection::vec((line, sep), 0..30).prop_map(|parts| {
        parts
            .into_iter()
            .map(|(l, s)| format!("{l}{s}"))
            .collect::<String>()
    })
}

proptest! {
    #[test]
    fn splitting_anywhere_never_changes_the_events(
        text in stream_text(),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        let want = whole(&text);
        prop_assert_eq!(chunked_bytes(text.as_bytes(), &cuts), want.clone());
        // Text chunks split at character boundaries give the same too.
        let mut p = SseParser::new();
        let mut got = Vec::new();
        let mut at = 0;
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (text.len() + 1)).collect();
        bounds.sort_unstable();
        for mut c in bounds {
            while !text.is_char_boundary(c) { c -= 1; }
            if c < at { continue; }
            got.extend(p.feed(&text[at..c]));
            at = c;
        }
        got.extend(p.feed(&text[at..]));
        prop_assert_eq!(got, want);
    }

    #[test]
    fn any_bytes_never_panic_and_split_bytes_agree(
        bytes in proptest::collection::vec(any::<u8>(), 0..300),
        cuts in proptest::collection::vec(any::<usize>(), 0..8),
    ) {
        let mut p = SseParser::new();
        let want = p.feed_bytes(&bytes);
        prop_assert_eq!(chunked_bytes(&bytes, &cuts), want);
    }

    #[test]
    fn data_lines_are_joined_with_newlines(lines in proptest::collection::vec("[a-z ]{0,6}", 1..6)) {
        let text: String = lines.iter().map(|l| format!("data:{l}\n")).collect::<String>() + "\n";
        let events = whole(&text);
        prop_assert_eq!(events.len(), 1);
        let want: Vec<String> = lines.iter().map(|l| l.strip_prefix(' ').unwrap_or(l).to_string()).collect();
        prop_assert_eq!(&events[0].data, &want.join("\n"));
    }
}
