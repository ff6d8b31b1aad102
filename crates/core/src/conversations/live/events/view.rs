//! Folding sorted events into view items. The same fold serves incremental appends and full
//! rebuilds, so both give identical results.

use std::collections::HashMap;

use super::classify::{AcpToolCall, ActionCard, ActionData, Entry, Ev, ObservationData};
use super::dirty::{Dirty, Touched};
use super::item::{ItemKind, PendingAction, ViewItem};
use super::timestamp::Timestamp;
use crate::i18n::text::text;
use crate::i18n::Words;

/// Order of an entry: timestamp, then arrival.
pub(crate) type Key = (Timestamp, u64);

#[derive(Default)]
pub(crate) struct View {
    pub items: Vec<ViewItem>,
    /// Action event id → index of its card.
    action_items: HashMap<String, usize>,
    /// `tool_call_id` → action event id.
    tool_calls: HashMap<String, String>,
    /// An ACP agent's `tool_call_id` → index of its card.
    acp_calls: HashMap<String, usize>,
    /// Actions with no observation/rejection/error yet.
    open: HashMap<String, (Key, PendingAction)>,
    /// The streaming agent message not yet superseded.
    stream: Option<usize>,
    /// The items touched since [`View::begin`].
    dirty: Dirty,
}

/// An item's key: the event id with `%` and `#` escaped, so that no event id can equal the key
/// of another event's thought (`"<key>#thought"`; issue #17, found by `tests/never_panics.rs`:
/// an event with id `"e1#thought"` beside an action `e1` with a thought gave two items one key).
/// Ids without `%` and `#` (UUIDs, hex) are their own key.
fn item_key(id: &str) -> String {
    if id.contains(['%', '#']) {
        id.replace('%', "%25").replace('#', "%23")
    } else {
        id.to_owned()
    }
}

impl View {
    pub fn begin(&mut self) {
        self.dirty = Dirty::default();
    }

    /// What changed since [`View::begin`].
    pub fn finish(&self) -> Touched {
        self.dirty.touched()
    }

    pub fn pending(&self) -> Vec<PendingAction> {
        let mut v: Vec<&(Key, PendingAction)> = self.open.values().collect();
        v.sort_by_key(|a| a.0);
        v.into_iter().map(|(_, p)| p.clone()).collect()
    }

    fn touch(&mut self, i: usize) {
        self.dirty.touch(i);
    }

    fn push(&mut self, e: &Entry, kind: ItemKind, thought_part: bool) -> usize {
        let i = self.items.len();
        self.dirty.touch_from(i);
        let key = if thought_part {
            format!("{}#thought", item_key(&e.id))
        } else {
            item_key(&e.id)
        };
        self.items.push(ViewItem {
            key,
            id: e.id.clone(),
            timestamp: e.ts_raw.clone(),
            kind,
        });
        i
    }

    fn remove(&mut self, i: usize) {
        if i >= self.items.len() {
            return;
        }
        self.items.remove(i);
        self.dirty.touch_from(i);
        if i < self.items.len() {
            for v in self
                .action_items
                .values_mut()
                .chain(self.acp_calls.values_mut())
            {
                if *v > i {
                    *v -= 1;
                }
            }
        }
    }

    /// The streaming message is superseded by the final message/action: drop it.
    fn supersede_stream(&mut self) {
        if let Some(i) = self.stream.take() {
            self.remove(i);
        }
    }

    /// The LLM call was cut short: keep the partial text, no longer streaming.
    fn end_stream(&mut self) {
        if let Some(i) = self.stream.take() {
            if let Some(ItemKind::AgentMessage { streaming, .. }) =
                self.items.get_mut(i).map(|it| &mut it.kind)
            {
                *streaming = false;
            }
            self.touch(i);
        }
    }

    /// Find the action an observation/rejection/error answers, and close it.
    fn close_action(&mut self, action_id: &str, tool_call_id: &str) -> Option<usize> {
        let aid = if self.action_items.contains_key(action_id) {
            action_id.to_owned()
        } else {
            self.tool_calls.get(tool_call_id).cloned()?
        };
        self.open.remove(&aid);
        self.action_items.get(&aid).copied()
    }

