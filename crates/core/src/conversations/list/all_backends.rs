//! One conversation list across every backend (issue #16): merge, sort, de-duplicate.
//!
//! The app fetches the first page of every *source* — an enabled backend, and for a cloud
//! backend each org the user picked — in parallel, each with its own timeout
//! ([`SOURCE_TIMEOUT_MS`]), and hands the outcomes to [`merge`]. A failed, timed-out or
//! disabled source becomes one [`SourceNote`] and never hides the others' rows.
//!
//! BR-5/BR-6: every row is pinned to the source it came from ([`MergedRow::source`]); rows are
//! told apart by `(backend id, org id, conversation id)`, so the same conversation id on two
//! backends is two rows, and a row's link ([`row_href`]) always carries its own
//! `?backend=&org=`, never the active backend's.
//!
//! "Load more" (issue #30): the merged list shows `limit` rows more, and each source asks only
//! for its *next* page ([`next_pages`]: the rows it lacks to hold that many, since any one
//! source may hold all of them), appended to what it had ([`append_page`]); nothing is fetched
//! from the start again. The merged list is then the same as if every source had been asked
//! for `limit` rows at once. [`MergedList::can_load_more`] says whether that can show anything
//! new.

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::backends::health::truncate_error;
use crate::backends::orgs::{auto_pick, has_orgs, is_personal, OrgListing, PERSONAL_WORKSPACE};
use crate::backends::record::{Backend, NO_BACKEND_ID};
use crate::backends::selection::Selection;
use crate::backends::url::{app_href, path_segment};
use crate::client::unified::{ConversationSummary, ConversationSummaryPage};
use crate::cloud::dto::Organization;
use crate::conversations::list::nest::{nest, Nested};
use crate::error::scrub_secrets;
use crate::i18n::text::text;
use crate::i18n::Text;
use crate::time::parse_iso_micros;

/// How long one source may take to answer its conversation list (8 s).
///
/// Twice the health probe's 4 s (BR-7), which covers a trivial request: a list search is
/// heavier (a cloud backend joins sandbox states) and a backend that answers a probe in 3 s
/// may need longer for it. Well under the 15 s of a single-backend request
/// ([`crate::client::local::DEFAULT_TIMEOUT_MS`]): the merged list waits for its slowest source,
/// and about 10 s is where a page starts to feel hung, so a dead backend costs at most 8 s and
/// then shows as a note.
pub const SOURCE_TIMEOUT_MS: u32 = 8_000;

/// What separates a backend's name from an org's in a source label (`Cloud · Acme`).
pub const ORG_SEPARATOR: &str = " · ";

/// One source of the merged list: a backend, and for a cloud backend the org listed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceKey {
    /// The backend's id.
    pub backend_id: String,
    /// The org (cloud), non-empty; `None` for a backend without orgs.
    pub org_id: Option<String>,
}

impl SourceKey {
    /// A key; an empty org id counts as none (like the `?org=` pin).
    pub fn new(backend_id: impl Into<String>, org_id: Option<&str>) -> Self {
        Self {
            backend_id: backend_id.into(),
            org_id: org_id.filter(|o| !o.is_empty()).map(str::to_string),
        }
    }

    /// The BR-5 pin of this source, as [`crate::backends::url::app_href`] takes it.
    pub fn pin(&self) -> (&str, Option<&str>) {
        (&self.backend_id, self.org())
    }

    /// The org id, `None` when absent or empty.
    pub fn org(&self) -> Option<&str> {
        self.org_id.as_deref().filter(|o| !o.is_empty())
    }

    fn normalized(&self) -> Self {
        Self::new(self.backend_id.clone(), self.org())
    }
}

/// The label shown on a source's rows and notes: the backend's name (else its host, else its
/// id), then `" · <org name>"` when an org is given and not blank.
pub fn source_label(backend: &Backend, org_name: Option<&str>) -> String {
    let name = [backend.name.trim(), backend.host.trim(), backend.id.trim()]
        .into_iter()
        .find(|s| !s.is_empty())
        .unwrap_or_default();
    match org_name.map(str::trim).filter(|o| !o.is_empty()) {
        Some(org) if name.is_empty() => org.to_string(),
        Some(org) => format!("{name}{ORG_SEPARATOR}{org}"),
        None => name.to_string(),
    }
}

/// [`source_label`] for a cloud org: the personal workspace (see [`crate::backends::orgs::is_personal`])
/// shows as [`PERSONAL_WORKSPACE`], an org without a name as its id.
pub fn org_source_label(backend: &Backend, org: &Organization, user_id: Option<&str>) -> String {
    let org_name = if is_personal(org, user_id) {
        PERSONAL_WORKSPACE
    } else if org.name.trim().is_empty() {
        org.id.as_str()
    } else {
        org.name.as_str()
    };
    source_label(backend, Some(org_name))
}

/// How the merged list asks one backend (see [`plan_sources`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourcePlan {
    /// Not asked: disabled by the circuit breaker (BR-7); one note, labelled by the backend.
    Disabled,
    /// One list, without an org (a backend without organizations).
    Plain,
    /// A cloud backend: its org listing first ([`crate::backends::orgs::load_org_listing`]), then one list
    /// per org of [`orgs_to_list`] with these picked orgs.
    Orgs {
        /// The orgs the user picked for this backend ([`picked_orgs`]), in order.
        picked: Vec<String>,
    },
}

/// The orgs remembered for `backend_id`: the org of each of `remembered` that names this
/// backend, in order, without duplicates or empty ids.
///
/// The app remembers ONE selection (backend + org) per tab (sessionStorage) and the last one
/// made in any tab (localStorage, `openhands-active-backend`); there is no list of orgs per
/// backend. So a cloud backend has at most two picked orgs (this tab's and the last used), and
/// usually none unless it is, or was last, the active backend.
pub fn picked_orgs(backend_id: &str, remembered: &[Selection]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in remembered.iter().filter(|s| s.backend_id == backend_id) {
        if let Some(org) = s.org_id.as_deref().filter(|o| !o.is_empty()) {
            if !out.iter().any(|o| o == org) {
                out.push(org.to_string());
            }
        }
    }
    out
}

