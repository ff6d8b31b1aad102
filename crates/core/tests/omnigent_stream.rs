//! `omnigent::stream::SessionStream` driven by the real capture (stream_fresh.txt): the exact
//! items a user sees at each step, then reconnects, snapshots, deltas, tools and interrupts.

use canvas_core::conversations::live::events::{ExecutionStatus, ItemKind, ViewItem};
use canvas_core::omnigent::dto::{decode_session, Session, SessionStatus};
use canvas_core::omnigent::sse::{SseEvent, SseParser};
use canvas_core::omnigent::stream::{Changed, SessionStream, RECONNECT_AFTER_MS};
use proptest::prelude::*;
use serde_json::{json, Value};

const STREAM: &str = include_str!("fixtures/omnigent/stream_fresh.txt");
const CREATE_FRESH: &str = include_str!("fixtures/omnigent/create_fresh.json");

const USER_ID: &str = "fb517a1417ee45b5a70878ad5f3e27da";
const REPLY_ID: &str = "47a42a1880d24f938ed30e464df7342b";
const REPLY: &str = "stub reply #1 to: hello fresh";

fn capture_events() -> Vec<SseEvent> {
    SseParser::new().feed(STREAM)
}

fn user(text: &str) -> ItemKind {
    ItemKind::UserMessage {
        text: text.into(),
        images: Vec::new(),
    }
}

fn agent(text: &str, streaming: bool) -> ItemKind {
    ItemKind::AgentMessage {
        text: text.into(),
        streaming,
    }
}

fn kinds(s: &SessionStream) -> Vec<ItemKind> {
    s.items().iter().map(|i| i.kind.clone()).collect()
}

fn ids(s: &SessionStream) -> Vec<String> {
    s.items().iter().map(|i| i.id.clone()).collect()
}

/// The rows a view would hold after applying `changed` (the app's `sync_rows`).
fn sync(rows: &mut Vec<ViewItem>, s: &SessionStream, changed: Changed) {
    if let Some(from) = changed.first() {
        let from = from.min(rows.len());
        rows.truncate(from);
        rows.extend(s.items()[from..].iter().cloned());
    }
}

#[test]
fn the_capture_step_by_step() {
    let events = capture_events();
    let mut s = SessionStream::new();
    assert_eq!(s.status(), ExecutionStatus::Unknown(String::new()));
    s.connection_opened(1_000);
    assert!(!s.subscribed());
    let mut rows = Vec::new();
    let mut seen: Vec<(String, Vec<ItemKind>)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        let changed = s.apply_sse(e, 1_000 + i as i64);
        sync(&mut rows, &s, changed);
        assert_eq!(rows, s.items(), "rows follow the changes after {}", e.event);
        seen.push((e.event.clone(), kinds(&s)));
    }
    let at = |i: usize| &seen[i].1;
    // The first heartbeat acknowledges the subscription.
    assert!(s.subscribed());
    assert_eq!(at(0), &Vec::<ItemKind>::new());
    // The user's message appears when the server consumed it.
    assert_eq!(at(3), &vec![user("hello fresh")]);
    // The reply streams in, delta by delta, in one bubble.
    assert_eq!(at(8), &vec![user("hello fresh"), agent("stub", true)]);
    assert_eq!(at(9), &vec![user("hello fresh"), agent("stub reply", true)]);
    assert_eq!(at(13), &vec![user("hello fresh"), agent(REPLY, true)]);
    // The finished item replaces the streamed text in place.
    assert_eq!(at(14), &vec![user("hello fresh"), agent(REPLY, false)]);
    assert_eq!(at(18), at(14));
    assert_eq!(ids(&s), [USER_ID, REPLY_ID]);
    assert_eq!(s.items()[1].key, REPLY_ID);
    assert_eq!(s.items()[1].timestamp, "2026-11-30T09:20:52Z");
    assert_eq!(s.items()[0].timestamp, "", "input.consumed carries no time");
    // Status: running during the turn, idle at the end.
    assert_eq!(s.status(), ExecutionStatus::Idle);
    assert_eq!(s.usage().context_tokens, Some(16));
    assert_eq!(s.usage().context_window, Some(128_000));
    assert_eq!(s.usage().total_cost_usd, None);
    assert!(!s.ended());
}

#[test]
fn statuses_during_the_capture() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    let mut statuses = Vec::new();
    for e in capture_events() {
        s.apply_sse(&e, 0);
        if e.event == "session.status" {
            statuses.push(s.status());
        }
    }
    assert_eq!(statuses, [ExecutionStatus::Running, ExecutionStatus::Idle]);
}

