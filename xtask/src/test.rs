//! `cargo xtask test`: installs what is missing, then every layer — rustfmt, host tests,
//! wasm-bindgen tests in headless Chromium, end-to-end tests (release build, real agent server,
//! real Chromium) — and ends with one line `N passed, M failed, I ignored; checks: K ok, L failed`.
//! Clippy runs inside the layers' builds (`pool::build`), not as a compile of its own. An
//! unfiltered run of a test layer that passes fewer tests than its minimum in
//! `xtask/test-minimums.tsv` fails that layer's "minimum passed" check.

use crate::build;
use crate::pool::{self, TestBin};
use crate::split;
use crate::tools;
use crate::util::{cmd, step, Ctx};
use canvas_harness::{random_hex, AgentServer, AgentServerOptions};
use std::collections::HashMap;
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

const LAYERS: &[&str] = &["checks", "host", "wasm", "e2e"];

/// `cargo xtask test [--layer checks|host|wasm|e2e]... [-- <filter>]`.
#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// A layer to run; repeat for several (default: every layer)
    #[arg(
        long = "layer",
        value_name = "LAYER",
        value_parser = clap::builder::PossibleValuesParser::new(LAYERS)
    )]
    layers: Vec<String>,
    /// Test-name filter for the test layers (after `--`); a filtered run skips the minimums
    #[arg(last = true, value_name = "FILTER")]
    filter: Vec<String>,
}

/// What a run counted: tests (passed, failed, ignored) and checks (fmt, clippy, the size
/// budget, the layers' minimum counts), which are reported apart from the tests.
#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    ignored: u64,
    checks_ok: u64,
    checks_failed: u64,
    lines: Vec<String>,
}

impl Tally {
    fn record(&mut self, layer: &str, passed: u64, failed: u64, ignored: u64, secs: f64) {
        self.passed += passed;
        self.failed += failed;
        self.ignored += ignored;
        self.lines.push(format!(
            "  {layer:<28} {passed:>4} passed, {failed:>3} failed, {ignored:>3} ignored  ({secs:.1}s)"
        ));
    }

    fn check(&mut self, name: &str, ok: bool, secs: f64) {
        if ok {
            self.checks_ok += 1;
        } else {
            self.checks_failed += 1;
        }
        let word = if ok { "ok" } else { "FAILED" };
        self.lines
            .push(format!("  {name:<28} check {word:<17}  ({secs:.1}s)"));
    }

    /// The last line: the tests, then the checks.
    fn summary(&self) -> String {
        format!(
            "{} passed, {} failed, {} ignored; checks: {} ok, {} failed",
            self.passed, self.failed, self.ignored, self.checks_ok, self.checks_failed
        )
    }

    fn ok(&self) -> bool {
        self.failed == 0 && self.checks_failed == 0
    }
}

/// The checked-in minimum number of passing tests per layer (`xtask/test-minimums.tsv`).
fn minimums_file() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("test-minimums.tsv")
}

/// Parses `layer<TAB>minimum passed` lines; `#` comments and blank lines are skipped. A line
/// that is neither is an error (a typo must not switch a layer's minimum off).
fn parse_minimums(text: &str) -> Result<HashMap<String, u64>, String> {
    let mut out = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let parsed = line
            .split_once('\t')
            .and_then(|(layer, min)| Some((layer.trim(), min.trim().parse::<u64>().ok()?)))
            .filter(|(layer, _)| LAYERS.contains(layer));
        match parsed {
            Some((layer, min)) => {
                out.insert(layer.to_string(), min);
            }
            None => {
                return Err(format!(
                    "line {}: expected `layer<TAB>number`: {line:?}",
                    n + 1
                ))
            }
        }
    }
    Ok(out)
}

/// A layer's count against its minimum: `None` when there is nothing to check (a filtered
/// run, or no minimum for the layer), else the line to print, `Err` when too few passed.
fn check_minimum(
    minimums: &HashMap<String, u64>,
    layer: &str,
    passed: u64,
    filtered: bool,
) -> Option<Result<String, String>> {
    let min = *minimums.get(layer)?;
    if filtered {
        return None;
    }
    Some(if passed >= min {
        Ok(format!("{layer}: {passed} passed, at least {min} expected"))
    } else {
        Err(format!(
            "{layer}: only {passed} passed, at least {min} expected (xtask/test-minimums.tsv): \
             tests were removed, ignored or not found; lower the minimum only on purpose"
        ))
    })
}

