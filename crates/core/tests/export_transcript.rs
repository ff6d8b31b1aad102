//! `export` against a real agent-server capture (tests/fixtures/events/): the Markdown
//! transcript is compared with a golden file (`UPDATE_GOLDEN=1` rewrites it), the JSON
//! transcript round-trips.

use canvas_core::conversations::chat::export::{
    export_file_name, transcript_json, transcript_markdown, TranscriptMeta,
};
use canvas_core::conversations::live::events::Timeline;
use canvas_core::markdown::{parse, Block};
use serde_json::Value;

mod support;
use support::frames;

const STUB_RUN: &str = include_str!("fixtures/events/ws_events_frames_stub_run.json");
const GOLDEN: &str = "tests/fixtures/export/stub_run.md";

fn meta() -> TranscriptMeta {
    TranscriptMeta {
        title: "Say hi".into(),
        conversation_id: "fb9a3263-61bf-4340-9f1c-c358a8ddefe9".into(),
        backend_label: "Local agent server".into(),
        exported_at: "2026-11-30T09:10:00Z".into(),
    }
}

fn stub_run_markdown() -> String {
    let mut t = Timeline::new();
    t.apply_page(frames(STUB_RUN));
    transcript_markdown(&meta(), t.items())
}

#[test]
fn stub_run_markdown_matches_the_golden_file() {
    let md = stub_run_markdown();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("golden has a parent")).expect("mkdir");
        std::fs::write(&path, &md).expect("write golden");
    }
    let golden = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    assert_eq!(md, golden, "run with UPDATE_GOLDEN=1 to rewrite {GOLDEN}");
}

#[test]
fn stub_run_markdown_is_well_formed() {
    let md = stub_run_markdown();
    assert!(md.ends_with('\n') && !md.ends_with("\n\n"));
    // Sections in the order of the run.
    let order = [
        "# Say hi",
        "## User\n\nsay hi",
        "> **Thought**\n> Running a command.",
        "### $ echo hi from stub",
        "```text\nhi from stub\n```",
        "Exit code: 0",
        "## Agent (finished)\n\nDone (stub LLM).",
    ];
    let at: Vec<usize> = order
        .iter()
        .map(|s| {
            md.find(s)
                .unwrap_or_else(|| panic!("{s:?} missing from\n{md}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "order:\n{md}");
    // It parses to the expected blocks: fences balanced, nothing swallowed.
    let blocks = parse(&md);
    let shape: Vec<&str> = blocks
        .iter()
        .map(|b| match b {
            Block::Heading { .. } => "heading",
            Block::Paragraph(_) | Block::Plain(_) => "paragraph",
            Block::CodeBlock { .. } => "code",
            Block::Quote(_) => "quote",
            Block::List { .. } => "list",
            Block::Table { .. } => "table",
            Block::Rule => "rule",
        })
        .collect();
    assert_eq!(
        shape,
        [
            "heading",   // # Say hi
            "list",      // meta
            "heading",   // ## User
            "paragraph", // say hi
            "quote",     // thought
            "heading",   // ### $ echo hi from stub
            "code",      // output
            "paragraph", // Exit code: 0
            "heading",   // ## Agent (finished)
            "paragraph", // Done (stub LLM).
        ]
    );
}

#[test]
fn transcript_json_round_trips() {
    let events = frames(STUB_RUN);
    let out = transcript_json(&meta(), &events);
    let back: Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(back["events"], Value::Array(events.clone()));
    assert_eq!(
        back["conversation_id"],
        "fb9a3263-61bf-4340-9f1c-c358a8ddefe9"
    );
    assert_eq!(back["title"], "Say hi");
    assert_eq!(back["backend"], "Local agent server");
    assert_eq!(back["exported_at"], "2026-11-30T09:10:00Z");
    let obj = back.as_object().expect("an object");
    assert_eq!(obj.len(), 5);
    // The exported events rebuild the same transcript.
    let mut t = Timeline::new();
    t.apply_page(back["events"].as_array().expect("array").clone());
    assert_eq!(transcript_markdown(&meta(), t.items()), stub_run_markdown());
}

#[test]
fn file_names_for_the_capture() {
    let m = meta();
    assert_eq!(
        export_file_name(&m.title, &m.conversation_id, "md"),
        "say-hi-fb9a3263.md"
    );
    assert_eq!(
        export_file_name(&m.title, &m.conversation_id, "json"),
        "say-hi-fb9a3263.json"
    );
}