/// Which backends the merged list asks, and how, in registry order: every backend but the
/// "no backend" placeholder, only those of `only` when it is not empty (the `?from=` filter);
/// a disabled one (`disabled(id)`) is [`SourcePlan::Disabled`], a backend with organizations
/// [`SourcePlan::Orgs`] with its [`picked_orgs`], any other [`SourcePlan::Plain`].
pub fn plan_sources(
    backends: &[Backend],
    only: &[String],
    disabled: impl Fn(&str) -> bool,
    remembered: &[Selection],
) -> Vec<(Backend, SourcePlan)> {
    backends
        .iter()
        .filter(|b| b.id != NO_BACKEND_ID && (only.is_empty() || only.contains(&b.id)))
        .map(|b| {
            let plan = if disabled(&b.id) {
                SourcePlan::Disabled
            } else if has_orgs(b) {
                SourcePlan::Orgs {
                    picked: picked_orgs(&b.id, remembered),
                }
            } else {
                SourcePlan::Plain
            };
            (b.clone(), plan)
        })
        .collect()
}

/// The orgs of a cloud backend to list: each picked org that the listing still has (a stale
/// pick — an org left, a key rebound — is dropped, as the selector drops it); with none left,
/// the personal workspace; without one (a key bound to another org), the org the selector
/// would pick ([`crate::backends::orgs::auto_pick`]: current, else first). Empty when nothing is listed.
pub fn orgs_to_list(listing: &OrgListing, picked: &[String]) -> Vec<Organization> {
    let mut out: Vec<Organization> = Vec::new();
    for id in picked {
        if let Some(o) = listing.orgs.iter().find(|o| &o.id == id) {
            if !out.iter().any(|x| x.id == o.id) {
                out.push(o.clone());
            }
        }
    }
    if out.is_empty() {
        let user = listing.user_id.as_deref();
        let fallback = listing
            .orgs
            .iter()
            .find(|o| is_personal(o, user))
            .map(|o| o.id.clone())
            .or_else(|| auto_pick(listing));
        out.extend(fallback.and_then(|id| listing.orgs.iter().find(|o| o.id == id).cloned()));
    }
    out
}

/// The sources of a cloud backend once its org listing is known: one per org of
/// [`orgs_to_list`], keyed by backend + org and labelled `Backend · Org` ([`org_source_label`]);
/// a listing without orgs gives one source without an org, labelled by the backend.
pub fn org_sources(
    backend: &Backend,
    listing: &OrgListing,
    picked: &[String],
) -> Vec<(SourceKey, String)> {
    let orgs = orgs_to_list(listing, picked);
    if orgs.is_empty() {
        return vec![(
            SourceKey::new(backend.id.clone(), None),
            source_label(backend, None),
        )];
    }
    let user = listing.user_id.as_deref();
    orgs.iter()
        .map(|o| {
            (
                SourceKey::new(backend.id.clone(), Some(&o.id)),
                org_source_label(backend, o, user),
            )
        })
        .collect()
}

/// What one source gave.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceOutcome {
    /// Its first page of conversations.
    Page(ConversationSummaryPage),
    /// The request failed; `message` is the user-facing error
    /// ([`crate::error::ApiError::user_message`]).
    Failed {
        /// What went wrong, for the user.
        message: String,
    },
    /// Not asked: the backend is disabled by the circuit breaker (BR-7).
    Disabled,
    /// No answer within [`SOURCE_TIMEOUT_MS`].
    TimedOut,
}

/// One row of the merged list, pinned to its source.
#[derive(Debug, Clone, PartialEq)]
pub struct MergedRow {
    /// Where the conversation lives (its link's `?backend=&org=`).
    pub source: SourceKey,
    /// The source's label (the row's backend chip).
    pub label: String,
    /// The conversation.
    pub summary: ConversationSummary,
}

/// A row's key in the merged list (a conversation id is unique on its own source only).
pub fn row_key(source: &SourceKey, id: &str) -> String {
    format!(
        "{}\u{1f}{}\u{1f}{id}",
        source.backend_id,
        source.org().unwrap_or_default()
    )
}

/// The merged rows with each child conversation under its parent of the same source (issue
/// #35; [`crate::conversations::list::nest`]): a parent keeps its place in the merged order and
/// its children come with it. The [`Nested`] ids are [`row_key`]s.
pub fn nest_rows<'a>(rows: &[&'a MergedRow]) -> Vec<(Nested, &'a MergedRow)> {
    let keys: Vec<(String, Option<String>)> = rows
        .iter()
        .map(|r| {
            let parent = r.summary.parent_id.as_deref();
            (
                row_key(&r.source, &r.summary.id),
                parent.map(|p| row_key(&r.source, p)),
            )
        })
        .collect();
    nest(keys.iter().map(|(k, p)| (k.as_str(), p.as_deref())))
        .into_iter()
        .filter_map(|n| {
            let at = keys.iter().position(|(k, _)| *k == n.id)?;
            Some((n, rows[at]))
        })
        .collect()
}

impl AsRef<Nested> for (Nested, &MergedRow) {
    fn as_ref(&self) -> &Nested {
        &self.0
    }
}

/// Why a source has no rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteKind {
    /// The request failed.
    Failed,
    /// It took longer than [`SOURCE_TIMEOUT_MS`].
    TimedOut,
    /// The backend is disabled (not asked).
    Disabled,
}

/// The inline note of a source that gave no rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceNote {
    /// The source.
    pub source: SourceKey,
    /// Its label.
    pub label: String,
    /// Why.
    pub kind: NoteKind,
    /// The sentence shown, starting with the label, in English.
    pub text: String,
    /// The same sentence as words to say.
    pub words: Text,
}

