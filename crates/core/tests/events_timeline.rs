//! `events::Timeline` against the real agent-server captures (tests/fixtures/events/) and
//! synthetic streams.

use canvas_core::conversations::live::events::{
    Applied, ExecutionStatus, IgnoreReason, ItemKind, Timeline, ViewItem,
};
use proptest::prelude::*;
use serde_json::{json, Value};

mod support;
use support::frames;

const STUB_RUN: &str = include_str!("fixtures/events/ws_events_frames_stub_run.json");
const STREAMING_RUN: &str = include_str!("fixtures/events/ws_events_frames_streaming_run.json");
const LLM_UNREACHABLE: &str = include_str!("fixtures/events/ws_events_frames_llm_unreachable.json");
const EVENTS_SEARCH: &str = include_str!("fixtures/events/events_search.json");
/// A conversation of an ACP agent (a stub the real agent server launched as a custom command):
/// one tool call reported in progress then completed, and the streamed answer as the finish.
const ACP_RUN: &str = include_str!("fixtures/events/events_search_acp_stub.json");

fn replay(events: &[Value]) -> Timeline {
    let mut t = Timeline::new();
    for e in events {
        t.apply(e.clone());
    }
    t
}

fn kinds(items: &[ViewItem]) -> Vec<&ItemKind> {
    items.iter().map(|i| &i.kind).collect()
}

fn user(text: &str) -> ItemKind {
    ItemKind::UserMessage {
        text: text.into(),
        images: Vec::new(),
    }
}
fn thought(text: &str) -> ItemKind {
    ItemKind::Thought { text: text.into() }
}
fn finish(message: &str) -> ItemKind {
    ItemKind::Finish {
        message: message.into(),
    }
}
fn terminal(command: &str, output: &str, exit_code: i64) -> ItemKind {
    ItemKind::Terminal {
        command: command.into(),
        output: Some(output.into()),
        exit_code: Some(exit_code),
        running: false,
    }
}

/// A synthetic event.
fn ev(id: &str, ts: &str, kind: &str, extra: Value) -> Value {
    let mut v = json!({"id": id, "timestamp": ts, "source": "agent", "kind": kind});
    if let (Some(o), Value::Object(x)) = (v.as_object_mut(), extra) {
        o.extend(x);
    }
    v
}
fn status_ev(id: &str, ts: &str, status: &str) -> Value {
    ev(
        id,
        ts,
        "ConversationStateUpdateEvent",
        json!({"source": "environment", "key": "execution_status", "value": status}),
    )
}
fn terminal_action(id: &str, ts: &str, call: &str, command: &str) -> Value {
    ev(
        id,
        ts,
        "ActionEvent",
        json!({"thought": [], "tool_name": "terminal", "tool_call_id": call,
               "action": {"kind": "TerminalAction", "command": command},
               "security_risk": "HIGH", "summary": format!("run {command}")}),
    )
}
fn terminal_obs(id: &str, ts: &str, action_id: &str, call: &str, out: &str, code: i64) -> Value {
    ev(
        id,
        ts,
        "ObservationEvent",
        json!({"source": "environment", "tool_name": "terminal", "tool_call_id": call,
               "action_id": action_id,
               "observation": {"kind": "TerminalObservation", "content": [{"type": "text", "text": out}],
                               "command": "ignored", "exit_code": code}}),
    )
}

// ---------------------------------------------------------------------------------------------
// Replaying the captures

#[test]
fn stub_run_capture_yields_message_thought_terminal_finish() {
    let events = frames(STUB_RUN);
    let t = replay(&events);
    assert_eq!(t.len(), 14, "every frame is stored, shown or not");
    assert_eq!(
        kinds(t.items()),
        vec![
            &user("say hi"),
            &thought("Running a command."),
            &terminal("echo hi from stub", "hi from stub", 0),
            &finish("Done (stub LLM)."),
        ]
    );
    assert_eq!(t.status(), ExecutionStatus::Finished);
    assert!(t.pending_confirmation().is_empty());
    assert_eq!(t.oldest_timestamp(), Some("2026-11-30T09:05:38.599609"));
    assert_eq!(t.newest_timestamp(), Some("2026-11-30T09:05:39.968865"));
    // Items carry their event's id and timestamp; the thought has its own key.
    let items = t.items();
    assert_eq!(items[0].id, "b11c8873-283f-46b0-b9b1-66b1e76a7b5f");
    assert_eq!(items[0].timestamp, "2026-11-30T09:05:38.862744");
    assert_eq!(items[1].id, items[2].id);
    assert_eq!(items[1].key, format!("{}#thought", items[1].id));
    assert_eq!(items[2].key, items[2].id);
    let keys: std::collections::HashSet<&str> = items.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys.len(), items.len(), "keys are unique");
}

#[test]
fn stub_run_terminal_card_runs_until_its_observation() {
    let events = frames(STUB_RUN);
    let mut t = Timeline::new();
    for e in &events[..6] {
        t.apply(e.clone());
    }
    assert_eq!(t.status(), ExecutionStatus::Running);
    assert_eq!(
        t.items()[2].kind,
        ItemKind::Terminal {
            command: "echo hi from stub".into(),
            output: None,
            exit_code: None,
            running: true
        }
    );
    // The observation completes the card in place.
    assert_eq!(t.apply(events[6].clone()), Applied::Updated { index: 2 });
    assert_eq!(
        t.items()[2].kind,
        terminal("echo hi from stub", "hi from stub", 0)
    );
    // A state update changes no item.
    assert_eq!(t.apply(events[7].clone()), Applied::Inserted { from: 3 });
}