#[test]
fn the_capture_fed_as_raw_chunks_gives_the_same_items() {
    let mut reference = SessionStream::new();
    reference.connection_opened(0);
    for e in capture_events() {
        reference.apply_sse(&e, 0);
    }
    let crlf = STREAM.replace('\n', "\r\n");
    for text in [STREAM, crlf.as_str()] {
        for size in [1, 2, 3, 7, 64, 1000] {
            let mut s = SessionStream::new();
            s.connection_opened(0);
            let mut rows = Vec::new();
            for chunk in text.as_bytes().chunks(size) {
                let changed = s.feed_bytes(chunk, 0);
                sync(&mut rows, &s, changed);
            }
            assert_eq!(s.items(), reference.items(), "chunks of {size}");
            assert_eq!(rows, s.items(), "chunks of {size}");
            assert_eq!(s.status(), ExecutionStatus::Idle);
        }
    }
}

#[test]
fn a_reconnect_replay_shows_every_item_once() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.feed(STREAM, 0);
    let once = s.items().to_vec();
    // The same events again on a new connection (and a third time without reconnecting).
    s.connection_opened(10_000);
    s.feed(STREAM, 10_000);
    assert_eq!(s.items(), once.as_slice());
    s.feed(STREAM, 11_000);
    assert_eq!(s.items(), once.as_slice());
    assert_eq!(ids(&s), [USER_ID, REPLY_ID]);
}

/// The snapshot `GET /v1/sessions/{id}` returns after the capture's turn (nested items).
fn snapshot_after_turn() -> Session {
    let mut v: Value = serde_json::from_str(CREATE_FRESH).unwrap();
    v["items"] = json!([
        {"id": USER_ID, "type": "message", "status": "completed", "response_id": "resp_93d029d4f82243f39cc6231f",
         "created_at": 1796030448, "data": {"role": "user", "content": [{"type": "input_text", "text": "hello fresh"}],
         "user_authored": true}},
        {"id": REPLY_ID, "type": "message", "status": "completed", "response_id": "resp_93d029d4f82243f39cc6231f",
         "created_at": 1796030452, "data": {"role": "assistant", "content": [{"type": "output_text", "text": REPLY}],
         "model": "stub-chat"}}
    ]);
    decode_session(200, v.to_string().as_bytes()).unwrap()
}

#[test]
fn the_reconnect_contract_stream_then_snapshot_then_dedupe() {
    // Stream first: the turn arrives live.
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.feed(STREAM, 0);
    // Then the snapshot, which has the same items: nothing doubles, nothing moves.
    let changed = s.apply_snapshot(&snapshot_after_turn());
    assert_eq!(ids(&s), [USER_ID, REPLY_ID]);
    assert_eq!(kinds(&s), [user("hello fresh"), agent(REPLY, false)]);
    // The snapshot's time fills in the user's message.
    assert_eq!(s.items()[0].timestamp, "2026-11-30T09:20:48Z");
    assert_eq!(changed, Changed::From { from: 0 });
    assert_eq!(s.title(), Some("fresh"));
    // A second identical snapshot changes nothing.
    assert_eq!(s.apply_snapshot(&snapshot_after_turn()), Changed::Nothing);

    // Snapshot first (a reload after the turn), then the stream replays the same turn.
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.apply_snapshot(&snapshot_after_turn());
    assert_eq!(kinds(&s), [user("hello fresh"), agent(REPLY, false)]);
    let mut rows = s.items().to_vec();
    let changed = s.feed(STREAM, 0);
    sync(&mut rows, &s, changed);
    assert_eq!(ids(&s), [USER_ID, REPLY_ID]);
    assert_eq!(kinds(&s), [user("hello fresh"), agent(REPLY, false)]);
    assert_eq!(rows, s.items());
}

#[test]
fn snapshot_items_come_first_and_newer_stream_items_follow() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    // Live: a new user message and the start of a reply, before the snapshot arrives.
    s.apply_event(
        &json!({"type": "session.input.consumed", "data": {"item_id": "u2", "type": "message",
            "data": {"role": "user", "content": [{"type": "input_text", "text": "second"}]}}}),
        0,
    );
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "Work"}),
        0,
    );
    // The snapshot has the older turn (and already the second message).
    let mut snap = snapshot_after_turn();
    snap.items.push(
        json!({"id": "u2", "type": "message", "created_at": 1796030500,
        "data": {"role": "user", "content": [{"type": "input_text", "text": "second"}]}}),
    );
    snap.status = Some(SessionStatus::Idle);
    s.apply_snapshot(&snap);
    assert_eq!(
        kinds(&s),
        [
            user("hello fresh"),
            agent(REPLY, false),
            user("second"),
            agent("Work", true)
        ]
    );
    // The stream said nothing about the status on this connection: the snapshot's applies.
    assert_eq!(s.status(), ExecutionStatus::Idle);
    s.apply_event(&json!({"type": "session.status", "status": "running"}), 0);
    s.apply_snapshot(&snap);
    assert_eq!(
        s.status(),
        ExecutionStatus::Running,
        "the stream's status wins"
    );
    // The reply finishes.
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "ing on it"}),
        0,
    );
    s.apply_event(
        &json!({"type": "response.output_item.done", "item": {"id": "a2", "type": "message",
            "role": "assistant", "content": [{"type": "output_text", "text": "Working on it."}]}}),
        0,
    );
    assert_eq!(ids(&s), [USER_ID, REPLY_ID, "u2", "a2"]);
    assert_eq!(s.items()[3].kind, agent("Working on it.", false));
}

