//! Line diff of a file's before/after (`GET /api/git/diff`), shown unified or side by side.
//!
//! The common prefix and suffix are trimmed, then the middle is aligned by Myers' algorithm
//! (the `similar` crate): a shortest edit script, so one changed line in a large file is one
//! removed and one added line. Myers' work grows with the lines times the edits; when even a
//! lower bound of it (lines that occur more often on one side than on the other) passes
//! [`MAX_CELLS`], the middle is shown as removed-then-added (correct, just not minimal, and the
//! edit is then mostly a rewrite anyway) so a huge rewrite never stalls the page.

use std::collections::HashMap;

use similar::{capture_diff_slices, Algorithm, DiffTag};

/// The most work allowed to the aligner: the changed middle's lines (old + new) times a lower
/// bound of the edits it needs.
pub const MAX_CELLS: usize = 20_000_000;

/// What happened to a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// In both.
    Same,
    /// Only in the new text.
    Added,
    /// Only in the old text.
    Removed,
}

impl LineKind {
    /// CSS modifier.
    pub fn css(self) -> &'static str {
        match self {
            LineKind::Same => "same",
            LineKind::Added => "added",
            LineKind::Removed => "removed",
        }
    }

    /// The unified-diff marker.
    pub fn marker(self) -> &'static str {
        match self {
            LineKind::Same => " ",
            LineKind::Added => "+",
            LineKind::Removed => "-",
        }
    }
}

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffLine {
    /// What happened.
    pub kind: LineKind,
    /// 1-based line number in the old text.
    pub old_no: Option<usize>,
    /// 1-based line number in the new text.
    pub new_no: Option<usize>,
    /// The text (no newline).
    pub text: String,
}

fn lines(s: &str) -> Vec<&str> {
    if s.is_empty() {
        return Vec::new();
    }
    s.strip_suffix('\n').unwrap_or(s).split('\n').collect()
}

/// The line diff of `old` → `new` (`None` = the file is absent on that side).
pub fn diff_lines(old: Option<&str>, new: Option<&str>) -> Vec<DiffLine> {
    let a = lines(old.unwrap_or(""));
    let b = lines(new.unwrap_or(""));
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut ops: Vec<LineKind> = vec![LineKind::Same; prefix];
    ops.extend(middle(am, bm));
    ops.extend(std::iter::repeat_n(LineKind::Same, suffix));

    let (mut i, mut j) = (0, 0);
    ops.into_iter()
        .map(|k| match k {
            LineKind::Same => {
                i += 1;
                j += 1;
                DiffLine {
                    kind: k,
                    old_no: Some(i),
                    new_no: Some(j),
                    text: a[i - 1].to_string(),
                }
            }
            LineKind::Removed => {
                i += 1;
                DiffLine {
                    kind: k,
                    old_no: Some(i),
                    new_no: None,
                    text: a[i - 1].to_string(),
                }
            }
            LineKind::Added => {
                j += 1;
                DiffLine {
                    kind: k,
                    old_no: None,
                    new_no: Some(j),
                    text: b[j - 1].to_string(),
                }
            }
        })
        .collect()
}

fn middle(a: &[&str], b: &[&str]) -> Vec<LineKind> {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 || (n + m).saturating_mul(min_edits(a, b)) > MAX_CELLS {
        let mut v = vec![LineKind::Removed; n];
        v.extend(std::iter::repeat_n(LineKind::Added, m));
        return v;
    }
    let mut out = Vec::with_capacity(n + m);
    for op in capture_diff_slices(Algorithm::Myers, a, b) {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => out.extend(std::iter::repeat_n(LineKind::Same, old.len())),
            DiffTag::Delete => out.extend(std::iter::repeat_n(LineKind::Removed, old.len())),
            DiffTag::Insert => out.extend(std::iter::repeat_n(LineKind::Added, new.len())),
            DiffTag::Replace => {
                out.extend(std::iter::repeat_n(LineKind::Removed, old.len()));
                out.extend(std::iter::repeat_n(LineKind::Added, new.len()));
            }
        }
    }
    out
}

