//! Runs a layer's test binaries several at a time (`cargo test` runs them one after another).
//!
//! The host and end-to-end tests spend most of their time waiting on real servers and browsers,
//! so binaries run side by side: `cargo test --no-run --message-format=json` builds them and
//! names their executables, then a small pool runs them, longest first. Each binary's output goes
//! to its own log (`target/xtask-logs/tests/<layer>/…`); a passing binary prints one line, a
//! failing one prints its whole log.
//!
//! Longest first uses the durations of earlier runs (`test-durations.tsv` in the shared cache),
//! else those in `xtask/test-durations.tsv` (checked in, so that a fresh machine starts the long
//! binaries first too), else the size of the test's source file.

use crate::tools;
use crate::util::{cmd, Ctx};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{mpsc, Mutex};
use std::time::Instant;

/// One test executable and where cargo would run it.
#[derive(Clone, Debug)]
pub struct TestBin {
    /// The test's source file relative to the repository, e.g. `crates/e2e/tests/chaos.rs`.
    pub label: String,
    pub exe: PathBuf,
    /// The package's directory (cargo runs tests there).
    pub dir: PathBuf,
    source_bytes: u64,
}

/// What a layer's run counted.
pub struct Outcome {
    pub passed: u64,
    pub failed: u64,
    /// Tests libtest skipped as `#[ignore]` (reported, so that a layer cannot shrink unseen).
    pub ignored: u64,
}

/// What a layer's build made: its test executables and, when it was linted, how many lint
/// warnings and errors the compiler gave on this workspace's code (`None`: not linted).
pub struct Built {
    pub bins: Vec<TestBin>,
    pub warnings: Option<u64>,
}

/// Builds the tests `cargo <args> --no-run` selects and lists their executables. Compiler
/// messages go to the terminal as usual.
///
/// With `lint`, the build is also the clippy check: clippy's driver compiles this workspace's
/// crates (`RUSTC_WORKSPACE_WRAPPER`, as `cargo clippy` does, but with code generation), so one
/// compile both lints and makes the binaries — a separate `cargo clippy --all-targets` would
/// type-check everything a second time (≈ 8 min of a fresh 2-core run for host and wasm32).
/// Cargo keeps those artifacts apart from unlinted ones and replays their warnings when they are
/// fresh, so a warm run counts the same warnings.
pub fn build(ctx: &Ctx, args: &[&str], lint: bool) -> Result<Built, String> {
    let mut c = cmd(ctx, &ctx.cargo);
    c.args(args)
        .arg("--no-run")
        .current_dir(&ctx.root)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let linted = lint && with_lints(ctx, &mut c);
    if linted {
        c.arg("--message-format=json");
    } else {
        c.arg("--message-format=json-render-diagnostics");
    }
    let mut child = c.spawn().map_err(|e| format!("cargo: {e}"))?;
    let mut built = Built {
        bins: Vec::new(),
        warnings: linted.then_some(0),
    };
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if let Some(b) = test_bin(&ctx.root, &v) {
                built.bins.push(b);
            } else if let Some((rendered, counts)) = diagnostic(&v) {
                eprint!("{rendered}");
                if let Some(w) = built.warnings.as_mut() {
                    *w += u64::from(counts);
                }
            }
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("building the tests failed ({status})"));
    }
    Ok(built)
}

/// Compiles this workspace's crates through clippy's driver (see [`build`]). Every dev-profile
/// build xtask makes goes this way, so they share one set of artifacts. False, and nothing
/// changed, when clippy is not installed (`rustup component add clippy`).
pub fn with_lints(ctx: &Ctx, c: &mut Command) -> bool {
    let Some(driver) = lint_wrapper(ctx) else {
        return false;
    };
    c.env("RUSTC_WORKSPACE_WRAPPER", driver);
    true
}

/// The compiler wrapper [`with_lints`] sets, when clippy is installed.
pub fn lint_wrapper(ctx: &Ctx) -> Option<String> {
    let driver = ctx.cargo_bin("clippy-driver");
    Path::new(&driver).is_file().then_some(driver)
}

/// A compiler message from cargo's JSON: its rendered text, and whether it is a lint or an
/// error (a warning with a code, e.g. `clippy::len_zero` or `unused_variables`; the closing
/// "N warnings emitted" has none).
fn diagnostic(v: &Value) -> Option<(String, bool)> {
    if v["reason"] != "compiler-message" {
        return None;
    }
    let m = &v["message"];
    let rendered = m["rendered"].as_str()?.to_string();
    let level = m["level"].as_str().unwrap_or_default();
    let counts = (level == "warning" && !m["code"].is_null()) || level == "error";
    Some((rendered, counts))
}