#[test]
fn deltas_then_done_replace_in_place() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    assert_eq!(
        s.apply_event(
            &json!({"type": "response.output_text.delta", "delta": "Hel"}),
            0
        ),
        Changed::From { from: 0 }
    );
    assert_eq!(
        s.apply_event(
            &json!({"type": "response.output_text.delta", "delta": "lo"}),
            0
        ),
        Changed::Updated { index: 0 }
    );
    // Empty deltas change nothing.
    assert_eq!(
        s.apply_event(
            &json!({"type": "response.output_text.delta", "delta": ""}),
            0
        ),
        Changed::Nothing
    );
    assert_eq!(kinds(&s), [agent("Hello", true)]);
    let draft_key = s.items()[0].key.clone();
    // The final text differs from what streamed: the final text wins.
    assert_eq!(
        s.apply_event(
            &json!({"type": "response.output_item.done", "item": {"id": "m1", "type": "message",
                "role": "assistant", "content": [{"type": "output_text", "text": "Hello!"}]}}),
            0
        ),
        Changed::Updated { index: 0 }
    );
    assert_eq!(kinds(&s), [agent("Hello!", false)]);
    assert_eq!(s.items()[0].id, "m1");
    assert_ne!(s.items()[0].key, draft_key);
    // The same item again changes nothing.
    assert_eq!(
        s.apply_event(
            &json!({"type": "response.output_item.done", "item": {"id": "m1", "type": "message",
                "role": "assistant", "content": [{"type": "output_text", "text": "Hello!"}]}}),
            0
        ),
        Changed::Nothing
    );
}

#[test]
fn native_message_scoped_deltas_skip_repeated_chunks() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    let d = |id: &str, index: i64, delta: &str| json!({"type": "response.output_text.delta", "delta": delta, "message_id": id, "index": index});
    for e in [
        d("n1", 0, "a"),
        d("n1", 1, "b"),
        d("n1", 1, "b"),
        d("n2", 0, "X"),
        d("n1", 2, "c"),
    ] {
        s.apply_event(&e, 0);
    }
    assert_eq!(kinds(&s), [agent("abc", true), agent("X", true)]);
    // The final message names its preview.
    s.apply_event(
        &json!({"type": "response.output_item.done", "item": {"id": "f2", "type": "message",
            "role": "assistant", "stream_message_id": "n2",
            "content": [{"type": "output_text", "text": "X done"}]}}),
        0,
    );
    assert_eq!(kinds(&s), [agent("abc", true), agent("X done", false)]);
}

#[test]
fn interrupted_keeps_the_partial_text_and_marks_the_stop() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.apply_event(
        &json!({"type": "session.input.consumed", "data": {"item_id": "u1", "type": "message",
            "data": {"role": "user", "content": [{"type": "input_text", "text": "write a poem"}]}}}),
        0,
    );
    s.apply_event(&json!({"type": "session.status", "status": "running"}), 0);
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "Roses are"}),
        0,
    );
    let interrupted = json!({"type": "session.interrupted", "data": {"requested_at": 1796030460}});
    s.apply_event(&interrupted, 0);
    assert_eq!(
        kinds(&s),
        [
            user("write a poem"),
            agent("Roses are", false),
            ItemKind::Paused
        ]
    );
    assert_eq!(s.items()[2].timestamp, "2026-11-30T09:21:00Z");
    // The same event again (a replay) shows once.
    assert_eq!(s.apply_event(&interrupted, 0), Changed::Nothing);
    s.apply_event(&json!({"type": "session.status", "status": "idle"}), 0);
    assert_eq!(s.status(), ExecutionStatus::Idle);
    // The server persists the partial reply: it replaces the cut-short text in place.
    s.apply_event(
        &json!({"type": "response.output_item.done", "item": {"id": "a1", "type": "message",
            "role": "assistant", "interrupted": true,
            "content": [{"type": "output_text", "text": "Roses are"}]}}),
        0,
    );
    assert_eq!(ids(&s)[1], "a1");
    assert_eq!(
        kinds(&s),
        [
            user("write a poem"),
            agent("Roses are", false),
            ItemKind::Paused
        ]
    );
    // The next turn streams into a new bubble.
    s.apply_event(
        &json!({"type": "session.input.consumed", "data": {"item_id": "u2", "type": "message",
            "data": {"role": "user", "content": [{"type": "input_text", "text": "again"}]}}}),
        0,
    );
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "Violets"}),
        0,
    );
    assert_eq!(s.items().len(), 5);
    assert_eq!(s.items()[4].kind, agent("Violets", true));
}