#[test]
fn streaming_capture_merges_deltas_then_the_action_replaces_them() {
    let events = frames(STREAMING_RUN);
    let mut t = Timeline::new();
    let delta_at = events
        .iter()
        .position(|e| e["kind"] == "StreamingDeltaEvent")
        .expect("capture has a delta");
    for e in &events[..=delta_at] {
        t.apply(e.clone());
    }
    assert_eq!(
        kinds(t.items()),
        vec![
            &user("say hi"),
            &ItemKind::AgentMessage {
                text: "Running a command.".into(),
                streaming: true
            }
        ]
    );
    // A second delta grows the same message in place.
    let more = ev(
        "extra-delta",
        "2026-11-30T09:01:26.441000",
        "StreamingDeltaEvent",
        json!({"content": " More."}),
    );
    assert_eq!(t.apply(more), Applied::Updated { index: 1 });
    assert_eq!(
        t.items()[1].kind,
        ItemKind::AgentMessage {
            text: "Running a command. More.".into(),
            streaming: true
        }
    );
    // The ActionEvent supersedes the streaming message: re-read from its index.
    let action_at = delta_at + 2;
    assert_eq!(events[action_at]["kind"], "ActionEvent");
    t.apply(events[delta_at + 1].clone());
    assert_eq!(
        t.apply(events[action_at].clone()),
        Applied::Inserted { from: 1 }
    );
    for e in &events[action_at + 1..] {
        t.apply(e.clone());
    }
    assert_eq!(
        kinds(t.items()),
        vec![
            &user("say hi"),
            &thought("Running a command."),
            &terminal(
                "sleep 1; printf \"line1\\nline2\\n\"; pwd",
                "line1\nline2\n/tmp/ohpeer/proj",
                0
            ),
            &finish("Done (stub LLM)."),
        ]
    );
    assert_eq!(t.status(), ExecutionStatus::Finished);
}

#[test]
fn final_agent_message_replaces_the_streaming_one() {
    let mut t = Timeline::new();
    t.apply(ev(
        "d1",
        "2026-01-01T00:00:01",
        "StreamingDeltaEvent",
        json!({"content": "Hel"}),
    ));
    t.apply(ev(
        "d2",
        "2026-01-01T00:00:02",
        "StreamingDeltaEvent",
        json!({"content": "lo"}),
    ));
    assert_eq!(t.items().len(), 1);
    assert_eq!(t.items()[0].id, "d1");
    let msg = ev(
        "m",
        "2026-01-01T00:00:03",
        "MessageEvent",
        json!({"llm_message": {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]}}),
    );
    assert_eq!(t.apply(msg), Applied::Inserted { from: 0 });
    assert_eq!(
        kinds(t.items()),
        vec![&ItemKind::AgentMessage {
            text: "Hello".into(),
            streaming: false
        }]
    );
    assert_eq!(t.items()[0].id, "m");
}

#[test]
fn streaming_message_cut_by_an_error_stays_as_partial_text() {
    let mut t = Timeline::new();
    t.apply(ev(
        "d1",
        "2026-01-01T00:00:01",
        "StreamingDeltaEvent",
        json!({"content": "Par"}),
    ));
    t.apply(ev(
        "e",
        "2026-01-01T00:00:02",
        "ConversationErrorEvent",
        json!({"code": "Boom", "detail": "cut"}),
    ));
    t.apply(ev(
        "d2",
        "2026-01-01T00:00:03",
        "StreamingDeltaEvent",
        json!({"content": "New"}),
    ));
    assert_eq!(
        kinds(t.items()),
        vec![
            &ItemKind::AgentMessage {
                text: "Par".into(),
                streaming: false
            },
            &ItemKind::Error {
                title: "Boom".into(),
                detail: "cut".into()
            },
            &ItemKind::AgentMessage {
                text: "New".into(),
                streaming: true
            },
        ]
    );
}

#[test]
fn llm_unreachable_capture_shows_the_error_once_and_status_error() {
    let t = replay(&frames(LLM_UNREACHABLE));
    let detail =
        "litellm.InternalServerError: InternalServerError: OpenAIException - Connection error.";
    assert_eq!(
        kinds(t.items()),
        vec![
            &user("say hi"),
            &ItemKind::Error {
                title: "LLMServiceUnavailableError".into(),
                detail: detail.into()
            },
        ]
    );
    assert_eq!(t.status(), ExecutionStatus::Error);
    assert_eq!(t.len(), 9);
}

#[test]
fn history_page_capture_two_turns() {
    let page = frames(EVENTS_SEARCH);
    let expected = [
        user("say hi"),
        thought("Running a command."),
        terminal("echo hi from stub", "hi from stub", 0),
        finish("Done (stub LLM)."),
        user("again"),
        finish("Done (stub LLM)."),
    ];
    let mut asc = Timeline::new();
    let r = asc.apply_page(page.clone());
    assert_eq!(
        (r.inserted, r.duplicates, r.ignored, r.from),
        (20, 0, 0, Some(0))
    );
    assert_eq!(kinds(asc.items()), expected.iter().collect::<Vec<_>>());
    assert_eq!(asc.status(), ExecutionStatus::Finished);

    // The same page as the server sends it for TIMESTAMP_DESC.
    let mut desc = Timeline::new();
    desc.apply_page(page.iter().rev().cloned());
    assert_eq!(desc.items(), asc.items());
    assert_eq!(desc.status(), ExecutionStatus::Finished);
    assert_eq!(desc.newest_timestamp(), Some("2026-11-30T09:06:04.145219"));
    assert_eq!(desc.oldest_timestamp(), Some("2026-11-30T09:03:32.207258"));
}

