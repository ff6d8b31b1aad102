//! [`SessionStream`]: the pure reducer of an Omnigent session's stream and snapshot into the
//! conversation view's items ([`ViewItem`] / [`ItemKind`], the same model the agent-server
//! [`Timeline`](crate::conversations::live::events::Timeline) derives, so the same chat components render it).
//!
//! How the app drives it (`spec/omnigent.md`, "Reconnect contract"):
//!
//! ```text
//! open GET /v1/sessions/{id}/stream  ──► stream.connection_opened(now)
//! every chunk of the body            ──► stream.feed(chunk, now)   (SSE parsed inside)
//! first `session.heartbeat`          ──► stream.subscribed() == true: now POST messages
//! GET /v1/sessions/{id} (snapshot)   ──► stream.apply_snapshot(&session)
//! a timer, every few seconds         ──► stream.needs_reconnect(now) ⇒ close and reopen
//! ```
//!
//! Every call returns a [`Changed`]: re-read `items()[from..]` (the list may have shrunk).
//!
//! How events and items become view items:
//!
//! | input | item |
//! |---|---|
//! | `session.input.consumed` (a user `message`) | `UserMessage` |
//! | `response.output_text.delta` | appended to the in-progress `AgentMessage { streaming: true }` (one per `message_id`; a repeated `index` is skipped) |
//! | `response.output_item.done`, snapshot items: `message` (assistant) | `AgentMessage` — replaces the in-progress one in place |
//! | … `function_call` | `ToolCall { running: true }` (summary: the command / path / arguments) |
//! | … `function_call_output` | completes its call's card (`output`, not running); alone if the call is unknown |
//! | … `reasoning` | `Thought` (its summary text) |
//! | … `error` | `Error` |
//! | … `compaction` | `Condensation` |
//! | … `terminal_command`, `slash_command` | `Terminal`, `ToolCall` |
//! | … meta messages, `resource_event` | nothing |
//! | … any other item type | `Generic` |
//! | `session.interrupted` | `Paused` (the in-progress text stays, no longer streaming) |
//! | `response.completed` (`failed`, `incomplete`, `cancelled`), `session.status` idle/failed | the in-progress text stops streaming (a late final message still replaces it); calls without output stop running; `cancelled` also makes the status idle (the server does not always say so) |
//! | `response.elicitation_request` / `…_resolved` | an approval card ("Approval asked", then how it ended); while one waits, [`SessionStream::status`] is `WaitingForConfirmation` and [`SessionStream::pending`] lists it |
//! | `response.created`, `response.in_progress` | a new turn: text cut short earlier stays as it is |
//! | `session.status`, `session.usage`, `session.title`, `session.heartbeat` | no item: [`SessionStream::status`], [`SessionStream::usage`], [`SessionStream::title`], [`SessionStream::subscribed`] |
//! | `data: [DONE]` | [`SessionStream::ended`] |
//! | anything else | ignored |
//!
//! De-duplication is by item id: a stream item whose id is already shown, or a snapshot item
//! already streamed, shows once. A snapshot's items come first, in the snapshot's order; items
//! only the stream has (newer, or still in progress) follow in arrival order.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::conversations::live::events::dirty::{Dirty, Touched};
use crate::conversations::live::events::{ExecutionStatus, ItemKind, PendingAction, ViewItem};
use crate::i18n::english::{message, MessageRef};
use crate::i18n::{Text, Words};
use crate::omnigent::approvals::{asked_words, Elicitation, Outcome};
use crate::omnigent::dto::{epoch_secs_of, iso_from_epoch_secs, Session, SessionStatus};
use crate::omnigent::sse::{SseEvent, SseParser};

/// Omnigent sends `session.heartbeat` every 15 s while the stream is quiet.
pub const HEARTBEAT_INTERVAL_MS: i64 = 15_000;
/// With nothing received for longer than two heartbeats, the stream is presumed dead.
pub const RECONNECT_AFTER_MS: i64 = 2 * HEARTBEAT_INTERVAL_MS;

/// Longest tool-call summary, in characters.
const MAX_SUMMARY_CHARS: usize = 200;

/// What a call changed in [`SessionStream::items`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changed {
    /// Nothing visible.
    Nothing,
    /// Exactly this item changed in place.
    Updated {
        /// The item's index.
        index: usize,
    },
    /// Items from this index on are new, changed or gone: re-read `items()[from..]` and
    /// drop rows past `items().len()`.
    From {
        /// First index to re-read.
        from: usize,
    },
}

impl Changed {
    /// The first index to re-read, if anything changed.
    pub fn first(&self) -> Option<usize> {
        match self {
            Changed::Nothing => None,
            Changed::Updated { index } => Some(*index),
            Changed::From { from } => Some(*from),
        }
    }

    /// Both changes together.
    pub fn merge(self, other: Changed) -> Changed {
        match (self, other) {
            (Changed::Nothing, x) | (x, Changed::Nothing) => x,
            (Changed::Updated { index: a }, Changed::Updated { index: b }) if a == b => {
                Changed::Updated { index: a }
            }
            (a, b) => Changed::From {
                from: a.first().unwrap_or(0).min(b.first().unwrap_or(0)),
            },
        }
    }
}