#[test]
fn completed_without_a_final_item_stops_streaming_and_a_late_final_replaces_it() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "Done."}),
        0,
    );
    s.apply_event(
        &json!({"type": "response.completed", "response": {"id": "r"}}),
        0,
    );
    assert_eq!(kinds(&s), [agent("Done.", false)]);
    s.apply_event(
        &json!({"type": "response.output_item.done", "item": {"id": "m9", "type": "message",
            "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}}),
        0,
    );
    assert_eq!(ids(&s), ["m9"]);
}

#[test]
fn a_new_turn_never_replaces_text_cut_short_in_an_earlier_one() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "Half"}),
        0,
    );
    s.apply_event(&json!({"type": "response.failed", "response": {}}), 0);
    s.apply_event(
        &json!({"type": "response.in_progress", "response": {"id": "r2"}}),
        0,
    );
    s.apply_event(
        &json!({"type": "response.output_item.done", "item": {"id": "m2", "type": "message",
            "role": "assistant", "content": [{"type": "output_text", "text": "Other"}]}}),
        0,
    );
    assert_eq!(kinds(&s), [agent("Half", false), agent("Other", false)]);
}

#[test]
fn tool_calls_and_their_outputs_share_a_card() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "Let me look."}),
        0,
    );
    s.apply_event(
        &json!({"type": "response.output_item.done", "item": {"id": "fc1", "type": "function_call",
            "status": "completed", "name": "bash", "call_id": "c1",
            "arguments": "{\"command\": \"ls -la /tmp\"}"}}),
        0,
    );
    let running = ItemKind::ToolCall {
        tool: "bash".into(),
        summary: "ls -la /tmp".into(),
        output: None,
        images: Vec::new(),
        is_error: false,
        running: true,
    };
    assert_eq!(kinds(&s), [agent("Let me look.", true), running]);
    let changed = s.apply_event(
        &json!({"type": "response.output_item.done", "item": {"id": "fo1",
            "type": "function_call_output", "call_id": "c1", "output": "a\nb"}}),
        0,
    );
    assert_eq!(changed, Changed::Updated { index: 1 });
    let done = ItemKind::ToolCall {
        tool: "bash".into(),
        summary: "ls -la /tmp".into(),
        output: Some("a\nb".into()),
        images: Vec::new(),
        is_error: false,
        running: false,
    };
    assert_eq!(s.items()[1].kind, done);
    // A call whose turn ends without output stops spinning.
    s.apply_event(
        &json!({"type": "response.output_item.done", "item": {"id": "fc2", "type": "function_call",
            "name": "search.web", "call_id": "c2", "arguments": "{\"query\": \"rust sse\"}"}}),
        0,
    );
    s.apply_event(&json!({"type": "response.completed", "response": {}}), 0);
    assert_eq!(
        s.items()[2].kind,
        ItemKind::ToolCall {
            tool: "search.web".into(),
            summary: "rust sse".into(),
            output: None,
            images: Vec::new(),
            is_error: false,
            running: false,
        }
    );
    assert_eq!(s.items()[0].kind, agent("Let me look.", false));
    // An output whose call is unknown shows on its own.
    s.apply_event(
        &json!({"type": "response.output_item.done", "item": {"id": "fo9",
            "type": "function_call_output", "call_id": "zz", "output": "orphan"}}),
        0,
    );
    assert!(
        matches!(&s.items()[3].kind, ItemKind::ToolCall { output: Some(o), .. } if o == "orphan")
    );
    // The snapshot (nested items) rebuilds the same cards.
    let snap = Session {
        items: vec![
            json!({"id": "fc1", "type": "function_call", "data": {"name": "bash", "call_id": "c1",
                "arguments": "{\"command\": \"ls -la /tmp\"}", "model": "m"}}),
            json!({"id": "fo1", "type": "function_call_output", "data": {"call_id": "c1", "output": "a\nb"}}),
        ],
        ..Session::default()
    };
    let mut fresh = SessionStream::new();
    fresh.apply_snapshot(&snap);
    assert_eq!(kinds(&fresh), [done]);
}