#[test]
fn an_acp_agents_tool_call_is_one_card_brought_up_to_date() {
    let page = frames(ACP_RUN);
    let expected = [
        user("List the files, please."),
        ItemKind::ToolCall {
            tool: "List files".to_string().into(),
            summary: "ls".into(),
            output: Some("a.txt".into()),
            images: Vec::new(),
            is_error: false,
            running: false,
        },
        finish("Hello from the stub ACP agent."),
    ];
    let mut asc = Timeline::new();
    asc.apply_page(page.clone());
    assert_eq!(kinds(asc.items()), expected.iter().collect::<Vec<_>>());
    assert_eq!(asc.status(), ExecutionStatus::Finished);
    // Newest first (a page of TIMESTAMP_DESC): the same cards.
    let mut desc = Timeline::new();
    desc.apply_page(page.iter().rev().cloned());
    assert_eq!(desc.items(), asc.items());
    // Only the first report seen so far: the call is running.
    let first_report = page
        .iter()
        .position(|e| e["kind"] == "ACPToolCallEvent")
        .expect("a tool call");
    let partial = replay(&page[..=first_report]);
    assert!(
        matches!(
            partial.items().last().map(|i| &i.kind),
            Some(ItemKind::ToolCall {
                running: true,
                output: None,
                ..
            })
        ),
        "{:?}",
        partial.items().last()
    );
}

// ---------------------------------------------------------------------------------------------
// De-duplication and ordering

#[test]
fn replaying_the_same_frames_twice_changes_nothing() {
    for src in [
        STUB_RUN,
        STREAMING_RUN,
        LLM_UNREACHABLE,
        EVENTS_SEARCH,
        ACP_RUN,
    ] {
        let events = frames(src);
        let mut t = replay(&events);
        let before = t.items().to_vec();
        for e in &events {
            assert_eq!(t.apply(e.clone()), Applied::Duplicate);
        }
        let r = t.apply_page(events.clone());
        assert_eq!((r.inserted, r.duplicates, r.from), (0, events.len(), None));
        assert_eq!(t.items(), &before[..]);
        assert_eq!(t.len(), events.len());
    }
}

#[test]
fn history_page_interleaved_with_socket_frames_has_no_duplicates() {
    let frames_all = frames(STUB_RUN);
    let reference = replay(&frames_all);
    // History holds the persisted events (not the socket's full_state snapshots), newest first,
    // and only the first part of the run.
    let persisted: Vec<Value> = frames_all
        .iter()
        .filter(|e| e["key"] != "full_state")
        .cloned()
        .collect();
    let history: Vec<Value> = persisted[..8].iter().rev().cloned().collect();
    let mut t = Timeline::new();
    t.apply(frames_all[0].clone()); // the socket's snapshot arrives first
    for (i, f) in frames_all.iter().enumerate().skip(1) {
        if i == 5 {
            let r = t.apply_page(history.clone());
            assert!(r.duplicates > 0, "the page overlaps the frames");
        }
        t.apply(f.clone());
    }
    t.apply_page(history);
    assert_eq!(t.items(), reference.items());
    assert_eq!(t.len(), frames_all.len());
    assert_eq!(t.status(), ExecutionStatus::Finished);
}

#[test]
fn resend_all_after_a_snapshot_keeps_the_snapshot_status() {
    // resend_mode=all: the server sends its full_state snapshot (now) and then the history,
    // whose older state updates must not override the snapshot's status.
    let events = frames(STUB_RUN);
    let snapshot = events.last().cloned().expect("has frames");
    assert_eq!(snapshot["key"], "full_state");
    let mut t = Timeline::new();
    t.apply(snapshot);
    for e in &events[..events.len() - 1] {
        t.apply(e.clone());
    }
    assert_eq!(t.status(), ExecutionStatus::Finished);
    assert_eq!(t.items(), replay(&events).items());
    assert_eq!(t.newest_timestamp(), Some("2026-11-30T09:05:39.968865"));
}

#[test]
fn out_of_order_arrival_is_sorted() {
    let events = frames(STUB_RUN);
    let reference = replay(&events);
    let mut shuffled = events.clone();
    shuffled.swap(5, 6); // observation before its action
    shuffled.swap(2, 11); // user message late
    shuffled.reverse();
    let t = replay(&shuffled);
    assert_eq!(t.items(), reference.items());
    assert_eq!(t.status(), ExecutionStatus::Finished);
    assert_eq!(t.newest_timestamp(), reference.newest_timestamp());
    assert_eq!(t.oldest_timestamp(), reference.oldest_timestamp());
}

#[test]
fn a_late_event_reports_where_the_view_changed() {
    let mut t = Timeline::new();
    t.apply(ev("u1", "2026-01-01T00:00:01", "PauseEvent", json!({})));
    t.apply(ev("u3", "2026-01-01T00:00:03", "PauseEvent", json!({})));
    let late = ev(
        "u2",
        "2026-01-01T00:00:02",
        "MessageEvent",
        json!({"source": "user", "llm_message": {"role": "user", "content": [{"type": "text", "text": "mid"}]}}),
    );
    assert_eq!(t.apply(late), Applied::Inserted { from: 1 });
    let ids: Vec<&str> = t.items().iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["u1", "u2", "u3"]);
}