    fn stop_running(&mut self, i: usize) {
        let running = match self.items.get_mut(i).map(|it| &mut it.kind) {
            Some(ItemKind::Terminal { running, .. })
            | Some(ItemKind::FileEdit { running, .. })
            | Some(ItemKind::ToolCall { running, .. }) => running,
            _ => return,
        };
        if *running {
            *running = false;
            self.touch(i);
        }
    }

    pub fn derive(&mut self, e: &Entry, key: Key) {
        match &e.ev {
            Ev::Inert | Ev::Status(_) => {}
            Ev::Message {
                agent: true,
                text,
                thought,
                ..
            } => {
                self.supersede_stream();
                if let Some(t) = thought {
                    self.push(e, ItemKind::Thought { text: t.clone() }, true);
                }
                let kind = ItemKind::AgentMessage {
                    text: text.clone(),
                    streaming: false,
                };
                self.push(e, kind, false);
            }
            Ev::Message { text, images, .. } => {
                let kind = ItemKind::UserMessage {
                    text: text.clone(),
                    images: images.clone(),
                };
                self.push(e, kind, false);
            }
            Ev::Delta(text) => {
                let target = self.stream.and_then(|i| match self.items.get_mut(i) {
                    Some(ViewItem {
                        kind: ItemKind::AgentMessage { text, .. },
                        ..
                    }) => Some((i, text)),
                    _ => None,
                });
                match target {
                    Some((i, existing)) => {
                        existing.push_str(text);
                        self.touch(i);
                    }
                    None => {
                        let kind = ItemKind::AgentMessage {
                            text: text.clone(),
                            streaming: true,
                        };
                        self.stream = Some(self.push(e, kind, false));
                    }
                }
            }
            Ev::Action(a) => self.action(e, key, a),
            Ev::Observation(o) => self.observation(e, o),
            Ev::Reject {
                action_id,
                tool_call_id,
                reason,
            } => {
                if let Some(i) = self.close_action(action_id, tool_call_id) {
                    self.stop_running(i);
                }
                let kind = ItemKind::Rejected {
                    reason: reason.clone(),
                    action_id: action_id.clone(),
                };
                self.push(e, kind, false);
            }
            Ev::AgentError {
                tool_call_id,
                error,
            } => {
                if let Some(i) = self.close_action("", tool_call_id) {
                    self.stop_running(i);
                }
                self.error(e, &text!("event.title.agent_error").into(), error);
            }
            Ev::Error { title, detail } => {
                self.end_stream();
                self.error(e, title, detail);
            }
            Ev::Pause => {
                self.end_stream();
                self.push(e, ItemKind::Paused, false);
            }
            Ev::Condensation { summary, forgotten } => {
                let kind = ItemKind::Condensation {
                    summary: summary.clone(),
                    forgotten: *forgotten,
                };
                self.push(e, kind, false);
            }
            Ev::AcpToolCall(call) => self.acp_tool_call(e, call),
            Ev::Goal(goal) => {
                self.push(e, ItemKind::Goal(goal.clone()), false);
            }
            Ev::Generic {
                kind,
                summary,
                json,
            } => {
                let kind = ItemKind::Generic {
                    kind: kind.clone(),
                    summary: summary.clone(),
                    json: json.clone(),
                };
                self.push(e, kind, false);
            }
        }
    }

    /// Errors repeated back to back (the server re-emits the same conversation error) show once.
    fn error(&mut self, e: &Entry, title: &Words, detail: &str) {
        if let Some(ViewItem {
            kind:
                ItemKind::Error {
                    title: t,
                    detail: d,
                },
            ..
        }) = self.items.last()
        {
            if t == title && d == detail {
                return;
            }
        }
        let kind = ItemKind::Error {
            title: title.clone(),
            detail: detail.to_owned(),
        };
        self.push(e, kind, false);
    }