/// Builds a layer's test binaries and runs them side by side (see `pool`). A build that fails
/// counts as one failure. With `lint` (a check's name), the build is also that clippy check
/// (`pool::build`): it passes when the build gave no lint warning. `key` is the layer's name in
/// `LAYERS`; an unfiltered run must pass at least its minimum (a check).
#[allow(clippy::too_many_arguments)]
fn run_layer(
    ctx: &Ctx,
    tally: &mut Tally,
    (key, layer): (&str, &str),
    filtered: bool,
    build_args: &[&str],
    lint: Option<&str>,
    jobs: usize,
    args: &[String],
    prepare: &(dyn Fn(&TestBin) -> Command + Sync),
) {
    step(ctx, layer);
    let t0 = Instant::now();
    let built = pool::build(ctx, build_args, lint.is_some());
    if let Some(check) = lint {
        let secs = t0.elapsed().as_secs_f64();
        match &built {
            Ok(pool::Built {
                warnings: Some(0), ..
            }) => tally.check(check, true, secs),
            Ok(pool::Built {
                warnings: Some(n), ..
            }) => {
                println!("    {check}: {n} warning(s) above");
                tally.check(check, false, secs);
            }
            Ok(pool::Built { warnings: None, .. }) => {
                println!("    {check}: clippy is not installed (rustup component add clippy)");
                tally.check(check, false, secs);
            }
            Err(_) => tally.check(check, false, secs),
        }
    }
    match built {
        Ok(built) => {
            let out = pool::run(ctx, layer, built.bins, jobs, args, prepare);
            let secs = t0.elapsed().as_secs_f64();
            tally.record(layer, out.passed, out.failed, out.ignored, secs);
            if out.ignored > 0 {
                println!("    {layer}: {} ignored", out.ignored);
            }
            let minimums = fs::read_to_string(minimums_file())
                .map_err(|e| format!("{}: {e}", minimums_file().display()))
                .and_then(|text| parse_minimums(&text));
            let check = format!("{key}: minimum passed");
            match minimums.map(|m| check_minimum(&m, key, out.passed, filtered)) {
                Ok(None) => {}
                Ok(Some(Ok(line))) => {
                    println!("    {line}");
                    tally.check(&check, true, 0.0);
                }
                Ok(Some(Err(line))) | Err(line) => {
                    println!("    FAILED {line}");
                    tally.check(&check, false, 0.0);
                }
            }
        }
        Err(e) => {
            println!("    {e}");
            tally.record(layer, 0, 1, 0, t0.elapsed().as_secs_f64());
        }
    }
}

/// A check (fmt, clippy): ok or failed, counted apart from the tests.
fn run_check(ctx: &Ctx, tally: &mut Tally, layer: &str, c: &mut Command) {
    step(ctx, layer);
    let t0 = Instant::now();
    let ok = c.status().map(|s| s.success()).unwrap_or(false);
    tally.check(layer, ok, t0.elapsed().as_secs_f64());
}

/// What a full run on an empty `target/` may write there: 5.6 GB measured without
/// incremental-compilation caches (as `.ci/run` builds), more with them (docs/measurements.md,
/// session 38); and what a warm run may still add (new artifacts beside the old ones).
const COLD_RUN_BYTES: u64 = 12 << 30;
const WARM_RUN_BYTES: u64 = 4 << 30;

/// A full disk shows up late and obscurely — the linker dies with a bus error half-way through
/// the end-to-end layer —, so say it first, with what to do. A warning, not a refusal: the
/// estimate is for a full run, and `df` may be missing.
fn disk_check(ctx: &Ctx, layers: &[String]) {
    let target = ctx.root.join("target");
    let cold = !target.join("debug").is_dir();
    let full = layers.len() == LAYERS.len();
    if let Some(free) = crate::util::free_space(&ctx.root) {
        if let Some(warning) = disk_warning(&target, free, cold, full) {
            println!("{warning}");
        }
    }
}