/// A lower bound of the lines any edit script removes or adds: each line counts by how much
/// more often it occurs on one side than on the other.
fn min_edits(a: &[&str], b: &[&str]) -> usize {
    let mut count: HashMap<&str, i64> = HashMap::new();
    for l in a {
        *count.entry(l).or_default() += 1;
    }
    for l in b {
        *count.entry(l).or_default() -= 1;
    }
    count.values().map(|c| c.unsigned_abs() as usize).sum()
}

/// A unified-diff hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// `@@ -a,b +c,d @@`.
    pub header: String,
    /// Its lines (context and changes).
    pub lines: Vec<DiffLine>,
}

/// Groups a diff into hunks with `context` unchanged lines around each change.
pub fn unified(diff: &[DiffLine], context: usize) -> Vec<Hunk> {
    let changed: Vec<usize> = diff
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind != LineKind::Same)
        .map(|(i, _)| i)
        .collect();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    for &c in &changed {
        let (s, e) = (c.saturating_sub(context), (c + context + 1).min(diff.len()));
        match ranges.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => ranges.push((s, e)),
        }
    }
    ranges
        .into_iter()
        .map(|(s, e)| {
            let lines = diff[s..e].to_vec();
            let old_count = lines.iter().filter(|l| l.old_no.is_some()).count();
            let new_count = lines.iter().filter(|l| l.new_no.is_some()).count();
            // The line before the hunk on each side (for empty sides, as `diff -u` does).
            let old_before = diff[..s].iter().filter(|l| l.old_no.is_some()).count();
            let new_before = diff[..s].iter().filter(|l| l.new_no.is_some()).count();
            let start = |before: usize, count: usize| if count == 0 { before } else { before + 1 };
            Hunk {
                header: format!(
                    "@@ -{},{} +{},{} @@",
                    start(old_before, old_count),
                    old_count,
                    start(new_before, new_count),
                    new_count
                ),
                lines,
            }
        })
        .collect()
}

/// One side of a side-by-side row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// 1-based line number.
    pub no: usize,
    /// Text.
    pub text: String,
    /// `Same`, or `Removed` (left) / `Added` (right).
    pub kind: LineKind,
}

/// A side-by-side row: old on the left, new on the right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The old line, if any.
    pub left: Option<Cell>,
    /// The new line, if any.
    pub right: Option<Cell>,
}