    fn action(&mut self, e: &Entry, key: Key, a: &ActionData) {
        self.supersede_stream();
        if let Some(t) = &a.thought {
            self.push(e, ItemKind::Thought { text: t.clone() }, true);
        }
        let kind = match &a.card {
            ActionCard::Terminal { command } => ItemKind::Terminal {
                command: command.clone(),
                output: None,
                exit_code: None,
                running: true,
            },
            ActionCard::FileEdit {
                path,
                command,
                diff,
            } => ItemKind::FileEdit {
                path: path.clone(),
                command: command.clone(),
                summary: a.summary.clone(),
                diff: diff.clone(),
                output: None,
                is_error: false,
                running: true,
            },
            ActionCard::Finish { message } => ItemKind::Finish {
                message: message.clone(),
            },
            ActionCard::Think { text } => ItemKind::Thought { text: text.clone() },
            ActionCard::Tool { kind } => ItemKind::ToolCall {
                tool: a.tool_name.clone().into(),
                summary: a.summary.clone().unwrap_or_else(|| {
                    if kind.is_empty() {
                        a.tool_name.clone()
                    } else {
                        kind.clone()
                    }
                }),
                output: None,
                images: Vec::new(),
                is_error: false,
                running: true,
            },
        };
        let i = self.push(e, kind, false);
        self.action_items.insert(e.id.clone(), i);
        if !a.tool_call_id.is_empty() {
            self.tool_calls.insert(a.tool_call_id.clone(), e.id.clone());
        }
        let summary = a.summary.clone().unwrap_or_else(|| match &a.card {
            ActionCard::Terminal { command } => command.clone(),
            ActionCard::FileEdit { path, command, .. } => format!("{command} {path}"),
            ActionCard::Finish { message } => message.clone(),
            ActionCard::Think { text } => text.clone(),
            ActionCard::Tool { kind } => kind.clone(),
        });
        let pending = PendingAction {
            action_id: e.id.clone(),
            tool_call_id: a.tool_call_id.clone(),
            tool_name: a.tool_name.clone(),
            summary,
            security_risk: a.security_risk.clone(),
            timestamp: e.ts_raw.clone(),
        };
        self.open.insert(e.id.clone(), (key, pending));
    }

    /// An ACP agent's tool call: a card on its first report, brought up to date by the next.
    fn acp_tool_call(&mut self, e: &Entry, call: &AcpToolCall) {
        self.supersede_stream();
        let kind = ItemKind::ToolCall {
            tool: call.title.clone().into(),
            summary: call.summary.clone(),
            output: call.output.clone(),
            images: Vec::new(),
            is_error: call.is_error,
            running: call.running,
        };
        let known = (!call.tool_call_id.is_empty())
            .then(|| self.acp_calls.get(&call.tool_call_id).copied())
            .flatten();
        match known.and_then(|i| self.items.get_mut(i).map(|it| (i, it))) {
            Some((i, item)) => {
                item.kind = kind;
                self.touch(i);
            }
            None => {
                let i = self.push(e, kind, false);
                if !call.tool_call_id.is_empty() {
                    self.acp_calls.insert(call.tool_call_id.clone(), i);
                }
            }
        }
    }

    fn observation(&mut self, e: &Entry, o: &ObservationData) {
        let Some(i) = self.close_action(&o.action_id, &o.tool_call_id) else {
            // No action for it (yet): show it on its own.
            let kind = match &o.command {
                Some(command) if o.kind == "TerminalObservation" => ItemKind::Terminal {
                    command: command.clone(),
                    output: Some(o.text.clone()),
                    exit_code: o.exit_code,
                    running: false,
                },
                _ => ItemKind::ToolCall {
                    tool: o.tool_name.clone().into(),
                    summary: o.kind.clone(),
                    output: Some(o.text.clone()),
                    images: o.images.clone(),
                    is_error: o.is_error,
                    running: false,
                },
            };
            self.push(e, kind, false);
            return;
        };
        let changed = match self.items.get_mut(i).map(|it| &mut it.kind) {
            Some(ItemKind::Terminal {
                output,
                exit_code,
                running,
                ..
            }) => {
                *output = Some(o.text.clone());
                *exit_code = o.exit_code;
                *running = false;
                true
            }
            Some(ItemKind::FileEdit {
                output,
                is_error,
                running,
                ..
            }) => {
                *output = Some(o.text.clone());
                *is_error = o.is_error;
                *running = false;
                true
            }
            Some(ItemKind::ToolCall {
                output,
                images,
                is_error,
                running,
                ..
            }) => {
                *output = Some(o.text.clone());
                images.clone_from(&o.images);
                *is_error = o.is_error;
                *running = false;
                true
            }
            _ => false,
        };
        if changed {
            self.touch(i);
        }
    }
}