/// A test executable from one line of cargo's JSON messages.
fn test_bin(root: &Path, v: &Value) -> Option<TestBin> {
    if v["reason"] != "compiler-artifact" || v["profile"]["test"] != true {
        return None;
    }
    let exe = PathBuf::from(v["executable"].as_str()?);
    let src = PathBuf::from(v["target"]["src_path"].as_str()?);
    let dir = PathBuf::from(v["manifest_path"].as_str()?)
        .parent()?
        .to_path_buf();
    let label = src.strip_prefix(root).unwrap_or(&src).display().to_string();
    let source_bytes = fs::metadata(&src).map(|m| m.len()).unwrap_or(0);
    Some(TestBin {
        label,
        exe,
        dir,
        source_bytes,
    })
}

/// How many binaries run at once: `AGENT_CANVAS_TEST_JOBS` or `default`.
pub fn jobs(default: usize) -> usize {
    std::env::var("AGENT_CANVAS_TEST_JOBS")
        .ok()
        .and_then(|j| j.parse().ok())
        .filter(|j| *j > 0)
        .unwrap_or(default)
}

fn durations_file() -> PathBuf {
    tools::cache_dir().join("test-durations.tsv")
}

/// The durations of earlier runs here, over the checked-in ones.
fn read_durations() -> HashMap<String, f64> {
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("test-durations.tsv");
    let mut all = parse_durations(&fs::read_to_string(seed).unwrap_or_default());
    all.extend(parse_durations(
        &fs::read_to_string(durations_file()).unwrap_or_default(),
    ));
    all
}

fn parse_durations(text: &str) -> HashMap<String, f64> {
    text.lines()
        .filter_map(|l| {
            let (label, secs) = l.split_once('\t')?;
            Some((label.to_string(), secs.parse().ok()?))
        })
        .collect()
}

fn write_durations(new: &[(String, f64)]) {
    let mut all = parse_durations(&fs::read_to_string(durations_file()).unwrap_or_default());
    for (label, secs) in new {
        all.insert(label.clone(), *secs);
    }
    let mut rows: Vec<_> = all.into_iter().collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    let text: String = rows.iter().map(|(l, s)| format!("{l}\t{s:.1}\n")).collect();
    let _ = fs::create_dir_all(tools::cache_dir());
    let _ = fs::write(durations_file(), text);
}

/// Longest first: by earlier durations; binaries with none yet (new, or never run unfiltered
/// with a test in it, e.g. the ignored benches) go first, largest source first — one unknown
/// binary must not turn the whole order into source sizes (the longest end-to-end binary then
/// started last and ran alone at the end).
fn order(bins: Vec<TestBin>) -> Vec<TestBin> {
    order_by(bins, &read_durations())
}

fn order_by(mut bins: Vec<TestBin>, known: &HashMap<String, f64>) -> Vec<TestBin> {
    bins.sort_by(|a, b| match (known.get(&a.label), known.get(&b.label)) {
        (Some(x), Some(y)) => y.total_cmp(x),
        (None, Some(_)) => std::cmp::Ordering::Less,
        (Some(_), None) => std::cmp::Ordering::Greater,
        (None, None) => b.source_bytes.cmp(&a.source_bytes),
    });
    bins
}

/// What one `test result:` line counted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: u64,
    pub failed: u64,
    /// `N ignored` (0 when the line has none, as wasm-bindgen-test-runner's may not).
    pub ignored: u64,
}

/// Parses libtest's `test result: ok. 12 passed; 0 failed; 1 ignored; …` line.
pub fn parse_counts(line: &str) -> Option<Counts> {
    let rest = line.trim().strip_prefix("test result: ")?;
    let num_before = |word: &str| -> Option<u64> {
        let idx = rest.find(word)?;
        rest[..idx].split_whitespace().last()?.parse().ok()
    };
    Some(Counts {
        passed: num_before(" passed")?,
        failed: num_before(" failed")?,
        ignored: num_before(" ignored").unwrap_or(0),
    })
}

struct Done {
    bin: TestBin,
    passed: u64,
    failed: u64,
    ignored: u64,
    ok: bool,
    secs: f64,
    log: PathBuf,
}