/// The warning for `free` bytes beside `target`, if that is less than a run may write.
fn disk_warning(target: &std::path::Path, free: u64, cold: bool, full: bool) -> Option<String> {
    let need = if cold { COLD_RUN_BYTES } else { WARM_RUN_BYTES };
    if free >= need {
        return None;
    }
    let gb = |b: u64| format!("{:.1} GB", b as f64 / f64::from(1u32 << 30));
    Some(format!(
        "warning: {} free on the disk holding {}; a {} {}run may write {} there. If a build \
         fails with \"No space left on device\" or the linker dies with a bus error, free \
         space (e.g. `cargo clean` in other checkouts) and run again.",
        gb(free),
        target.display(),
        if cold { "cold" } else { "warm" },
        if full { "full " } else { "" },
        gb(need),
    ))
}

pub fn test(ctx: &Ctx, args: TestArgs) -> Result<bool, String> {
    let TestArgs { mut layers, filter } = args;
    if layers.is_empty() {
        layers = LAYERS.iter().map(|s| s.to_string()).collect();
    }
    let want = |l: &str| layers.iter().any(|x| x == l);

    disk_check(ctx, &layers);

    // Installs first (idempotent): everything the selected layers need.
    step(ctx, "checking tools");
    if want("wasm") || want("e2e") || want("checks") {
        tools::ensure_build_tools(ctx)?;
    }
    if want("wasm") || want("e2e") {
        tools::ensure_chromium(ctx)?;
    }
    let python = if want("e2e") || want("host") {
        Some(tools::ensure_agent_server_venv(ctx)?)
    } else {
        None
    };
    // The automation service and what its runs need (issue #14), and the Omnigent venv
    // (issue #12), for host and e2e tests.
    let automation_vars = if want("e2e") || want("host") {
        let py = tools::ensure_automation_venv(ctx)?;
        let mut vars = tools::ensure_run_tooling(ctx, &py)?.vars();
        vars.push((
            "CANVAS_AUTOMATION_PYTHON".to_string(),
            py.display().to_string(),
        ));
        // The Omnigent server and host (issue #12).
        let omnigent = tools::ensure_omnigent_venv(ctx)?;
        vars.push((
            "CANVAS_OMNIGENT_PYTHON".to_string(),
            omnigent.display().to_string(),
        ));
        vars
    } else {
        Vec::new()
    };

    // The release build of the app (the end-to-end layer's input) starts now, beside the other
    // layers: its own profile directories (target/release, target/wasm32-unknown-unknown/release)
    // do not share cargo's locks with theirs, and its long single-threaded link (LTO) fills the
    // CPU while the host and wasm tests wait on servers and browsers.
    std::thread::scope(|s| {
        let release = want("e2e").then(|| s.spawn(|| build::build_release(ctx, false)));
        let dist = move || match release {
            Some(h) => h
                .join()
                .unwrap_or_else(|_| Err("the release build panicked".to_string())),
            None => Err("the release build was not started".to_string()),
        };
        run_layers(
            ctx,
            &want,
            &filter,
            python.as_deref(),
            &automation_vars,
            dist,
        )
    })
}

