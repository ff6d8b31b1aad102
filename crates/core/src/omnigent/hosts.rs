//! Hosts: where Omnigent sessions run, whether they are live, and what the host picker offers
//! (`spec/omnigent.md`: "A host is live when its status is online and it was updated within
//! the last 90 s"; managed hosts are never offered for manual picking).
//!
//! Time is a parameter (`now_ms`, milliseconds since the epoch).
//!
//! No timestamp: Omnigent 0.19.1's `GET /v1/hosts` has no "updated" field (neither the
//! capture nor the OpenAPI document); the server applies the same 90 s rule
//! (`host_is_live`: status `online` and `updated_at >= now - 90`) before it writes
//! `status`. So when a host carries no [`Host::updated_at`], its `status` alone decides;
//! when it carries one, both must hold (boundary inclusive, like the server).

use std::fmt;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::error::ApiError;
use crate::i18n::english::{message, MessageRef};
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::omnigent::dto::Host;

/// A host is live when it was seen within this many milliseconds (the server's
/// `HOST_LIVENESS_TTL_S`, 90 s).
pub const HOST_LIVENESS_MS: i64 = 90_000;

pub use crate::omnigent::dto::HarnessReadiness;

impl fmt::Display for HarnessReadiness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

impl<'de> Deserialize<'de> for HarnessReadiness {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(HarnessReadiness::from_json(&Value::deserialize(d)?))
    }
}

/// What the host picker says when no host is connected.
pub const NO_HOSTS_HINT: MessageRef = message("host.no_hosts_hint");

/// The readiness of `harness` on `host` (not listed ⇒ [`HarnessReadiness::NotConfigured`]).
pub fn harness_readiness(host: &Host, harness: &str) -> HarnessReadiness {
    host.configured_harnesses
        .get(harness)
        .cloned()
        .unwrap_or(HarnessReadiness::NotConfigured)
}

/// Whether `host` is live at `now_ms`: status `online` (case-insensitive) AND, when the
/// server sent a last-seen time, seen within [`HOST_LIVENESS_MS`] (inclusive). Without a
/// last-seen time the status alone decides (see the module docs).
pub fn host_online(host: &Host, now_ms: i64) -> bool {
    let online = host
        .status
        .as_deref()
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("online"));
    online
        && host
            .updated_at
            .is_none_or(|secs| now_ms.saturating_sub(secs.saturating_mul(1000)) <= HOST_LIVENESS_MS)
}

/// A managed sandbox host (it has a `sandbox_provider`): the server creates these per
/// session; they are never offered for manual picking.
pub fn is_managed(host: &Host) -> bool {
    host.sandbox_provider
        .as_deref()
        .is_some_and(|p| !p.trim().is_empty())
}

/// A launch the server refused because of the host (issue #39 §6), in words that say which
/// and what to do: 403, the host is another user's; 409, or 400 "host '…' is offline" (the
/// workspace check runs first), it is offline — the server checks its live connection, which
/// the picker's last read may not have known. `None`: another error.
pub fn launch_refusal(err: &ApiError) -> Option<Text> {
    match err {
        ApiError::Forbidden => Some(text!("hosts.launch_not_yours")),
        ApiError::Conflict | ApiError::Server { status: 409, .. } => {
            Some(text!("hosts.launch_offline"))
        }
        ApiError::Server {
            status: 400,
            detail,
        } if detail.to_ascii_lowercase().contains("is offline") => {
            Some(text!("hosts.launch_offline"))
        }
        _ => None,
    }
}

/// Whether a person may pick `host` for a new session at `now_ms`: live and not managed.
pub fn pickable(host: &Host, now_ms: i64) -> bool {
    host_online(host, now_ms) && !is_managed(host)
}

/// One row of the host picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRow {
    /// Host id (what `NewSession::host_id` takes).
    pub host_id: String,
    /// Name to show.
    pub name: String,
    /// Live now.
    pub online: bool,
    /// The chosen agent's harness on this host (`None` when no harness was asked about).
    pub readiness: Option<HarnessReadiness>,
    /// It can be picked: online and, when a harness was asked about, not refused by the
    /// server ([`HarnessReadiness::blocks_launch`]).
    pub selectable: bool,
    /// Why it cannot be picked, or what may go wrong there, in English (`None`: nothing to
    /// say).
    pub note: Option<String>,
    /// The same note as words to say.
    pub note_text: Option<Text>,
}

