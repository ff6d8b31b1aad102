//! `cargo xtask bench`: measures what DESIGN.md budgets — the release app's transfer size
//! (raw, gzip, brotli) against the upstream console — and runs the ignored `bench_*` tests:
//! core's (e.g. applying 10,000 events, release) and the browser benches of the end-to-end
//! crate (e.g. the all-backends list with 3 real agent servers × 50 conversations, in real
//! Chromium), printing their numbers. Nothing here asserts a time.

use crate::build;
use crate::split;
use crate::test::e2e_env;
use crate::tools;
use crate::util::{cmd, step, Ctx};
use std::fs;
use std::path::Path;

/// Upstream `@openhands/agent-canvas@1.20.0` `build/`: bytes before first render, gzip.
const UPSTREAM_INITIAL_GZIP: u64 = 689 * 1024;
/// Our budget at feature parity: ≤ 0.3× upstream's gzip bytes.
const BUDGET_RATIO: f64 = 0.3;

fn brotli_len(bytes: &[u8]) -> u64 {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        ..Default::default()
    };
    let _ = brotli::BrotliCompress(&mut &bytes[..], &mut out, &params);
    out.len() as u64
}

pub fn bench(ctx: &Ctx, args: &[String]) -> Result<bool, String> {
    let dist = build::build_release(ctx, false)?;
    step(
        ctx,
        "transfer size of the release app: before the first render, then each lazy chunk",
    );
    let (initial, chunks) = split::measure(&dist)?;
    println!(
        "    {:<52} {:>10} {:>10} {:>10}",
        "before the first render", "raw", "gzip", "brotli"
    );
    let (mut raw, mut gz, mut br) = (0u64, 0u64, 0u64);
    for (name, r, g) in &initial {
        let b = brotli_len(&fs::read(dist.join(name)).map_err(|e| e.to_string())?);
        raw += r;
        gz += g;
        br += b;
        println!("    {name:<52} {r:>10} {g:>10} {b:>10}");
    }
    println!("    {:<52} {:>10} {:>10} {:>10}", "total", raw, gz, br);
    let budget = (UPSTREAM_INITIAL_GZIP as f64 * BUDGET_RATIO) as u64;
    println!(
        "    gzip {:.1} KB = {:.2}× upstream's {} KB initial load (budget ≤ {BUDGET_RATIO}× = {:.1} KB): {}",
        gz as f64 / 1024.0,
        gz as f64 / UPSTREAM_INITIAL_GZIP as f64,
        UPSTREAM_INITIAL_GZIP / 1024,
        budget as f64 / 1024.0,
        if gz <= budget { "within budget" } else { "OVER BUDGET" }
    );
    let mut by_size = chunks.clone();
    by_size.sort_by_key(|(_, _, g)| std::cmp::Reverse(*g));
    let (craw, cgz): (u64, u64) = chunks
        .iter()
        .fold((0, 0), |(a, b), (_, r, g)| (a + r, b + g));
    println!(
        "    lazy chunks: {} files, {craw} bytes raw, {cgz} gzip; the largest:",
        chunks.len()
    );
    for (name, r, g) in by_size.iter().take(12) {
        println!("    {name:<52} {r:>10} {g:>10}");
    }

    step(ctx, "timed benches (ignored tests named bench_*)");
    let mut c = cmd(ctx, &ctx.cargo);
    c.args([
        "test",
        "--release",
        "-p",
        "canvas-core",
        "--",
        "--ignored",
        "--nocapture",
        "bench_",
    ])
    .args(args)
    .current_dir(&ctx.root);
    let core_ok = c.status().map(|s| s.success()).unwrap_or(false);

    let browser_ok = browser_benches(ctx)?;
    Ok(core_ok && browser_ok)
}

/// The end-to-end crate's `bench_*` tests: the same environment as the end-to-end layer (the
/// split release build, `canvas-serve`, a fresh shared agent server, Chromium). Skipped, with
/// the reason, when Chromium or the agent server's venv is missing and cannot be set up.
fn browser_benches(ctx: &Ctx) -> Result<bool, String> {
    step(
        ctx,
        "browser benches (ignored end-to-end tests named bench_*: real agent servers, Chromium)",
    );
    let skip = |why: &str| {
        println!("    skipped: {why}");
        Ok(true)
    };
    let missing: Vec<&str> = ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        .into_iter()
        .filter(|p| !Path::new(p).exists())
        .collect();
    if !missing.is_empty() {
        return skip(&format!(
            "{} missing (`cargo xtask setup` installs Debian's chromium and chromium-driver)",
            missing.join(" and ")
        ));
    }
    // Installed when missing, as for `cargo xtask test` (PyPI only, ≈ 30 s once).
    let python = match tools::ensure_agent_server_venv(ctx) {
        Ok(p) => p,
        Err(e) => {
            return skip(&format!(
                "no agent-server venv and it could not be installed ({e}); \
                 `cargo xtask setup` installs it"
            ))
        }
    };
    // The agent server it starts stops when `_agent` is dropped, after the benches.
    let (env, _agent) = e2e_env(ctx, Some(&python))?;
    step(
        ctx,
        "running crates/e2e/tests/bench.rs (cargo test -p canvas-e2e)",
    );
    let mut c = cmd(ctx, &ctx.cargo);
    c.args([
        "test",
        "-p",
        "canvas-e2e",
        "--test",
        "bench",
        "--",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
        "bench_",
    ])
    .envs(env)
    .current_dir(&ctx.root);
    Ok(c.status().map(|s| s.success()).unwrap_or(false))
}