/// The layers in order; `dist` waits for the release app.
fn run_layers(
    ctx: &Ctx,
    want: &dyn Fn(&str) -> bool,
    filter: &[String],
    python: Option<&std::path::Path>,
    automation_vars: &[(String, String)],
    dist: impl FnOnce() -> Result<std::path::PathBuf, String>,
) -> Result<bool, String> {
    let mut tally = Tally::default();
    let cargo = |args: &[&str]| {
        let mut c = cmd(ctx, &ctx.cargo);
        c.args(args).current_dir(&ctx.root);
        c
    };

    // Clippy: a layer that builds tests lints them in the same compile (`pool::build`), so
    // the checks layer runs clippy itself only for what no selected layer builds.
    let lint = |layer: &str, check: &'static str| (want("checks") && want(layer)).then_some(check);
    if want("checks") {
        run_check(
            ctx,
            &mut tally,
            "rustfmt --check",
            &mut cargo(&["fmt", "--all", "--", "--check"]),
        );
        // No two files of the app or of canvas-serve import each other (issue #31).
        step(ctx, "import cycles");
        let t0 = Instant::now();
        let found = crate::cycles::check(&ctx.root);
        if let Err(report) = &found {
            println!("{report}");
        }
        tally.check("import cycles", found.is_ok(), t0.elapsed().as_secs_f64());
        // The templates' catalogue is upstream's, as the pinned npm package has it.
        step(ctx, "automation templates catalogue");
        let t0 = Instant::now();
        let same = crate::catalog::check(&ctx.root);
        if let Err(e) = &same {
            println!("{e}");
        }
        tally.check(
            "automation templates catalogue",
            same.is_ok(),
            t0.elapsed().as_secs_f64(),
        );
        if !want("host") || !want("e2e") {
            run_check(
                ctx,
                &mut tally,
                "clippy (host)",
                &mut cargo(&[
                    "clippy",
                    "--quiet",
                    "--workspace",
                    "--exclude",
                    "agent-canvas-app",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ]),
            );
        }
        if !want("wasm") {
            // The app with its browser tests (core's library is linted with it, as a
            // workspace member it depends on).
            run_check(
                ctx,
                &mut tally,
                "clippy (wasm32)",
                &mut cargo(&[
                    "clippy",
                    "--quiet",
                    "-p",
                    "agent-canvas-app",
                    "--target",
                    "wasm32-unknown-unknown",
                    "--all-targets",
                    "--",
                    "-D",
                    "warnings",
                ]),
            );
        }
    }

    if want("host") {
        // Four at a time: most host binaries wait on real servers (agent server, automation
        // service, Omnigent), not on the CPU.
        run_layer(
            ctx,
            &mut tally,
            ("host", "host tests"),
            !filter.is_empty(),
            &[
                "test",
                "--workspace",
                "--exclude",
                "agent-canvas-app",
                "--exclude",
                "canvas-e2e",
            ],
            lint("host", "clippy (host tests)"),
            pool::jobs(4),
            filter,
            &|b| {
                let mut c = cmd(ctx, &b.exe);
                if let Some(p) = python {
                    c.env("CANVAS_AGENT_PYTHON", p);
                }
                c.envs(automation_vars.iter().cloned());
                c
            },
        );
    }

    if want("wasm") {
        // chromedriver gives each browser a fresh profile in TMPDIR (≈ 120 MB) and never
        // removes it when the runner is killed: keep them in a folder of our own, emptied
        // before and after (20 tests leaked ≈ 2.5 GB into /tmp per run).
        let tmp = ctx.root.join("target/wasm-test-tmp");
        let _ = fs::remove_dir_all(&tmp);
        let _ = fs::create_dir_all(&tmp);
        let runner = ctx.cargo_bin("wasm-bindgen-test-runner");
        run_layer(
            ctx,
            &mut tally,
            ("wasm", "wasm tests (Chromium)"),
            !filter.is_empty(),
            &[
                "test",
                "-p",
                "agent-canvas-app",
                "--target",
                "wasm32-unknown-unknown",
            ],
            lint("wasm", "clippy (wasm32: app, core)"),
            pool::jobs(2),
            filter,
            &|b| {
                // What cargo's `runner` for wasm32 (.cargo/config.toml) would run.
                let mut c = cmd(ctx, &runner);
                c.arg(&b.exe)
                    .env("CHROMEDRIVER", "/usr/bin/chromedriver")
                    .env("WASM_BINDGEN_TEST_TIMEOUT", "60")
                    .env("TMPDIR", &tmp);
                c
            },
        );
        let _ = fs::remove_dir_all(&tmp);
    }

    if want("e2e") {
        match dist().and_then(|dist| e2e_env_for(ctx, python, dist)) {
            Ok((env, _agent)) => {
                step(ctx, "size budget (gzip bytes before the first render)");
                match split::check_budget(ctx, &build::dist_dir(ctx)) {
                    Ok(line) => {
                        println!("    {line}");
                        tally.check("size budget", true, 0.0);
                    }
                    Err(e) => {
                        println!("    {e}");
                        tally.check("size budget", false, 0.0);
                    }
                }
                // Binaries side by side, two tests at a time inside each: the tests wait on
                // servers and browsers; each has its own browser, serve and (where it changes
                // them) its own agent server.
                let mut args = vec!["--test-threads=2".to_string()];
                args.extend(filter.iter().cloned());
                let vars: Vec<(String, String)> = env
                    .into_iter()
                    .chain(automation_vars.iter().cloned())
                    .collect();
                run_layer(
                    ctx,
                    &mut tally,
                    ("e2e", "end-to-end (Chromium)"),
                    !filter.is_empty(),
                    &["test", "-p", "canvas-e2e"],
                    lint("e2e", "clippy (end-to-end tests)"),
                    pool::jobs(2),
                    &args,
                    &|b| {
                        let mut c = cmd(ctx, &b.exe);
                        c.envs(vars.iter().cloned());
                        c
                    },
                );
            }
            Err(e) => {
                println!("    end-to-end setup failed: {e}");
                tally.record("end-to-end (setup)", 0, 1, 0, 0.0);
            }
        }
    }

    println!();
    for l in &tally.lines {
        println!("{l}");
    }
    println!("  total time {:.1}s", ctx.started.elapsed().as_secs_f64());
    println!("{}", tally.summary());
    Ok(tally.ok())
}