#[test]
fn other_item_types() {
    let mut s = SessionStream::new();
    let items = vec![
        json!({"id": "r1", "type": "reasoning", "data": {"model": "m", "summary": [{"type": "summary_text", "text": "Think first."}]}}),
        json!({"id": "r2", "type": "reasoning", "data": {"model": "m", "summary": []}}),
        json!({"id": "e1", "type": "error", "data": {"source": "llm", "code": "rate_limited", "message": "Slow down"}}),
        json!({"id": "m1", "type": "message", "data": {"role": "user", "is_meta": true, "content": [{"type": "input_text", "text": "skill text"}]}}),
        json!({"id": "c1", "type": "compaction", "data": {"summary": "Earlier: setup", "last_item_id": "x", "token_count": 9}}),
        json!({"id": "t1", "type": "terminal_command", "data": {"kind": "bash", "input": "ls", "stdout": "f", "stderr": ""}}),
        json!({"id": "x1", "type": "resource_event", "data": {"event_type": "created", "resource_id": "r", "resource_type": "file"}}),
        json!({"id": "n1", "type": "native_tool", "data": {"item": {"type": "web_search_call"}}}),
        json!({"id": "i1", "type": "message", "data": {"role": "user", "content": [{"type": "input_image", "image_url": "x"}]}}),
        json!("not an item"),
        json!({"type": "message", "data": {"role": "assistant", "content": "plain"}}),
    ];
    s.apply_snapshot_items(&items);
    let k = kinds(&s);
    assert_eq!(
        k[0],
        ItemKind::Thought {
            text: "Think first.".into()
        }
    );
    assert_eq!(
        k[1],
        ItemKind::Error {
            title: "rate_limited".into(),
            detail: "Slow down".into()
        }
    );
    assert_eq!(
        k[2],
        ItemKind::Condensation {
            summary: Some("Earlier: setup".into()),
            forgotten: 0
        }
    );
    assert_eq!(
        k[3],
        ItemKind::Terminal {
            command: "ls".into(),
            output: Some("f".into()),
            exit_code: None,
            running: false
        }
    );
    assert!(matches!(&k[4], ItemKind::Generic { kind, .. } if kind == "native_tool"));
    assert_eq!(k[5], user("(attachment)"));
    assert_eq!(k[6], agent("plain", false));
    assert_eq!(k.len(), 7);
    // Items without an id get a stable one: the same snapshot again adds nothing.
    assert_eq!(s.apply_snapshot_items(&items), Changed::Nothing);
}

#[test]
fn heartbeats_and_the_reconnect_rule() {
    assert_eq!(RECONNECT_AFTER_MS, 30_000);
    let mut s = SessionStream::new();
    assert!(!s.needs_reconnect(1_000_000), "no connection yet");
    s.connection_opened(1_000);
    assert!(!s.subscribed());
    assert!(!s.needs_reconnect(31_000));
    assert!(
        s.needs_reconnect(31_001),
        "no heartbeat within 2 × 15 s of opening"
    );
    s.feed(
        "event: session.heartbeat\ndata: {\"type\": \"session.heartbeat\"}\n\n",
        20_000,
    );
    assert!(s.subscribed());
    assert!(!s.needs_reconnect(50_000));
    assert!(s.needs_reconnect(50_001));
    // Any event or byte counts as life (no heartbeats are sent while events flow).
    s.apply_event(&json!({"type": "session.presence", "viewers": []}), 45_000);
    assert!(!s.needs_reconnect(75_000));
    s.feed(": keep-alive comment\n", 70_000);
    assert!(!s.needs_reconnect(100_000));
    assert!(s.needs_reconnect(100_001));
    // Time going backwards never triggers it.
    assert!(!s.needs_reconnect(0));
    // A new connection waits for its own heartbeat again.
    s.connection_opened(200_000);
    assert!(!s.subscribed());
    // Its opening counts as life: silent for the reconnect window, not a moment longer.
    assert!(!s.needs_reconnect(200_000 + RECONNECT_AFTER_MS));
    assert!(s.needs_reconnect(200_000 + RECONNECT_AFTER_MS + 1));
    // The server ending the stream on purpose.
    s.feed("data: [DONE]\n\n", 200_001);
    assert!(s.ended());
    assert!(!s.needs_reconnect(1_000_000));
}

