//! Finding automations (issue #38 §5): what the list shows, in the URL —
//! `?q=&trigger=cron|event&state=active|paused|draft&tag=&view=grid`. The service filters by
//! tag only (`GET /v1?tag=`); the rest is matched here over everything fetched (the list reads
//! all pages: [`LIST_CAP`]). The automations a draft's test run makes (state `DRAFT`) are
//! shown only when asked for.

use serde::Deserialize;

use crate::automation::model::{check, from_value, Automation, AutomationState, Trigger};
use crate::error::ApiError;

/// The most automations the list reads (ten pages of the service's 100).
pub const LIST_CAP: u64 = 1000;

/// One tag and how many automations have it (`GET /v1/tags`, most used first).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TagCount {
    /// The tag, normalised by the service.
    pub tag: String,
    /// Automations with it.
    #[serde(default)]
    pub count: u64,
}

/// Decodes `GET /v1/tags`: `{"tags":[{"tag","count"}]}`.
pub fn decode_tags(status: u16, body: &[u8]) -> Result<Vec<TagCount>, ApiError> {
    #[derive(Deserialize)]
    struct Raw {
        #[serde(default)]
        tags: Vec<TagCount>,
    }
    let raw: Raw = from_value(check(status, body)?)?;
    Ok(raw.tags)
}

/// Where the next page starts after `have` of `total` were read, or `None` when done (or at
/// [`LIST_CAP`]; a page that came back empty also ends it).
pub fn next_offset(have: u64, last_page: usize, total: u64) -> Option<u64> {
    (last_page > 0 && have < total && have < LIST_CAP).then_some(have)
}

/// The URL's keys of the list's view (written together: [`ListQuery::to_pairs`]).
pub const PARAMS: [&str; 5] = ["q", "trigger", "state", "tag", "view"];

/// Which trigger kind to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KindFilter {
    /// On a schedule.
    Cron,
    /// On events.
    Event,
}

/// Which state to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StateFilter {
    /// Running on its trigger.
    Active,
    /// Paused.
    Paused,
    /// Made by dispatching a draft (the service lists them with the others).
    Draft,
}

/// The list's view, as the URL says it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    /// Words the name or prompt must hold (case-insensitive, each word).
    pub q: String,
    /// Trigger kind.
    pub kind: Option<KindFilter>,
    /// State.
    pub state: Option<StateFilter>,
    /// A tag (sent to the service).
    pub tag: Option<String>,
    /// Cards instead of rows.
    pub grid: bool,
}

impl ListQuery {
    /// Read from the URL's query pairs (unknown values ignored).
    pub fn from_pairs<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> ListQuery {
        let mut out = ListQuery::default();
        for (k, v) in pairs {
            let v = v.trim();
            match k {
                "q" => out.q = v.to_string(),
                "trigger" => {
                    out.kind = match v {
                        "cron" => Some(KindFilter::Cron),
                        "event" => Some(KindFilter::Event),
                        _ => None,
                    }
                }
                "state" => {
                    out.state = match v {
                        "active" => Some(StateFilter::Active),
                        "paused" => Some(StateFilter::Paused),
                        "draft" => Some(StateFilter::Draft),
                        _ => None,
                    }
                }
                "tag" => out.tag = (!v.is_empty()).then(|| v.to_lowercase()),
                "view" => out.grid = v == "grid",
                _ => {}
            }
        }
        out
    }