/// Runs every binary with `args`, `jobs` at a time; `prepare` adds the layer's environment
/// (and may wrap the executable in a runner, e.g. wasm-bindgen-test-runner).
pub fn run(
    ctx: &Ctx,
    layer: &str,
    bins: Vec<TestBin>,
    jobs: usize,
    args: &[String],
    prepare: &(dyn Fn(&TestBin) -> Command + Sync),
) -> Outcome {
    let logs = ctx.logs.join("tests").join(slug(layer));
    let _ = fs::remove_dir_all(&logs);
    let _ = fs::create_dir_all(&logs);
    let total = bins.len();
    let jobs = jobs.clamp(1, total.max(1));
    println!(
        "    {total} test binaries, {jobs} at a time; logs in {}",
        logs.display()
    );
    let _ = std::io::stdout().flush();
    let queue = Mutex::new(order(bins).into_iter().collect::<VecDeque<_>>());
    let (tx, rx) = mpsc::channel::<Done>();
    let mut out = Outcome {
        passed: 0,
        failed: 0,
        ignored: 0,
    };
    let mut times = Vec::new();
    std::thread::scope(|s| {
        for _ in 0..jobs {
            let queue = &queue;
            let tx = tx.clone();
            let logs = &logs;
            s.spawn(move || {
                while let Some(bin) = next(queue) {
                    if tx.send(run_one(bin, logs, args, prepare)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for (n, d) in rx.iter().enumerate() {
            let verdict = if d.ok { "ok" } else { "FAILED" };
            println!(
                "    [{}/{total}] {verdict:<6} {:<44} {:>4} passed, {:>2} failed, {:>2} ignored  ({:.1}s)",
                n + 1,
                d.bin.label,
                d.passed,
                d.failed,
                d.ignored,
                d.secs
            );
            if !d.ok {
                println!("    ---- {} ----", d.log.display());
                println!("{}", fs::read_to_string(&d.log).unwrap_or_default());
                println!("    ---- end of {} ----", d.bin.label);
            }
            let _ = std::io::stdout().flush();
            out.passed += d.passed;
            out.failed += d.failed;
            out.ignored += d.ignored;
            // A run filtered down to other tests says nothing about this binary's length.
            if d.passed + d.failed > 0 {
                times.push((d.bin.label.clone(), d.secs));
            }
        }
    });
    write_durations(&times);
    out
}

/// The next binary to run (the queue's lock is released before it runs).
fn next(queue: &Mutex<VecDeque<TestBin>>) -> Option<TestBin> {
    queue.lock().ok()?.pop_front()
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '-' })
        .collect()
}

fn run_one(
    bin: TestBin,
    logs: &Path,
    args: &[String],
    prepare: &(dyn Fn(&TestBin) -> Command + Sync),
) -> Done {
    let log = logs.join(format!("{}.log", slug(&bin.label)));
    let t0 = Instant::now();
    let started = fs::File::create(&log).and_then(|f| {
        let err = f.try_clone()?;
        let mut c = prepare(&bin);
        c.args(args)
            .current_dir(&bin.dir)
            .stdin(Stdio::null())
            .stdout(f)
            .stderr(err)
            .status()
    });
    let secs = t0.elapsed().as_secs_f64();
    let (mut passed, mut failed, mut ignored) = (0, 0, 0);
    for line in fs::read_to_string(&log).unwrap_or_default().lines() {
        if let Some(c) = parse_counts(line) {
            passed += c.passed;
            failed += c.failed;
            ignored += c.ignored;
        }
    }
    let ok = match &started {
        Ok(status) => status.success(),
        Err(e) => {
            let _ = fs::write(&log, format!("could not run {}: {e}\n", bin.exe.display()));
            false
        }
    };
    // A binary that fails without reporting a failed test (a crash, a timeout) is one failure.
    if !ok && failed == 0 {
        failed = 1;
    }
    Done {
        bin,
        passed,
        failed,
        ignored,
        ok,
        secs,
        log,
    }
}

#[cfg(test)]
mod tests {
    use super::{diagnostic, order_by, parse_counts, test_bin, Counts, TestBin};
    use serde_json::Value;
    use std::path::Path;

    /// (passed, failed) of a `test result:` line.
    fn parse_result(line: &str) -> Option<(u64, u64)> {
        parse_counts(line).map(|c| (c.passed, c.failed))
    }

    #[test]
    fn parses_libtest_summary() {
        assert_eq!(
            parse_result("test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured"),
            Some((12, 0))
        );
        assert_eq!(
            parse_result("test result: FAILED. 3 passed; 2 failed; 0 ignored"),
            Some((3, 2))
        );
        assert_eq!(parse_result("running 3 tests"), None);
    }

    #[test]
    fn counts_ignored_tests() {
        let counts = |passed, failed, ignored| Counts {
            passed,
            failed,
            ignored,
        };
        assert_eq!(
            parse_counts("test result: ok. 12 passed; 0 failed; 3 ignored; 0 measured; 0 filtered out; finished in 0.01s"),
            Some(counts(12, 0, 3))
        );
        assert_eq!(
            parse_counts("test result: FAILED. 3 passed; 2 failed; 0 ignored"),
            Some(counts(3, 2, 0))
        );
        // A runner that does not say how many it ignored: none.
        assert_eq!(
            parse_counts("test result: ok. 5 passed; 0 failed"),
            Some(counts(5, 0, 0))
        );
        assert_eq!(parse_counts("test bench_x ... ignored"), None);
    }

    #[test]
    fn reads_test_executables_from_cargo_messages() {
        let json = |line: &str| serde_json::from_str::<Value>(line).expect("json");
        let line = r#"{"reason":"compiler-artifact","package_id":"path+file:///r/crates/e2e#canvas-e2e@0.1.0","manifest_path":"/r/crates/e2e/Cargo.toml","target":{"kind":["test"],"name":"chaos","src_path":"/r/crates/e2e/tests/chaos.rs"},"profile":{"test":true},"executable":"/r/target/debug/deps/chaos-0a1b"}"#;
        let b = test_bin(Path::new("/r"), &json(line)).expect("a test binary");
        assert_eq!(b.label, "crates/e2e/tests/chaos.rs");
        assert_eq!(b.exe, Path::new("/r/target/debug/deps/chaos-0a1b"));
        assert_eq!(b.dir, Path::new("/r/crates/e2e"));
        // A library built for the tests (not a test itself) and other messages are skipped.
        let lib = r#"{"reason":"compiler-artifact","manifest_path":"/r/Cargo.toml","target":{"src_path":"/r/src/lib.rs"},"profile":{"test":false},"executable":null}"#;
        assert!(test_bin(Path::new("/r"), &json(lib)).is_none());
        assert!(test_bin(
            Path::new("/r"),
            &json(r#"{"reason":"build-finished","success":true}"#)
        )
        .is_none());
    }

    #[test]
    fn runs_the_longest_first_and_the_unknown_before_them() {
        let bin = |label: &str, source_bytes: u64| TestBin {
            label: label.to_string(),
            exe: label.into(),
            dir: ".".into(),
            source_bytes,
        };
        let known = [("chaos", 399.0), ("chat", 236.0), ("xss", 17.0)]
            .into_iter()
            .map(|(l, s)| (l.to_string(), s))
            .collect();
        let bins = vec![
            bin("xss", 9),
            bin("bench", 90),
            bin("chat", 50),
            bin("new", 5),
            bin("chaos", 10),
        ];
        let labels: Vec<String> = order_by(bins, &known)
            .into_iter()
            .map(|b| b.label)
            .collect();
        assert_eq!(labels, ["bench", "new", "chaos", "chat", "xss"]);
    }

    #[test]
    fn counts_lints_and_errors_but_not_the_closing_summary() {
        let msg = |level: &str, code: &str| {
            serde_json::from_str::<Value>(&format!(
                r#"{{"reason":"compiler-message","message":{{"level":"{level}","code":{code},"rendered":"{level}: text\n"}}}}"#
            ))
            .expect("json")
        };
        let lint = msg(
            "warning",
            r#"{"code":"clippy::len_zero","explanation":null}"#,
        );
        assert_eq!(
            diagnostic(&lint),
            Some(("warning: text\n".to_string(), true))
        );
        assert_eq!(diagnostic(&msg("error", "null")).map(|d| d.1), Some(true));
        // "warning: 1 warning emitted" has no code.
        assert_eq!(
            diagnostic(&msg("warning", "null")).map(|d| d.1),
            Some(false)
        );
        assert_eq!(
            diagnostic(&serde_json::json!({"reason": "build-finished"})),
            None
        );
    }
}