#[test]
fn failures_titles_and_odd_events() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    for junk in [
        json!(null),
        json!([1, 2]),
        json!({"no": "type"}),
        json!({"type": 5}),
        json!({"type": "session.status"}),
        json!({"type": "session.input.consumed", "data": 7}),
        json!({"type": "response.output_item.done", "item": "x"}),
        json!({"type": "response.output_text.delta", "delta": 3}),
        json!({"type": "session.interrupted"}),
        json!({"type": "brand.new.event", "data": {}}),
    ] {
        s.apply_event(&junk, 0);
    }
    // Only the interrupt (with no data) showed something.
    assert_eq!(kinds(&s), [ItemKind::Paused]);
    assert_eq!(s.status(), ExecutionStatus::Unknown(String::new()));
    s.apply_event(
        &json!({"type": "session.status", "status": "failed",
            "error": {"code": "harness_crashed", "message": "The harness exited"}}),
        0,
    );
    assert_eq!(s.status(), ExecutionStatus::Error);
    assert_eq!(s.last_error(), Some("The harness exited"));
    s.apply_event(
        &json!({"type": "session.title", "conversation_id": "c", "title": "Renamed"}),
        0,
    );
    assert_eq!(s.title(), Some("Renamed"));
    s.apply_event(
        &json!({"type": "session.usage", "conversation_id": "c", "total_cost_usd": 0.42}),
        0,
    );
    assert_eq!(s.usage().total_cost_usd, Some(0.42));
    // SSE data that is not JSON is ignored.
    assert_eq!(s.feed("event: x\ndata: {broken\n\n", 0), Changed::Nothing);
    // Unknown events never touch the items.
    assert_eq!(
        s.apply_event(&json!({"type": "session.presence", "viewers": []}), 0),
        Changed::Nothing
    );
}

#[test]
fn a_reconnect_drops_the_in_flight_preview_and_the_replay_rebuilds_it() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "Part one, "}),
        0,
    );
    assert_eq!(kinds(&s), [agent("Part one, ", true)]);
    // The connection drops; the new one replays the text in flight as one delta.
    let changed = s.connection_opened(5_000);
    assert_eq!(changed, Changed::From { from: 0 });
    assert!(s.items().is_empty());
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "Part one, "}),
        5_000,
    );
    s.apply_event(
        &json!({"type": "response.output_text.delta", "delta": "part two"}),
        5_000,
    );
    assert_eq!(kinds(&s), [agent("Part one, part two", true)]);
}

proptest! {
    /// Whatever order and repetition of the capture's events (a replay, a reconnect), no item
    /// id shows twice and the items never panic.
    #[test]
    fn no_item_id_ever_shows_twice(order in proptest::collection::vec(0usize..19, 0..60), reconnect_at in 0usize..60) {
        let events = capture_events();
        let mut s = SessionStream::new();
        s.connection_opened(0);
        for (n, i) in order.iter().enumerate() {
            if n == reconnect_at {
                s.connection_opened(n as i64);
            }
            s.apply_sse(&events[*i % events.len()], n as i64);
            let mut keys: Vec<&str> = s.items().iter().map(|i| i.key.as_str()).collect();
            let len = keys.len();
            keys.sort_unstable();
            keys.dedup();
            prop_assert_eq!(keys.len(), len);
        }
        s.apply_snapshot(&snapshot_after_turn());
        let real: Vec<&str> = s.items().iter().map(|i| i.id.as_str())
            .filter(|id| *id == USER_ID || *id == REPLY_ID).collect();
        prop_assert_eq!(real, vec![USER_ID, REPLY_ID]);
    }
}

#[test]
fn usage_in_words() {
    use canvas_core::omnigent::stream::Usage;
    let cases = [
        (Usage::default(), None),
        (
            Usage {
                context_tokens: Some(1234),
                context_window: Some(128_000),
                total_cost_usd: None,
            },
            Some("context 1,234 / 128,000 tokens"),
        ),
        (
            Usage {
                context_tokens: Some(12),
                context_window: None,
                total_cost_usd: Some(0.0123),
            },
            Some("context 12 tokens · $0.0123"),
        ),
        (
            Usage {
                context_tokens: None,
                context_window: Some(1_000_000),
                total_cost_usd: Some(f64::NAN),
            },
            None,
        ),
    ];
    for (usage, want) in cases {
        assert_eq!(usage.words().as_deref(), want, "{usage:?}");
    }
}