#[test]
fn timestamps_compare_as_times_not_strings() {
    let mut t = Timeline::new();
    // Lexically "…:50.9" > "…:50.10", chronologically it is earlier.
    t.apply(ev("b", "2026-01-01T10:07:50.10", "PauseEvent", json!({})));
    t.apply(ev("a", "2026-01-01T10:07:50.09", "PauseEvent", json!({})));
    t.apply(ev("c", "2026-01-01T10:07:50.9", "PauseEvent", json!({})));
    t.apply(ev("d", "2026-01-01 10:07:51", "PauseEvent", json!({})));
    let ids: Vec<&str> = t.items().iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d"]);
    assert_eq!(t.oldest_timestamp(), Some("2026-01-01T10:07:50.09"));
    assert_eq!(t.newest_timestamp(), Some("2026-01-01 10:07:51"));
}

#[test]
fn equal_timestamps_keep_arrival_order() {
    let ts = "2026-01-01T00:00:00.5";
    let mut t = Timeline::new();
    for id in ["x", "y", "z"] {
        t.apply(ev(id, ts, "PauseEvent", json!({})));
    }
    t.apply(ev("w", "2026-01-01T00:00:00.1", "PauseEvent", json!({})));
    let ids: Vec<&str> = t.items().iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["w", "x", "y", "z"]);

    // A descending page is turned around first, so ties keep the server's order.
    let mut p = Timeline::new();
    p.apply_page(vec![
        ev("3", "2026-01-01T00:00:02", "PauseEvent", json!({})),
        ev("2", "2026-01-01T00:00:01", "PauseEvent", json!({})),
        ev("1b", "2026-01-01T00:00:00", "PauseEvent", json!({})),
        ev("1a", "2026-01-01T00:00:00", "PauseEvent", json!({})),
    ]);
    let ids: Vec<&str> = p.items().iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["1a", "1b", "2", "3"]);
}

#[test]
fn paging_back_prepends_older_history_in_one_rebuild() {
    let page = frames(EVENTS_SEARCH);
    let reference = {
        let mut t = Timeline::new();
        t.apply_page(page.clone());
        t
    };
    let mut t = Timeline::new();
    let newer: Vec<Value> = page[10..].iter().rev().cloned().collect();
    let older: Vec<Value> = page[..10].iter().rev().cloned().collect();
    t.apply_page(newer);
    assert_eq!(t.oldest_timestamp(), Some("2026-11-30T09:03:33.370489"));
    // The newer page starts with a FinishObservation whose action is on the older page: shown
    // alone until the older page arrives.
    assert!(matches!(t.items()[0].kind, ItemKind::ToolCall { .. }));
    let r = t.apply_page(older);
    assert_eq!((r.inserted, r.from), (10, Some(0)));
    assert_eq!(t.items(), reference.items());
    assert_eq!(t.status(), ExecutionStatus::Finished);
}

// ---------------------------------------------------------------------------------------------
// Kinds

#[test]
fn unknown_kind_becomes_generic_and_the_stream_goes_on() {
    let mut events = frames(STUB_RUN);
    let odd = ev(
        "odd",
        "2026-11-30T09:05:39.000000",
        "BrandNewEvent",
        json!({"title": "Something new", "payload": {"x": [1, 2]}}),
    );
    events.insert(5, odd.clone());
    let t = replay(&events);
    let generic = t
        .items()
        .iter()
        .find(|i| i.id == "odd")
        .expect("generic item");
    assert_eq!(
        generic.kind,
        ItemKind::Generic {
            kind: "BrandNewEvent".into(),
            summary: "Something new".into(),
            json: odd
        }
    );
    assert_eq!(t.items().len(), 5);
    assert_eq!(t.items()[4].kind, finish("Done (stub LLM)."));

    // Known but not specially rendered kinds are generic too.
    let mut h = Timeline::new();
    h.apply(ev(
        "h",
        "2026-01-01T00:00:00",
        "HookExecutionEvent",
        json!({"hook_event_type": "PreToolUse", "hook_command": "check.sh", "exit_code": 2, "blocked": true, "success": false}),
    ));
    match &h.items()[0].kind {
        ItemKind::Generic { kind, summary, .. } => {
            assert_eq!(kind, "HookExecutionEvent");
            assert_eq!(summary, "PreToolUse hook `check.sh` exited 2 (blocked)");
        }
        other => panic!("expected generic, got {other:?}"),
    }
}

#[test]
fn hidden_kinds_are_stored_but_not_shown() {
    let mut t = Timeline::new();
    for (i, kind) in [
        "SystemPromptEvent",
        "TokenEvent",
        "LLMCompletionLogEvent",
        "CondensationRequest",
    ]
    .iter()
    .enumerate()
    {
        let r = t.apply(ev(&format!("h{i}"), "2026-01-01T00:00:00", kind, json!({})));
        assert_eq!(r, Applied::Inserted { from: 0 });
    }
    t.apply(ev(
        "s",
        "2026-01-01T00:00:01",
        "ConversationStateUpdateEvent",
        json!({"key": "stats", "value": {}}),
    ));
    assert!(t.items().is_empty());
    assert_eq!(t.len(), 5);
    assert_eq!(t.status(), ExecutionStatus::Unknown(String::new()));
    assert_eq!(
        t.apply(ev(
            "h0",
            "2026-01-01T00:00:00",
            "SystemPromptEvent",
            json!({})
        )),
        Applied::Duplicate
    );
}