    /// The URL's query pairs for it (defaults left out), in a fixed order.
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if !self.q.trim().is_empty() {
            out.push(("q", self.q.trim().to_string()));
        }
        if let Some(k) = self.kind {
            out.push((
                "trigger",
                match k {
                    KindFilter::Cron => "cron",
                    KindFilter::Event => "event",
                }
                .to_string(),
            ));
        }
        if let Some(s) = self.state {
            out.push((
                "state",
                match s {
                    StateFilter::Active => "active",
                    StateFilter::Paused => "paused",
                    StateFilter::Draft => "draft",
                }
                .to_string(),
            ));
        }
        if let Some(t) = &self.tag {
            out.push(("tag", t.clone()));
        }
        if self.grid {
            out.push(("view", "grid".to_string()));
        }
        out
    }

    /// Whether anything narrows the list (the empty list then says "none match", not "none").
    pub fn narrows(&self) -> bool {
        !self.q.trim().is_empty()
            || self.kind.is_some()
            || self.state.is_some()
            || self.tag.is_some()
    }

    /// Whether `a` is shown. The tag is also sent to the service (`GET /v1?tag=`), and checked
    /// here too, so a list read before the tag changed never shows what it should not.
    pub fn matches(&self, a: &Automation) -> bool {
        let kind_ok = match self.kind {
            None => true,
            Some(KindFilter::Cron) => matches!(a.trigger, Trigger::Cron { .. }),
            Some(KindFilter::Event) => matches!(a.trigger, Trigger::Event { .. }),
        };
        let draft = matches!(&a.state, AutomationState::Other(s) if s == "DRAFT");
        let state_ok = match self.state {
            None => !draft,
            Some(StateFilter::Active) => a.state == AutomationState::Active,
            Some(StateFilter::Paused) => a.state == AutomationState::Inactive,
            Some(StateFilter::Draft) => draft,
        };
        let text = format!(
            "{} {}",
            a.name.to_lowercase(),
            a.prompt.as_deref().unwrap_or_default().to_lowercase()
        );
        let words_ok = self
            .q
            .split_whitespace()
            .all(|w| text.contains(&w.to_lowercase()));
        let tag_ok = self.tag.as_ref().is_none_or(|t| a.tags.contains(t));
        kind_ok && state_ok && words_ok && tag_ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automation::model::decode_automation;

    fn auto(name: &str, prompt: &str, trigger: &str, state: &str) -> Automation {
        let body = format!(
            r#"{{"id":"{name}","name":"{name}","prompt":"{prompt}","trigger":{trigger},"state":"{state}"}}"#
        );
        decode_automation(200, body.as_bytes()).unwrap()
    }

    #[test]
    fn the_url_round_trips_and_ignores_what_it_does_not_know() {
        let q = ListQuery::from_pairs([
            ("q", " nightly build "),
            ("trigger", "event"),
            ("state", "paused"),
            ("tag", "Ops"),
            ("view", "grid"),
            ("page", "3"),
        ]);
        assert_eq!(q.q, "nightly build");
        assert_eq!(q.kind, Some(KindFilter::Event));
        assert_eq!(q.state, Some(StateFilter::Paused));
        assert_eq!(q.tag.as_deref(), Some("ops"));
        assert!(q.grid && q.narrows());
        let back: Vec<(&str, String)> = q.to_pairs();
        let again = ListQuery::from_pairs(back.iter().map(|(k, v)| (*k, v.as_str())));
        assert_eq!(again, q);
        assert_eq!(
            ListQuery::from_pairs([("trigger", "webhook"), ("state", "")]),
            ListQuery::default()
        );
        assert!(ListQuery::default().to_pairs().is_empty());
    }

    #[test]
    fn words_kind_and_state_narrow_the_list() {
        let cron = r#"{"type":"cron","schedule":"0 9 * * *","timezone":"UTC"}"#;
        let event = r#"{"type":"event","source":"orders","on":"order.*"}"#;
        let all = [
            auto("Nightly build", "Build and test", cron, "ACTIVE"),
            auto("Big orders", "Summarise the order", event, "INACTIVE"),
            auto("Draft A", "try", event, "DRAFT"),
        ];
        let shown = |q: ListQuery| -> Vec<String> {
            all.iter()
                .filter(|a| q.matches(a))
                .map(|a| a.name.clone())
                .collect()
        };
        // A draft's test automation only when asked for.
        assert_eq!(shown(ListQuery::default()), ["Nightly build", "Big orders"]);
        let words = ListQuery {
            q: "ORDER summarise".into(),
            ..ListQuery::default()
        };
        assert_eq!(shown(words), ["Big orders"]);
        let events = ListQuery {
            kind: Some(KindFilter::Event),
            ..ListQuery::default()
        };
        assert_eq!(shown(events), ["Big orders"]);
        let drafts = ListQuery {
            state: Some(StateFilter::Draft),
            ..ListQuery::default()
        };
        assert_eq!(shown(drafts), ["Draft A"]);
        let active_cron = ListQuery {
            kind: Some(KindFilter::Cron),
            state: Some(StateFilter::Active),
            ..ListQuery::default()
        };
        assert_eq!(shown(active_cron), ["Nightly build"]);
    }
}

#[cfg(test)]
mod more_tests {
    use super::*;
    use crate::automation::model::decode_automation;

    #[test]
    fn tags_decode_and_filter() {
        let tags = decode_tags(
            200,
            br#"{"tags":[{"tag":"sales-team","count":2},{"tag":"ops"}]}"#,
        )
        .unwrap();
        assert_eq!(
            tags[0],
            TagCount {
                tag: "sales-team".into(),
                count: 2
            }
        );
        assert_eq!(tags[1].count, 0);
        assert!(decode_tags(401, br#"{"detail":"Invalid API key"}"#).is_err());
        let body = r#"{"id":"a","name":"A","trigger":{"type":"cron","schedule":"0 9 * * *","timezone":"UTC"},"state":"ACTIVE","tags":["ops"]}"#;
        let a = decode_automation(200, body.as_bytes()).unwrap();
        assert_eq!(a.tags, ["ops"]);
        let q = ListQuery::from_pairs([("tag", "OPS")]);
        assert!(q.matches(&a));
        assert!(!ListQuery::from_pairs([("tag", "sales-team")]).matches(&a));
    }

    #[test]
    fn the_list_reads_pages_until_it_has_them_all_or_the_cap() {
        assert_eq!(next_offset(100, 100, 250), Some(100));
        assert_eq!(next_offset(250, 50, 250), None);
        assert_eq!(next_offset(100, 0, 250), None, "an empty page ends it");
        assert_eq!(next_offset(LIST_CAP, 100, 5000), None);
    }
}
