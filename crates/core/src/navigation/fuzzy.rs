//! Fuzzy matching for the ⌘K command palette (issue #16).
//!
//! A query matches a candidate when its characters appear in the candidate in order
//! (a subsequence), compared case-insensitively char by char (Unicode lowercase, first char of
//! the mapping: `İ` ≡ `i`, `Ü` ≡ `ü`). Whitespace in the query is ignored, so `new conv`
//! matches `New conversation`. No Unicode normalization: `é` does not match `e`.
//!
//! Of all the ways the query can be laid over the candidate, the best-scoring one counts
//! (a dynamic program over query × candidate, `O(len q · len c)`):
//! every matched char scores, more on a word start (after a separator, or a camelCase or
//! letter→digit change), more again on the candidate's first char (prefix) and when it follows
//! the previous matched char (consecutive run); gaps between matched chars cost a little, and
//! each unmatched candidate char (up to a cap) costs one point so that, other things equal, the
//! tighter candidate wins. [`highlight`] returns the chars of that same alignment.

use std::ops::Range;

/// The score of every candidate for an empty (or all-whitespace) query; any match scores at
/// least this.
pub const BASE_SCORE: u32 = 1;

/// Per matched char.
const MATCH: i64 = 16;
/// A matched char that starts a word (at the start, or after a non-alphanumeric char).
const WORD_START: i64 = 24;
/// A matched char at a camelCase hump or where digits begin (`fooBar`, `Local2`).
const CAMEL: i64 = 16;
/// The first query char on the candidate's first char.
const PREFIX: i64 = 32;
/// A matched char right after the previous matched char.
const CONSECUTIVE: i64 = 20;
/// The first unmatched char between two matched chars.
const GAP_START: i64 = 3;
/// Each further unmatched char of that gap.
const GAP_EXTEND: i64 = 1;
/// At most this many points are taken for unmatched candidate chars (one each).
const UNMATCHED_CAP: i64 = 16;
/// Above this many DP cells (query chars × candidate chars) the first (leftmost) alignment is
/// scored instead of the best one, so a huge candidate cannot exhaust memory.
const MAX_DP_CELLS: usize = 1 << 20;

const NONE: i64 = i64::MIN / 4;

/// How one char compares: its first lowercase char.
fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// The query chars that must match, folded.
fn query_chars(query: &str) -> Vec<char> {
    query
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(fold)
        .collect()
}

/// The bonus of a match at each candidate char.
fn bonuses(orig: &[char]) -> Vec<i64> {
    orig.iter()
        .enumerate()
        .map(|(j, &cur)| {
            let Some(&prev) = j.checked_sub(1).and_then(|p| orig.get(p)) else {
                return WORD_START;
            };
            if !prev.is_alphanumeric() && cur.is_alphanumeric() {
                WORD_START
            } else if (prev.is_lowercase() && cur.is_uppercase())
                || (prev.is_alphabetic() && cur.is_numeric())
            {
                CAMEL
            } else {
                0
            }
        })
        .collect()
}

/// The candidate, prepared once: byte offsets, folded chars and per-char bonuses.
struct Prepared {
    offsets: Vec<usize>,
    lens: Vec<usize>,
    folded: Vec<char>,
    bonus: Vec<i64>,
}

impl Prepared {
    fn new(candidate: &str) -> Self {
        let mut offsets = Vec::new();
        let mut lens = Vec::new();
        let mut orig = Vec::new();
        for (i, c) in candidate.char_indices() {
            offsets.push(i);
            lens.push(c.len_utf8());
            orig.push(c);
        }
        Self {
            offsets,
            lens,
            folded: orig.iter().copied().map(fold).collect(),
            bonus: bonuses(&orig),
        }
    }
}

/// The leftmost alignment, `None` when `q` is not a subsequence.
fn leftmost(q: &[char], c: &[char]) -> Option<Vec<usize>> {
    let mut out = Vec::with_capacity(q.len());
    let mut j = 0;
    for &qc in q {
        while *c.get(j)? != qc {
            j += 1;
        }
        out.push(j);
        j += 1;
    }
    Some(out)
}

