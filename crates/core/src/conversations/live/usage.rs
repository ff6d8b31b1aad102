//! What a conversation cost (issue #15): tokens in and out, cache reads and writes, and cost,
//! per LLM and in total, from the agent server's `ConversationStats` (`usage_to_metrics`, keyed
//! by usage id: `agent`, `condenser`, `ask-agent-llm`, a switched profile …). The server streams
//! them as `ConversationStateUpdateEvent`s (`key: "stats"`, and inside `key: "full_state"` when
//! a socket connects), so totals follow a run live.

use crate::i18n::text::text;
use crate::i18n::Text;
use serde_json::Value;

/// One LLM's accumulated usage.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LlmUsage {
    /// The usage id (`agent`, `condenser`, …).
    pub usage_id: String,
    /// The model name.
    pub model: String,
    /// Prompt (input) tokens.
    pub prompt_tokens: u64,
    /// Completion (output) tokens.
    pub completion_tokens: u64,
    /// Prompt tokens read from the provider's cache.
    pub cache_read_tokens: u64,
    /// Prompt tokens written to the provider's cache.
    pub cache_write_tokens: u64,
    /// Reasoning tokens (part of the output).
    pub reasoning_tokens: u64,
    /// Accumulated cost in USD.
    pub cost: f64,
    /// The model's context window in tokens (0: not known: the model is not in the server's
    /// model info and no `max_input_tokens` is set).
    pub context_window: u64,
    /// The tokens of its last request and answer (`per_turn_token`): how full the context is.
    pub last_turn_tokens: u64,
    /// The most the conversation may spend (`max_budget_per_task`), where set.
    pub budget: Option<f64>,
}

impl LlmUsage {
    /// Nothing was used.
    pub fn is_empty(&self) -> bool {
        self.prompt_tokens == 0 && self.completion_tokens == 0 && self.cost == 0.0
    }

    fn add(&mut self, o: &LlmUsage) {
        self.prompt_tokens += o.prompt_tokens;
        self.completion_tokens += o.completion_tokens;
        self.cache_read_tokens += o.cache_read_tokens;
        self.cache_write_tokens += o.cache_write_tokens;
        self.reasoning_tokens += o.reasoning_tokens;
        self.cost += o.cost;
    }
}

/// A conversation's usage: every LLM that was used (in the server's order), never an unused one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Usage {
    /// Per LLM.
    pub per_llm: Vec<LlmUsage>,
    /// The agent's LLM that answered last, as far as the reports tell (the usage id of the
    /// last one that grew, the condenser's and side questions' aside; `None`: `agent`).
    pub latest: Option<String>,
}

/// From this share of the context window on, the status bar suggests condensing.
pub const CONTEXT_WARN_PERCENT: u64 = 80;

/// How full the agent's context is: its last request and answer against its model's window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextFill {
    /// Tokens of the last request and answer.
    pub used: u64,
    /// The model's context window.
    pub window: u64,
}

impl ContextFill {
    /// Percent full (at most 100).
    pub fn percent(&self) -> u64 {
        (self.used.saturating_mul(100) / self.window.max(1)).min(100)
    }

    /// Full enough to suggest condensing.
    pub fn filling(&self) -> bool {
        self.percent() >= CONTEXT_WARN_PERCENT
    }
}

/// Whether `usage_id` is the agent's own LLM (not the condenser's, not a side question's).
fn agents_llm(usage_id: &str) -> bool {
    usage_id != "condenser" && !usage_id.starts_with("ask-")
}