/// Builds the release app and starts the shared agent server for the end-to-end layer.
pub(crate) fn e2e_env(
    ctx: &Ctx,
    python: Option<&std::path::Path>,
) -> Result<(Vec<(String, String)>, AgentServer), String> {
    let dist = build::build_release(ctx, false)?;
    e2e_env_for(ctx, python, dist)
}

/// Builds canvas-serve and starts the shared agent server for the end-to-end layer over the
/// release app in `dist`.
fn e2e_env_for(
    ctx: &Ctx,
    python: Option<&std::path::Path>,
    dist: std::path::PathBuf,
) -> Result<(Vec<(String, String)>, AgentServer), String> {
    let python = python.ok_or("no agent-server python")?;
    build::build_serve(ctx, &dist)?;
    // The wheel people install (issue #40), built over the tests' artifacts.
    step(
        ctx,
        "building the agent-canvas wheel (maturin, dev profile)",
    );
    let wheel = crate::dist::wheel(ctx, &dist, "dev", &ctx.root.join("target/e2e-wheel"))?;
    // Outside the checkout: the agent server treats a working directory inside another git
    // repository as part of it (the Changes tab would show this repository's history).
    let state =
        crate::util::state_home().join(format!("e2e-{}", crate::util::checkout_tag(&ctx.root)));
    let _ = fs::remove_dir_all(&state);
    fs::create_dir_all(&state).map_err(|e| e.to_string())?;
    let key = random_hex(32).map_err(|e| e.to_string())?;
    let port = canvas_harness::free_port().map_err(|e| e.to_string())?;
    step(ctx, "starting the shared agent server for end-to-end tests");
    let agent = AgentServer::start(&AgentServerOptions::new(
        python.to_path_buf(),
        port,
        state.join("shared-agent"),
        key.clone(),
    ))?;
    let mut env = vec![
        ("CANVAS_E2E_DIST".to_string(), dist.display().to_string()),
        ("CANVAS_E2E_AGENT_URL".to_string(), agent.url.clone()),
        ("CANVAS_E2E_AGENT_KEY".to_string(), key),
        ("CANVAS_E2E_STATE".to_string(), state.display().to_string()),
        (
            "CANVAS_AGENT_PYTHON".to_string(),
            python.display().to_string(),
        ),
        (
            "CHROMEDRIVER".to_string(),
            "/usr/bin/chromedriver".to_string(),
        ),
        (
            "CANVAS_FIXTURES_BIN".to_string(),
            build::fixtures_bin(ctx).display().to_string(),
        ),
        (
            "CANVAS_LAUNCHER_BIN".to_string(),
            build::launcher_bin(ctx).display().to_string(),
        ),
        ("CANVAS_WHEEL".to_string(), wheel.display().to_string()),
        ("CANVAS_CARGO".to_string(), ctx.cargo.clone()),
        (
            "CANVAS_LAUNCHER_COMMIT".to_string(),
            build::launcher_env(ctx, &dist)
                .into_iter()
                .find(|(k, _)| k == "AGENT_CANVAS_COMMIT")
                .map(|(_, v)| v)
                .unwrap_or_default(),
        ),
        (
            "CANVAS_XTASK_BIN".to_string(),
            std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        ),
    ];
    // `cargo install` in the tests builds as the xtask builds did (the same artifacts).
    if let Some(wrapper) = crate::pool::lint_wrapper(ctx) {
        env.push(("CANVAS_CARGO_WRAPPER".to_string(), wrapper));
    }
    Ok((env, agent))
}