/// The score of one alignment (char positions, strictly increasing); the DP maximizes exactly
/// this.
fn alignment_score(positions: &[usize], p: &Prepared) -> i64 {
    let mut total = 0;
    for (i, &j) in positions.iter().enumerate() {
        total += MATCH + p.bonus[j];
        if i == 0 && j == 0 {
            total += PREFIX;
        }
        if i > 0 {
            let gap = (j - positions[i - 1] - 1) as i64;
            total += if gap == 0 {
                CONSECUTIVE
            } else {
                -(GAP_START + GAP_EXTEND * (gap - 1))
            };
        }
    }
    total
}

/// The best alignment of `q` over the candidate, with its score (before the unmatched-chars
/// penalty). `q` must be non-empty and a subsequence (`first` is its leftmost alignment).
fn best_alignment(q: &[char], p: &Prepared, first: Vec<usize>) -> (i64, Vec<usize>) {
    let (m, n) = (q.len(), p.folded.len());
    if m.saturating_mul(n) > MAX_DP_CELLS {
        return (alignment_score(&first, p), first);
    }
    // score[i * n + j]: best score of q[..=i] with q[i] on char j; back: where q[i - 1] went.
    let mut score = vec![NONE; m * n];
    let mut back = vec![0usize; m * n];
    for (j, (cell, (&ch, &bonus))) in score
        .iter_mut()
        .zip(p.folded.iter().zip(&p.bonus))
        .enumerate()
    {
        if ch == q[0] {
            *cell = MATCH + bonus + if j == 0 { PREFIX } else { 0 };
        }
    }
    for i in 1..m {
        let (prev_row, row) = score.split_at_mut(i * n);
        let prev_row = &prev_row[(i - 1) * n..];
        let row = &mut row[..n];
        // max over k <= j - 2 of prev_row[k] + GAP_EXTEND * k, and its k.
        let mut gapped: Option<(i64, usize)> = None;
        for j in i..n {
            if j >= 2 && prev_row[j - 2] > NONE {
                let k = j - 2;
                let v = prev_row[k] + GAP_EXTEND * k as i64;
                if gapped.is_none_or(|(best, _)| v > best) {
                    gapped = Some((v, k));
                }
            }
            if p.folded[j] != q[i] {
                continue;
            }
            let mut best: Option<(i64, usize)> = None;
            if prev_row[j - 1] > NONE {
                best = Some((prev_row[j - 1] + CONSECUTIVE, j - 1));
            }
            if let Some((v, k)) = gapped {
                let v = v - GAP_EXTEND * (j as i64 - 1) - (GAP_START - GAP_EXTEND);
                if best.is_none_or(|(b, _)| v > b) {
                    best = Some((v, k));
                }
            }
            if let Some((v, k)) = best {
                row[j] = v + MATCH + p.bonus[j];
                back[i * n + j] = k;
            }
        }
    }
    let last = &score[(m - 1) * n..];
    let mut end = 0;
    for j in 0..n {
        if last[j] > last[end] {
            end = j;
        }
    }
    let total = last[end];
    let mut positions = vec![0; m];
    let mut j = end;
    for i in (0..m).rev() {
        positions[i] = j;
        j = back[i * n + j];
    }
    (total, positions)
}

/// Matches `query` against `candidate`: `(score, matched char positions)`.
fn matched(query: &str, candidate: &str) -> Option<(u32, Vec<usize>, Prepared)> {
    let q = query_chars(query);
    let p = Prepared::new(candidate);
    if q.is_empty() {
        return Some((BASE_SCORE, Vec::new(), p));
    }
    let first = leftmost(&q, &p.folded)?;
    let (raw, positions) = best_alignment(&q, &p, first);
    let unmatched = ((p.folded.len() - q.len()) as i64).min(UNMATCHED_CAP);
    let score = (raw - unmatched).clamp(i64::from(BASE_SCORE), i64::from(u32::MAX));
    Some((score as u32, positions, p))
}