/// `response.elicitation_request` as Omnigent 0.19.1 publishes it (schemas.py; the built-in
/// policy that asks before an agent adds a policy).
fn elicitation(id: &str) -> Value {
    json!({
        "type": "response.elicitation_request",
        "elicitation_id": id,
        "method": "elicitation/create",
        "params": {
            "mode": "url",
            "message": "Agent wants to add policy: t1. Approve?",
            "requestedSchema": {},
            "url": format!("/approve/s/{id}"),
            "phase": "tool_call",
            "policy_name": "__ask_on_add_policy",
            "content_preview": "{\"name\": \"t1\"}"
        }
    })
}

fn approval_card(s: &SessionStream, id: &str) -> (String, bool, bool) {
    let item = s
        .items()
        .iter()
        .find(|i| i.id == id)
        .expect("the question's card");
    match &item.kind {
        ItemKind::ToolCall {
            tool,
            summary,
            running,
            is_error,
            ..
        } => {
            assert_eq!(summary, "Agent wants to add policy: t1. Approve?");
            (tool.english().to_string(), *running, *is_error)
        }
        other => panic!("not a card: {other:?}"),
    }
}

#[test]
fn a_question_waits_for_the_person_until_answered() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.apply_event(&json!({"type": "session.status", "status": "running"}), 1);
    let mut rows = Vec::new();
    let changed = s.apply_event(&elicitation("elicit_1"), 2_000);
    sync(&mut rows, &s, changed);
    assert_eq!(rows, s.items());
    assert_eq!(s.status(), ExecutionStatus::WaitingForConfirmation);
    let pending = s.pending();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].action_id, "elicit_1");
    assert_eq!(
        pending[0].summary,
        "Agent wants to add policy: t1. Approve?"
    );
    assert_eq!(
        approval_card(&s, "elicit_1"),
        ("Approval asked".into(), true, false)
    );
    // The same request again (a reconnect's replay) changes nothing.
    assert_eq!(
        s.apply_event(&elicitation("elicit_1"), 2_100),
        Changed::Nothing
    );
    assert_eq!(s.pending().len(), 1);

    let changed = s.apply_event(
        &json!({"type": "response.elicitation_resolved", "elicitation_id": "elicit_1", "action": "accept", "reason": null}),
        3_000,
    );
    sync(&mut rows, &s, changed);
    assert_eq!(rows, s.items(), "the card changes in place");
    assert!(s.pending().is_empty());
    assert_eq!(s.status(), ExecutionStatus::Running);
    assert_eq!(
        approval_card(&s, "elicit_1"),
        ("Approved".into(), false, false)
    );

    s.apply_event(&elicitation("elicit_2"), 4_000);
    s.apply_event(
        &json!({"type": "response.elicitation_resolved", "elicitation_id": "elicit_2", "action": "decline"}),
        5_000,
    );
    assert_eq!(
        approval_card(&s, "elicit_2"),
        ("Denied".into(), false, true)
    );
}

#[test]
fn the_snapshot_lists_the_open_questions() {
    // Opened after the question was asked: the snapshot brings it.
    let mut s = SessionStream::new();
    s.connection_opened(0);
    let session: Session = serde_json::from_value(json!({
        "id": "s", "status": "running", "items": [],
        "pending_elicitations": [elicitation("elicit_9")]
    }))
    .unwrap();
    s.apply_snapshot(&session);
    assert_eq!(s.status(), ExecutionStatus::WaitingForConfirmation);
    assert_eq!(s.pending()[0].action_id, "elicit_9");
    // Answered in another tab: the next snapshot no longer lists it.
    let later: Session =
        serde_json::from_value(json!({"id": "s", "status": "running", "items": []})).unwrap();
    s.apply_snapshot(&later);
    assert!(s.pending().is_empty());
    assert_eq!(
        approval_card(&s, "elicit_9"),
        ("Answered".into(), false, false)
    );
    // A stream that says how it ended afterwards still tells.
    s.apply_event(
        &json!({"type": "response.elicitation_resolved", "elicitation_id": "elicit_9", "action": "accept"}),
        1,
    );
    assert_eq!(
        approval_card(&s, "elicit_9"),
        ("Approved".into(), false, false)
    );
}

#[test]
fn a_listed_session_with_questions_needs_the_person() {
    use canvas_core::agent_server::dto::ExecutionStatus as Summary;
    use canvas_core::client::unified::ConversationSummary;
    let s: Session = serde_json::from_value(
        json!({"id": "s", "status": "running", "pending_elicitations_count": 2}),
    )
    .unwrap();
    let summary = ConversationSummary::from(s);
    assert_eq!(
        summary.execution_status,
        Some(Summary::WaitingForConfirmation)
    );
    let s: Session = serde_json::from_value(
        json!({"id": "s", "status": "idle", "pending_elicitations_count": 0}),
    )
    .unwrap();
    assert_eq!(
        ConversationSummary::from(s).execution_status,
        Some(Summary::Idle)
    );
}