/// Token usage of the session (`session.usage`, the snapshot's fields). Fields the server
/// leaves out keep their previous value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    /// Tokens in the latest context.
    pub context_tokens: Option<u64>,
    /// The model's context window.
    pub context_window: Option<u64>,
    /// Cumulative spend in USD (priced sessions only).
    pub total_cost_usd: Option<f64>,
}

impl Usage {
    /// In words for the status bar (`None` when nothing is known yet), e.g.
    /// `"context 1,234 / 128,000 tokens · $0.0123"`, in English.
    pub fn words(&self) -> Option<String> {
        self.words_text_with(&thousands, &|cost| format!("${cost:.4}"))
            .map(|t| t.english())
    }

    /// In words for the status bar (`None` when nothing is known yet), the token counts
    /// written by `number` and the cost (four decimals) by `money`: the page passes its
    /// language's ways of writing them.
    pub fn words_text_with(
        &self,
        number: &dyn Fn(u64) -> String,
        money: &dyn Fn(f64) -> String,
    ) -> Option<Text> {
        let cost = self
            .total_cost_usd
            .filter(|c| c.is_finite() && *c >= 0.0)
            .map(money);
        let words = match (self.context_tokens, self.context_window) {
            (Some(used), Some(window)) => Text::counted(
                if cost.is_some() {
                    CONTEXT_OF_COST
                } else {
                    CONTEXT_OF
                },
                window,
            )
            .with("used", number(used))
            .with("window", number(window)),
            (Some(used), None) => Text::counted(
                if cost.is_some() {
                    CONTEXT_COST
                } else {
                    CONTEXT
                },
                used,
            )
            .with("used", number(used)),
            (None, _) => return cost.map(Text::as_is),
        };
        Some(match cost {
            Some(cost) => words.with("cost", cost),
            None => words,
        })
    }
}

const CONTEXT: MessageRef = message("usage.context");
/// An error card's title when the server gives none.
const ERROR_TITLE: MessageRef = message("conversation_core.status.error");
/// The title of an output card whose call is not known.
const TOOL_RESULT: MessageRef = message("event.title.tool_result");
/// A managed sandbox's launch stages (issue #39 §2), in words.
const SANDBOX_STAGES: [(&str, MessageRef); 6] = [
    ("provisioning", message("omnigent.sandbox.provisioning")),
    ("cloning", message("omnigent.sandbox.cloning")),
    ("starting", message("omnigent.sandbox.starting")),
    ("connecting", message("omnigent.sandbox.connecting")),
    ("ready", message("omnigent.sandbox.ready")),
    ("failed", message("omnigent.sandbox.failed")),
];
/// The card of a managed sandbox's launch: one per session, updated at each stage.
pub const SANDBOX_CARD: &str = "sandbox#launch";
const CONTEXT_COST: MessageRef = message("usage.context_cost");
const CONTEXT_OF: MessageRef = message("usage.context_of");
const CONTEXT_OF_COST: MessageRef = message("usage.context_of_cost");

/// `1234567` → `"1,234,567"`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What one record shows.
#[derive(Debug, Clone, PartialEq)]
enum Body {
    /// A standalone card.
    Show(ItemKind),
    /// Assistant text still arriving as deltas (or cut short).
    Draft {
        /// `message_id` of native message-scoped deltas; `None` for the response's text.
        scope: Option<String>,
        text: String,
        /// Highest `index` seen (repeated chunks are skipped).
        last_index: Option<i64>,
        streaming: bool,
    },
    /// A tool call; `settled` when its turn ended without an output.
    Call {
        tool: String,
        summary: String,
        call_id: String,
        settled: bool,
    },
    /// A tool's output (completes its call's card).
    Output { call_id: String, output: String },
    /// A question the session asks (an elicitation); `outcome` once answered.
    Ask {
        message: Words,
        preview: String,
        outcome: Option<Outcome>,
    },
    /// Shows nothing.
    Hidden,
}

#[derive(Debug, Clone, PartialEq)]
struct Record {
    id: String,
    ts: String,
    body: Body,
}

/// The reducer of one session's stream (see the module docs).
#[derive(Debug, Default)]
pub struct SessionStream {
    records: Vec<Record>,
    /// Record id → record index.
    ids: HashMap<String, usize>,
    items: Vec<ViewItem>,
    /// Record id → item index (records that show a card).
    item_of: HashMap<String, usize>,
    /// `call_id` → item index of its card.
    calls: HashMap<String, usize>,
    /// In-progress (or cut short, not yet replaced) drafts: scope → record id.
    drafts: HashMap<Option<String>, String>,
    next_draft: u64,
    next_anon: u64,
    status: Option<SessionStatus>,
    status_from_stream: bool,
    subscribed: bool,
    connected_at: Option<i64>,
    last_seen: Option<i64>,
    ended: bool,
    usage: Usage,
    title: Option<String>,
    last_error: Option<String>,
    /// The questions waiting for an answer, oldest first (with when they were asked).
    asking: Vec<(Elicitation, String)>,
    parser: SseParser,
    /// The items changed since the last `begin`.
    dirty: Dirty,
}

impl SessionStream {
    /// An empty session view.
    pub fn new() -> SessionStream {
        SessionStream::default()
    }

    // ----- inputs -------------------------------------------------------------------------