#[test]
fn confirmation_pending_then_rejected() {
    let mut t = Timeline::new();
    t.apply(terminal_action(
        "a1",
        "2026-01-01T00:00:01",
        "c1",
        "rm -rf /tmp/x",
    ));
    t.apply(terminal_action("a2", "2026-01-01T00:00:02", "c2", "ls"));
    assert!(t.pending_confirmation().is_empty(), "only while waiting");
    t.apply(status_ev(
        "s1",
        "2026-01-01T00:00:03",
        "waiting_for_confirmation",
    ));
    assert_eq!(t.status(), ExecutionStatus::WaitingForConfirmation);
    let pending = t.pending_confirmation();
    let ids: Vec<&str> = pending.iter().map(|p| p.action_id.as_str()).collect();
    assert_eq!(ids, ["a1", "a2"]);
    assert_eq!(pending[0].tool_name, "terminal");
    assert_eq!(pending[0].tool_call_id, "c1");
    assert_eq!(pending[0].security_risk, "HIGH");
    assert_eq!(pending[0].summary, "run rm -rf /tmp/x");

    t.apply(ev(
        "r1",
        "2026-01-01T00:00:04",
        "UserRejectObservation",
        json!({"action_id": "a1", "tool_call_id": "c1", "tool_name": "terminal", "rejection_reason": "too risky"}),
    ));
    t.apply(terminal_obs(
        "o2",
        "2026-01-01T00:00:05",
        "a2",
        "c2",
        "file",
        0,
    ));
    assert!(t.pending_confirmation().is_empty());
    assert_eq!(
        kinds(t.items()),
        vec![
            &ItemKind::Terminal {
                command: "rm -rf /tmp/x".into(),
                output: None,
                exit_code: None,
                running: false
            },
            &terminal("ls", "file", 0),
            &ItemKind::Rejected {
                reason: "too risky".into(),
                action_id: "a1".into()
            },
        ]
    );
    t.apply(status_ev("s2", "2026-01-01T00:00:06", "running"));
    assert_eq!(t.status(), ExecutionStatus::Running);
}

#[test]
fn observation_pairs_by_tool_call_id_when_action_id_is_unknown() {
    let mut t = Timeline::new();
    t.apply(terminal_action("a1", "2026-01-01T00:00:01", "c1", "true"));
    t.apply(terminal_obs(
        "o1",
        "2026-01-01T00:00:02",
        "not-an-id",
        "c1",
        "",
        0,
    ));
    assert_eq!(kinds(t.items()), vec![&terminal("true", "", 0)]);
    // An observation whose action is unknown stands alone.
    t.apply(terminal_obs(
        "o2",
        "2026-01-01T00:00:03",
        "zz",
        "zz",
        "orphan",
        3,
    ));
    assert_eq!(t.items()[1].kind, terminal("ignored", "orphan", 3));
}

#[test]
fn agent_error_stops_its_action_and_shows_an_error() {
    let mut t = Timeline::new();
    t.apply(terminal_action("a1", "2026-01-01T00:00:01", "c1", "bad"));
    t.apply(ev(
        "e1",
        "2026-01-01T00:00:02",
        "AgentErrorEvent",
        json!({"tool_name": "terminal", "tool_call_id": "c1", "error": "invalid args"}),
    ));
    assert_eq!(
        kinds(t.items()),
        vec![
            &ItemKind::Terminal {
                command: "bad".into(),
                output: None,
                exit_code: None,
                running: false
            },
            &ItemKind::Error {
                title: "Agent error".into(),
                detail: "invalid args".into()
            },
        ]
    );
}

#[test]
fn file_edits_tools_condensation_pause_and_server_errors() {
    let mut t = Timeline::new();
    t.apply(ev(
        "f1",
        "2026-01-01T00:00:01",
        "ActionEvent",
        json!({"thought": [{"type": "text", "text": "Fix it"}], "tool_name": "file_editor", "tool_call_id": "c1",
               "summary": "edit a.rs",
               "action": {"kind": "FileEditorAction", "command": "str_replace", "path": "/w/a.rs", "old_str": "a", "new_str": "b"}}),
    ));
    t.apply(ev(
        "o1",
        "2026-01-01T00:00:02",
        "ObservationEvent",
        json!({"action_id": "f1", "tool_call_id": "c1", "tool_name": "file_editor",
               "observation": {"kind": "FileEditorObservation", "command": "str_replace", "is_error": false,
                               "content": [{"type": "text", "text": "edited"}]}}),
    ));
    t.apply(ev(
        "t1",
        "2026-01-01T00:00:03",
        "ActionEvent",
        json!({"thought": [], "reasoning_content": "plan first", "tool_name": "task_tracker", "tool_call_id": "c2",
               "action": {"kind": "TaskTrackerAction", "command": "plan"}}),
    ));
    t.apply(ev(
        "o2",
        "2026-01-01T00:00:04",
        "ObservationEvent",
        json!({"action_id": "t1", "tool_call_id": "c2", "tool_name": "task_tracker",
               "observation": {"kind": "TaskTrackerObservation", "is_error": true, "content": "nope"}}),
    ));
    t.apply(ev(
        "k1",
        "2026-01-01T00:00:05",
        "ActionEvent",
        json!({"tool_name": "think", "tool_call_id": "c3", "action": {"kind": "ThinkAction", "thought": "hmm"}}),
    ));
    t.apply(ev(
        "c1",
        "2026-01-01T00:00:06",
        "Condensation",
        json!({"forgotten_event_ids": ["a", "b"], "summary": "older stuff", "llm_response_id": "x"}),
    ));
    t.apply(ev(
        "p1",
        "2026-01-01T00:00:07",
        "PauseEvent",
        json!({"source": "user"}),
    ));
    t.apply(ev(
        "s1",
        "2026-01-01T00:00:08",
        "ServerErrorEvent",
        json!({"code": "", "detail": "oops"}),
    ));
    assert_eq!(
        kinds(t.items()),
        vec![
            &thought("Fix it"),
            &ItemKind::FileEdit {
                path: "/w/a.rs".into(),
                command: "str_replace".into(),
                summary: Some("edit a.rs".into()),
                diff: Some(canvas_core::conversations::live::events::EditDiff {
                    old: "a".into(),
                    new: "b".into()
                }),
                output: Some("edited".into()),
                is_error: false,
                running: false
            },
            &thought("plan first"),
            &ItemKind::ToolCall {
                tool: "task_tracker".into(),
                summary: "TaskTrackerAction".into(),
                output: Some("nope".into()),
                images: Vec::new(),
                is_error: true,
                running: false
            },
            &thought("hmm"),
            &ItemKind::Condensation {
                summary: Some("older stuff".into()),
                forgotten: 2
            },
            &ItemKind::Paused,
            &ItemKind::Error {
                title: "Server error".into(),
                detail: "oops".into()
            },
        ]
    );
}

