//! `cargo xtask bench`: measures what DESIGN.md budgets — the release app's transfer size
//! (raw, gzip, brotli) against the upstream console — and runs the ignored `bench_*` tests
//! (e.g. applying 10,000 events), printing their numbers. Nothing here asserts a time.

use crate::build;
use crate::util::{cmd, step, Ctx};
use std::fs;
use std::io::Write;

/// Upstream `@openhands/agent-canvas@1.20.0` `build/`: bytes before first render, gzip.
const UPSTREAM_INITIAL_GZIP: u64 = 689 * 1024;
/// Our budget at feature parity: ≤ 0.3× upstream's gzip bytes.
const BUDGET_RATIO: f64 = 0.3;

fn gzip_len(bytes: &[u8]) -> u64 {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let _ = enc.write_all(bytes);
    enc.finish().map(|v| v.len() as u64).unwrap_or(0)
}

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
        "transfer size of the release app (everything in dist/ loads before first render)",
    );
    let mut files: Vec<_> = fs::read_dir(&dist)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let (mut raw, mut gz, mut br) = (0u64, 0u64, 0u64);
    println!(
        "    {:<46} {:>10} {:>10} {:>10}",
        "file", "raw", "gzip", "brotli"
    );
    for f in &files {
        let bytes = fs::read(f).map_err(|e| e.to_string())?;
        let (r, g, b) = (bytes.len() as u64, gzip_len(&bytes), brotli_len(&bytes));
        raw += r;
        gz += g;
        br += b;
        println!(
            "    {:<46} {:>10} {:>10} {:>10}",
            f.file_name().and_then(|n| n.to_str()).unwrap_or(""),
            r,
            g,
            b
        );
    }
    println!("    {:<46} {:>10} {:>10} {:>10}", "total", raw, gz, br);
    let budget = (UPSTREAM_INITIAL_GZIP as f64 * BUDGET_RATIO) as u64;
    println!(
        "    gzip {:.1} KB = {:.2}× upstream's {} KB initial load (budget ≤ {BUDGET_RATIO}× = {:.1} KB): {}",
        gz as f64 / 1024.0,
        gz as f64 / UPSTREAM_INITIAL_GZIP as f64,
        UPSTREAM_INITIAL_GZIP / 1024,
        budget as f64 / 1024.0,
        if gz <= budget { "within budget" } else { "OVER BUDGET" }
    );

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
    let ok = c.status().map(|s| s.success()).unwrap_or(false);
    Ok(ok)
}