/// A source whose page had a next page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMore {
    /// The source.
    pub source: SourceKey,
    /// Its label.
    pub label: String,
    /// The server's cursor of its next page.
    pub next_page_id: String,
}

/// The merged list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MergedList {
    /// Newest first, at most `limit`.
    pub rows: Vec<MergedRow>,
    /// One per failed, timed-out or disabled source, in source order.
    pub notes: Vec<SourceNote>,
    /// The sources that have more conversations on the server, in source order.
    pub more: Vec<SourceMore>,
    /// Rows merged but not shown because of the limit.
    pub cut: usize,
}

impl MergedList {
    /// Whether `source`'s page had a next page.
    pub fn has_more(&self, source: &SourceKey) -> bool {
        let source = source.normalized();
        self.more.iter().any(|m| m.source == source)
    }

    /// Whether "Load more" can show anything: a source has a next page, or the limit cut rows.
    pub fn can_load_more(&self) -> bool {
        self.cut > 0 || !self.more.is_empty()
    }
}

/// The link of a row: `<base>/conversations/<id>?backend=<its backend>[&org=<its org>]`
/// (BR-5), the same path as the app's `links::conversation_path`, built by
/// [`crate::backends::url::app_href`], so views never format query strings.
pub fn row_href(row: &MergedRow, base_path: &str) -> String {
    let path = format!("/conversations/{}", path_segment(&row.summary.id));
    app_href(base_path, &path, Some(row.source.pin()))
}

/// `8 s`, `8.5 s` (as the timed-out note writes it in English).
#[cfg(test)]
fn seconds(ms: u32) -> String {
    format!("{} s", seconds_number(ms))
}

/// `8`, `8.5`.
fn seconds_number(ms: u32) -> String {
    let (whole, millis) = (ms / 1000, ms % 1000);
    if millis == 0 {
        whole.to_string()
    } else {
        let s = format!("{:.3}", f64::from(ms) / 1000.0);
        s.trim_end_matches('0').to_string()
    }
}

fn note(source: &SourceKey, label: &str, kind: NoteKind, words: Text) -> SourceNote {
    SourceNote {
        source: source.clone(),
        label: label.to_string(),
        kind,
        text: words.english(),
        words,
    }
}

/// The sentence of a note.
fn note_text(label: &str, outcome: &SourceOutcome) -> Option<(NoteKind, Text)> {
    match outcome {
        SourceOutcome::Page(_) => None,
        SourceOutcome::Failed { message } => {
            let message = truncate_error(scrub_secrets(message.trim()).trim());
            let text = if message.is_empty() {
                text!("list.source.unreachable").with("label", label)
            } else {
                text!("list.source.unreachable_detail")
                    .with("label", label)
                    .with("error", message)
            };
            Some((NoteKind::Failed, text))
        }
        SourceOutcome::TimedOut => Some((
            NoteKind::TimedOut,
            text!("list.source.timed_out")
                .with("label", label)
                .with("seconds", seconds_number(SOURCE_TIMEOUT_MS)),
        )),
        SourceOutcome::Disabled => Some((
            NoteKind::Disabled,
            text!("list.source.disabled").with("label", label),
        )),
    }
}

/// The time a row sorts by: `updated_at`, else `created_at` (what the list shows), parsed.
fn sort_time(s: &ConversationSummary) -> Option<i64> {
    [&s.updated_at, &s.created_at]
        .into_iter()
        .find_map(|t| t.as_deref().and_then(parse_iso_micros))
}

/// Newest first (rows without a time last), then by title (case-insensitive, then exact),
/// backend id, org id, conversation id.
fn compare(a: &(Option<i64>, String, MergedRow), b: &(Option<i64>, String, MergedRow)) -> Ordering {
    let time = match (a.0, b.0) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    time.then_with(|| a.1.to_lowercase().cmp(&b.1.to_lowercase()))
        .then_with(|| a.1.cmp(&b.1))
        .then_with(|| a.2.source.backend_id.cmp(&b.2.source.backend_id))
        .then_with(|| a.2.source.org_id.cmp(&b.2.source.org_id))
        .then_with(|| a.2.summary.id.cmp(&b.2.summary.id))
}

/// The most rows one request asks a source for (the servers' page limit).
pub const MAX_SOURCE_PAGE: u32 = 100;

/// One source's next page, as "Load more" asks it ([`next_pages`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextPage {
    /// The source.
    pub source: SourceKey,
    /// The server's cursor of its next page.
    pub page_id: String,
    /// How many rows to ask for (1..=[`MAX_SOURCE_PAGE`]).
    pub limit: u32,
}

/// What "Load more" asks when the list is to show `limit` rows: every source that has a next
/// page and fewer than `limit` rows loaded, for the rows it lacks (at most
/// [`MAX_SOURCE_PAGE`]), in source order. Sources that failed, timed out or are disabled are
/// not asked again (a refresh does that).
pub fn next_pages(sources: &[(SourceKey, String, SourceOutcome)], limit: usize) -> Vec<NextPage> {
    let mut out: Vec<NextPage> = Vec::new();
    for (key, _, outcome) in sources {
        let SourceOutcome::Page(page) = outcome else {
            continue;
        };
        let Some(cursor) = page.next_page_id.as_deref().filter(|c| !c.is_empty()) else {
            continue;
        };
        let have = page.items.len();
        let key = key.normalized();
        if have >= limit || out.iter().any(|n| n.source == key) {
            continue;
        }
        out.push(NextPage {
            source: key,
            page_id: cursor.to_string(),
            limit: u32::try_from(limit - have)
                .unwrap_or(u32::MAX)
                .clamp(1, MAX_SOURCE_PAGE),
        });
    }
    out
}