    /// A new connection to the stream was opened at `now_ms` (first or reconnect): the SSE
    /// parser starts over, the subscription waits for its first heartbeat again, the
    /// missed-heartbeat clock starts, and the in-progress texts of the previous connection
    /// are dropped (the server replays the text in flight to a new subscriber; anything
    /// committed meanwhile comes with the snapshot the app fetches next).
    pub fn connection_opened(&mut self, now_ms: i64) -> Changed {
        self.parser.reset();
        self.subscribed = false;
        self.status_from_stream = false;
        self.ended = false;
        self.connected_at = Some(now_ms);
        self.last_seen = Some(now_ms);
        let before = self.records.len();
        self.records
            .retain(|r| !matches!(r.body, Body::Draft { .. }));
        if self.records.len() == before {
            return Changed::Nothing;
        }
        self.rebuild()
    }

    /// Bytes arrived at `now_ms` (a comment, a partial line): the stream is alive.
    pub fn note_activity(&mut self, now_ms: i64) {
        if self.connected_at.is_some() {
            self.last_seen = Some(self.last_seen.map_or(now_ms, |t| t.max(now_ms)));
        }
    }

    /// Feed a chunk of the stream's body (split anywhere) received at `now_ms`.
    pub fn feed(&mut self, chunk: &str, now_ms: i64) -> Changed {
        self.note_activity(now_ms);
        let events = self.parser.feed(chunk);
        self.apply_all(&events, now_ms)
    }

    /// [`SessionStream::feed`] for raw bytes (UTF-8 characters may be split across chunks).
    pub fn feed_bytes(&mut self, bytes: &[u8], now_ms: i64) -> Changed {
        self.note_activity(now_ms);
        let events = self.parser.feed_bytes(bytes);
        self.apply_all(&events, now_ms)
    }

    fn apply_all(&mut self, events: &[SseEvent], now_ms: i64) -> Changed {
        events.iter().fold(Changed::Nothing, |acc, e| {
            acc.merge(self.apply_sse(e, now_ms))
        })
    }

    /// Apply one parsed SSE event (`data: [DONE]` ends the stream; data that is not JSON is
    /// ignored).
    pub fn apply_sse(&mut self, event: &SseEvent, now_ms: i64) -> Changed {
        self.note_activity(now_ms);
        let data = event.data.trim();
        if data == "[DONE]" {
            self.ended = true;
            return Changed::Nothing;
        }
        let Ok(mut value) = serde_json::from_str::<Value>(data) else {
            return Changed::Nothing;
        };
        if let Value::Object(o) = &mut value {
            if !o.contains_key("type") && !event.event.is_empty() {
                o.insert("type".into(), Value::String(event.event.clone()));
            }
        }
        self.apply_event(&value, now_ms)
    }

