//! Idempotent installs: every `ensure_*` checks first (right version present ⇒ skip) and
//! installs only what is missing. Nothing here downloads anything but registry packages
//! (crates.io, npm, PyPI, Debian).

use crate::util::{self, cmd, run_quiet, step, Ctx};
use canvas_harness::RunTooling;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

pub const TRUNK_VERSION: &str = "0.21.14";
/// npm `binaryen` (wasm-opt). Debian's binaryen 108 produces broken output; this one works.
pub const BINARYEN_VERSION: &str = "132";
/// npm `axe-core`, pinned in package.json (the e2e layer's accessibility checks).
pub const AXE_CORE_VERSION: &str = "4.14.1";
/// npm `@openhands/extensions`, pinned in package.json: the automation templates' catalogue.
pub const EXTENSIONS_VERSION: &str = "0.19.0";
/// npm `esbuild`, pinned in package.json: the release build minifies its JS and CSS with it.
pub const ESBUILD_VERSION: &str = "0.28.2";

pub fn ensure_wasm_target(ctx: &Ctx) -> Result<(), String> {
    let out = util::capture(Command::new("rustup").args(["target", "list", "--installed"]))
        .unwrap_or_default();
    if out.lines().any(|l| l.trim() == "wasm32-unknown-unknown") {
        return Ok(());
    }
    step(ctx, "installing the wasm32-unknown-unknown target (rustup)");
    run_quiet(
        ctx,
        "rustup target add",
        Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]),
    )
}

