//! The console as people who only run it get it (issue #40): the `agent-canvas` binary with the
//! release app built in, from the Python wheel (installed with uv into a fresh virtual
//! environment) and from `cargo install --path`, run with no Rust, wasm or Node tool on `PATH`.

use canvas_e2e::launch::{ctrl_c, until_running};
use canvas_e2e::{Browser, Env};
use canvas_fixtures::llm_stub::DEFAULT_FINAL_MESSAGE;
use canvas_harness::python::{find_python, Installer};
use canvas_harness::{free_port, wait_until, Group};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// What a machine that only runs the console does not have.
const BUILD_TOOLS: &[&str] = &[
    "cargo",
    "rustc",
    "rustup",
    "wasm-bindgen",
    "wasm-opt",
    "trunk",
    "node",
    "nodejs",
    "npm",
    "npx",
    "corepack",
];

fn var(name: &str) -> PathBuf {
    PathBuf::from(
        std::env::var(name).unwrap_or_else(|_| panic!("{name}: run via `cargo xtask test`")),
    )
}

/// A `PATH` of the system's programs without any build tool: a directory of links to what
/// `/usr/local/bin`, `/usr/bin` and `/bin` hold, minus [`BUILD_TOOLS`]; `first` goes before it.
fn stripped_path(scratch: &Path, first: &[&Path]) -> String {
    let links = scratch.join("system-bin");
    std::fs::create_dir_all(&links).unwrap();
    for dir in ["/usr/local/bin", "/usr/bin", "/bin"] {
        let Ok(rd) = std::fs::read_dir(dir) else {
            continue;
        };
        for e in rd.flatten() {
            let name = e.file_name();
            let skip = BUILD_TOOLS.iter().any(|t| name == *t);
            let link = links.join(&name);
            if !skip && !link.exists() {
                let _ = std::os::unix::fs::symlink(e.path(), link);
            }
        }
    }
    let path: Vec<String> = first
        .iter()
        .map(|p| p.display().to_string())
        .chain([links.display().to_string()])
        .collect();
    let path = path.join(":");
    for tool in BUILD_TOOLS {
        let found = path
            .split(':')
            .map(|d| Path::new(d).join(tool))
            .find(|p| p.exists());
        assert!(found.is_none(), "{tool} is on the stripped PATH: {found:?}");
    }
    path
}

fn listening(port: u16) -> bool {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
}

/// Starts `bin` with `args` and the environment cleared but for `HOME`, `PATH` = `path` and the
/// machine's cache and certificate settings; waits for its URL (off the async runtime).
async fn start(bin: &Path, args: &[&str], path: &str) -> (Group, String) {
    let mut c = Command::new(bin);
    c.args(args).env_clear().env("PATH", path);
    for keep in [
        "HOME",
        "LANG",
        "XDG_CACHE_HOME",
        "AGENT_CANVAS_CACHE",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "NODE_EXTRA_CA_CERTS",
    ] {
        if let Some(v) = std::env::var_os(keep) {
            c.env(keep, v);
        }
    }
    tokio::task::spawn_blocking(move || until_running("agent-canvas", c, Duration::from_secs(180)))
        .await
        .unwrap()
}