/// Adds `page`, the next page of `source`, to what that source had: its items after the
/// earlier ones (an id already there is not added twice) and its cursor replacing the old one.
/// A source that is not a loaded page is left as it is.
pub fn append_page(
    sources: &mut [(SourceKey, String, SourceOutcome)],
    source: &SourceKey,
    page: ConversationSummaryPage,
) {
    let source = source.normalized();
    let Some(had) = sources
        .iter_mut()
        .find(|(k, _, _)| k.normalized() == source)
        .and_then(|(_, _, outcome)| match outcome {
            SourceOutcome::Page(p) => Some(p),
            _ => None,
        })
    else {
        return;
    };
    let known: HashSet<String> = had.items.iter().map(|s| s.id.clone()).collect();
    had.items
        .extend(page.items.into_iter().filter(|s| !known.contains(&s.id)));
    had.next_page_id = page.next_page_id;
}

/// Merges the outcomes of every source (in the order the app lists its sources) into one list
/// of at most `limit` rows, newest first.
///
/// - Rows are de-duplicated by `(backend id, org id, conversation id)` only, keeping the copy
///   that sorts first (the newest); the same id on two backends or two orgs is two rows (BR-5).
///   Rows without an id (nothing to link to) are dropped.
/// - Each failed, timed-out or disabled source gives one note (a source listed twice, one
///   note), in source order; a blank label falls back to the backend id.
/// - Each source whose page had a non-empty next page id is listed in [`MergedList::more`].
pub fn merge(sources: &[(SourceKey, String, SourceOutcome)], limit: usize) -> MergedList {
    let mut rows = Vec::new();
    let mut notes: Vec<SourceNote> = Vec::new();
    let mut more: Vec<SourceMore> = Vec::new();
    for (key, label, outcome) in sources {
        let key = key.normalized();
        let label = if label.trim().is_empty() {
            key.backend_id.clone()
        } else {
            label.trim().to_string()
        };
        if let SourceOutcome::Page(page) = outcome {
            for summary in page.items.iter().filter(|s| !s.id.is_empty()) {
                let row = MergedRow {
                    source: key.clone(),
                    label: label.clone(),
                    summary: summary.clone(),
                };
                rows.push((sort_time(summary), summary.display_title(), row));
            }
            if let Some(next) = page.next_page_id.as_ref().filter(|p| !p.is_empty()) {
                if !more.iter().any(|m| m.source == key) {
                    more.push(SourceMore {
                        source: key.clone(),
                        label: label.clone(),
                        next_page_id: next.clone(),
                    });
                }
            }
        } else if let Some((kind, text)) = note_text(&label, outcome) {
            if !notes.iter().any(|n| n.source == key) {
                notes.push(note(&key, &label, kind, text));
            }
        }
    }
    rows.sort_by(compare);
    let mut seen: HashSet<(String, Option<String>, String)> = HashSet::new();
    let mut merged: Vec<MergedRow> = rows
        .into_iter()
        .map(|(_, _, row)| row)
        .filter(|r| {
            seen.insert((
                r.source.backend_id.clone(),
                r.source.org_id.clone(),
                r.summary.id.clone(),
            ))
        })
        .collect();
    let cut = merged.len().saturating_sub(limit);
    merged.truncate(limit);
    MergedList {
        rows: merged,
        notes,
        more,
        cut,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn children_stay_with_their_parent_of_the_same_backend() {
        let row = |backend: &str, id: &str, parent: Option<&str>| MergedRow {
            source: SourceKey::new(backend, None),
            label: backend.to_string(),
            summary: ConversationSummary {
                id: id.into(),
                parent_id: parent.map(str::to_owned),
                ..Default::default()
            },
        };
        // Newest first across backends: b's child of "p" is not a's "p"'s child.
        let rows = [
            row("a", "kid", Some("p")),
            row("b", "other", Some("p")),
            row("b", "x", None),
            row("a", "p", None),
        ];
        let refs: Vec<&MergedRow> = rows.iter().collect();
        let got: Vec<(String, String, u32)> = nest_rows(&refs)
            .into_iter()
            .map(|(n, r)| (r.source.backend_id.clone(), r.summary.id.clone(), n.depth))
            .collect();
        let want = [
            ("b", "other", 0),
            ("b", "x", 0),
            ("a", "p", 0),
            ("a", "kid", 1),
        ];
        let want: Vec<(String, String, u32)> = want
            .iter()
            .map(|(b, i, d)| (b.to_string(), i.to_string(), *d))
            .collect();
        assert_eq!(got, want);
    }

    use super::*;
    use crate::backends::record::BackendKind;

    fn conv(id: &str, title: Option<&str>, updated: Option<&str>) -> ConversationSummary {
        ConversationSummary {
            id: id.to_string(),
            title: title.map(str::to_string),
            updated_at: updated.map(str::to_string),
            ..Default::default()
        }
    }

    fn page(items: Vec<ConversationSummary>, next: Option<&str>) -> SourceOutcome {
        SourceOutcome::Page(ConversationSummaryPage {
            items,
            next_page_id: next.map(str::to_string),
        })
    }

    fn src(
        backend: &str,
        org: Option<&str>,
        label: &str,
        outcome: SourceOutcome,
    ) -> (SourceKey, String, SourceOutcome) {
        (SourceKey::new(backend, org), label.to_string(), outcome)
    }

    /// `backend[/org]:id` of each row.
    fn ids(list: &MergedList) -> Vec<String> {
        list.rows
            .iter()
            .map(|r| match r.source.org() {
                Some(o) => format!("{}/{o}:{}", r.source.backend_id, r.summary.id),
                None => format!("{}:{}", r.source.backend_id, r.summary.id),
            })
            .collect()
    }

    #[test]
    fn timeout_is_a_few_seconds_below_the_single_request_timeout() {
        const { assert!(SOURCE_TIMEOUT_MS >= 4_000) };
        const { assert!(SOURCE_TIMEOUT_MS < crate::client::local::DEFAULT_TIMEOUT_MS) };
        assert_eq!(seconds(SOURCE_TIMEOUT_MS), "8 s");
        assert_eq!(seconds(8_500), "8.5 s");
        assert_eq!(seconds(250), "0.25 s");
    }

    #[test]
    fn rows_from_three_sources_are_sorted_newest_first() {
        let sources = vec![
            src(
                "local-1",
                None,
                "Local",
                page(
                    vec![
                        conv("a1", Some("A1"), Some("2026-03-01T12:00:00Z")),
                        conv("a2", Some("A2"), Some("2026-03-01T09:00:00Z")),
                    ],
                    None,
                ),
            ),
            src(
                "local-2",
                None,
                "Local 2",
                page(
                    // Offsets compare as instants, not as strings: 13:30+02:00 = 11:30Z.
                    vec![
                        conv("b1", Some("B1"), Some("2026-03-01T13:30:00+02:00")),
                        conv("b2", Some("B2"), None),
                    ],
                    None,
                ),
            ),
            src(
                "cloud",
                Some("acme"),
                "Cloud · Acme",
                page(
                    vec![
                        conv("c1", Some("C1"), Some("2026-03-01T11:45:00.5")),
                        conv("c2", Some("C2"), Some("garbage")),
                        ConversationSummary {
                            created_at: Some("2026-03-01T10:00:00Z".into()),
                            ..conv("c3", Some("C3"), None)
                        },
                    ],
                    Some("p2"),
                ),
            ),
        ];
        let list = merge(&sources, 50);
        assert_eq!(
            ids(&list),
            [
                "local-1:a1",
                "cloud/acme:c1",
                "local-2:b1",
                "cloud/acme:c3",
                "local-1:a2",
                // No time at all: last, by title.
                "local-2:b2",
                "cloud/acme:c2",
            ]
        );
        assert!(list.notes.is_empty());
        assert_eq!(list.cut, 0);
        assert_eq!(list.rows[1].label, "Cloud · Acme");
        assert!(list.has_more(&SourceKey::new("cloud", Some("acme"))));
        assert!(!list.has_more(&SourceKey::new("cloud", None)));
        assert!(!list.has_more(&SourceKey::new("local-1", None)));
        assert_eq!(
            list.more,
            [SourceMore {
                source: SourceKey::new("cloud", Some("acme")),
                label: "Cloud · Acme".into(),
                next_page_id: "p2".into(),
            }]
        );
        assert!(list.can_load_more());
    }

    #[test]
    fn ties_break_by_title_then_backend_then_org_then_id() {
        let t = Some("2026-03-01T10:00:00Z");
        let same = Some("2026-03-01T11:00:00+01:00");
        let sources = vec![
            src(
                "b",
                None,
                "B",
                page(
                    vec![
                        conv("2", Some("beta"), t),
                        conv("1", Some("beta"), t),
                        conv("x", Some("Alpha"), same),
                        conv("u", None, t),
                    ],
                    None,
                ),
            ),
            src(
                "a",
                Some("o2"),
                "A · O2",
                page(vec![conv("9", Some("beta"), t)], None),
            ),
            src(
                "a",
                None,
                "A",
                page(
                    vec![conv("9", Some("beta"), t), conv("y", Some("alpha"), t)],
                    None,
                ),
            ),
        ];
        let want = [
            "b:x",    // "Alpha" before "alpha" (case-insensitive tie, then exact)
            "a:y",    //
            "a:9",    // "beta": backend a (no org) …
            "a/o2:9", // … then a with org o2 …
            "b:1",    // … then b, by conversation id
            "b:2",    //
            "b:u",    // "Untitled conversation"
        ];
        assert_eq!(ids(&merge(&sources, 50)), want);
        // The order of the sources does not matter.
        let mut reversed = sources.clone();
        reversed.reverse();
        assert_eq!(ids(&merge(&reversed, 50)), want);
    }

    #[test]
    fn same_id_on_two_backends_or_orgs_is_two_rows_pinned_to_each() {
        let c = || conv("same", Some("Same"), Some("2026-03-01T10:00:00Z"));
        let sources = vec![
            src("local-1", None, "Local", page(vec![c()], None)),
            src("local-2", None, "Local 2", page(vec![c()], None)),
            src("cloud", Some("acme"), "Cloud · Acme", page(vec![c()], None)),
            src("cloud", Some("beta"), "Cloud · Beta", page(vec![c()], None)),
        ];
        let list = merge(&sources, 50);
        assert_eq!(
            ids(&list),
            [
                "cloud/acme:same",
                "cloud/beta:same",
                "local-1:same",
                "local-2:same"
            ]
        );
        let hrefs: Vec<String> = list.rows.iter().map(|r| row_href(r, "/canvas")).collect();
        assert_eq!(
            hrefs,
            [
                "/canvas/conversations/same?backend=cloud&org=acme",
                "/canvas/conversations/same?backend=cloud&org=beta",
                "/canvas/conversations/same?backend=local-1",
                "/canvas/conversations/same?backend=local-2",
            ]
        );
        let labels: Vec<&str> = list.rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["Cloud · Acme", "Cloud · Beta", "Local", "Local 2"]);
    }

    #[test]
    fn duplicates_within_one_source_are_dropped_keeping_the_newest() {
        let sources = vec![
            src(
                "l",
                None,
                "L",
                page(
                    vec![
                        conv("a", Some("old title"), Some("2026-03-01T09:00:00Z")),
                        conv("b", Some("B"), Some("2026-03-01T10:00:00Z")),
                        conv("a", Some("new title"), Some("2026-03-01T11:00:00Z")),
                        conv("", Some("no id"), Some("2026-03-01T12:00:00Z")),
                    ],
                    None,
                ),
            ),
            // The same source listed twice, and with an empty org (= none).
            src(
                "l",
                Some(""),
                "L",
                page(
                    vec![conv("b", Some("B"), Some("2026-03-01T10:00:00Z"))],
                    None,
                ),
            ),
        ];
        let list = merge(&sources, 50);
        assert_eq!(ids(&list), ["l:a", "l:b"]);
        assert_eq!(list.rows[0].summary.title.as_deref(), Some("new title"));
        assert_eq!(list.rows[1].source, SourceKey::new("l", None));
    }

    #[test]
    fn partial_failures_give_one_note_each_and_the_rest_still_shows() {
        let sources = vec![
            src(
                "local-1",
                None,
                "Local",
                page(
                    vec![conv("a", Some("A"), Some("2026-03-01T10:00:00Z"))],
                    None,
                ),
            ),
            src(
                "local-2",
                None,
                "Local 2",
                SourceOutcome::Failed {
                    message: "Disconnected (check URL or network).".into(),
                },
            ),
            src(
                "cloud",
                Some("acme"),
                "Cloud · Acme",
                SourceOutcome::TimedOut,
            ),
            src("old", None, "Old box", SourceOutcome::Disabled),
            src(
                "cloud",
                Some("beta"),
                "Cloud · Beta",
                page(
                    vec![conv("b", Some("B"), Some("2026-03-01T11:00:00Z"))],
                    Some(""),
                ),
            ),
            // Listed again: still one note.
            src("old", None, "Old box", SourceOutcome::Disabled),
        ];
        let list = merge(&sources, 50);
        assert_eq!(ids(&list), ["cloud/beta:b", "local-1:a"]);
        let notes: Vec<(&str, NoteKind, &str)> = list
            .notes
            .iter()
            .map(|n| (n.source.backend_id.as_str(), n.kind, n.text.as_str()))
            .collect();
        assert_eq!(
            notes,
            [
                (
                    "local-2",
                    NoteKind::Failed,
                    "Local 2: not reachable — Disconnected (check URL or network)."
                ),
                (
                    "cloud",
                    NoteKind::TimedOut,
                    "Cloud · Acme: timed out after 8 s"
                ),
                (
                    "old",
                    NoteKind::Disabled,
                    "Old box: skipped — disabled after repeated connection failures; \
                     Manage backends checks it again"
                ),
            ]
        );
        assert_eq!(list.notes[1].source, SourceKey::new("cloud", Some("acme")));
        assert_eq!(list.notes[1].label, "Cloud · Acme");
        // An empty next page id is no next page.
        assert!(list.more.is_empty());
        assert!(!list.can_load_more());
    }

    #[test]
    fn failure_messages_are_trimmed_scrubbed_and_cut() {
        let one = |message: &str, label: &str| {
            let list = merge(
                &[src(
                    "b-id",
                    None,
                    label,
                    SourceOutcome::Failed {
                        message: message.into(),
                    },
                )],
                10,
            );
            list.notes[0].text.clone()
        };
        assert_eq!(one("  ", "Local"), "Local: not reachable.");
        assert_eq!(one("boom", "  "), "b-id: not reachable — boom");
        let leaked = one("upstream said: Bearer sk-secret-value", "L");
        assert!(!leaked.contains("sk-secret-value"), "{leaked}");
        let long = one(&"x".repeat(2_000), "L");
        assert!(long.chars().count() < 600 && long.ends_with('…'));
    }

    #[test]
    fn all_sources_failing_gives_only_notes() {
        let list = merge(
            &[
                src("a", None, "A", SourceOutcome::TimedOut),
                src("b", None, "B", SourceOutcome::Disabled),
            ],
            20,
        );
        assert!(list.rows.is_empty());
        assert_eq!(list.notes.len(), 2);
        assert_eq!(merge(&[], 20), MergedList::default());
    }

    /// `n` conversations of `prefix`, newest first, one hour apart from `start` hours.
    fn hourly(prefix: &str, start: u32, n: u32) -> Vec<ConversationSummary> {
        (0..n)
            .map(|i| {
                let h = start - i;
                conv(
                    &format!("{prefix}{h}"),
                    None,
                    Some(&format!("2026-03-01T{h:02}:00:00Z")),
                )
            })
            .collect()
    }

    #[test]
    fn load_more_asks_each_source_only_for_its_next_page() {
        let mut sources = vec![
            // 2 of 5 loaded.
            src("a", None, "A", page(hourly("a", 20, 2), Some("a-p2"))),
            // All loaded.
            src("b", None, "B", page(hourly("b", 19, 1), None)),
            // Failed: not asked again.
            src(
                "c",
                None,
                "C",
                SourceOutcome::Failed {
                    message: "x".into(),
                },
            ),
            // 2 loaded, an empty cursor means none.
            src("d", Some(""), "D", page(hourly("d", 18, 2), Some(""))),
            // A cloud org with a next page.
            src(
                "e",
                Some("o1"),
                "E · O1",
                page(hourly("e", 17, 2), Some("e-p2")),
            ),
        ];
        assert_eq!(
            next_pages(&sources, 4),
            vec![
                NextPage {
                    source: SourceKey::new("a", None),
                    page_id: "a-p2".into(),
                    limit: 2,
                },
                NextPage {
                    source: SourceKey::new("e", Some("o1")),
                    page_id: "e-p2".into(),
                    limit: 2,
                },
            ]
        );
        // Showing no more than a source holds asks nothing; a page never asks more than 100.
        assert_eq!(next_pages(&sources, 2), vec![]);
        assert_eq!(next_pages(&sources, 1_000)[0].limit, MAX_SOURCE_PAGE);

        // The next page joins the source's rows (a repeated id once) and replaces its cursor.
        let mut next = hourly("a", 18, 3);
        next.insert(0, conv("a19", None, Some("2026-03-01T19:00:00Z")));
        append_page(
            &mut sources,
            &SourceKey::new("a", None),
            ConversationSummaryPage {
                items: next,
                next_page_id: None,
            },
        );
        let SourceOutcome::Page(a) = &sources[0].2 else {
            panic!("a is a page");
        };
        let ids: Vec<&str> = a.items.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a20", "a19", "a18", "a17", "a16"]);
        assert_eq!(a.next_page_id, None);
        assert!(next_pages(&sources, 4)
            .iter()
            .all(|n| n.source.backend_id != "a"));
        // A source that is not a loaded page is left as it is.
        append_page(
            &mut sources,
            &SourceKey::new("c", None),
            ConversationSummaryPage::default(),
        );
        assert!(matches!(sources[2].2, SourceOutcome::Failed { .. }));
    }

    #[test]
    fn paging_on_merges_the_same_rows_as_asking_for_more_at_once() {
        // Each source holds 7 conversations on its server; pages come 3 at a time at first.
        let server = |prefix: &str, start: u32| hourly(prefix, start, 7);
        let held = [
            ("a", server("a", 23)),
            ("b", server("b", 22)),
            ("c", server("c", 12)),
        ];
        let first = |limit: usize| -> Vec<(SourceKey, String, SourceOutcome)> {
            held.iter()
                .map(|(id, all)| {
                    let items: Vec<_> = all.iter().take(limit).cloned().collect();
                    let next = (items.len() < all.len()).then(|| format!("{id}@{}", items.len()));
                    src(
                        id,
                        None,
                        id,
                        SourceOutcome::Page(ConversationSummaryPage {
                            items,
                            next_page_id: next,
                        }),
                    )
                })
                .collect()
        };
        let mut paged = first(3);
        for limit in [6, 9, 12] {
            for n in next_pages(&paged, limit) {
                let (id, at) = n.page_id.split_once('@').unwrap();
                let at: usize = at.parse().unwrap();
                let all = &held.iter().find(|(h, _)| *h == id).unwrap().1;
                let items: Vec<_> = all
                    .iter()
                    .skip(at)
                    .take(n.limit as usize)
                    .cloned()
                    .collect();
                let end = at + items.len();
                append_page(
                    &mut paged,
                    &n.source,
                    ConversationSummaryPage {
                        items,
                        next_page_id: (end < all.len()).then(|| format!("{id}@{end}")),
                    },
                );
            }
            assert_eq!(
                merge(&paged, limit),
                merge(&first(limit), limit),
                "limit {limit}"
            );
        }
    }

    #[test]
    fn the_limit_cuts_the_oldest_rows() {
        let items = |prefix: &str, hours: &[u32]| {
            hours
                .iter()
                .map(|h| {
                    conv(
                        &format!("{prefix}{h}"),
                        None,
                        Some(&format!("2026-03-01T{h:02}:00:00Z")),
                    )
                })
                .collect::<Vec<_>>()
        };
        let sources = vec![
            src("a", None, "A", page(items("a", &[10, 8, 6]), None)),
            src("b", None, "B", page(items("b", &[9, 7, 5]), None)),
        ];
        for (limit, want, cut) in [
            (0, vec![], 6),
            (1, vec!["a:a10"], 5),
            (3, vec!["a:a10", "b:b9", "a:a8"], 3),
            (6, vec!["a:a10", "b:b9", "a:a8", "b:b7", "a:a6", "b:b5"], 0),
            (
                100,
                vec!["a:a10", "b:b9", "a:a8", "b:b7", "a:a6", "b:b5"],
                0,
            ),
        ] {
            let list = merge(&sources, limit);
            assert_eq!(ids(&list), want, "limit {limit}");
            assert_eq!(list.cut, cut, "limit {limit}");
            assert_eq!(list.can_load_more(), cut > 0, "limit {limit}");
        }
    }

    #[test]
    fn labels_name_the_backend_and_the_org() {
        let mut cloud = Backend::new(
            "c-id",
            "Cloud",
            "https://app.example",
            "k",
            BackendKind::Cloud,
        );
        assert_eq!(source_label(&cloud, Some("Acme")), "Cloud · Acme");
        assert_eq!(source_label(&cloud, Some("  ")), "Cloud");
        assert_eq!(source_label(&cloud, None), "Cloud");
        cloud.name = " ".into();
        assert_eq!(
            source_label(&cloud, Some("Acme")),
            "https://app.example · Acme"
        );
        cloud.host.clear();
        assert_eq!(source_label(&cloud, None), "c-id");
        cloud.name = "Cloud".into();
        let org = |id: &str, name: &str| Organization {
            id: id.into(),
            name: name.into(),
            is_personal: None,
        };
        assert_eq!(
            org_source_label(&cloud, &org("o1", "Acme"), Some("u1")),
            "Cloud · Acme"
        );
        assert_eq!(
            org_source_label(&cloud, &org("u1", "whatever"), Some("u1")),
            "Cloud · Personal workspace"
        );
        assert_eq!(org_source_label(&cloud, &org("o2", ""), None), "Cloud · o2");
    }

    fn sel(backend: &str, org: Option<&str>) -> Selection {
        Selection::new(backend, org)
    }

    #[test]
    fn picked_orgs_are_the_remembered_orgs_of_that_backend() {
        let remembered = [
            sel("cloud", Some("a")),
            sel("local", None),
            sel("cloud", Some("b")),
            sel("cloud", Some("a")),
            sel("cloud", None),
            Selection {
                backend_id: "cloud".into(),
                org_id: Some(String::new()),
            },
            sel("cloud-2", Some("c")),
        ];
        for (backend, want) in [
            ("cloud", vec!["a", "b"]),
            ("cloud-2", vec!["c"]),
            ("local", vec![]),
            ("gone", vec![]),
        ] {
            assert_eq!(picked_orgs(backend, &remembered), want, "{backend}");
        }
        assert!(picked_orgs("cloud", &[]).is_empty());
    }

    #[test]
    fn plan_asks_every_backend_once_and_clouds_with_their_picks() {
        let b = |id: &str, kind: BackendKind| Backend::new(id, id, "http://h", "k", kind);
        let backends = vec![
            b("local-1", BackendKind::Local),
            b("cloud-1", BackendKind::Cloud),
            Backend::no_backend(),
            b("cloud-2", BackendKind::Cloud),
            b("omni", BackendKind::Omnigent),
            b("local-2", BackendKind::Local),
        ];
        let remembered = [sel("cloud-1", Some("acme")), sel("cloud-1", Some("beta"))];
        let plan = |only: &[&str], disabled: &[&str]| {
            let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
            plan_sources(&backends, &only, |id| disabled.contains(&id), &remembered)
                .into_iter()
                .map(|(b, p)| (b.id, p))
                .collect::<Vec<_>>()
        };
        let orgs = |o: &[&str]| SourcePlan::Orgs {
            picked: o.iter().map(|s| s.to_string()).collect(),
        };
        // (only, disabled, want)
        type Case = (
            &'static [&'static str],
            &'static [&'static str],
            Vec<(&'static str, SourcePlan)>,
        );
        let cases: [Case; 3] = [
            (
                &[],
                &[],
                vec![
                    ("local-1", SourcePlan::Plain),
                    ("cloud-1", orgs(&["acme", "beta"])),
                    ("cloud-2", orgs(&[])),
                    ("omni", SourcePlan::Plain),
                    ("local-2", SourcePlan::Plain),
                ],
            ),
            (
                &[],
                &["cloud-1", "local-2"],
                vec![
                    ("local-1", SourcePlan::Plain),
                    ("cloud-1", SourcePlan::Disabled),
                    ("cloud-2", orgs(&[])),
                    ("omni", SourcePlan::Plain),
                    ("local-2", SourcePlan::Disabled),
                ],
            ),
            (
                &["cloud-2", "local-1", "unknown", NO_BACKEND_ID],
                &[],
                vec![("local-1", SourcePlan::Plain), ("cloud-2", orgs(&[]))],
            ),
        ];
        for (only, disabled, want) in cases {
            let want: Vec<(String, SourcePlan)> = want
                .into_iter()
                .map(|(id, p)| (id.to_string(), p))
                .collect();
            assert_eq!(
                plan(only, disabled),
                want,
                "only {only:?}, disabled {disabled:?}"
            );
        }
    }

    fn listing(ids: &[(&str, &str)], current: Option<&str>, user: Option<&str>) -> OrgListing {
        OrgListing {
            orgs: ids
                .iter()
                .map(|(id, name)| Organization {
                    id: id.to_string(),
                    name: name.to_string(),
                    is_personal: None,
                })
                .collect(),
            current_org_id: current.map(str::to_string),
            user_id: user.map(str::to_string),
            scope: crate::backends::orgs::KeyScope::Legacy,
        }
    }

    #[test]
    fn a_cloud_lists_its_picked_orgs_else_the_personal_workspace() {
        let all = [("a", "Acme"), ("u1", "me"), ("b", "Beta")];
        let bound_b = [("b", "Beta")];
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        for (what, l, picked, want) in [
            (
                "one pick",
                listing(&all, Some("a"), Some("u1")),
                s(&["b"]),
                vec!["b"],
            ),
            (
                "two picks, in pick order",
                listing(&all, None, Some("u1")),
                s(&["b", "a", "b"]),
                vec!["b", "a"],
            ),
            (
                "a stale pick is dropped",
                listing(&all, None, Some("u1")),
                s(&["gone", "a"]),
                vec!["a"],
            ),
            (
                "no pick: the personal workspace, not the current org",
                listing(&all, Some("a"), Some("u1")),
                s(&[]),
                vec!["u1"],
            ),
            (
                "only stale picks: the personal workspace",
                listing(&all, None, Some("u1")),
                s(&["gone"]),
                vec!["u1"],
            ),
            (
                "no personal org listed (bound key): the current org",
                listing(&bound_b, Some("b"), Some("u1")),
                s(&[]),
                vec!["b"],
            ),
            (
                "user unknown, no current: the first",
                listing(&all, None, None),
                s(&[]),
                vec!["a"],
            ),
            (
                "nothing listed",
                listing(&[], Some("a"), None),
                s(&["a"]),
                vec![],
            ),
        ] {
            let got: Vec<String> = orgs_to_list(&l, &picked)
                .into_iter()
                .map(|o| o.id)
                .collect();
            assert_eq!(got, want, "{what}");
        }
    }

    #[test]
    fn org_sources_are_keyed_and_labelled_backend_and_org() {
        let cloud = Backend::new("c", "Cloud", "https://app.example", "k", BackendKind::Cloud);
        let l = listing(&[("a", "Acme"), ("u1", "me"), ("n", " ")], None, Some("u1"));
        let picks = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            org_sources(&cloud, &l, &picks(&["a", "n"])),
            [
                (SourceKey::new("c", Some("a")), "Cloud · Acme".to_string()),
                (SourceKey::new("c", Some("n")), "Cloud · n".to_string()),
            ]
        );
        assert_eq!(
            org_sources(&cloud, &l, &[]),
            [(
                SourceKey::new("c", Some("u1")),
                "Cloud · Personal workspace".to_string()
            )]
        );
        // Nothing listed: one source without an org, labelled by the backend.
        assert_eq!(
            org_sources(&cloud, &listing(&[], None, None), &picks(&["a"])),
            [(SourceKey::new("c", None), "Cloud".to_string())]
        );
    }

    #[test]
    fn row_links_are_pinned_and_encoded() {
        let row = MergedRow {
            source: SourceKey::new("c d", Some("o&1")),
            label: "C".into(),
            summary: conv("id/1 2", None, None),
        };
        assert_eq!(
            row_href(&row, ""),
            "/conversations/id%2F1%202?backend=c+d&org=o%261"
        );
        let local = MergedRow {
            source: SourceKey {
                backend_id: "default-local".into(),
                org_id: Some(String::new()),
            },
            ..row
        };
        assert_eq!(
            row_href(&local, "/canvas/"),
            "/canvas/conversations/id%2F1%202?backend=default-local"
        );
        assert_eq!(local.source.pin(), ("default-local", None));
    }
}