#[test]
fn garbage_values_are_ignored_or_tolerated_without_panics() {
    let mut t = Timeline::new();
    let cases: Vec<(Value, Option<IgnoreReason>)> = vec![
        (json!(null), Some(IgnoreReason::NotAnObject)),
        (json!(42), Some(IgnoreReason::NotAnObject)),
        (json!("ActionEvent"), Some(IgnoreReason::NotAnObject)),
        (json!([{"id": "x"}]), Some(IgnoreReason::NotAnObject)),
        (json!({}), Some(IgnoreReason::MissingId)),
        (
            json!({"id": 7, "timestamp": "2026-01-01T00:00:00"}),
            Some(IgnoreReason::MissingId),
        ),
        (
            json!({"id": "", "timestamp": "2026-01-01T00:00:00"}),
            Some(IgnoreReason::MissingId),
        ),
        (json!({"id": "a"}), Some(IgnoreReason::MissingTimestamp)),
        (
            json!({"id": "a", "timestamp": 1700000000}),
            Some(IgnoreReason::MissingTimestamp),
        ),
        (
            json!({"id": "a", "timestamp": "yesterday"}),
            Some(IgnoreReason::BadTimestamp),
        ),
        (
            json!({"type": "auth", "session_api_key": "k"}),
            Some(IgnoreReason::MissingId),
        ),
    ];
    for (v, want) in cases {
        let got = t.apply(v.clone());
        assert_eq!(got, Applied::Ignored(want.expect("reason")), "{v}");
    }
    // Wrong shapes inside real kinds are tolerated.
    let odd: Vec<Value> = vec![
        ev(
            "1",
            "2026-01-01T00:00:01",
            "ActionEvent",
            json!({"action": 7, "thought": "str", "tool_name": 3}),
        ),
        ev(
            "2",
            "2026-01-01T00:00:02",
            "ActionEvent",
            json!({"action": {"kind": "TerminalAction", "command": ["x"]}}),
        ),
        ev(
            "3",
            "2026-01-01T00:00:03",
            "ObservationEvent",
            json!({"observation": [], "action_id": {"x": 1}}),
        ),
        ev(
            "4",
            "2026-01-01T00:00:04",
            "ObservationEvent",
            json!({"action_id": "2", "observation": {"exit_code": "zero", "content": {"text": 1}}}),
        ),
        ev(
            "5",
            "2026-01-01T00:00:05",
            "MessageEvent",
            json!({"llm_message": "hi"}),
        ),
        ev(
            "6",
            "2026-01-01T00:00:06",
            "StreamingDeltaEvent",
            json!({"content": null}),
        ),
        ev(
            "7",
            "2026-01-01T00:00:07",
            "ConversationStateUpdateEvent",
            json!({"key": "full_state", "value": null}),
        ),
        ev(
            "8",
            "2026-01-01T00:00:08",
            "ConversationErrorEvent",
            json!({"code": 5}),
        ),
        ev(
            "9",
            "2026-01-01T00:00:09",
            "UserRejectObservation",
            json!({}),
        ),
        json!({"id": "10", "timestamp": "2026-01-01T00:00:10"}),
    ];
    for v in odd {
        assert!(matches!(
            t.apply(v),
            Applied::Inserted { .. } | Applied::Updated { .. }
        ));
    }
    assert_eq!(t.len(), 10);
    assert!(matches!(
        &t.items().last().expect("items").kind,
        ItemKind::Generic { kind, .. } if kind.is_empty()
    ));
}

// ---------------------------------------------------------------------------------------------
// Scale

