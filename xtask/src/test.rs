//! `cargo xtask test`: installs what is missing, then every layer — rustfmt, host tests,
//! wasm-bindgen tests in headless Chromium, end-to-end tests (release build, real agent server,
//! real Chromium) — and ends with one line `N passed, M failed; checks: K ok, L failed`. Clippy
//! runs inside the layers' builds (`pool::build`), not as a compile of its own.

use crate::build;
use crate::pool::{self, TestBin};
use crate::split;
use crate::tools;
use crate::util::{cmd, step, Ctx};
use canvas_harness::{random_hex, AgentServer, AgentServerOptions};
use std::fs;
use std::process::Command;
use std::time::Instant;

pub const USAGE: &str = "\
cargo xtask test [--layer checks|host|wasm|e2e]... [-- <filter for the test layers>]
  Runs every layer by default and prints `N passed, M failed; checks: K ok, L failed` at the end.";

const LAYERS: &[&str] = &["checks", "host", "wasm", "e2e"];

/// What a run counted: tests (passed, failed) and checks (fmt, clippy, the size budget), which
/// are reported apart from the tests.
#[derive(Default)]
struct Tally {
    passed: u64,
    failed: u64,
    checks_ok: u64,
    checks_failed: u64,
    lines: Vec<String>,
}

impl Tally {
    fn record(&mut self, layer: &str, passed: u64, failed: u64, secs: f64) {
        self.passed += passed;
        self.failed += failed;
        self.lines.push(format!(
            "  {layer:<28} {passed:>4} passed, {failed:>3} failed  ({secs:.1}s)"
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
            "{} passed, {} failed; checks: {} ok, {} failed",
            self.passed, self.failed, self.checks_ok, self.checks_failed
        )
    }

    fn ok(&self) -> bool {
        self.failed == 0 && self.checks_failed == 0
    }
}

/// Builds a layer's test binaries and runs them side by side (see `pool`). A build that fails
/// counts as one failure. With `lint` (a check's name), the build is also that clippy check
/// (`pool::build`): it passes when the build gave no lint warning.
#[allow(clippy::too_many_arguments)]
fn run_layer(
    ctx: &Ctx,
    tally: &mut Tally,
    layer: &str,
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
            tally.record(layer, out.passed, out.failed, t0.elapsed().as_secs_f64());
        }
        Err(e) => {
            println!("    {e}");
            tally.record(layer, 0, 1, t0.elapsed().as_secs_f64());
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

pub fn test(ctx: &Ctx, args: &[String]) -> Result<bool, String> {
    let mut layers: Vec<String> = Vec::new();
    let mut filter: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--layer" => {
                let l = it.next().ok_or(USAGE)?;
                if !LAYERS.contains(&l.as_str()) {
                    return Err(format!("unknown layer {l}\n{USAGE}"));
                }
                layers.push(l.clone());
            }
            "--" => filter.extend(it.by_ref().cloned()),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    if layers.is_empty() {
        layers = LAYERS.iter().map(|s| s.to_string()).collect();
    }
    let want = |l: &str| layers.iter().any(|x| x == l);

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
        step(ctx, "import cycles (app, serve)");
        let t0 = Instant::now();
        let found = crate::cycles::check(&ctx.root);
        if let Err(report) = &found {
            println!("{report}");
        }
        tally.check(
            "import cycles (app, serve)",
            found.is_ok(),
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
                    "agent-canvas",
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
                    "agent-canvas",
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
            "host tests",
            &[
                "test",
                "--workspace",
                "--exclude",
                "agent-canvas",
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
            "wasm tests (Chromium)",
            &[
                "test",
                "-p",
                "agent-canvas",
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
                    "end-to-end (Chromium)",
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
                tally.record("end-to-end (setup)", 0, 1, 0.0);
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
    build::build_serve(ctx)?;
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
    let env = vec![
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
            "CANVAS_XTASK_BIN".to_string(),
            std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
        ),
    ];
    Ok((env, agent))
}
