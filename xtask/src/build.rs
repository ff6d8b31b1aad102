//! `cargo xtask build`: the release app in `dist/`, split into lazily loaded chunks
//! (`split.rs`: cargo rustc → wasm split → wasm-bindgen → wasm-opt -Oz), skipped when nothing
//! that goes into it changed since the last build.

use crate::split;
use crate::tools;
use crate::util::{self, cmd, step, Ctx};
use std::fs;
use std::path::{Path, PathBuf};

const INPUTS: &[&str] = &[
    "src",
    "style",
    "public",
    "locales",
    "index.html",
    "xtask/src/split.rs",
    ".cargo/config.toml",
    "Cargo.toml",
    "Cargo.lock",
    "crates/core/src",
    "crates/core/Cargo.toml",
    "crates/core/build.rs",
];
const BUILD_ENV: &[&str] = &[
    "AGENT_CANVAS_LOCK_TO_CLOUD",
    "AGENT_CANVAS_BACKEND_BASE_URL",
    "AGENT_CANVAS_SESSION_API_KEY",
];

pub fn dist_dir(ctx: &Ctx) -> PathBuf {
    ctx.root.join("dist")
}

fn collect(root: &Path, rel: &Path, out: &mut Vec<String>) {
    let p = root.join(rel);
    let Ok(meta) = fs::metadata(&p) else { return };
    if meta.is_dir() {
        let Ok(rd) = fs::read_dir(&p) else { return };
        let mut names: Vec<_> = rd.flatten().map(|e| e.file_name()).collect();
        names.sort();
        for n in names {
            collect(root, &rel.join(n), out);
        }
    } else {
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        out.push(format!("{}:{}:{}", rel.display(), meta.len(), mtime));
    }
}

fn fingerprint(ctx: &Ctx) -> String {
    let mut parts = Vec::new();
    for i in INPUTS {
        collect(&ctx.root, Path::new(i), &mut parts);
    }
    for k in BUILD_ENV {
        parts.push(format!("{k}={}", std::env::var(k).unwrap_or_default()));
    }
    format!("{:016x}", util::fnv1a(parts.join("\n").as_bytes()))
}

/// Builds the release app unless `dist/` is already up to date. Returns the dist dir.
pub fn build_release(ctx: &Ctx, force: bool) -> Result<PathBuf, String> {
    tools::ensure_build_tools(ctx)?;
    let dist = dist_dir(ctx);
    let stamp = ctx.root.join("target/xtask-dist.stamp");
    let fp = fingerprint(ctx);
    if !force
        && dist.join("index.html").exists()
        && fs::read_to_string(&stamp).is_ok_and(|s| s.trim() == fp)
    {
        step(ctx, "release app is up to date (dist/)");
        return Ok(dist);
    }
    step(ctx, "building the split release app");
    split::build(ctx, &dist)?;
    let _ = fs::create_dir_all(ctx.root.join("target"));
    fs::write(&stamp, &fp).map_err(|e| e.to_string())?;
    report_sizes(&dist);
    Ok(dist)
}

/// Prints the size of each wasm/js/css file in dist.
pub fn report_sizes(dist: &Path) {
    let Ok(rd) = fs::read_dir(dist) else { return };
    let mut files: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    files.sort();
    for f in files {
        if let Ok(m) = fs::metadata(&f) {
            if m.is_file() {
                println!(
                    "    {:<50} {:>9} bytes",
                    f.file_name().and_then(|n| n.to_str()).unwrap_or(""),
                    m.len()
                );
            }
        }
    }
}

/// Builds the native binaries (dev profile: shares artifacts with the tests): `agent-canvas`
/// with the release app in `dist` built in (issue #40), `canvas-serve`, and `canvas-fixtures`
/// (the stub ACP agent's command).
pub fn build_serve(ctx: &Ctx, dist: &Path) -> Result<PathBuf, String> {
    step(
        ctx,
        "building agent-canvas (the app built in), canvas-serve and canvas-fixtures",
    );
    let mut c = cmd(ctx, &ctx.cargo);
    c.args([
        "build",
        "--quiet",
        "-p",
        "agent-canvas",
        "--bin",
        "agent-canvas",
        "-p",
        "canvas-serve",
        "--bin",
        "canvas-serve",
        "-p",
        "canvas-fixtures",
        "--bin",
        "canvas-fixtures",
    ])
    .envs(launcher_env(ctx, dist))
    .current_dir(&ctx.root);
    crate::pool::with_lints(ctx, &mut c);
    util::run_quiet(ctx, "cargo build agent-canvas", &mut c)?;
    Ok(launcher_bin(ctx))
}

/// What the `agent-canvas` build reads (its `build.rs`): the app to build in, and the commit.
pub fn launcher_env(ctx: &Ctx, dist: &Path) -> Vec<(String, String)> {
    let commit = util::capture(
        std::process::Command::new("git")
            .args(["rev-parse", "--short=12", "HEAD"])
            .current_dir(&ctx.root),
    )
    .map(|c| c.trim().to_string())
    .unwrap_or_else(|_| "unknown".into());
    vec![
        ("AGENT_CANVAS_DIST".into(), dist.display().to_string()),
        ("AGENT_CANVAS_COMMIT".into(), commit),
    ]
}

/// Where [`build_serve`] puts `agent-canvas`.
pub fn launcher_bin(ctx: &Ctx) -> PathBuf {
    ctx.root.join("target/debug/agent-canvas")
}

/// Where [`build_serve`] puts `canvas-fixtures` (its `acp-stub` is the stub ACP agent).
pub fn fixtures_bin(ctx: &Ctx) -> PathBuf {
    ctx.root.join("target/debug/canvas-fixtures")
}