/// How well `query` matches `candidate`, higher is better; `None` when the query's
/// (non-whitespace) chars are not a subsequence of the candidate's (case-insensitive).
/// An empty query matches everything with [`BASE_SCORE`].
pub fn score(query: &str, candidate: &str) -> Option<u32> {
    matched(query, candidate).map(|(s, _, _)| s)
}

/// The items matching `query`, best first, at most `limit`: `(index into items, score)`.
/// Equal scores keep the items' order (an empty query lists the first `limit` items in order).
pub fn rank<T>(
    query: &str,
    items: &[T],
    key: impl Fn(&T) -> &str,
    limit: usize,
) -> Vec<(usize, u32)> {
    let mut out: Vec<(usize, u32)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| score(query, key(item)).map(|s| (i, s)))
        .collect();
    out.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
    out.truncate(limit);
    out
}

/// The byte ranges of `candidate` that `query` matched (the same alignment as [`score`]), in
/// order, adjacent chars merged into one range; empty when the query is empty or does not
/// match. Every bound is a char boundary.
pub fn highlight(query: &str, candidate: &str) -> Vec<Range<usize>> {
    let Some((_, positions, p)) = matched(query, candidate) else {
        return Vec::new();
    };
    let mut out: Vec<Range<usize>> = Vec::new();
    for j in positions {
        let r = p.offsets[j]..p.offsets[j] + p.lens[j];
        match out.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`highlight`] as `(start, end)` pairs.
    fn spans(query: &str, candidate: &str) -> Vec<(usize, usize)> {
        highlight(query, candidate)
            .into_iter()
            .map(|r| (r.start, r.end))
            .collect()
    }

    /// The highlighted text, `[..]` around each range.
    fn marked(query: &str, candidate: &str) -> String {
        let mut out = String::new();
        let mut at = 0;
        for r in highlight(query, candidate) {
            out.push_str(&candidate[at..r.start]);
            out.push('[');
            out.push_str(&candidate[r.clone()]);
            out.push(']');
            at = r.end;
        }
        out.push_str(&candidate[at..]);
        out
    }

    #[test]
    fn matches_are_case_insensitive_subsequences() {
        for (q, c, matches) in [
            ("", "anything", true),
            ("   ", "", true),
            ("", "", true),
            ("a", "", false),
            ("set", "Settings", true),
            ("SET", "settings", true),
            ("stg", "Settings", true),
            ("new conv", "New conversation", true),
            ("nc", "New conversation", true),
            ("cn", "New conversation", true),
            ("xyz", "New conversation", false),
            ("tes", "Settings", false),
            ("settingss", "Settings", false),
            // Unicode, char by char.
            ("über", "Übersicht", true),
            ("ÜBER", "übersicht", true),
            ("straße", "STRAßE", true),
            ("i", "İstanbul", true),
            ("日本", "日本語のテスト", true),
            ("本日", "日本語", false),
            ("e", "é", false),
            ("🦀", "Rust 🦀 crab", true),
        ] {
            assert_eq!(score(q, c).is_some(), matches, "{q:?} in {c:?}");
        }
        assert_eq!(score("", "anything"), Some(BASE_SCORE));
        assert_eq!(score(" ", ""), Some(BASE_SCORE));
    }

    #[test]
    fn better_matches_score_higher() {
        // (query, better, worse)
        for (q, better, worse) in [
            // Prefix beats the middle.
            ("set", "Settings", "Reset"),
            ("con", "Conversations", "Icon"),
            // Word starts beat mid-word.
            ("b", "foo bar", "foobar"),
            ("nc", "New conversation", "Sync"),
            ("mb", "Manage backends", "Combat"),
            // camelCase humps and digits beat mid-word.
            ("fb", "fooBar", "foobar"),
            ("l2", "Local2", "L12"),
            // Consecutive runs beat scattered chars.
            ("abc", "xabcx", "xaxbxcx"),
            // Small gaps beat large ones.
            ("ac", "abc", "abbbbbbbbbc"),
            // Other things equal, the tighter candidate wins.
            ("settings", "Settings", "Settings for every backend"),
            // Case does not matter.
            ("SET", "settings", "reset"),
        ] {
            let (b, w) = (score(q, better).unwrap(), score(q, worse).unwrap());
            assert!(b > w, "{q:?}: {better:?} ({b}) should beat {worse:?} ({w})");
        }
        // An exact (case-insensitive) match equals its case variants.
        assert_eq!(score("settings", "Settings"), score("SETTINGS", "settings"));
    }

    #[test]
    fn the_best_alignment_is_found_not_the_leftmost() {
        // Leftmost would take the `c` of `Recent` and the `o` of `conversations`.
        assert_eq!(
            marked("conv", "Recent conversations"),
            "Recent [conv]ersations"
        );
        assert_eq!(
            marked("nc", "Sync, New conversation"),
            "Sync, [N]ew [c]onversation"
        );
        assert_eq!(
            marked("mb", "Combat: Manage backends"),
            "Combat: [M]anage [b]ackends"
        );
        // Word starts and the prefix outweigh a later consecutive run.
        assert_eq!(marked("ab", "a_b ab"), "[a]_[b] ab");
    }

    #[test]
    fn highlight_ranges_are_merged_byte_ranges() {
        assert_eq!(spans("set", "Settings"), [(0, 3)]);
        assert_eq!(spans("stg", "Settings"), [(0, 1), (2, 3), (6, 7)]);
        assert_eq!(spans("new conv", "New conversation"), [(0, 3), (4, 8)]);
        assert!(highlight("", "Settings").is_empty());
        assert!(highlight("xyz", "Settings").is_empty());
        // Multi-byte chars: ranges cover whole chars.
        assert_eq!(spans("üb", "Übersicht"), [(0, 3)]);
        assert_eq!(marked("üb", "Übersicht"), "[Üb]ersicht");
        assert_eq!(marked("日語", "日本語"), "[日]本[語]");
        assert_eq!(marked("🦀c", "Rust 🦀 crab"), "Rust [🦀] [c]rab");
        assert_eq!(marked("i", "İstanbul"), "[İ]stanbul");
    }

    #[test]
    fn rank_orders_by_score_and_keeps_ties_stable() {
        let items = [
            "Reset layout",
            "Settings",
            "Manage backends",
            "Settings",
            "New conversation",
            "Set theme",
        ];
        let ranked = rank("set", &items, |s| s, 10);
        let order: Vec<usize> = ranked.iter().map(|&(i, _)| i).collect();
        // The two equal "Settings" keep their order (the shorter one beats "Set theme");
        // non-matches are left out.
        assert_eq!(order, [1, 3, 5, 0]);
        assert!(ranked.windows(2).all(|w| w[0].1 >= w[1].1));
        assert_eq!(ranked[0].1, ranked[1].1);
        assert_eq!(rank("set", &items, |s| s, 2), [ranked[0], ranked[1]]);
        assert_eq!(rank("set", &items, |s| s, 0), []);
        // Empty query: everything, in order, with the base score.
        assert_eq!(
            rank("", &items, |s| s, 3),
            [(0, BASE_SCORE), (1, BASE_SCORE), (2, BASE_SCORE)]
        );
        // Keys from a field.
        struct Cmd {
            title: String,
        }
        let cmds = [
            Cmd {
                title: "Open settings".into(),
            },
            Cmd {
                title: "Close".into(),
            },
        ];
        assert_eq!(
            rank("os", &cmds, |c| c.title.as_str(), 5)
                .iter()
                .map(|r| r.0)
                .collect::<Vec<_>>(),
            [0, 1]
        );
    }

    #[test]
    fn huge_candidates_fall_back_to_the_leftmost_alignment() {
        let big = format!("{}needle", "x".repeat(MAX_DP_CELLS));
        assert!(score("needle", &big).is_some());
        let start = MAX_DP_CELLS;
        assert_eq!(spans("needle", &big), [(start, start + 6)]);
        assert_eq!(score("needles", &big), None);
    }

    /// A naive subsequence check with the same folding.
    fn is_subsequence(q: &str, c: &str) -> bool {
        let mut it = c.chars().map(fold);
        query_chars(q).into_iter().all(|qc| it.any(|cc| cc == qc))
    }

    fn check_ranges(candidate: &str, ranges: &[Range<usize>]) -> Result<(), TestCaseError> {
        let mut prev_end: Option<usize> = None;
        for r in ranges {
            prop_assert!(r.start < r.end && r.end <= candidate.len());
            prop_assert!(candidate.is_char_boundary(r.start));
            prop_assert!(candidate.is_char_boundary(r.end));
            if let Some(e) = prev_end {
                // Sorted, disjoint and merged when adjacent.
                prop_assert!(r.start > e);
            }
            prev_end = Some(r.end);
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn any_subsequence_matches(
            candidate in "\\PC{0,40}",
            mask in proptest::collection::vec(any::<bool>(), 40),
        ) {
            let query: String = candidate
                .chars()
                .zip(mask.iter().chain(std::iter::repeat(&false)))
                .filter(|(_, keep)| **keep)
                .map(|(c, _)| c)
                .collect();
            let s = score(&query, &candidate);
            prop_assert!(s.is_some(), "{query:?} in {candidate:?}");
            prop_assert!(s.unwrap() >= BASE_SCORE);
            // The upper-cased query matches as well (where upper-casing keeps the char count).
            let upper = query.to_uppercase();
            if upper.chars().count() == query.chars().count()
                && upper.chars().map(fold).eq(query.chars().map(fold))
            {
                prop_assert_eq!(score(&upper, &candidate), s);
            }
            let ranges = highlight(&query, &candidate);
            check_ranges(&candidate, &ranges)?;
            let highlighted: usize = ranges.iter().map(|r| candidate[r.clone()].chars().count()).sum();
            prop_assert_eq!(highlighted, query_chars(&query).len());
        }

        #[test]
        fn matching_is_exactly_folded_subsequence(q in "\\PC{0,6}", c in "\\PC{0,30}") {
            let s = score(&q, &c);
            prop_assert_eq!(s.is_some(), is_subsequence(&q, &c));
            let ranges = highlight(&q, &c);
            check_ranges(&c, &ranges)?;
            if s.is_some() {
                // The highlighted chars spell the query.
                let spelled: Vec<char> = ranges.iter().flat_map(|r| c[r.clone()].chars()).map(fold).collect();
                prop_assert_eq!(spelled, query_chars(&q));
            } else {
                prop_assert!(ranges.is_empty());
            }
        }

        #[test]
        fn the_dp_finds_an_alignment_at_least_as_good_as_the_leftmost(
            q in "[a-cA-C _]{1,5}",
            c in "[a-cA-C _-]{0,24}",
        ) {
            let qc = query_chars(&q);
            let p = Prepared::new(&c);
            if qc.is_empty() {
                return Ok(());
            }
            if let Some(first) = leftmost(&qc, &p.folded) {
                let greedy = alignment_score(&first, &p);
                let (best, positions) = best_alignment(&qc, &p, first);
                prop_assert!(best >= greedy);
                // The positions are a valid alignment and score what the DP says.
                prop_assert!(positions.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(positions.iter().zip(&qc).all(|(&j, &ch)| p.folded[j] == ch));
                prop_assert_eq!(alignment_score(&positions, &p), best);
            }
        }

        #[test]
        fn rank_is_sorted_and_stable(items in proptest::collection::vec("[a-d ]{0,8}", 0..12), q in "[a-d]{0,3}") {
            let ranked = rank(&q, &items, |s| s.as_str(), usize::MAX);
            for w in ranked.windows(2) {
                prop_assert!(w[0].1 > w[1].1 || (w[0].1 == w[1].1 && w[0].0 < w[1].0));
            }
            let matching = items.iter().filter(|c| score(&q, c).is_some()).count();
            prop_assert_eq!(ranked.len(), matching);
        }
    }
}
