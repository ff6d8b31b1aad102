//! What a backend's sessions cost (issue #39 §7): Omnigent's `GET /v1/usage` (`UsageReport`:
//! spend today, in the last 7 and 30 days and in all, per day, and per session). Priced
//! sessions only: a model without a price counts as 0.

use serde::Deserialize;

use crate::error::ApiError;
use crate::omnigent::dto::{epoch_secs, json_of};
use crate::transport::de::{lenient, opt_string};

/// `GET /v1/usage`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct UsageReport {
    /// USD spent today (the server's day).
    #[serde(deserialize_with = "lenient")]
    pub cost_today: f64,
    /// USD in the last 7 days.
    #[serde(deserialize_with = "lenient")]
    pub cost_last_7d: f64,
    /// USD in the last 30 days.
    #[serde(deserialize_with = "lenient")]
    pub cost_last_30d: f64,
    /// USD in all.
    #[serde(deserialize_with = "lenient")]
    pub total_cost_usd: f64,
    /// Spend per day, as the server lists it.
    #[serde(deserialize_with = "lenient")]
    pub daily_costs: Vec<DailyCost>,
    /// Spend per session.
    #[serde(deserialize_with = "lenient")]
    pub sessions: Vec<SessionUsage>,
}

/// One day of [`UsageReport::daily_costs`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct DailyCost {
    /// `YYYY-MM-DD`.
    #[serde(deserialize_with = "opt_string")]
    pub day: Option<String>,
    /// USD.
    #[serde(deserialize_with = "lenient")]
    pub cost_usd: f64,
}

/// One session of [`UsageReport::sessions`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct SessionUsage {
    /// Session id.
    #[serde(deserialize_with = "opt_string")]
    pub id: Option<String>,
    /// Title.
    #[serde(deserialize_with = "opt_string")]
    pub title: Option<String>,
    /// Its agent's name.
    #[serde(deserialize_with = "opt_string")]
    pub agent_name: Option<String>,
    /// Its model.
    #[serde(deserialize_with = "opt_string")]
    pub llm_model: Option<String>,
    /// USD.
    #[serde(deserialize_with = "lenient")]
    pub cost_usd: f64,
    /// Last activity (seconds since the epoch).
    #[serde(deserialize_with = "epoch_secs")]
    pub updated_at: Option<i64>,
}

impl UsageReport {
    /// The sessions that have an id, the costliest first (then the newest).
    pub fn by_cost(&self) -> Vec<SessionUsage> {
        let mut v: Vec<SessionUsage> = self
            .sessions
            .iter()
            .filter(|s| s.id.as_deref().is_some_and(|i| !i.is_empty()))
            .cloned()
            .collect();
        v.sort_by(|a, b| {
            b.cost_usd
                .total_cmp(&a.cost_usd)
                .then(b.updated_at.cmp(&a.updated_at))
        });
        v
    }

    /// The days with spend, newest first (days the server lists at 0 are left out).
    pub fn spending_days(&self) -> Vec<DailyCost> {
        let mut v: Vec<DailyCost> = self
            .daily_costs
            .iter()
            .filter(|d| d.day.is_some() && d.cost_usd > 0.0)
            .cloned()
            .collect();
        v.sort_by(|a, b| b.day.cmp(&a.day));
        v
    }
}

/// Decodes `GET /v1/usage`.
pub fn decode_usage(status: u16, body: &[u8]) -> Result<UsageReport, ApiError> {
    let v = json_of(status, body)?;
    if !v.is_object() {
        return Err(ApiError::Decode(
            "expected a usage report (an object)".into(),
        ));
    }
    serde_json::from_value(v).map_err(|e| ApiError::Decode(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_reads_and_sorts() {
        let body = br#"{"object": "usage_report", "cost_today": 0.5, "cost_last_7d": 1.25,
            "cost_last_30d": 2, "total_cost_usd": "x",
            "daily_costs": [{"day": "2026-12-04", "cost_usd": 0.75}, {"day": "2026-12-05", "cost_usd": 0.5},
                            {"day": "2026-12-03", "cost_usd": 0}],
            "sessions": [{"id": "a", "title": "Cheap", "cost_usd": 0.1, "updated_at": 5},
                         {"id": "b", "title": null, "cost_usd": 1.0, "models": {"m": 1.0}, "agent_name": "stub-chat"},
                         {"title": "no id", "cost_usd": 9}]}"#;
        let r = decode_usage(200, body).unwrap();
        assert_eq!(
            (
                r.cost_today,
                r.cost_last_7d,
                r.cost_last_30d,
                r.total_cost_usd
            ),
            (0.5, 1.25, 2.0, 0.0)
        );
        let ids: Vec<_> = r.by_cost().into_iter().map(|s| s.id.unwrap()).collect();
        assert_eq!(ids, ["b", "a"]);
        let days: Vec<_> = r
            .spending_days()
            .into_iter()
            .map(|d| d.day.unwrap())
            .collect();
        assert_eq!(days, ["2026-12-05", "2026-12-04"]);
        assert!(decode_usage(200, b"[]").is_err());
        assert!(decode_usage(500, b"{}").is_err());
    }
}