    /// Apply one stream event (`{"type": …, …}`) received at `now_ms`. Never panics on any
    /// value; unknown types change nothing.
    pub fn apply_event(&mut self, event: &Value, now_ms: i64) -> Changed {
        self.note_activity(now_ms);
        let Some(o) = event.as_object() else {
            return Changed::Nothing;
        };
        let kind = o.get("type").and_then(Value::as_str).unwrap_or("");
        self.begin();
        match kind {
            "session.heartbeat" => {
                self.subscribed = true;
            }
            "session.status" => {
                let status = SessionStatus::parse(str_of(o, "status").unwrap_or(""));
                if matches!(status, SessionStatus::Idle | SessionStatus::Failed) {
                    self.close_drafts();
                    self.settle_calls();
                }
                let error = o
                    .get("error")
                    .and_then(|e| str_of_value(e, "message").or(str_of_value(e, "code")));
                if let (SessionStatus::Failed, Some(e)) = (&status, error) {
                    self.last_error = Some(e.to_string());
                }
                self.status = Some(status);
                self.status_from_stream = true;
            }
            "session.input.consumed" => {
                if let Some(d) = o.get("data").and_then(Value::as_object) {
                    let id = str_of(d, "item_id").map(str::to_string);
                    let item_type = str_of(d, "type").unwrap_or("");
                    let empty = Map::new();
                    let payload = d.get("data").and_then(Value::as_object).unwrap_or(&empty);
                    let record = self.record(id, item_type, payload, None, event);
                    if matches!(record.body, Body::Show(ItemKind::UserMessage { .. })) {
                        // A new user turn: earlier text cut short is final as it is.
                        self.forget_closed_drafts();
                    }
                    self.add_stream_record(record);
                }
            }
            "response.output_text.delta" => {
                let delta = str_of(o, "delta").unwrap_or("");
                let scope = str_of(o, "message_id")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string);
                let index = o.get("index").and_then(Value::as_i64);
                self.delta(scope, delta, index);
            }
            "response.output_item.done" => {
                if let Some(item) = o.get("item").and_then(Value::as_object) {
                    let id = str_of(item, "id").map(str::to_string);
                    let item_type = str_of(item, "type").unwrap_or("");
                    let created = item.get("created_at").and_then(epoch_secs_of);
                    let scope = str_of(item, "stream_message_id")
                        .filter(|s| !s.is_empty())
                        .map(str::to_string);
                    let item_value = Value::Object(item.clone());
                    let record = self.record(id, item_type, item, created, &item_value);
                    self.done(record, scope);
                }
            }
            "response.created" | "response.in_progress" => {
                // A new turn: text cut short in an earlier one is final as it is.
                self.forget_closed_drafts();
            }
            "response.completed" | "response.failed" | "response.incomplete" => {
                self.close_drafts();
                self.settle_calls();
            }
            "response.cancelled" => {
                // The turn was stopped (e.g. a question denied): nothing runs now. Omnigent
                // 0.19.1 does not always follow it with `session.status`.
                self.close_drafts();
                self.settle_calls();
                self.status = Some(SessionStatus::Idle);
                self.status_from_stream = true;
            }
            "session.interrupted" => {
                self.close_drafts();
                self.settle_calls();
                let d = o.get("data");
                let at = d
                    .and_then(|d| d.get("requested_at"))
                    .and_then(epoch_secs_of);
                let response = d.and_then(|d| str_of_value(d, "response_id")).unwrap_or("");
                let id = format!(
                    "interrupted:{}:{response}",
                    at.map_or(String::new(), |t| t.to_string())
                );
                self.add_stream_record(Record {
                    id,
                    ts: at.and_then(iso_from_epoch_secs).unwrap_or_default(),
                    body: Body::Show(ItemKind::Paused),
                });
            }
            "session.usage" => {
                let n = |k: &str| o.get(k).and_then(Value::as_u64);
                if let Some(v) = n("context_tokens") {
                    self.usage.context_tokens = Some(v);
                }
                if let Some(v) = n("context_window") {
                    self.usage.context_window = Some(v);
                }
                if let Some(v) = o.get("total_cost_usd").and_then(Value::as_f64) {
                    self.usage.total_cost_usd = Some(v);
                }
            }
            "session.title" => {
                if let Some(t) = str_of(o, "title") {
                    self.title = Some(t.to_string());
                }
            }
            "response.elicitation_request" => {
                if let Some(e) = Elicitation::from_event(event) {
                    let ts = iso_from_epoch_secs(now_ms.div_euclid(1000)).unwrap_or_default();
                    self.ask(e, ts);
                }
            }
            "response.elicitation_resolved" => {
                if let Some((id, outcome)) = Outcome::from_resolved(event) {
                    self.answered(&id, outcome);
                }
            }
            "session.sandbox_status" => {
                let ts = iso_from_epoch_secs(now_ms.div_euclid(1000)).unwrap_or_default();
                self.sandbox_launch(o, ts);
            }
            _ => {}
        }
        self.finish()
    }

    /// Merge the snapshot (`GET /v1/sessions/{id}` with items): its items first, in its order;
    /// then the items only the stream has, in arrival order; one card per item id. Its status
    /// applies unless a `session.status` came on this connection; its title and usage apply
    /// when it has them. Re-read [`SessionStream::status`] (and the others) after every call.
    pub fn apply_snapshot(&mut self, session: &Session) -> Changed {
        if !self.status_from_stream {
            if let Some(s) = &session.status {
                self.status = Some(s.clone());
            }
        }
        // The snapshot is fetched after the stream opened: it is at least as fresh as what
        // the stream said before it.
        if session.title.is_some() {
            self.title = session.title.clone();
        }
        if session.context_window.is_some() {
            self.usage.context_window = session.context_window;
        }
        if session.total_cost_usd.is_some() {
            self.usage.total_cost_usd = session.total_cost_usd;
        }
        if self.usage.context_tokens.is_none() {
            self.usage.context_tokens = session.last_total_tokens;
        }
        let changed = self.apply_snapshot_items(&session.items);
        // The server's list of open questions is at least as fresh as the stream's: what it
        // no longer lists was answered elsewhere (or timed out).
        self.begin();
        let open: Vec<Elicitation> = session
            .pending_elicitations
            .iter()
            .filter_map(Elicitation::from_event)
            .collect();
        let gone: Vec<String> = self
            .asking
            .iter()
            .filter(|(a, _)| !open.iter().any(|e| e.id == a.id))
            .map(|(a, _)| a.id.clone())
            .collect();
        for id in gone {
            self.answered(&id, Outcome::Answered);
        }
        for e in open {
            self.ask(e, String::new());
        }
        if let Some(status) = session.sandbox_status.as_ref().and_then(Value::as_object) {
            self.sandbox_launch(status, String::new());
        }
        changed.merge(self.finish())
    }

    /// [`SessionStream::apply_snapshot`] for the items alone (`ConversationItem`s, nested
    /// `{id, type, created_at, data}`, or the flat stream shape).
    pub fn apply_snapshot_items(&mut self, items: &[Value]) -> Changed {
        let mut merged: Vec<Record> = Vec::with_capacity(items.len() + self.records.len());
        let mut seen: HashSet<String> = HashSet::new();
        for (pos, item) in items.iter().enumerate() {
            let Some(o) = item.as_object() else {
                continue;
            };
            let id = str_of(o, "id")
                .filter(|s| !s.is_empty())
                .map_or_else(|| format!("snapshot#{pos}"), str::to_string);
            if !seen.insert(id.clone()) {
                continue;
            }
            let item_type = str_of(o, "type").unwrap_or("");
            let created = o.get("created_at").and_then(epoch_secs_of);
            let record = match o.get("data").and_then(Value::as_object) {
                Some(data) => self.record(Some(id), item_type, data, created, item),
                None => self.record(Some(id), item_type, o, created, item),
            };
            merged.push(record);
        }
        for r in std::mem::take(&mut self.records) {
            if !seen.contains(&r.id) {
                merged.push(r);
            }
        }
        self.records = merged;
        self.rebuild()
    }

    // ----- outputs ------------------------------------------------------------------------

    /// The cards, in order.
    pub fn items(&self) -> &[ViewItem] {
        &self.items
    }

    /// Whether an item with this id is held.
    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains_key(id)
    }

    /// The status the conversation view shows; `Unknown("")` before any. While a question
    /// waits for an answer, [`ExecutionStatus::WaitingForConfirmation`].
    pub fn status(&self) -> ExecutionStatus {
        if !self.asking.is_empty() {
            return ExecutionStatus::WaitingForConfirmation;
        }
        self.status
            .as_ref()
            .map_or(ExecutionStatus::Unknown(String::new()), |s| {
                s.execution_status()
            })
    }

    /// The current connection got its first `session.heartbeat`: the subscription is live, so
    /// a message posted now will be seen on the stream.
    pub fn subscribed(&self) -> bool {
        self.subscribed
    }

    /// The stream is presumed dead: a connection is open and nothing (no heartbeat, no
    /// event, no byte) arrived for more than [`RECONNECT_AFTER_MS`] (two missed heartbeats).
    /// `false` before the first connection and after the server ended the stream with
    /// `[DONE]`.
    pub fn needs_reconnect(&self, now_ms: i64) -> bool {
        if self.ended {
            return false;
        }
        self.last_seen
            .is_some_and(|t| now_ms.saturating_sub(t) > RECONNECT_AFTER_MS)
    }

    /// The server ended the stream on purpose (`data: [DONE]`, e.g. the session was closed);
    /// reconnecting right away is pointless. A stream that just stops is NOT ended.
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Token usage.
    pub fn usage(&self) -> &Usage {
        &self.usage
    }

    /// The session's title (from `session.title` or the snapshot).
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The questions waiting for an answer, oldest first, as the confirmation bar lists them
    /// (their `action_id` is the elicitation id).
    pub fn pending(&self) -> Vec<PendingAction> {
        self.asking.iter().map(|(e, ts)| e.pending(ts)).collect()
    }

    /// The failure reported with the last `failed` status, if any.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    // ----- records ------------------------------------------------------------------------

    /// A record from an item: `payload` holds the type's fields (`data` of a nested item,
    /// the item itself when flat); `whole` is shown by generic cards.
    fn record(
        &mut self,
        id: Option<String>,
        item_type: &str,
        payload: &Map<String, Value>,
        created: Option<i64>,
        whole: &Value,
    ) -> Record {
        let id = match id.filter(|s| !s.is_empty()) {
            Some(id) => id,
            None => {
                self.next_anon += 1;
                format!("stream#{}", self.next_anon)
            }
        };
        let ts = created.and_then(iso_from_epoch_secs).unwrap_or_default();
        Record {
            id,
            ts,
            body: body_of(item_type, payload, whole),
        }
    }

    /// Add a record the stream delivered (a duplicate id changes nothing).
    fn add_stream_record(&mut self, record: Record) {
        if self.ids.contains_key(&record.id) {
            return;
        }
        self.ids.insert(record.id.clone(), self.records.len());
        self.records.push(record);
        self.fold(self.records.len() - 1);
    }

    /// A question arrived (a repeat of one already held changes nothing).
    fn ask(&mut self, e: Elicitation, ts: String) {
        if self.asking.iter().any(|(a, _)| a.id == e.id) {
            return;
        }
        let record = Record {
            id: e.id.clone(),
            ts: ts.clone(),
            body: Body::Ask {
                message: e.summary(),
                preview: e.preview.clone(),
                outcome: None,
            },
        };
        self.asking.push((e, ts));
        match self.ids.get(&record.id).copied() {
            // Asked again after this view marked it answered (a snapshot raced the stream).
            Some(ri) => {
                self.records[ri].body = record.body;
                self.refresh(ri);
            }
            None => self.add_stream_record(record),
        }
    }

    /// A managed sandbox's launch reached a stage (`{stage, error?, provider?}`): its card
    /// says which, in words, with the server's error when it failed. A stage it does not
    /// know is shown as the server names it.
    fn sandbox_launch(&mut self, status: &Map<String, Value>, ts: String) {
        let Some(stage) = str_of(status, "stage").filter(|s| !s.is_empty()) else {
            return;
        };
        let words = SANDBOX_STAGES
            .iter()
            .find(|(s, _)| *s == stage)
            .map_or_else(
                || Words::from(stage.to_string()),
                |(_, m)| Words::new(Text::new(*m)),
            );
        let body = Body::Show(ItemKind::ToolCall {
            tool: words,
            summary: str_of(status, "provider").unwrap_or("").to_string(),
            output: str_of(status, "error")
                .filter(|e| !e.trim().is_empty())
                .map(str::to_string),
            images: Vec::new(),
            is_error: stage == "failed",
            running: !matches!(stage, "ready" | "failed"),
        });
        match self.ids.get(SANDBOX_CARD).copied() {
            Some(ri) => {
                self.records[ri].body = body;
                self.refresh(ri);
            }
            None => self.add_stream_record(Record {
                id: SANDBOX_CARD.into(),
                ts,
                body,
            }),
        }
    }

    /// A question was answered (or is no longer open).
    fn answered(&mut self, id: &str, outcome: Outcome) {
        self.asking.retain(|(a, _)| a.id != id);
        let Some(&ri) = self.ids.get(id) else {
            return;
        };
        if let Body::Ask { outcome: o, .. } = &mut self.records[ri].body {
            if o.is_none() || outcome != Outcome::Answered {
                *o = Some(outcome);
            }
            self.refresh(ri);
        }
    }

    fn delta(&mut self, scope: Option<String>, delta: &str, index: Option<i64>) {
        if delta.is_empty() {
            return;
        }
        let open = self.drafts.get(&scope).and_then(|id| {
            let ri = *self.ids.get(id)?;
            match &self.records[ri].body {
                Body::Draft {
                    streaming: true, ..
                } => Some(ri),
                _ => None,
            }
        });
        let Some(ri) = open else {
            self.next_draft += 1;
            let id = format!("draft#{}", self.next_draft);
            self.drafts.insert(scope.clone(), id.clone());
            self.add_stream_record(Record {
                id,
                ts: String::new(),
                body: Body::Draft {
                    scope,
                    text: delta.to_string(),
                    last_index: index,
                    streaming: true,
                },
            });
            return;
        };
        if let Body::Draft {
            text, last_index, ..
        } = &mut self.records[ri].body
        {
            if let (Some(i), Some(last)) = (index, *last_index) {
                if i <= last {
                    return;
                }
            }
            text.push_str(delta);
            if index.is_some() {
                *last_index = index;
            }
        }
        self.refresh(ri);
    }

    /// A finished item: an assistant message replaces the draft of its scope (else the
    /// response's draft) in place; anything else is added.
    fn done(&mut self, record: Record, scope: Option<String>) {
        let is_reply = matches!(record.body, Body::Show(ItemKind::AgentMessage { .. }));
        let draft = if is_reply {
            self.draft_record(&scope)
                .or_else(|| self.draft_record(&None))
        } else {
            None
        };
        let Some(ri) = draft else {
            self.add_stream_record(record);
            return;
        };
        let draft_id = self.records[ri].id.clone();
        self.drafts.retain(|_, id| *id != draft_id);
        if self.ids.contains_key(&record.id) {
            // Already shown (e.g. from the snapshot): the draft was its preview.
            self.records.remove(ri);
            let from = self.rebuild().first().unwrap_or(self.items.len());
            self.touch_from(from);
            return;
        }
        self.ids.remove(&draft_id);
        self.ids.insert(record.id.clone(), ri);
        self.records[ri] = record;
        match self.item_of.remove(&draft_id) {
            Some(ii) if matches!(self.records[ri].body, Body::Show(_)) => {
                self.item_of.insert(self.records[ri].id.clone(), ii);
                self.refresh(ri);
            }
            _ => {
                let from = self.rebuild().first().unwrap_or(self.items.len());
                self.touch_from(from);
            }
        }
    }

    fn draft_record(&self, scope: &Option<String>) -> Option<usize> {
        let id = self.drafts.get(scope)?;
        self.ids.get(id).copied()
    }

    /// The drafts stop streaming (they stay replaceable by their final message).
    fn close_drafts(&mut self) {
        let ids: Vec<String> = self.drafts.values().cloned().collect();
        for id in ids {
            let Some(&ri) = self.ids.get(&id) else {
                continue;
            };
            if let Body::Draft { streaming, .. } = &mut self.records[ri].body {
                if *streaming {
                    *streaming = false;
                    self.refresh(ri);
                }
            }
        }
    }

    /// Closed drafts become plain text that nothing will replace.
    fn forget_closed_drafts(&mut self) {
        let records = &self.records;
        let ids = &self.ids;
        self.drafts.retain(|_, id| {
            ids.get(id).is_some_and(|&ri| {
                matches!(
                    records[ri].body,
                    Body::Draft {
                        streaming: true,
                        ..
                    }
                )
            })
        });
    }

    /// Calls without output stop "running" (their turn ended).
    fn settle_calls(&mut self) {
        for ri in 0..self.records.len() {
            let Body::Call {
                call_id, settled, ..
            } = &self.records[ri].body
            else {
                continue;
            };
            if *settled {
                continue;
            }
            let running = self
                .calls
                .get(call_id)
                .and_then(|&ii| match self.items.get(ii) {
                    Some(ViewItem {
                        kind: ItemKind::ToolCall { running, .. },
                        ..
                    }) => Some(*running),
                    _ => None,
                });
            if running == Some(true) {
                if let Body::Call { settled, .. } = &mut self.records[ri].body {
                    *settled = true;
                }
                self.refresh(ri);
            }
        }
    }

    // ----- view -----------------------------------------------------------------------------

    fn begin(&mut self) {
        self.dirty = Dirty::default();
    }

    fn finish(&self) -> Changed {
        match self.dirty.touched() {
            Touched::Nothing => Changed::Nothing,
            Touched::One(index) => Changed::Updated { index },
            Touched::From(from) => Changed::From { from },
        }
    }

    fn touch(&mut self, i: usize) {
        self.dirty.touch(i);
    }

    fn touch_from(&mut self, i: usize) {
        self.dirty.touch_from(i);
    }

    fn reindex(&mut self) {
        self.ids = self
            .records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), i))
            .collect();
    }

    /// Derive the whole view again; returns what differs from the previous one.
    fn rebuild(&mut self) -> Changed {
        self.reindex();
        let old = std::mem::take(&mut self.items);
        self.item_of.clear();
        self.calls.clear();
        let live_drafts: HashSet<String> = self.drafts.values().cloned().collect();
        self.drafts.clear();
        let dirty = self.dirty;
        for ri in 0..self.records.len() {
            if let Body::Draft { scope, .. } = &self.records[ri].body {
                if live_drafts.contains(&self.records[ri].id) {
                    self.drafts
                        .insert(scope.clone(), self.records[ri].id.clone());
                }
            }
            self.fold(ri);
        }
        self.dirty = dirty;
        let same = old
            .iter()
            .zip(self.items.iter())
            .position(|(a, b)| a != b)
            .unwrap_or(old.len().min(self.items.len()));
        if same == old.len() && same == self.items.len() {
            Changed::Nothing
        } else {
            Changed::From { from: same }
        }
    }

    /// Derive record `ri` (appended after everything already derived).
    fn fold(&mut self, ri: usize) {
        let record = &self.records[ri];
        let kind = match &record.body {
            Body::Hidden => return,
            Body::Output { call_id, output } => {
                if let Some(&ii) = self.calls.get(call_id) {
                    if let Some(ViewItem {
                        kind:
                            ItemKind::ToolCall {
                                output: o, running, ..
                            },
                        ..
                    }) = self.items.get_mut(ii)
                    {
                        *o = Some(output.clone());
                        *running = false;
                        self.touch(ii);
                        return;
                    }
                }
                // An output whose call is unknown: shown on its own.
                kind_of(&record.body)
            }
            other => kind_of(other),
        };
        let item = ViewItem {
            key: record.id.clone(),
            id: record.id.clone(),
            timestamp: record.ts.clone(),
            kind,
        };
        let ii = self.items.len();
        if let Body::Call { call_id, .. } = &record.body {
            if !call_id.is_empty() {
                self.calls.insert(call_id.clone(), ii);
            }
        }
        self.item_of.insert(record.id.clone(), ii);
        self.items.push(item);
        self.touch_from(ii);
    }

    /// Record `ri` changed in place: update its card.
    fn refresh(&mut self, ri: usize) {
        let record = &self.records[ri];
        let Some(&ii) = self.item_of.get(&record.id) else {
            return;
        };
        let Some(item) = self.items.get_mut(ii) else {
            return;
        };
        let mut kind = kind_of(&record.body);
        // A call keeps the output already merged into its card.
        if let (
            ItemKind::ToolCall {
                output, running, ..
            },
            ItemKind::ToolCall {
                output: had,
                running: was,
                ..
            },
        ) = (&mut kind, &item.kind)
        {
            if had.is_some() {
                *output = had.clone();
                *running = *was && *running;
            }
        }
        item.key = record.id.clone();
        item.id = record.id.clone();
        item.timestamp = record.ts.clone();
        item.kind = kind;
        self.touch(ii);
    }
}