/// The host picker's rows for an agent running on `harness` (if known): managed hosts left
/// out; online hosts first, then by name (case-insensitive), then id.
pub fn picker_rows(hosts: &[Host], harness: Option<&str>, now_ms: i64) -> Vec<HostRow> {
    let mut rows: Vec<HostRow> = hosts
        .iter()
        .filter(|h| !is_managed(h))
        .map(|h| {
            let online = host_online(h, now_ms);
            let readiness = harness.map(|name| harness_readiness(h, name));
            let blocked = readiness
                .as_ref()
                .is_some_and(HarnessReadiness::blocks_launch);
            let note_text = if !online {
                Some(text!("host.note.offline"))
            } else {
                match (harness, &readiness) {
                    (Some(name), Some(r)) if blocked => Some(
                        text!("host.note.blocked")
                            .with("harness", name)
                            .with_text("readiness", r.label_text()),
                    ),
                    (Some(name), Some(r)) if !r.is_ready() => Some(
                        text!("host.note.not_ready")
                            .with("harness", name)
                            .with_text("readiness", r.label_text()),
                    ),
                    _ => None,
                }
            };
            HostRow {
                host_id: h.host_id.clone(),
                name: h.display_name().to_string(),
                online,
                selectable: online && !blocked,
                readiness,
                note: note_text.as_ref().map(Text::english),
                note_text,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.online
            .cmp(&a.online)
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
            .then_with(|| a.host_id.cmp(&b.host_id))
    });
    rows
}

/// One host on the Hosts page (issue #39 §1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCard {
    /// Host id.
    pub host_id: String,
    /// Name to show.
    pub name: String,
    /// Who registered it (`local` in single-user mode).
    pub owner: Option<String>,
    /// Live now (the 90 s rule, [`host_online`]).
    pub online: bool,
    /// Last seen (seconds since the epoch), when the server says (0.19.1 does not).
    pub seen_at: Option<i64>,
    /// The provider that runs it, for a managed sandbox host; `None`: self-registered.
    pub managed_by: Option<String>,
    /// Every harness the host offers (not [`HarnessReadiness::NotConfigured`]), ready ones
    /// first, then by name.
    pub harnesses: Vec<(String, HarnessReadiness)>,
    /// The listed sessions bound to it.
    pub sessions: usize,
    /// Of those, the ones whose runner is connected.
    pub runners: usize,
}

impl HostCard {
    /// Its state in words: online, offline, or offline since a time when the server says.
    pub fn state_text(&self) -> Text {
        match (
            self.online,
            self.seen_at.and_then(crate::time::iso_from_epoch_secs),
        ) {
            (true, _) => text!("hosts_page.online"),
            (false, Some(at)) => text!("hosts_page.offline_since").with("time", at),
            (false, None) => text!("hosts_page.offline"),
        }
    }

    /// How it joined, in words.
    pub fn origin_text(&self) -> Text {
        match &self.managed_by {
            Some(p) => text!("hosts_page.managed").with("provider", p),
            None => text!("hosts_page.self_registered"),
        }
    }
}

/// The Hosts page's cards: every host (managed ones too), with the sessions of `sessions`
/// bound to each; online first, then by name (case-insensitive), then id.
pub fn host_cards(
    hosts: &[Host],
    sessions: &[crate::omnigent::dto::Session],
    now_ms: i64,
) -> Vec<HostCard> {
    let mut cards: Vec<HostCard> = hosts
        .iter()
        .map(|h| {
            let mine = sessions
                .iter()
                .filter(|s| s.host_id.as_deref() == Some(h.host_id.as_str()));
            let mut harnesses: Vec<(String, HarnessReadiness)> = h
                .configured_harnesses
                .iter()
                .filter(|(_, r)| **r != HarnessReadiness::NotConfigured)
                .map(|(n, r)| (n.clone(), r.clone()))
                .collect();
            harnesses.sort_by(|a, b| b.1.is_ready().cmp(&a.1.is_ready()).then(a.0.cmp(&b.0)));
            HostCard {
                host_id: h.host_id.clone(),
                name: h.display_name().to_string(),
                owner: h.owner.clone().filter(|o| !o.trim().is_empty()),
                online: host_online(h, now_ms),
                seen_at: h.updated_at,
                managed_by: h.sandbox_provider.clone().filter(|p| !p.trim().is_empty()),
                harnesses,
                sessions: mine.clone().count(),
                runners: mine.filter(|s| s.runner_online == Some(true)).count(),
            }
        })
        .collect();
    cards.sort_by(|a, b| {
        b.online
            .cmp(&a.online)
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
            .then_with(|| a.host_id.cmp(&b.host_id))
    });
    cards
}

/// One git worktree of a repository on a host (`GET /v1/hosts/{id}/worktrees?path=`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default)]
pub struct Worktree {
    /// Its directory on the host.
    #[serde(deserialize_with = "crate::transport::de::opt_string")]
    pub path: Option<String>,
    /// The branch checked out there (`None`: detached or unknown).
    #[serde(deserialize_with = "crate::transport::de::opt_string")]
    pub branch: Option<String>,
    /// The repository's main checkout.
    #[serde(deserialize_with = "crate::transport::de::lenient")]
    pub is_main: bool,
    /// No branch checked out.
    #[serde(deserialize_with = "crate::transport::de::lenient")]
    pub detached: bool,
}

/// The worktrees of the repository at a path, main first; a path that is not in a git
/// repository (400) has none.
pub fn decode_worktrees(status: u16, body: &[u8]) -> Result<Vec<Worktree>, ApiError> {
    if status == 400 {
        return Ok(Vec::new());
    }
    let v = crate::omnigent::dto::json_of(status, body)?;
    let mut list: Vec<Worktree> = v
        .get("data")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|w| serde_json::from_value::<Worktree>(w.clone()).ok())
                .filter(|w| w.path.as_deref().is_some_and(|p| !p.is_empty()))
                .collect()
        })
        .unwrap_or_default();
    list.sort_by_key(|w| !w.is_main);
    Ok(list)
}