#[test]
fn a_cancelled_response_ends_the_turn() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    s.apply_event(&json!({"type": "session.status", "status": "running"}), 1);
    s.apply_event(&elicitation("elicit_3"), 2);
    s.apply_event(
        &json!({"type": "response.elicitation_resolved", "elicitation_id": "elicit_3", "action": "decline"}),
        3,
    );
    assert_eq!(s.status(), ExecutionStatus::Running);
    // What Omnigent 0.19.1 sent after a denial, with no `session.status` after it.
    s.apply_event(&json!({"type": "response.cancelled"}), 4);
    assert_eq!(s.status(), ExecutionStatus::Idle);
    // A later status still counts.
    s.apply_event(&json!({"type": "session.status", "status": "running"}), 5);
    assert_eq!(s.status(), ExecutionStatus::Running);
}

#[test]
fn the_servers_note_of_a_model_switch_is_a_switch_not_a_user_message() {
    let mut s = SessionStream::new();
    s.connection_opened(0);
    // As the stream says it after `PATCH {model_override}` (capture 11).
    s.apply_event(
        &json!({"type": "session.input.consumed", "data": {"item_id": "m1", "type": "message",
            "data": {"role": "user", "content": [{"type": "input_text",
                "text": "[System: model changed to stub-model-2]"}], "agent": null}}}),
        0,
    );
    s.apply_event(
        &json!({"type": "session.input.consumed", "data": {"item_id": "m2", "type": "message",
            "data": {"role": "user", "content": [{"type": "input_text",
                "text": "[System: model reset to the agent default]"}]}}}),
        0,
    );
    // What a person wrote stays theirs, even in the same words.
    let mut snap = snapshot_after_turn();
    snap.items.push(
        json!({"id": "u9", "type": "message", "created_at": 1796030500,
        "data": {"role": "user", "user_authored": true, "content": [{"type": "input_text",
            "text": "[System: model changed to mine]"}]}}),
    );
    s.apply_snapshot(&snap);
    let k = kinds(&s);
    assert!(
        k.contains(&ItemKind::ModelSwitched(Some("stub-model-2".into()))),
        "{k:?}"
    );
    assert!(k.contains(&ItemKind::ModelSwitched(None)), "{k:?}");
    assert!(
        k.contains(&user("[System: model changed to mine]")),
        "{k:?}"
    );
}

#[test]
fn a_managed_sandboxs_launch_is_one_card_that_says_each_stage() {
    use canvas_core::omnigent::stream::SANDBOX_CARD;
    let card = |s: &SessionStream| {
        s.items()
            .iter()
            .filter(|i| i.id == SANDBOX_CARD)
            .map(|i| match &i.kind {
                ItemKind::ToolCall {
                    tool,
                    running,
                    is_error,
                    output,
                    ..
                } => (
                    tool.english().to_string(),
                    *running,
                    *is_error,
                    output.clone(),
                ),
                other => panic!("{other:?}"),
            })
            .collect::<Vec<_>>()
    };
    let mut s = SessionStream::new();
    s.connection_opened(0);
    // The snapshot of a session whose sandbox is being made.
    let snap = Session {
        sandbox_status: Some(json!({"stage": "provisioning", "error": null, "provider": "modal"})),
        ..Session::default()
    };
    s.apply_snapshot(&snap);
    assert_eq!(
        card(&s),
        [(
            "Managed sandbox: provisioning…".to_string(),
            true,
            false,
            None
        )]
    );
    for stage in ["cloning", "starting", "connecting"] {
        s.apply_event(
            &json!({"type": "session.sandbox_status", "stage": stage, "provider": "modal"}),
            0,
        );
        assert_eq!(card(&s).len(), 1, "one card, updated in place");
        assert!(card(&s)[0].1, "{stage} is still under way");
    }
    s.apply_event(
        &json!({"type": "session.sandbox_status", "stage": "ready", "provider": "modal"}),
        0,
    );
    assert_eq!(
        card(&s),
        [(
            "Managed sandbox ready: the session runs there".to_string(),
            false,
            false,
            None
        )]
    );
    // A failed launch says so with the server's reason.
    let mut f = SessionStream::new();
    f.connection_opened(0);
    f.apply_event(
        &json!({"type": "session.sandbox_status", "stage": "failed",
            "error": "quota exceeded", "provider": "modal"}),
        0,
    );
    assert_eq!(
        card(&f),
        [(
            "The managed sandbox could not start".to_string(),
            false,
            true,
            Some("quota exceeded".to_string())
        )]
    );
}