fn count(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

impl Usage {
    /// From a `ConversationStats` object (`{"usage_to_metrics": {id: Metrics}}`); `None` when it
    /// is not one. Odd entries count as zero, never fail.
    pub fn from_stats(stats: &Value) -> Option<Usage> {
        let map = stats.get("usage_to_metrics")?.as_object()?;
        let per_llm = map
            .iter()
            .map(|(id, m)| {
                let t = m.get("accumulated_token_usage").unwrap_or(&Value::Null);
                LlmUsage {
                    usage_id: id.clone(),
                    model: m
                        .get("model_name")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    prompt_tokens: count(t, "prompt_tokens"),
                    completion_tokens: count(t, "completion_tokens"),
                    cache_read_tokens: count(t, "cache_read_tokens"),
                    cache_write_tokens: count(t, "cache_write_tokens"),
                    reasoning_tokens: count(t, "reasoning_tokens"),
                    context_window: count(t, "context_window"),
                    last_turn_tokens: count(t, "per_turn_token"),
                    budget: m
                        .get("max_budget_per_task")
                        .and_then(Value::as_f64)
                        .filter(|b| b.is_finite() && *b > 0.0),
                    cost: m
                        .get("accumulated_cost")
                        .and_then(Value::as_f64)
                        .filter(|c| c.is_finite() && *c >= 0.0)
                        .unwrap_or(0.0),
                }
            })
            .filter(|u| !u.is_empty())
            .collect();
        Some(Usage {
            per_llm,
            latest: None,
        })
    }

    /// From a streamed event, when it carries the stats (`ConversationStateUpdateEvent` with
    /// `key` `stats`, or `full_state` whose value has `stats`).
    pub fn from_event(event: &Value) -> Option<Usage> {
        if event.get("kind").and_then(Value::as_str) != Some("ConversationStateUpdateEvent") {
            return None;
        }
        let value = event.get("value")?;
        match event.get("key").and_then(Value::as_str)? {
            "stats" => Usage::from_stats(value),
            "full_state" => Usage::from_stats(value.get("stats")?),
            _ => None,
        }
    }

    /// Takes in a newer report: the server's counters only grow, so per LLM the larger one is
    /// kept, and an LLM missing from `newer` stays (the streamed stats leave out an LLM switched
    /// in mid-way; the conversation's info has it). Answers whether anything changed.
    pub fn merge(&mut self, newer: Usage) -> bool {
        let mut changed = false;
        for n in newer.per_llm {
            match self.per_llm.iter_mut().find(|o| o.usage_id == n.usage_id) {
                Some(o) => {
                    let grew = (n.prompt_tokens, n.completion_tokens, n.cost)
                        > (o.prompt_tokens, o.completion_tokens, o.cost);
                    if grew {
                        if agents_llm(&n.usage_id) {
                            self.latest = Some(n.usage_id.clone());
                        }
                        *o = n;
                        changed = true;
                    }
                }
                None => {
                    if agents_llm(&n.usage_id) && !n.is_empty() {
                        self.latest = Some(n.usage_id.clone());
                    }
                    self.per_llm.push(n);
                    changed = true;
                }
            }
        }
        changed
    }

    /// The agent's context: the latest of its LLMs (`agent` when the reports do not tell).
    /// `Err(tokens)`: the last turn's tokens are known but not the window ("unknown", said
    /// honestly); `None`: the agent has not asked its LLM yet.
    pub fn context(&self) -> Option<Result<ContextFill, u64>> {
        let id = self.latest.as_deref().unwrap_or("agent");
        let llm = self
            .per_llm
            .iter()
            .find(|u| u.usage_id == id)
            .or_else(|| self.per_llm.iter().find(|u| agents_llm(&u.usage_id)))?;
        (llm.last_turn_tokens > 0).then_some(match llm.context_window {
            0 => Err(llm.last_turn_tokens),
            window => Ok(ContextFill {
                used: llm.last_turn_tokens,
                window,
            }),
        })
    }

    /// The budget set for the conversation, where one is (the agent's LLM's).
    pub fn budget(&self) -> Option<f64> {
        self.per_llm.iter().find_map(|u| u.budget)
    }

    /// Every LLM added up.
    pub fn total(&self) -> LlmUsage {
        let mut t = LlmUsage {
            usage_id: "total".into(),
            ..LlmUsage::default()
        };
        for u in &self.per_llm {
            t.add(u);
        }
        t
    }

    /// For the header: `"45 tokens (30 in · 15 out) · $0.0012"`, in English; `None` before
    /// anything was used.
    pub fn words(&self) -> Option<String> {
        self.words_text().map(|t| t.english())
    }

    /// For the header: `"45 tokens (30 in · 15 out) · $0.0012"` (the numbers as core writes
    /// them, [`tokens`] and [`dollars`]); `None` before anything was used.
    pub fn words_text(&self) -> Option<Text> {
        self.words_text_with(&tokens, &dollars)
    }

    /// For the header, the token counts written by `number` and the cost by `money` (the
    /// page's language's ways, through the browser); `None` before anything was used.
    pub fn words_text_with(
        &self,
        number: &dyn Fn(u64) -> String,
        money: &dyn Fn(f64) -> String,
    ) -> Option<Text> {
        let t = self.total();
        if t.is_empty() {
            return None;
        }
        Some(
            text!("chat_core.usage")
                .with("total", number(t.prompt_tokens + t.completion_tokens))
                .with("input", number(t.prompt_tokens))
                .with("output", number(t.completion_tokens))
                .with("cost", money(t.cost)),
        )
    }
}

/// `1234567` → `"1,234,567"`.
pub fn tokens(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A cost in USD: four decimals under a dollar (`"$0.0012"`), two above (`"$3.50"`).
pub fn dollars(cost: f64) -> String {
    if cost < 1.0 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.2}")
    }
}