/// The card of a body (outputs are merged by the fold, not here).
fn kind_of(body: &Body) -> ItemKind {
    match body {
        Body::Show(kind) => kind.clone(),
        Body::Draft {
            text, streaming, ..
        } => ItemKind::AgentMessage {
            text: text.clone(),
            streaming: *streaming,
        },
        Body::Call {
            tool,
            summary,
            settled,
            ..
        } => ItemKind::ToolCall {
            tool: tool.clone().into(),
            summary: summary.clone(),
            output: None,
            images: Vec::new(),
            is_error: false,
            running: !settled,
        },
        Body::Output { call_id, output } => ItemKind::ToolCall {
            tool: Words::new(Text::new(TOOL_RESULT)),
            summary: call_id.clone(),
            output: Some(output.clone()),
            images: Vec::new(),
            is_error: false,
            running: false,
        },
        Body::Ask {
            message,
            preview,
            outcome,
        } => ItemKind::ToolCall {
            tool: outcome.map_or_else(asked_words, Outcome::words),
            summary: message.english().to_string(),
            output: (!preview.is_empty()).then(|| preview.clone()),
            images: Vec::new(),
            is_error: matches!(outcome, Some(Outcome::Declined)),
            running: outcome.is_none(),
        },
        Body::Hidden => ItemKind::Generic {
            kind: String::new(),
            summary: String::new().into(),
            json: Value::Null,
        },
    }
}

