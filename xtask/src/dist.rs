//! `cargo xtask dist` (issue #40): what people who only run the console install — the
//! `agent-canvas` binary with the release app built in, as a Python wheel (maturin,
//! `bindings = "bin"`) and as a crate package — in `target/packages/`, with their sizes.

use crate::build;
use crate::util::{cmd, run_quiet, step, Ctx};
use canvas_harness::python::{Installer, Pinned};
use std::fs;
use std::path::{Path, PathBuf};

/// PyPI `maturin`, which builds the wheel.
pub const MATURIN_VERSION: &str = "1.16.0";

/// The profile of the binary people install (Cargo.toml's `[profile.dist]`).
pub const PROFILE: &str = "dist";

/// The workspace crates the `agent-canvas` package needs, packaged with it.
const PACKAGES: &[&str] = &[
    "agent-canvas",
    "canvas-serve",
    "canvas-harness",
    "canvas-fixtures",
    "canvas-core",
];

/// `maturin` in a venv of its own in the cache (the harness's installer, keyed by the pin).
pub fn ensure_maturin(ctx: &Ctx) -> Result<PathBuf, String> {
    const MATURIN: Pinned = Pinned {
        name: "maturin",
        lock_file: "xtask/src/dist.rs (MATURIN_VERSION)",
        package: "maturin",
        check: "import maturin",
    };
    let say = |line: &str| step(ctx, line);
    let python = Installer {
        logs: ctx.logs.clone(),
        uv: None,
        say: &say,
    }
    .venv(&MATURIN, &format!("maturin=={MATURIN_VERSION}\n"))?;
    Ok(python.with_file_name("maturin"))
}

/// Builds the wheel of `agent-canvas` with the app in `dist` built in, with cargo `profile`,
/// into `out`; returns its path. `dev` shares the tests' artifacts (the end-to-end layer's
/// wheel); [`PROFILE`] is what people install.
pub fn wheel(ctx: &Ctx, dist: &Path, profile: &str, out: &Path) -> Result<PathBuf, String> {
    let maturin = ensure_maturin(ctx)?;
    let _ = fs::remove_dir_all(out);
    let mut c = cmd(ctx, &maturin);
    c.args(["build", "--quiet", "--profile", profile, "-m"])
        .arg(ctx.root.join("crates/agent-canvas/Cargo.toml"))
        .arg("-o")
        .arg(out)
        .envs(build::launcher_env(ctx, dist))
        .current_dir(&ctx.root);
    if profile == "dev" {
        // The same compiler wrapper as the tests' builds: their artifacts are reused.
        crate::pool::with_lints(ctx, &mut c);
    }
    run_quiet(ctx, &format!("maturin build ({profile})"), &mut c)?;
    fs::read_dir(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| format!("maturin left no wheel in {}", out.display()))
}

/// Copies the current build of `dist` into the crate (`crates/agent-canvas/app/`, with the
/// servers' lock files in `server/`), where a package of it carries them. The previous build's
/// files, which `dist/` keeps for tabs opened before an upgrade, are left out.
fn stage(ctx: &Ctx, dist: &Path) -> Result<PathBuf, String> {
    let krate = ctx.root.join("crates/agent-canvas");
    let app = krate.join("app");
    let _ = fs::remove_dir_all(&app);
    let current = fs::read_to_string(dist.join(".build-files")).unwrap_or_default();
    let current: Vec<&str> = current
        .lines()
        .filter_map(|l| l.rsplit('\t').next())
        .collect();
    copy_app(dist, &app, &current)?;
    let server = krate.join("server");
    fs::create_dir_all(&server).map_err(|e| e.to_string())?;
    for lock in ["requirements.lock", "automation.lock", "omnigent.lock"] {
        fs::copy(ctx.root.join("server").join(lock), server.join(lock))
            .map_err(|e| format!("{lock}: {e}"))?;
    }
    Ok(app)
}

fn copy_app(from: &Path, to: &Path, current: &[&str]) -> Result<(), String> {
    fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for e in fs::read_dir(from).map_err(|e| e.to_string())?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = e.path();
        if path.is_dir() {
            copy_app(&path, &to.join(&name), current)?;
            continue;
        }
        // Top-level generated files belong to a build: only the current one's go.
        let generated = [".wasm", ".js", ".css", ".svg"]
            .iter()
            .any(|x| name.ends_with(x));
        let top = from.join(".build-files").exists();
        if top && generated && !current.contains(&name.as_str()) {
            continue;
        }
        fs::copy(&path, to.join(&name)).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// `cargo xtask dist`.
pub fn dist(ctx: &Ctx) -> Result<bool, String> {
    let dist = build::build_release(ctx, false)?;
    let out = ctx.root.join("target/packages");
    step(ctx, "staging the release app into crates/agent-canvas/app/");
    let app = stage(ctx, &dist)?;
    step(
        ctx,
        &format!("building the wheel (profile {PROFILE}; a few minutes the first time)"),
    );
    let wheel = wheel(ctx, &app, PROFILE, &out.join("wheel"))?;
    step(ctx, "packaging the crate (cargo package)");
    let mut c = cmd(ctx, &ctx.cargo);
    c.args(["package", "--no-verify", "--allow-dirty", "--quiet"]);
    for p in PACKAGES {
        c.args(["-p", p]);
    }
    c.arg("--target-dir")
        .arg(out.join("cargo"))
        .current_dir(&ctx.root);
    run_quiet(ctx, "cargo package", &mut c)?;
    let krate = out
        .join("cargo/package")
        .join(format!("agent-canvas-{}.crate", env!("CARGO_PKG_VERSION")));
    let size = |p: &Path| fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let binary = ctx.root.join(format!("target/{PROFILE}/agent-canvas"));
    println!();
    println!(
        "  wheel:  {} ({:.1} MB)",
        wheel.display(),
        size(&wheel) as f64 / 1e6
    );
    println!(
        "  crate:  {} ({:.1} MB; crates.io takes at most 10 MB)",
        krate.display(),
        size(&krate) as f64 / 1e6
    );
    println!(
        "  binary: {} ({:.1} MB)",
        binary.display(),
        size(&binary) as f64 / 1e6
    );
    println!();
    println!(
        "  Try it:  uvx --from {} agent-canvas --demo",
        wheel.display()
    );
    println!("  or:      cargo install --path crates/agent-canvas --profile {PROFILE}");
    Ok(true)
}