/// `GET /api/conversations/{id}` ⇒ the conversation's usage (its `stats`; none counted yet when
/// the server keeps no stats).
pub fn decode_usage(status: u16, body: &[u8]) -> Result<Usage, crate::error::ApiError> {
    let info: Value = crate::transport::decode::decode_json(status, body)?;
    Ok(info
        .get("stats")
        .and_then(Usage::from_stats)
        .unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn metrics(model: &str, p: u64, c: u64, cache: u64, cost: f64) -> Value {
        json!({"model_name": model, "accumulated_cost": cost, "accumulated_token_usage": {
            "prompt_tokens": p, "completion_tokens": c, "cache_read_tokens": cache,
            "cache_write_tokens": 1, "reasoning_tokens": 0}})
    }

    #[test]
    fn stats_per_llm_and_total() {
        let stats = json!({"usage_to_metrics": {
            "agent": metrics("openai/a", 30, 15, 10, 0.5),
            "condenser": metrics("openai/a", 0, 0, 0, 0.0),
            "profile:fast": metrics("openai/b", 5, 5, 0, 0.75),
        }});
        let u = Usage::from_stats(&stats).expect("stats");
        let ids: Vec<&str> = u.per_llm.iter().map(|l| l.usage_id.as_str()).collect();
        assert_eq!(
            ids,
            ["agent", "profile:fast"],
            "the unused condenser is left out"
        );
        let t = u.total();
        assert_eq!(
            (
                t.prompt_tokens,
                t.completion_tokens,
                t.cache_read_tokens,
                t.cache_write_tokens
            ),
            (35, 20, 10, 2)
        );
        assert!((t.cost - 1.25).abs() < 1e-9);
        assert_eq!(
            u.words().as_deref(),
            Some("55 tokens (35 in · 20 out) · $1.25")
        );
    }

    #[test]
    fn events_that_carry_stats() {
        let stats = json!({"usage_to_metrics": {"agent": metrics("m", 1, 2, 0, 0.0)}});
        let ev = |key: &str, value: Value| json!({"kind": "ConversationStateUpdateEvent", "key": key, "value": value});
        assert_eq!(
            Usage::from_event(&ev("stats", stats.clone())).map(|u| u.total().completion_tokens),
            Some(2)
        );
        assert_eq!(
            Usage::from_event(&ev(
                "full_state",
                json!({"stats": stats.clone(), "execution_status": "idle"})
            ))
            .map(|u| u.total().prompt_tokens),
            Some(1)
        );
        assert_eq!(
            Usage::from_event(&ev("execution_status", json!("running"))),
            None
        );
        assert_eq!(
            Usage::from_event(&json!({"kind": "MessageEvent", "key": "stats", "value": stats})),
            None
        );
        // Odd shapes: no panic, zeros or nothing.
        assert_eq!(Usage::from_event(&ev("stats", json!("x"))), None);
        assert_eq!(
            Usage::from_event(&ev("stats", json!({"usage_to_metrics": {"agent": 3}}))),
            Some(Usage::default())
        );
        let neg = json!({"usage_to_metrics": {"agent": {"accumulated_cost": -1.0,
            "accumulated_token_usage": {"prompt_tokens": -4, "completion_tokens": 2}}}});
        let u = Usage::from_stats(&neg).expect("stats");
        assert_eq!((u.total().prompt_tokens, u.total().cost), (0, 0.0));
        assert_eq!(Usage::default().words(), None);
    }

    #[test]
    fn numbers_in_words() {
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(tokens(n), want);
        }
        assert_eq!(dollars(0.0), "$0.0000");
        assert_eq!(dollars(0.00123), "$0.0012");
        assert_eq!(dollars(3.5), "$3.50");
    }

    #[test]
    fn merging_keeps_the_larger_count_and_every_llm() {
        let one = |id: &str, p: u64| LlmUsage {
            usage_id: id.into(),
            prompt_tokens: p,
            ..LlmUsage::default()
        };
        let mut u = Usage {
            per_llm: vec![one("agent", 30), one("profile:x", 20)],
            latest: None,
        };
        // A streamed report without the switched-in LLM and an older count changes nothing.
        assert!(!u.merge(Usage {
            per_llm: vec![one("agent", 10)],
            latest: None,
        }));
        assert!(u.merge(Usage {
            per_llm: vec![one("agent", 40), one("ask-agent-llm", 10)],
            latest: None,
        }));
        assert_eq!(
            u.latest.as_deref(),
            Some("agent"),
            "a side question is aside"
        );
        let ids: Vec<(&str, u64)> = u
            .per_llm
            .iter()
            .map(|l| (l.usage_id.as_str(), l.prompt_tokens))
            .collect();
        assert_eq!(
            ids,
            [("agent", 40), ("profile:x", 20), ("ask-agent-llm", 10)]
        );
    }

    /// The real conversation info of a stub run (`GET /api/conversations/{id}`).
    #[test]
    fn the_conversation_info_carries_the_usage() {
        let u = decode_usage(
            200,
            include_bytes!("../../../tests/fixtures/agent-server/conversation_info.json"),
        )
        .expect("usage");
        assert_eq!(u.per_llm.len(), 1);
        assert_eq!(
            (u.total().prompt_tokens, u.total().completion_tokens),
            (40, 20)
        );
        // The stub model is in no model info: the last turn is known, the window is not.
        assert_eq!(u.context(), Some(Err(15)));
        assert_eq!(u.budget(), None);
        assert_eq!(
            decode_usage(200, b"{}").expect("no stats"),
            Usage::default()
        );
        assert!(decode_usage(404, b"{}").is_err());
        assert!(decode_usage(200, b"not json").is_err());
    }

    #[test]
    fn how_full_the_context_is() {
        let llm = |id: &str, p: u64, last: u64, window: u64| LlmUsage {
            usage_id: id.into(),
            prompt_tokens: p,
            last_turn_tokens: last,
            context_window: window,
            ..LlmUsage::default()
        };
        let mut u = Usage::default();
        assert_eq!(u.context(), None, "nothing asked yet");
        u.merge(Usage {
            per_llm: vec![llm("agent", 100, 15, 0)],
            latest: None,
        });
        assert_eq!(u.context(), Some(Err(15)), "the window is not known");
        u.merge(Usage {
            per_llm: vec![
                llm("agent", 9000, 13_500, 16_384),
                llm("condenser", 50, 900, 16_384),
            ],
            latest: None,
        });
        let fill = u.context().unwrap().unwrap();
        assert_eq!((fill.percent(), fill.filling()), (82, true));
        // Switched to a profile's LLM: its last turn counts; a side question does not.
        u.merge(Usage {
            per_llm: vec![
                llm("profile:big", 10, 4_000, 200_000),
                llm("ask-agent-llm", 5, 100_000, 100_000),
            ],
            latest: None,
        });
        let fill = u.context().unwrap().unwrap();
        assert_eq!((fill.percent(), fill.filling()), (2, false));
        assert_eq!(
            ContextFill {
                used: 70_000,
                window: 50_000
            }
            .percent(),
            100,
            "never more than full"
        );
        let stats = json!({"usage_to_metrics": {"agent": {"max_budget_per_task": 5.0,
            "accumulated_token_usage": {"prompt_tokens": 1, "per_turn_token": 1}}}});
        assert_eq!(Usage::from_stats(&stats).unwrap().budget(), Some(5.0));
    }

    /// The real capture of a stub run: the last streamed stats are 30 in, 15 out.
    #[test]
    fn the_captured_run_adds_up() {
        let frames: Vec<Value> = serde_json::from_str(include_str!(
            "../../../tests/fixtures/events/ws_events_frames_stub_run.json"
        ))
        .expect("capture");
        let last = frames
            .iter()
            .rev()
            .filter_map(|f| Usage::from_event(f.get("frame").unwrap_or(f)))
            .find(|u| !u.per_llm.is_empty())
            .expect("stats in the capture");
        let t = last.total();
        assert_eq!((t.prompt_tokens, t.completion_tokens), (30, 15));
        assert_eq!(last.per_llm[0].model, "openai/stub-model");
    }
}