/// The `wasm-bindgen` version in Cargo.lock (the CLI must match it exactly).
pub fn locked_wasm_bindgen_version(root: &Path) -> Result<String, String> {
    let lock =
        fs::read_to_string(root.join("Cargo.lock")).map_err(|e| format!("read Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\"" {
            if let Some(v) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
            {
                return Ok(v.trim_matches('"').to_string());
            }
        }
    }
    Err("wasm-bindgen is not in Cargo.lock".into())
}

fn tool_version_ok(bin: &str, want: &str) -> bool {
    util::capture(Command::new(bin).arg("--version"))
        .map(|out| out.split_whitespace().any(|w| w == want))
        .unwrap_or(false)
}

fn cargo_install(ctx: &Ctx, krate: &str, version: &str, locked: bool) -> Result<(), String> {
    let mut c = cmd(ctx, &ctx.cargo);
    c.args(["install", krate, "--version", version]);
    if locked {
        c.arg("--locked");
    }
    run_quiet(ctx, &format!("cargo install {krate} {version}"), &mut c)
}

pub fn ensure_trunk(ctx: &Ctx) -> Result<(), String> {
    if tool_version_ok(&ctx.cargo_bin("trunk"), TRUNK_VERSION) {
        return Ok(());
    }
    step(
        ctx,
        &format!("installing trunk {TRUNK_VERSION} (cargo install, ~5 min once)"),
    );
    cargo_install(ctx, "trunk", TRUNK_VERSION, true)
}

pub fn ensure_wasm_bindgen_cli(ctx: &Ctx, version: &str) -> Result<(), String> {
    if tool_version_ok(&ctx.cargo_bin("wasm-bindgen"), version)
        && tool_version_ok(&ctx.cargo_bin("wasm-bindgen-test-runner"), version)
    {
        return Ok(());
    }
    step(
        ctx,
        &format!("installing wasm-bindgen-cli {version} (cargo install, ~5 min once)"),
    );
    // `--locked` can fail when the registry mirror lags one of its dependencies: retry without.
    cargo_install(ctx, "wasm-bindgen-cli", version, true)
        .or_else(|_| cargo_install(ctx, "wasm-bindgen-cli", version, false))
}

/// Project-local npm tools (`node_modules/.bin`), from the committed package-lock.json.
pub fn ensure_npm_tools(ctx: &Ctx) -> Result<(), String> {
    let wasm_opt = ctx.root.join("node_modules/.bin/wasm-opt");
    let ok = util::capture(Command::new(&wasm_opt).arg("--version"))
        .map(|v| v.contains(&format!("version {BINARYEN_VERSION}")))
        .unwrap_or(false);
    // axe-core: the accessibility checks of the end-to-end layer inject it into the page.
    let axe = fs::read_to_string(ctx.root.join("node_modules/axe-core/package.json"))
        .is_ok_and(|p| p.contains(&format!("\"version\": \"{AXE_CORE_VERSION}\"")));
    let esbuild =
        util::capture(Command::new(ctx.root.join("node_modules/.bin/esbuild")).arg("--version"))
            .is_ok_and(|v| v.trim() == ESBUILD_VERSION);
    // The automation templates' catalogue (`crate::catalog`).
    let extensions = fs::read_to_string(
        ctx.root
            .join("node_modules/@openhands/extensions/package.json"),
    )
    .is_ok_and(|p| p.contains(&format!("\"version\": \"{EXTENSIONS_VERSION}\"")));
    if ok && axe && esbuild && extensions {
        return Ok(());
    }
    step(
        ctx,
        &format!(
            "installing npm tools (binaryen {BINARYEN_VERSION}, axe-core {AXE_CORE_VERSION}, esbuild {ESBUILD_VERSION}, @openhands/extensions {EXTENSIONS_VERSION})"
        ),
    );
    let mut c = cmd(ctx, "npm");
    c.args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
        .current_dir(&ctx.root);
    run_quiet(ctx, "npm ci", &mut c)
}

/// Debian `chromium` and `chromium-driver` for the browser layers.
pub fn ensure_chromium(ctx: &Ctx) -> Result<(), String> {
    if Path::new("/usr/bin/chromium").exists() && Path::new("/usr/bin/chromedriver").exists() {
        return Ok(());
    }
    step(
        ctx,
        "installing Debian chromium and chromium-driver (apt-get)",
    );
    let is_root = util::capture(Command::new("id").arg("-u"))
        .map(|s| s.trim() == "0")
        .unwrap_or(false);
    let apt = |args: &[&str]| -> Command {
        let mut c = if is_root {
            Command::new("apt-get")
        } else {
            let mut c = Command::new("sudo");
            c.arg("apt-get");
            c
        };
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        c
    };
    run_quiet(ctx, "apt-get update", &mut apt(&["update", "-q"]))?;
    run_quiet(
        ctx,
        "apt-get install chromium chromium-driver",
        &mut apt(&["install", "-y", "-q", "chromium", "chromium-driver"]),
    )
}

pub use canvas_harness::python::cache_dir;
use canvas_harness::python::{Installer, Pinned};

/// Runs `f` with the harness's installer, which says what it does as xtask's steps and logs
/// into xtask's logs.
fn with_installer<T>(ctx: &Ctx, f: impl FnOnce(&Installer) -> T) -> T {
    let say = |line: &str| step(ctx, line);
    f(&Installer {
        logs: ctx.logs.clone(),
        uv: None,
        say: &say,
    })
}

/// The venv of `pinned`, keyed by the hash of its lock file in this checkout; returns its python.
fn ensure_venv(ctx: &Ctx, pinned: &Pinned) -> Result<PathBuf, String> {
    let lock_path = ctx.root.join(pinned.lock_file);
    let text =
        fs::read_to_string(&lock_path).map_err(|e| format!("read {}: {e}", lock_path.display()))?;
    with_installer(ctx, |i| i.venv(pinned, &text))
}

/// The agent-server venv, keyed by the hash of `server/requirements.lock`; returns its python.
pub fn ensure_agent_server_venv(ctx: &Ctx) -> Result<PathBuf, String> {
    ensure_venv(ctx, &canvas_harness::python::AGENT_SERVER)
}

/// The automation-service venv (`openhands-automation`, issue #14); returns its python.
pub fn ensure_automation_venv(ctx: &Ctx) -> Result<PathBuf, String> {
    ensure_venv(ctx, &canvas_harness::python::AUTOMATION)
}

/// The Omnigent venv (PyPI `omnigent`, issue #12); returns its python.
pub fn ensure_omnigent_venv(ctx: &Ctx) -> Result<PathBuf, String> {
    ensure_venv(ctx, &canvas_harness::python::OMNIGENT)
}

/// The uv cache filled for automation runs ([`Installer::run_tooling`]).
pub fn ensure_run_tooling(ctx: &Ctx, automation_python: &Path) -> Result<RunTooling, String> {
    with_installer(ctx, |i| i.run_tooling(automation_python))
}

/// Everything the release build needs.
pub fn ensure_build_tools(ctx: &Ctx) -> Result<(), String> {
    ensure_wasm_target(ctx)?;
    let wbg = locked_wasm_bindgen_version(&ctx.root)?;
    ensure_wasm_bindgen_cli(ctx, &wbg)?;
    ensure_npm_tools(ctx)
}

/// The upstream console the benches compare against (npm `@openhands/agent-canvas`).
pub const UPSTREAM_UI_PACKAGE: &str = "@openhands/agent-canvas";
pub const UPSTREAM_UI_VERSION: &str = "1.20.0";

/// Upstream's published package, unpacked once into
/// `~/.cache/agent-canvas/upstream-agent-canvas-<version>/` (`npm pack` + `tar`; skipped when
/// present). Returns the package folder (`build/` is its prebuilt single-page app, `bin/` and
/// `scripts/` its own launcher).
pub fn ensure_upstream_ui(ctx: &Ctx) -> Result<PathBuf, String> {
    let dir = cache_dir().join(format!("upstream-agent-canvas-{UPSTREAM_UI_VERSION}"));
    let package = dir.join("package");
    let marker = dir.join(".complete");
    if marker.exists() && package.join("build/index.html").exists() {
        return Ok(package);
    }
    step(
        ctx,
        &format!(
            "installing upstream {UPSTREAM_UI_PACKAGE}@{UPSTREAM_UI_VERSION} (npm pack, once)"
        ),
    );
    let _ = fs::remove_dir_all(&dir);
    let tmp = cache_dir().join(format!(
        "upstream-agent-canvas-{UPSTREAM_UI_VERSION}.tmp-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let result = (|| {
        let mut pack = cmd(ctx, "npm");
        pack.args([
            "pack",
            &format!("{UPSTREAM_UI_PACKAGE}@{UPSTREAM_UI_VERSION}"),
            "--silent",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ])
        .current_dir(&tmp);
        let out = util::capture(&mut pack).map_err(|e| format!("npm pack: {e}"))?;
        let tgz = out
            .lines()
            .map(str::trim)
            .rfind(|l| l.ends_with(".tgz"))
            .ok_or_else(|| format!("npm pack named no tarball: {out:?}"))?
            .to_string();
        run_quiet(
            ctx,
            "untar upstream",
            Command::new("tar").args(["xzf", &tgz]).current_dir(&tmp),
        )?;
        let _ = fs::remove_file(tmp.join(&tgz));
        if !tmp.join("package/build/index.html").exists() {
            return Err("the tarball has no package/build/index.html".to_string());
        }
        fs::write(tmp.join(".complete"), UPSTREAM_UI_VERSION).map_err(|e| e.to_string())?;
        fs::rename(&tmp, &dir).map_err(|e| format!("{} -> {}: {e}", tmp.display(), dir.display()))
    })();
    if let Err(e) = result {
        let _ = fs::remove_dir_all(&tmp);
        return Err(e);
    }
    Ok(package)
}