/// The processes whose command line or working directory names `dir`.
fn processes_under(dir: &Path) -> Vec<String> {
    let needle = dir.display().to_string();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = e.file_name().to_string_lossy().into_owned();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let cmdline = std::fs::read(e.path().join("cmdline"))
            .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
            .unwrap_or_default();
        let cwd = std::fs::read_link(e.path().join("cwd"))
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        if cmdline.contains(&needle) || cwd.starts_with(&needle) {
            found.push(format!("{pid}: {cmdline} (in {cwd})"));
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wheel_installs_with_uv_and_runs_the_demo_without_any_build_tool() {
    let env = Env::get();
    let wheel = var("CANVAS_WHEEL");
    let scratch = env.scratch("wheel");
    let venv = scratch.join("venv");
    let path = stripped_path(&scratch, &[&venv.join("bin")]);

    // uv (the one the project bootstraps) makes a fresh virtual environment and installs the
    // wheel into it, with the stripped PATH.
    let say = |line: &str| println!("{line}");
    let uv = Installer {
        logs: scratch.join("logs"),
        uv: None,
        say: &say,
    }
    .uv()
    .expect("uv");
    let python = find_python().expect("a Python >= 3.12");
    let uv_run = |args: &[&str]| {
        let out = Command::new(&uv)
            .args(args)
            .env("PATH", &path)
            .output()
            .expect("uv runs");
        assert!(
            out.status.success(),
            "uv {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    uv_run(&[
        "venv",
        "-q",
        "-p",
        python.to_str().unwrap(),
        venv.to_str().unwrap(),
    ]);
    uv_run(&[
        "pip",
        "install",
        "-q",
        "--python",
        venv.join("bin/python").to_str().unwrap(),
        wheel.to_str().unwrap(),
    ]);
    let bin = venv.join("bin/agent-canvas");
    assert!(bin.is_file(), "the wheel installs {}", bin.display());
    assert!(
        venv.join("bin/uv").is_file(),
        "the wheel brings uv beside the binary"
    );

    // `--demo` on free ports with a fresh state dir: the printed URL serves a connected app.
    let state = scratch.join("state");
    let (port, agent_port) = (free_port().unwrap(), free_port().unwrap());
    let (mut run, url) = start(
        &bin,
        &[
            "--demo",
            "--port",
            &port.to_string(),
            "--agent-server-port",
            &agent_port.to_string(),
            "--state-dir",
            state.to_str().unwrap(),
        ],
        &path,
    )
    .await;
    assert_eq!(url, format!("http://127.0.0.1:{port}"));

    // A first message gets the stub's answer.
    let browser = Browser::start(&env).await;
    browser.goto(&format!("{url}/")).await;
    browser.wait_backend_status("connected").await;
    browser.launcher().start("Say hello").await;
    let answer = browser
        .wait_js_for(
            "the stub's answer",
            &format!(
                "const f = document.querySelector('[data-testid=finish-message]'); \
                 return f && f.innerText.includes({DEFAULT_FINAL_MESSAGE:?}) ? f.innerText : null;"
            ),
            Duration::from_secs(90),
        )
        .await;
    assert!(
        answer
            .as_str()
            .unwrap_or("")
            .contains(DEFAULT_FINAL_MESSAGE),
        "{answer}"
    );
    drop(browser);

    // Ctrl-C: nothing it started is left.
    tokio::task::spawn_blocking(move || ctrl_c(&mut run))
        .await
        .unwrap();
    wait_until("the ports to be free", Duration::from_secs(15), || {
        Ok((!listening(port) && !listening(agent_port)).then_some(()))
    })
    .expect("no server left");
    assert_eq!(
        processes_under(&state),
        Vec::<String>::new(),
        "processes left"
    );
    assert_eq!(
        processes_under(&venv),
        Vec::<String>::new(),
        "processes left"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cargo_install_path_installs_a_binary_that_serves_the_built_in_app() {
    let env = Env::get();
    let scratch = env.scratch("cargo-install");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let krate = root.join("crates/agent-canvas");
    let install_root = scratch.join("root");
    // As `cargo xtask` builds it (the app built in, the same target dir), so it is not compiled
    // twice in one run.
    let mut c = Command::new(var("CANVAS_CARGO"));
    c.args(["install", "--quiet", "--debug", "--locked", "--path"])
        .arg(&krate)
        .arg("--root")
        .arg(&install_root)
        .arg("--target-dir")
        .arg(root.join("target"))
        .env("AGENT_CANVAS_DIST", &env.dist)
        .stdin(Stdio::null());
    if let Some(commit) = std::env::var_os("CANVAS_LAUNCHER_COMMIT") {
        c.env("AGENT_CANVAS_COMMIT", commit);
    }
    if let Some(wrapper) = std::env::var_os("CANVAS_CARGO_WRAPPER") {
        c.env("RUSTC_WORKSPACE_WRAPPER", wrapper);
    }
    let out = tokio::task::spawn_blocking(move || c.output().expect("cargo install"))
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "cargo install: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bin = install_root.join("bin/agent-canvas");
    let path = stripped_path(&scratch, &[&install_root.join("bin")]);

    let help = Command::new(&bin)
        .arg("--help")
        .env_clear()
        .env("PATH", &path)
        .output()
        .expect("--help");
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in ["--demo", "--port", "--state-dir", "--no-agent-server"] {
        assert!(help.contains(flag), "{flag} not in --help:\n{help}");
    }
    let version = Command::new(&bin)
        .arg("--version")
        .env_clear()
        .env("PATH", &path)
        .output()
        .expect("--version");
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(
        version.contains(&format!(
            "openhands-agent-server {}",
            Env::pinned_server_version()
        )),
        "{version}"
    );
    assert!(version.contains("app: built in"), "{version}");

    // It serves a page with no build tool on PATH (and no agent server: nothing to install).
    let port = free_port().unwrap();
    let state = scratch.join("state");
    let (mut run, url) = start(
        &bin,
        &[
            "--no-agent-server",
            "--port",
            &port.to_string(),
            "--state-dir",
            state.to_str().unwrap(),
        ],
        &path,
    )
    .await;
    let page = reqwest::get(format!("{url}/")).await.unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("<title"), "{html}");
    tokio::task::spawn_blocking(move || ctrl_c(&mut run))
        .await
        .unwrap();
}

/// GET `url` with `Accept-Encoding: encoding`: (status, headers that describe the body, body).
async fn fetch(url: &str, encoding: &str) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let r = reqwest::Client::new()
        .get(url)
        .header("Accept-Encoding", encoding)
        .send()
        .await
        .expect("GET");
    let status = r.status().as_u16();
    let headers = [
        "content-type",
        "content-encoding",
        "cache-control",
        "etag",
        "content-security-policy",
        "vary",
    ]
    .iter()
    .map(|h| {
        let v = r
            .headers()
            .get(*h)
            .map(|v| v.to_str().unwrap_or("?").to_string())
            .unwrap_or_default();
        (h.to_string(), v)
    })
    .collect();
    (status, headers, r.bytes().await.unwrap().to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_built_in_app_is_served_byte_for_byte_as_canvas_serve_serves_dist() {
    let env = Env::get();
    let bin = var("CANVAS_LAUNCHER_BIN");
    let scratch = env.scratch("built-in-app");
    let port = free_port().unwrap();
    let state = scratch.join("state");
    let path = std::env::var("PATH").unwrap_or_default();
    let (mut run, url) = start(
        &bin,
        &[
            "--no-agent-server",
            "--lock-to-cloud",
            "https://app.all-hands.dev",
            "--base-path",
            "/canvas",
            "--port",
            &port.to_string(),
            "--state-dir",
            state.to_str().unwrap(),
        ],
        &path,
    )
    .await;
    assert_eq!(url, format!("http://127.0.0.1:{port}/canvas"));
    // canvas-serve over the build directory, configured the same way.
    let mut config = canvas_serve::Config::new(&env.dist);
    config.base_path = Some("/canvas".into());
    config.lock_to_cloud = Some("https://app.all-hands.dev".into());
    let from_dist = canvas_serve::start(config).await.expect("serve dist");

    // The build's files, read as canvas-serve reads a build directory.
    let files = canvas_serve::read_dist(&env.dist).expect("dist reads");
    assert!(files.len() > 20, "{} files in dist", files.len());
    let mut paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    // index.html as served at the root and for app routes (each with its preloads).
    paths.extend(["/".into(), "/conversations".into(), "/automations".into()]);
    for path in &paths {
        for encoding in ["identity", "gzip", "br"] {
            let built_in = fetch(&format!("{url}{path}"), encoding).await;
            let served = fetch(&format!("{}{path}", from_dist.url()), encoding).await;
            assert_eq!(built_in.0, 200, "{path} ({encoding})");
            assert_eq!(built_in.1, served.1, "{path} ({encoding}): headers");
            assert!(
                built_in.2 == served.2,
                "{path} ({encoding}): {} bytes built in, {} served from dist",
                built_in.2.len(),
                served.2.len()
            );
        }
    }
    // The files that are not rewritten are exactly the build's bytes.
    for (path, _) in files.iter().filter(|(p, _)| !p.ends_with(".html")) {
        let (_, _, body) = fetch(&format!("{url}{path}"), "identity").await;
        let file = env.dist.join(path.trim_start_matches('/'));
        assert!(
            body == std::fs::read(&file).unwrap(),
            "{path} is not the build's bytes"
        );
    }
    // The page: what was injected (the cloud host, the base path, no key), and its CSP.
    let (_, headers, body) = fetch(&format!("{url}/"), "identity").await;
    let html = String::from_utf8(body).unwrap();
    assert!(
        html.contains("window.__AGENT_CANVAS_LOCK_TO_CLOUD__=\"https://app.all-hands.dev\";"),
        "{html}"
    );
    assert!(html.contains("window.__AGENT_CANVAS_BASE_PATH__=\"/canvas\";"));
    assert!(!html.contains("__AGENT_CANVAS_SESSION_API_KEY__"));
    let csp = &headers
        .iter()
        .find(|(h, _)| h == "content-security-policy")
        .unwrap()
        .1;
    assert!(csp.contains("script-src"), "{csp}");
    assert_eq!(
        headers
            .iter()
            .find(|(h, _)| h == "cache-control")
            .unwrap()
            .1,
        "no-store"
    );
    tokio::task::spawn_blocking(move || ctrl_c(&mut run))
        .await
        .unwrap();
}