/// Pairs each run of removed lines with the added lines that follow it.
pub fn side_by_side(diff: &[DiffLine]) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut i = 0;
    while i < diff.len() {
        let l = &diff[i];
        if l.kind == LineKind::Same {
            let cell = |no: Option<usize>| {
                no.map(|no| Cell {
                    no,
                    text: l.text.clone(),
                    kind: LineKind::Same,
                })
            };
            rows.push(Row {
                left: cell(l.old_no),
                right: cell(l.new_no),
            });
            i += 1;
            continue;
        }
        let removed: Vec<&DiffLine> = diff[i..]
            .iter()
            .take_while(|l| l.kind == LineKind::Removed)
            .collect();
        i += removed.len();
        let added: Vec<&DiffLine> = diff[i..]
            .iter()
            .take_while(|l| l.kind == LineKind::Added)
            .collect();
        i += added.len();
        for k in 0..removed.len().max(added.len()) {
            let cell = |l: Option<&&DiffLine>, no: fn(&DiffLine) -> Option<usize>| {
                l.map(|l| Cell {
                    no: no(l).unwrap_or(0),
                    text: l.text.clone(),
                    kind: l.kind,
                })
            };
            rows.push(Row {
                left: cell(removed.get(k), |l| l.old_no),
                right: cell(added.get(k), |l| l.new_no),
            });
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(d: &[DiffLine]) -> String {
        d.iter()
            .map(|l| format!("{}{}", l.kind.marker(), l.text))
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn diff_table() {
        for (old, new, want) in [
            (
                Some("one\nshared\n"),
                Some("two\nshared\n"),
                "-one|+two| shared",
            ),
            (None, Some("a\nb"), "+a|+b"),
            (Some("a\nb"), None, "-a|-b"),
            (Some("a\nb\nc"), Some("a\nb\nc"), " a| b| c"),
            (Some("a\nb\nc"), Some("a\nc"), " a|-b| c"),
            (Some("a\nc"), Some("a\nb\nc\nd"), " a|+b| c|+d"),
            (Some("x\na\nb"), Some("a\nb\ny"), "-x| a| b|+y"),
            (Some(""), Some(""), ""),
        ] {
            assert_eq!(marks(&diff_lines(old, new)), want, "{old:?} → {new:?}");
        }
    }

    #[test]
    fn numbers() {
        let d = diff_lines(Some("a\nb\nc"), Some("a\nB\nc"));
        let nos: Vec<_> = d.iter().map(|l| (l.old_no, l.new_no)).collect();
        assert_eq!(
            nos,
            [
                (Some(1), Some(1)),
                (Some(2), None),
                (None, Some(2)),
                (Some(3), Some(3))
            ]
        );
    }

    #[test]
    fn hunks() {
        let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l3\n", "L3\n").replace("l18\n", "");
        let h = unified(&diff_lines(Some(&old), Some(&new)), 2);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].header, "@@ -1,5 +1,5 @@");
        assert_eq!(marks(&h[0].lines), " l1| l2|-l3|+L3| l4| l5");
        assert_eq!(h[1].header, "@@ -16,5 +16,4 @@");
        assert!(unified(&diff_lines(Some("a"), Some("a")), 3).is_empty());
        let h = unified(&diff_lines(None, Some("x\n")), 3);
        assert_eq!(h[0].header, "@@ -0,0 +1,1 @@");
    }

    #[test]
    fn side_by_side_pairs_runs() {
        let rows = side_by_side(&diff_lines(Some("a\nb\nc\nz"), Some("a\nB\nz")));
        let show = |c: &Option<Cell>| c.as_ref().map(|c| format!("{}:{}", c.no, c.text));
        let got: Vec<_> = rows
            .iter()
            .map(|r| (show(&r.left), show(&r.right)))
            .collect();
        assert_eq!(
            got,
            [
                (Some("1:a".into()), Some("1:a".into())),
                (Some("2:b".into()), Some("2:B".into())),
                (Some("3:c".into()), None),
                (Some("4:z".into()), Some("3:z".into())),
            ]
        );
    }

    #[test]
    fn huge_middles_degrade_gracefully() {
        let old: String = (0..3000).map(|i| format!("a{i}\n")).collect();
        let new: String = (0..3000).map(|i| format!("b{i}\n")).collect();
        let d = diff_lines(Some(&old), Some(&new));
        assert_eq!(d.len(), 6000);
        assert_eq!(d[0].kind, LineKind::Removed);
        assert_eq!(d[5999].kind, LineKind::Added);
    }

    #[test]
    fn one_changed_line_in_a_large_file_is_one_removed_and_one_added() {
        let old: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 10000\n", "line ten thousand\n");
        let d = diff_lines(Some(&old), Some(&new));
        let changed: Vec<_> = d
            .iter()
            .filter(|l| l.kind != LineKind::Same)
            .map(|l| (l.kind, l.old_no, l.new_no, l.text.as_str()))
            .collect();
        assert_eq!(
            changed,
            [
                (LineKind::Removed, Some(10_001), None, "line 10000"),
                (LineKind::Added, None, Some(10_001), "line ten thousand"),
            ]
        );
        assert_eq!(d.len(), 20_001);
    }

    #[test]
    fn changes_far_apart_in_a_large_file_stay_minimal() {
        // The first and the last line change: the middle between the common prefix and suffix
        // is the whole file (5000 × 5000 lines, past the old LCS table's limit, which then
        // showed all 5000 lines removed and added).
        let old: String = (0..5_000).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l0\n", "first\n").replace("l4999\n", "last\n");
        let d = diff_lines(Some(&old), Some(&new));
        assert_eq!(
            marks(
                &d.iter()
                    .filter(|l| l.kind != LineKind::Same)
                    .cloned()
                    .collect::<Vec<_>>()
            ),
            "-l0|+first|-l4999|+last"
        );
        assert_eq!(d.len(), 5_002);
        let h = unified(&d, 1);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].header, "@@ -1,2 +1,2 @@");
        assert_eq!(h[1].header, "@@ -4999,2 +4999,2 @@");
    }
}