#[test]
fn ten_thousand_events_apply_quickly() {
    let mut events = Vec::with_capacity(10_000);
    let mut n = 0u64;
    let ts = |n: u64| {
        format!(
            "2026-01-01T{:02}:{:02}:{:02}.{:06}",
            n / 3_600_000 % 24,
            n / 60_000 % 60,
            n / 1000 % 60,
            (n % 1000) * 1000
        )
    };
    while events.len() < 10_000 {
        let a = format!("a{n}");
        let c = format!("c{n}");
        events.push(terminal_action(&a, &ts(n), &c, "echo hi"));
        events.push(terminal_obs(&format!("o{n}"), &ts(n + 1), &a, &c, "hi", 0));
        events.push(status_ev(&format!("s{n}"), &ts(n + 2), "running"));
        events.push(ev(
            &format!("m{n}"),
            &ts(n + 3),
            "MessageEvent",
            json!({"llm_message": {"role": "assistant", "content": [{"type": "text", "text": "done step"}]}}),
        ));
        n += 4;
    }
    let start = std::time::Instant::now();
    let mut t = Timeline::new();
    for e in events.iter().cloned() {
        t.apply(e);
    }
    let in_order = start.elapsed();
    assert_eq!(t.len(), 10_000);
    assert_eq!(t.items().len(), 5_000);

    // The same events as history pages of 100, newest page first (paging back).
    let start = std::time::Instant::now();
    let mut p = Timeline::new();
    for chunk in events.chunks(100).rev() {
        p.apply_page(chunk.iter().rev().cloned());
    }
    let paged_back = start.elapsed();
    assert_eq!(p.items(), t.items());

    // A worst case: every event arrives in reverse order, one by one.
    let start = std::time::Instant::now();
    let mut r = Timeline::new();
    for e in events.iter().rev().take(2_000).cloned() {
        r.apply(e);
    }
    let reversed_2000 = start.elapsed();
    println!(
        "10,000 events: in order {in_order:?}; as 100 pages paging back {paged_back:?}; \
         2,000 one-by-one in reverse {reversed_2000:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Properties

fn capture_strategy() -> impl Strategy<Value = Vec<Value>> {
    prop_oneof![
        Just(frames(STUB_RUN)),
        Just(frames(STREAMING_RUN)),
        Just(frames(LLM_UNREACHABLE)),
        Just(frames(EVENTS_SEARCH)),
    ]
}

/// Any permutation of a capture with some events repeated, with a delivery plan (singly or in
/// pages of random size).
fn scrambled() -> impl Strategy<Value = (Vec<Value>, Vec<Value>, Vec<usize>)> {
    capture_strategy().prop_flat_map(|events| {
        let n = events.len();
        (
            Just(events.clone()),
            (
                Just(events).prop_shuffle(),
                prop::collection::vec(0..n, 0..n),
            ),
            prop::collection::vec(1usize..6, 1..20),
        )
            .prop_map(|(orig, (mut shuffled, dups), pages)| {
                for i in dups {
                    let at = i % (shuffled.len() + 1);
                    let dup = orig[i].clone();
                    shuffled.insert(at, dup);
                }
                (orig, shuffled, pages)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_permutation_with_duplicates_gives_the_in_order_view(
        (orig, scrambled, pages) in scrambled()
    ) {
        let reference = replay(&orig);
        // One by one.
        let one = replay(&scrambled);
        prop_assert_eq!(one.items(), reference.items());
        prop_assert_eq!(one.status(), reference.status());
        prop_assert_eq!(one.len(), reference.len());
        prop_assert_eq!(one.newest_timestamp(), reference.newest_timestamp());
        prop_assert_eq!(one.oldest_timestamp(), reference.oldest_timestamp());
        // Mixed: pages of random size, every other one applied event by event.
        let mut mixed = Timeline::new();
        let mut rest = &scrambled[..];
        let mut k = 0;
        while !rest.is_empty() {
            let size = pages[k % pages.len()].min(rest.len());
            let (page, tail) = rest.split_at(size);
            if k % 2 == 0 {
                mixed.apply_page(page.to_vec());
            } else {
                for e in page {
                    mixed.apply(e.clone());
                }
            }
            rest = tail;
            k += 1;
        }
        prop_assert_eq!(mixed.items(), reference.items());
        prop_assert_eq!(mixed.status(), reference.status());
        prop_assert_eq!(mixed.len(), reference.len());
    }

    #[test]
    fn reported_changes_let_a_mirror_stay_in_sync((_, scrambled, _) in scrambled()) {
        // A UI store that only re-reads what Applied says must end up equal to items().
        let mut t = Timeline::new();
        let mut mirror: Vec<ViewItem> = Vec::new();
        for e in scrambled {
            match t.apply(e) {
                Applied::Inserted { from } => {
                    mirror.truncate(from);
                    mirror.extend_from_slice(&t.items()[from..]);
                }
                Applied::Updated { index } => mirror[index] = t.items()[index].clone(),
                Applied::Duplicate | Applied::Ignored(_) => {}
            }
            prop_assert_eq!(&mirror[..], t.items());
        }
    }

    #[test]
    fn arbitrary_json_never_panics(values in prop::collection::vec(arb_json(), 0..20)) {
        let mut t = Timeline::new();
        for v in values.iter().cloned() {
            t.apply(v);
        }
        t.apply_page(values);
        let _ = (t.items().len(), t.status(), t.pending_confirmation(), t.newest_timestamp());
    }

    #[test]
    fn captures_with_mangled_fields_never_panic(
        events in capture_strategy(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), arb_json()), 1..10)
    ) {
        let mut events = events;
        for (which, field, value) in edits {
            let e = which.get_mut(&mut events);
            if let Some(obj) = e.as_object_mut() {
                let keys: Vec<String> = obj.keys().cloned().collect();
                if !keys.is_empty() {
                    let k = field.get(&keys).clone();
                    if k != "id" {
                        obj.insert(k, value);
                    }
                }
            }
        }
        let t = replay(&events);
        let _ = (t.items().len(), t.status(), t.pending_confirmation());
    }
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "[a-zA-Z0-9 :._-]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("ActionEvent"),
            Just("ObservationEvent"),
            Just("MessageEvent"),
            Just("StreamingDeltaEvent"),
            Just("ConversationStateUpdateEvent"),
            Just("2026-01-01T00:00:00.5"),
            Just("full_state"),
            Just("execution_status"),
        ]
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("id".to_owned()),
                    Just("timestamp".to_owned()),
                    Just("kind".to_owned()),
                    Just("action".to_owned()),
                    Just("observation".to_owned()),
                    Just("action_id".to_owned()),
                    Just("tool_call_id".to_owned()),
                    Just("llm_message".to_owned()),
                    Just("content".to_owned()),
                    Just("key".to_owned()),
                    Just("value".to_owned()),
                    "[a-z_]{1,8}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

const PNG: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

#[test]
fn user_images_and_tool_screenshots_keep_only_safe_urls() {
    let user_message = json!({
        "id": "u1", "timestamp": "2026-11-30T09:03:32.222449", "source": "user",
        "llm_message": {"role": "user", "content": [
            {"cache_prompt": false, "type": "text", "text": "what is this?"},
            {"cache_prompt": false, "type": "image", "image_urls": [
                PNG, "javascript:alert(1)", "data:image/svg+xml;base64,PHN2Zz4=",
                "https://example.com/shot.webp", "http://example.com/plain.png"
            ]}
        ], "thinking_blocks": []},
        "activated_skills": [], "extended_content": [], "kind": "MessageEvent"
    });
    let action = json!({
        "id": "a1", "timestamp": "2026-11-30T09:03:33.000001", "source": "agent",
        "thought": [], "thinking_blocks": [],
        "action": {"url": "https://example.com", "new_tab": false, "kind": "BrowserNavigateAction"},
        "tool_name": "browser_navigate", "tool_call_id": "call_b1",
        "security_risk": "LOW", "summary": "Open example.com", "kind": "ActionEvent"
    });
    let observation = json!({
        "id": "o1", "timestamp": "2026-11-30T09:03:34.000001", "source": "environment",
        "tool_name": "browser_navigate", "tool_call_id": "call_b1",
        "observation": {
            "content": [
                {"cache_prompt": false, "type": "text", "text": "Navigated to example.com"},
                {"cache_prompt": false, "type": "image", "image_urls": [PNG, "data:text/html;base64,PGI+"]}
            ],
            "is_error": false, "kind": "BrowserObservation"
        },
        "action_id": "a1", "extended_content": [], "kind": "ObservationEvent"
    });
    let t = replay(&[user_message, action.clone(), observation.clone()]);
    assert_eq!(
        kinds(t.items()),
        [
            &ItemKind::UserMessage {
                text: "what is this?".into(),
                images: vec![PNG.into(), "https://example.com/shot.webp".into()],
            },
            &ItemKind::ToolCall {
                tool: "browser_navigate".into(),
                summary: "Open example.com".into(),
                output: Some("Navigated to example.com".into()),
                images: vec![PNG.into()],
                is_error: false,
                running: false,
            },
        ]
    );
    // An observation whose action is unknown keeps its images too.
    let alone = replay(&[observation]);
    assert!(
        matches!(&alone.items()[0].kind, ItemKind::ToolCall { images, .. } if images == &[PNG])
    );
    // Before the observation the card has no images.
    let running = replay(&[action]);
    assert!(matches!(
        &running.items()[0].kind,
        ItemKind::ToolCall { images, running: true, .. } if images.is_empty()
    ));
}

/// Grouped actions (issue #36) over real captures of the agent server 1.58.2 with the LLM stub:
/// one command and the finish (a lone action stays a card), an ACP agent's two tool calls and
/// its finish (a group of two), and the stub run's command repeated (new ids, later times) so
/// that three commands follow each other, the second failing.
#[test]
fn grouped_actions_over_real_captures() {
    use canvas_core::conversations::live::groups::action_groups;
    let groups = |t: &Timeline| -> Vec<(u32, u32, u32, u32)> {
        action_groups(t.items().iter().map(|i| (i.key.as_str(), &i.kind)))
            .into_iter()
            .map(|g| (g.actions, g.done, g.running, g.failed))
            .collect()
    };
    assert_eq!(groups(&replay(&frames(STUB_RUN))), []);
    assert_eq!(groups(&replay(&frames(EVENTS_SEARCH))), []);
    let acp = replay(&frames(ACP_RUN));
    let tool_calls = acp
        .items()
        .iter()
        .filter(|i| matches!(i.kind, ItemKind::ToolCall { .. }))
        .count();
    assert_eq!(
        groups(&acp),
        if tool_calls >= 2 {
            vec![(tool_calls as u32, tool_calls as u32, 0, 0)]
        } else {
            vec![]
        }
    );

    // The stub run's terminal action and observation, twice more, before its finish.
    let run = frames(STUB_RUN);
    let is = |e: &Value, kind: &str, tool: &str| e["kind"] == kind && e["tool_name"] == tool;
    let action = run
        .iter()
        .find(|e| is(e, "ActionEvent", "terminal"))
        .unwrap();
    let observation = run
        .iter()
        .find(|e| is(e, "ObservationEvent", "terminal"))
        .unwrap();
    let finish_at = run
        .iter()
        .position(|e| is(e, "ActionEvent", "finish"))
        .unwrap();
    let mut events: Vec<Value> = run[..finish_at].to_vec();
    for (n, exit) in [(1, 1), (2, 0)] {
        let mut a = action.clone();
        let mut o = observation.clone();
        let (aid, call) = (format!("again-action-{n}"), format!("again-call-{n}"));
        a["id"] = json!(aid);
        a["tool_call_id"] = json!(call);
        o["id"] = json!(format!("again-observation-{n}"));
        o["action_id"] = json!(aid);
        o["tool_call_id"] = json!(call);
        o["observation"]["exit_code"] = json!(exit);
        // Later than every event of the run kept here (its finish is left out).
        let at = |step: u32| format!("2026-11-30T09:06:0{step}.000000");
        a["timestamp"] = json!(at(2 * n));
        o["timestamp"] = json!(at(2 * n + 1));
        events.push(a);
        events.push(o);
    }
    let t = replay(&events);
    assert_eq!(groups(&t), [(3, 2, 0, 1)], "{:#?}", kinds(t.items()));
}