#[cfg(test)]
mod tests {
    use super::{check_minimum, parse_minimums, Tally};

    #[test]
    fn reads_the_minimums_file() {
        let m = parse_minimums("# layer\tminimum\n\nhost\t737\nwasm\t29\ne2e\t72\n").unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m["host"], 737);
        assert_eq!(m["wasm"], 29);
        assert_eq!(m["e2e"], 72);
        // A typo must not switch a minimum off silently.
        for bad in ["host 737", "host\tmany", "hots\t737", "host\t-1"] {
            assert!(parse_minimums(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_checked_in_minimums_parse_and_cover_every_test_layer() {
        let text = std::fs::read_to_string(super::minimums_file()).unwrap();
        let m = parse_minimums(&text).unwrap();
        for layer in ["host", "wasm", "e2e"] {
            assert!(m.get(layer).is_some_and(|&n| n > 0), "{layer}");
        }
    }

    #[test]
    fn a_layer_below_its_minimum_fails_and_a_filtered_run_is_not_checked() {
        let m = parse_minimums("host\t737\n").unwrap();
        assert!(matches!(check_minimum(&m, "host", 737, false), Some(Ok(_))));
        assert!(matches!(check_minimum(&m, "host", 740, false), Some(Ok(_))));
        let below = check_minimum(&m, "host", 736, false);
        assert!(
            matches!(&below, Some(Err(line)) if line.contains("only 736 passed, at least 737")),
            "{below:?}"
        );
        // Nothing passing at all is the clearest shrink.
        assert!(matches!(check_minimum(&m, "host", 0, false), Some(Err(_))));
        assert_eq!(check_minimum(&m, "host", 3, true), None);
        assert_eq!(check_minimum(&m, "wasm", 0, false), None);
    }

    #[test]
    fn the_summary_reports_ignored_tests() {
        let mut t = Tally::default();
        t.record("host tests", 700, 1, 4, 1.0);
        t.record("wasm tests", 29, 0, 0, 1.0);
        t.check("rustfmt --check", true, 0.0);
        assert_eq!(
            t.summary(),
            "729 passed, 1 failed, 4 ignored; checks: 1 ok, 0 failed"
        );
        assert!(
            t.lines[0].contains("700 passed,   1 failed,   4 ignored"),
            "{}",
            t.lines[0]
        );
        assert!(!t.ok());
    }
}

#[cfg(test)]
mod disk_tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_disk_too_small_for_the_run_is_said_before_it_starts() {
        let target = Path::new("/src/agent-canvas/target");
        let w =
            disk_warning(target, 3 << 30, true, true).expect("3 GB is too little for a cold run");
        assert!(
            w.contains("3.0 GB free on the disk holding /src/agent-canvas/target"),
            "{w}"
        );
        assert!(w.contains("a cold full run may write 12.0 GB"), "{w}");
        assert!(w.contains("cargo clean"), "{w}");
        assert_eq!(
            disk_warning(target, 3 << 30, false, false).map(|w| w.contains("a warm run")),
            Some(true)
        );
        assert_eq!(disk_warning(target, 13 << 30, true, true), None);
        assert_eq!(disk_warning(target, 5 << 30, false, true), None);
    }

    #[test]
    fn the_free_space_is_read_from_df() {
        let free = crate::util::free_space(Path::new(env!("CARGO_MANIFEST_DIR")));
        assert!(free.is_some_and(|b| b > 0), "{free:?}");
    }
}