fn str_of<'a>(o: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    o.get(key).and_then(Value::as_str)
}

fn str_of_value<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The text of a `content` list: the `text` (or `refusal`) of each part, joined by newlines;
/// `(attachment)` when there are parts but no text.
fn content_text(content: Option<&Value>) -> String {
    let parts: Vec<&Value> = match content {
        Some(Value::Array(parts)) => parts.iter().collect(),
        Some(Value::String(s)) => return s.clone(),
        _ => return String::new(),
    };
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            Value::String(s) => Some(s.as_str()),
            Value::Object(o) => str_of(o, "text").or_else(|| str_of(o, "refusal")),
            _ => None,
        })
        .collect();
    if texts.is_empty() && !parts.is_empty() {
        "(attachment)".into()
    } else {
        texts.join("\n")
    }
}

/// The texts of a list of `{text}` blocks, joined by blank lines.
fn block_texts(v: Option<&Value>) -> String {
    v.and_then(Value::as_array)
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .filter(|t| !t.trim().is_empty())
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .unwrap_or_default()
}

fn shorten(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() > MAX_SUMMARY_CHARS {
        let mut out: String = s.chars().take(MAX_SUMMARY_CHARS).collect();
        out.push('…');
        out
    } else {
        s.to_string()
    }
}

/// A tool call's one-line summary: its `command` (a string or a list of words), else its
/// `path`/`file_path`/`query`/`url`, else the raw arguments, shortened.
fn call_summary(arguments: &str) -> String {
    if let Ok(Value::Object(args)) = serde_json::from_str::<Value>(arguments) {
        match args.get("command").or_else(|| args.get("cmd")) {
            Some(Value::String(c)) => return shorten(c),
            Some(Value::Array(words)) => {
                let words: Vec<&str> = words.iter().filter_map(Value::as_str).collect();
                if !words.is_empty() {
                    return shorten(&words.join(" "));
                }
            }
            _ => {}
        }
        for key in ["path", "file_path", "query", "url"] {
            if let Some(v) = str_of(&args, key) {
                return shorten(v);
            }
        }
    }
    shorten(arguments)
}

fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The server's note of a model switch (`PATCH /v1/sessions/{id} {model_override}`), as the
/// model switched to (`None`: back to the agent's default); `None` for any other text.
fn model_switch_note(text: &str) -> Option<Option<String>> {
    let inner = text.trim().strip_prefix("[System: ")?.strip_suffix(']')?;
    if inner == "model reset to the agent default" {
        return Some(None);
    }
    inner
        .strip_prefix("model changed to ")
        .filter(|m| !m.is_empty() && !m.contains(char::is_whitespace))
        .map(|m| Some(m.to_string()))
}

/// What an item of `item_type` with these fields shows.
fn body_of(item_type: &str, p: &Map<String, Value>, whole: &Value) -> Body {
    match item_type {
        "message" => {
            if p.get("is_meta").and_then(Value::as_bool) == Some(true) {
                return Body::Hidden;
            }
            let text = content_text(p.get("content"));
            // The server's own note of a model switch is a user message nobody wrote.
            if p.get("user_authored").and_then(Value::as_bool) != Some(true) {
                if let Some(switched) = model_switch_note(&text) {
                    return Body::Show(ItemKind::ModelSwitched(switched));
                }
            }
            match str_of(p, "role").unwrap_or("") {
                "user" => Body::Show(ItemKind::UserMessage {
                    text,
                    images: Vec::new(),
                }),
                "assistant" => Body::Show(ItemKind::AgentMessage {
                    text,
                    streaming: false,
                }),
                _ => Body::Hidden,
            }
        }
        "function_call" => {
            let arguments = text_of(p.get("arguments"));
            Body::Call {
                tool: str_of(p, "name").unwrap_or("tool").into(),
                summary: call_summary(&arguments),
                call_id: str_of(p, "call_id").unwrap_or("").to_string(),
                settled: false,
            }
        }
        "function_call_output" => Body::Output {
            call_id: str_of(p, "call_id").unwrap_or("").to_string(),
            output: text_of(p.get("output")),
        },
        "reasoning" => {
            let mut text = block_texts(p.get("summary"));
            if text.is_empty() {
                text = block_texts(p.get("content"));
            }
            if text.is_empty() {
                Body::Hidden
            } else {
                Body::Show(ItemKind::Thought { text })
            }
        }
        "error" => {
            let title = str_of(p, "title")
                .or_else(|| str_of(p, "code"))
                .filter(|t| !t.trim().is_empty())
                .map_or_else(|| Words::new(Text::new(ERROR_TITLE)), Words::from);
            Body::Show(ItemKind::Error {
                title,
                detail: text_of(p.get("message")),
            })
        }
        "compaction" => Body::Show(ItemKind::Condensation {
            summary: str_of(p, "summary")
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string),
            forgotten: p
                .get("compacted_messages")
                .and_then(Value::as_array)
                .map_or(0, Vec::len),
        }),
        "terminal_command" => {
            let out: Vec<String> = ["stdout", "stderr"]
                .iter()
                .filter_map(|k| str_of(p, k))
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            Body::Show(ItemKind::Terminal {
                command: str_of(p, "input")
                    .or_else(|| str_of(p, "kind"))
                    .unwrap_or("")
                    .to_string(),
                output: (!out.is_empty()).then(|| out.join("\n")),
                exit_code: None,
                running: false,
            })
        }
        "slash_command" => Body::Show(ItemKind::ToolCall {
            tool: format!("/{}", str_of(p, "name").unwrap_or("")).into(),
            summary: shorten(&text_of(p.get("arguments"))),
            output: str_of(p, "output").map(str::to_string),
            images: Vec::new(),
            is_error: false,
            running: false,
        }),
        "resource_event" => Body::Hidden,
        other => {
            let summary = ["summary", "title", "message", "text", "rationale", "name"]
                .iter()
                .find_map(|k| str_of(p, k))
                .map(shorten)
                .unwrap_or_default();
            Body::Show(ItemKind::Generic {
                kind: other.to_string(),
                summary: summary.into(),
                json: whole.clone(),
            })
        }
    }
}
