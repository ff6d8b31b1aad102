//! The launcher (issue #40, from `cargo xtask run`): install the pinned servers on first use,
//! start a real agent server (and, on request, the automation service and an Omnigent stack)
//! with the session key kept 0600 in the state dir, serve the app with that key injected, print
//! the URL, supervise what it started, and stop everything on Ctrl-C.

use crate::embedded;
use crate::supervise::{RestartPolicy, Supervisor};
use canvas_fixtures::llm_stub::{self, StubHandle, StubScript};
use canvas_harness::omnigent::{OmnigentStack, STUB_AGENT_NAME};
use canvas_harness::python::{self, Installer};
use canvas_harness::{
    random_hex, AgentServer, AgentServerOptions, AutomationOptions, AutomationService,
};
use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The servers' lock files, built in (`build.rs`).
pub const AGENT_SERVER_LOCK: &str = include_str!(concat!(env!("OUT_DIR"), "/requirements.lock"));
pub const AUTOMATION_LOCK: &str = include_str!(concat!(env!("OUT_DIR"), "/automation.lock"));
pub const OMNIGENT_LOCK: &str = include_str!(concat!(env!("OUT_DIR"), "/omnigent.lock"));

/// `agent-canvas [flags]` (and `cargo xtask run [flags]`): every flag is part of the launcher's
/// interface (the end-to-end tests and people run it by these names).
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Port of the app
    #[arg(long, value_name = "P", default_value_t = 8080)]
    port: u16,
    /// Port of the local agent server
    #[arg(long = "agent-server-port", value_name = "P", default_value_t = 8000)]
    agent_port: u16,
    /// Serve the app only (no local backend is seeded)
    #[arg(long = "no-agent-server")]
    no_agent: bool,
    /// Public mode: the user types the session key (it is not injected)
    #[arg(long)]
    public: bool,
    /// Locked-cloud build: the app only talks to this cloud host
    #[arg(long, value_name = "URL")]
    lock_to_cloud: Option<String>,
    /// Serve the app under a sub-path, e.g. /canvas
    #[arg(long, value_name = "/PREFIX")]
    base_path: Option<String>,
    /// Where the key, the servers' HOME, data and logs live (default
    /// $XDG_STATE_HOME/agent-canvas/run, else ~/.local/state/agent-canvas/run: outside any
    /// checkout, so the agent never works inside one)
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Serve the app from this build directory (a release build's dist/) instead of the one
    /// built into this binary
    #[arg(long, value_name = "DIR")]
    dist: Option<PathBuf>,
    /// Start a built-in LLM stub and store it as the agent server's LLM (no LLM key needed; the
    /// agent runs one command, then finishes)
    #[arg(long)]
    demo: bool,
    /// Also start the automation service (PyPI openhands-automation) beside the agent server,
    /// routed by canvas-serve under /api/automation
    #[arg(long)]
    automations: bool,
    /// Port of the automation service (default: agent-server port + 1)
    #[arg(long, value_name = "P")]
    automation_port: Option<u16>,
    /// Also start an Omnigent server (PyPI omnigent), one host daemon and an offline agent
    /// (stub-chat) on a built-in LLM stub, mounted by canvas-serve as `local` under
    /// /omnigent/local
    #[arg(long)]
    omnigent: bool,
    /// Port of the Omnigent server
    #[arg(long, value_name = "P", default_value_t = 6767)]
    omnigent_port: u16,
}

/// Progress lines, with the seconds since start (as `cargo xtask` prints its steps).
struct Steps(Instant);

impl Steps {
    fn say(&self, msg: &str) {
        println!("==> [{:>5.1}s] {msg}", self.0.elapsed().as_secs_f64());
        let _ = std::io::stdout().flush();
    }
}

/// The `uv` to install the servers with: the one beside this binary (the wheel installs PyPI's
/// `uv` there), else the one `uv run`/`uvx` name in `$UV`, else one on `PATH`; none means a
/// pinned one is bootstrapped into the cache.
fn found_uv() -> Option<PathBuf> {
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("uv")));
    beside
        .into_iter()
        .chain(std::env::var_os("UV").map(PathBuf::from))
        .find(|p| p.is_file())
        .or_else(|| python::which("uv"))
}

/// The app to serve: `--dist`, else the build inside this binary.
fn app_files(dist: Option<&Path>) -> Result<canvas_serve::AppFiles, String> {
    if let Some(dist) = dist {
        return Ok(canvas_serve::AppFiles::Dir(dist.to_path_buf()));
    }
    if !embedded::present() {
        return Err(
            "this agent-canvas was built without the app: pass --dist DIR (a release \
                    build's dist/, from `cargo xtask build`), or build it with AGENT_CANVAS_DIST \
                    set to one (`cargo xtask run` and `cargo xtask dist` do)"
                .into(),
        );
    }
    Ok(canvas_serve::AppFiles::Memory {
        files: Arc::new(embedded::files()?),
        // Compressed variants of the content-hashed files, kept between starts.
        cache: Some(python::cache_dir().join("app-compressed")),
    })
}

/// The session key persisted in the state dir (0600), generated once (32 random bytes, hex).
/// A key in a file that group or others can read is not reused (it may have been read).
fn session_key(state: &Path) -> Result<String, String> {
    let path = state.join("session-api-key");
    let private = fs::metadata(&path).is_ok_and(|m| m.permissions().mode() & 0o077 == 0);
    if let (true, Ok(k)) = (private, fs::read_to_string(&path)) {
        let k = k.trim().to_string();
        if k.len() == 64 && k.chars().all(|c| c.is_ascii_hexdigit()) {
            return Ok(k);
        }
    }
    let k = random_hex(32).map_err(|e| e.to_string())?;
    write_private(&path, &k).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(k)
}

/// Writes `contents` to a new file created with mode 0600 (never readable by others, not even
/// between create and chmod), then renames it over `path`: whoever opened an older `path` never
/// sees the new contents.
fn write_private(path: &Path, contents: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let written = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&tmp)
        .and_then(|mut f| {
            f.write_all(contents.as_bytes())?;
            f.sync_all()
        })
        .and_then(|()| fs::rename(&tmp, path));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

pub fn run(o: RunArgs) -> Result<(), String> {
    let steps = Steps(Instant::now());
    if o.demo && o.no_agent {
        return Err("--demo needs the local agent server (drop --no-agent-server)".into());
    }
    if o.automations && o.no_agent {
        return Err("--automations needs the local agent server (drop --no-agent-server)".into());
    }
    let automation_port = o
        .automation_port
        .unwrap_or_else(|| o.agent_port.saturating_add(1));
    if o.automations && canvas_harness::port_in_use(automation_port) {
        return Err(format!(
            "port {automation_port} (automation service) is already in use; choose another with \
             --automation-port"
        ));
    }
    if o.omnigent && canvas_harness::port_in_use(o.omnigent_port) {
        return Err(format!(
            "port {} (Omnigent server) is already in use; choose another with --omnigent-port",
            o.omnigent_port
        ));
    }
    if canvas_harness::port_in_use(o.port) {
        return Err(format!(
            "port {} is already in use; choose another with --port",
            o.port
        ));
    }
    if !o.no_agent && canvas_harness::port_in_use(o.agent_port) {
        return Err(format!(
            "port {} (agent server) is already in use; choose another with --agent-server-port \
             or use --no-agent-server",
            o.agent_port
        ));
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .map_err(|e| format!("cannot install the Ctrl-C handler: {e}"))?;
    }

    let state = o.state_dir.clone().unwrap_or_else(default_state_dir);
    // Private (0700): the session key and the servers' state are the user's alone.
    canvas_harness::private_dir(&state)?;
    if let Some(repo) = enclosing_git_repo(&state) {
        println!(
            "warning: the state dir {} is inside the git repository {}: conversations' working \
             directories would be too (their Changes tab would show that repository's history, and \
             an agent asked to commit would commit into it). Pass --state-dir outside it.",
            state.display(),
            repo.display()
        );
    }
    let key = session_key(&state)?;

    let app = app_files(o.dist.as_deref())?;
    let uv = found_uv();
    let logs = state.join("logs");
    let say = |line: &str| steps.say(line);
    let installer = Installer {
        logs,
        uv,
        say: &say,
    };
    let python = if o.no_agent {
        None
    } else {
        Some(installer.venv(&python::AGENT_SERVER, AGENT_SERVER_LOCK)?)
    };
    // Automation runs install the SDK through the agent server with uv: set that up first.
    let automation_python = if o.automations {
        Some(installer.venv(&python::AUTOMATION, AUTOMATION_LOCK)?)
    } else {
        None
    };
    let tooling = match &automation_python {
        Some(p) => Some(installer.run_tooling(p)?),
        None => None,
    };
    let omnigent_python = if o.omnigent {
        Some(installer.venv(&python::OMNIGENT, OMNIGENT_LOCK)?)
    } else {
        None
    };

    let mut agent: Option<AgentServer> = None;
    let mut agent_opts: Option<AgentServerOptions> = None;
    if let Some(python) = python {
        steps.say(&format!(
            "starting the agent server on 127.0.0.1:{} (~15 s)",
            o.agent_port
        ));
        let mut opts = AgentServerOptions::new(
            python,
            o.agent_port,
            state.join("agent-server"),
            key.clone(),
        );
        if let Some(t) = &tooling {
            opts.env.extend(t.agent_server_env());
        }
        // Ctrl-C while it starts stops it at once.
        opts.cancel = Some(stop.clone());
        let s = match AgentServer::start(&opts) {
            Err(_) if stop.load(Ordering::SeqCst) => return Ok(()),
            r => r?,
        };
        steps.say(&format!("agent server ready (log: {})", s.log.display()));
        agent = Some(s);
        agent_opts = Some(opts);
    }
    let mut automation: Option<AutomationService> = None;
    let mut automation_opts: Option<AutomationOptions> = None;
    if let (Some(py), Some(a)) = (&automation_python, &agent) {
        steps.say(&format!(
            "starting the automation service on 127.0.0.1:{automation_port} (~15 s)"
        ));
        let mut opts = AutomationOptions::new(
            py.clone(),
            automation_port,
            state.join("automation"),
            &a.url,
            &key,
        );
        opts.cancel = Some(stop.clone());
        let svc = match AutomationService::start(&opts) {
            Err(_) if stop.load(Ordering::SeqCst) => return Ok(()),
            r => r?,
        };
        automation_opts = Some(opts);
        steps.say(&format!(
            "automation service ready in {:.1} s (log: {})",
            svc.started_in.as_secs_f64(),
            svc.log.display()
        ));
        automation = Some(svc);
    }
    if stop.load(Ordering::SeqCst) {
        return Ok(());
    }
    // One runtime for the server of the app and the LLM stub; it outlives the whole run.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    // --demo / --omnigent: the LLM stub (built in: no LLM key needed).
    let mut demo: Option<StubHandle> = None;
    if (o.demo && agent.is_some()) || o.omnigent {
        let stub = rt.block_on(llm_stub::start(StubScript::new()));
        if let (true, Some(a)) = (o.demo, &agent) {
            rt.block_on(configure_demo_llm(&a.url, &key, &stub.url()))?;
            println!("demo: LLM stub at {} (no LLM key needed)", stub.url());
        }
        demo = Some(stub);
    }
    // --omnigent: server, host and the stub agent, all with private HOMEs under the state dir.
    let mut omnigent: Option<OmnigentStack> = None;
    if let Some(py) = &omnigent_python {
        steps.say(&format!(
            "starting Omnigent on 127.0.0.1:{} (server, host, stub agent; ~5 s)",
            o.omnigent_port
        ));
        let stub_url = demo.as_ref().map(|stub| stub.url());
        let stack = OmnigentStack::start_on(
            py.clone(),
            o.omnigent_port,
            state.join("omnigent"),
            stub_url.as_deref(),
        )?;
        steps.say(&format!(
            "Omnigent ready: server in {:.1} s, host online in {:.1} s (logs: {}, {})",
            stack.timings.server_ready.as_secs_f64(),
            stack.timings.host_online.as_secs_f64(),
            stack.server.log.display(),
            stack.host.log.display()
        ));
        omnigent = Some(stack);
    }
    if stop.load(Ordering::SeqCst) {
        return Ok(());
    }

    // From here on, what exits on its own is reported and started again (issue #17).
    let agent_url = agent.as_ref().map(|a| a.url.clone());
    let automation_url = automation.as_ref().map(|a| a.url.clone());
    let omnigent_info = omnigent
        .as_ref()
        .map(|stack| (stack.url().to_string(), stack.host.host_id().to_string()));
    let policy = RestartPolicy::DEFAULT;
    let mut agent = match (agent, agent_opts) {
        (Some(a), Some(opts)) => {
            // --demo: the restarted server gets the stub as its LLM again.
            let demo_llm = match (&demo, o.demo) {
                (Some(stub), true) => Some((rt.handle().clone(), stub.url())),
                _ => None,
            };
            let key = key.clone();
            Some(
                Supervisor::new("agent server", a, policy, move || {
                    let s = AgentServer::start(&opts)?;
                    if let Some((rt, stub_url)) = &demo_llm {
                        rt.block_on(configure_demo_llm(&s.url, &key, stub_url))?;
                    }
                    Ok(s)
                })
                .with_stop(stop.clone()),
            )
        }
        _ => None,
    };
    let mut automation = match (automation, automation_opts) {
        (Some(svc), Some(opts)) => Some(
            Supervisor::new("automation service", svc, policy, move || {
                AutomationService::start(&opts)
            })
            .with_stop(stop.clone()),
        ),
        _ => None,
    };
    let mut omnigent = match (omnigent, &omnigent_python) {
        (Some(stack), Some(py)) => {
            let (py, port, dir) = (py.clone(), o.omnigent_port, state.join("omnigent"));
            let stub_url = demo.as_ref().map(|stub| stub.url());
            Some(
                Supervisor::new("Omnigent stack", stack, policy, move || {
                    OmnigentStack::start_on(py.clone(), port, dir.clone(), stub_url.as_deref())
                })
                .with_stop(stop.clone()),
            )
        }
        _ => None,
    };

    steps.say("serving the app");
    let mut config = canvas_serve::Config::new(PathBuf::new());
    config.app = app;
    config.port = o.port;
    if let Some(url) = &agent_url {
        config.agent_server_url = Some(url.clone());
        if o.public {
            config.auth_required = true;
        } else {
            config.session_api_key = Some(key.clone());
        }
    }
    config.automation_url = automation_url.clone();
    if let Some((url, _)) = &omnigent_info {
        config.omnigent = vec![format!("local={url}").parse()?];
    }
    config.lock_to_cloud = o.lock_to_cloud.clone();
    config.base_path = o.base_path.clone();
    let served = rt
        .block_on(canvas_serve::start(config))
        .map_err(|e| e.to_string())?;
    let url = served.url();
    println!();
    println!("  Agent Canvas is running: {url}/");
    if let Some(url) = &agent_url {
        println!("  agent server: {url} (state in {})", state.display());
        if let Some(url) = &automation_url {
            println!("  automation service: {url} (/automations)");
        }
        if o.public {
            println!(
                "  public mode: the key is in {} (type it in the app)",
                state.join("session-api-key").display()
            );
        }
    }
    if let Some((omni_url, host_id)) = &omnigent_info {
        println!(
            "  omnigent: {omni_url} (the app reaches it at {url}/omnigent/local; host {host_id}, \
             agent {STUB_AGENT_NAME} answering from the LLM stub; state in {})",
            state.join("omnigent").display()
        );
    }
    println!(
        "  What stops on its own is reported (exit, log) and started again (1 s, 2 s, 4 s, … \
         at most 30 s; given up after 5 failures within 2 minutes)."
    );
    println!("  Press Ctrl-C to stop.");
    println!();

    // Wait for Ctrl-C or for a child to die.
    loop {
        if stop.load(Ordering::SeqCst) {
            println!("\nstopping…");
            break;
        }
        let mut say = |line: String| println!("{line}");
        if let Some(s) = agent.as_mut() {
            s.poll(&mut say);
        }
        if let Some(s) = automation.as_mut() {
            s.poll(&mut say);
        }
        if let Some(s) = omnigent.as_mut() {
            s.poll(&mut say);
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    rt.block_on(served.shutdown());
    drop(omnigent);
    drop(automation);
    drop(agent);
    drop(demo);
    Ok(())
}

/// Stores the stub as the agent server's LLM (`PATCH /api/settings`), so the app's launcher
/// falls back to it when this browser has no LLM settings of its own.
async fn configure_demo_llm(agent_url: &str, key: &str, stub_url: &str) -> Result<(), String> {
    let body = serde_json::json!({
        "agent_settings_diff": {
            "llm": {
                "model": format!("openai/{}", llm_stub::MODEL_ID),
                "base_url": stub_url,
                "api_key": "stub",
                "num_retries": 0
            }
        }
    });
    let resp = reqwest::Client::new()
        .patch(format!("{agent_url}/api/settings"))
        .header("X-Session-API-Key", key)
        .json(&body)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .map_err(|e| format!("demo: cannot store the stub LLM on the agent server: {e}"))?;
    let status = resp.status();
    if !status.is_success() {
        let text = resp.text().await.unwrap_or_default();
        return Err(format!(
            "demo: the agent server refused the stub LLM settings ({status}): {text}"
        ));
    }
    Ok(())
}

/// Where the launcher keeps its state by default: `$XDG_STATE_HOME/agent-canvas/run`, else
/// `~/.local/state/agent-canvas/run` — outside any checkout (issue #17: a conversation's working
/// directory must not lie inside a repository it did not choose).
pub fn default_state_dir() -> PathBuf {
    python::state_home().join("run")
}

/// The git work tree that contains `dir`, if any (a `.git` in it or an ancestor).
fn enclosing_git_repo(dir: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    dir.ancestors()
        .find(|a| a.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn mode(path: &Path) -> u32 {
        fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn session_key_file_is_private_from_the_start() {
        let state = std::env::temp_dir().join(format!("xtask-run-{}", random_hex(8).unwrap()));
        fs::create_dir_all(&state).unwrap();
        let path = state.join("session-api-key");
        // A stale file others can read, which someone opened while it was readable.
        fs::write(&path, "not a key").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let mut early_reader = fs::File::open(&path).unwrap();

        let key = session_key(&state).unwrap();
        assert_eq!(key.len(), 64);
        assert_eq!(fs::read_to_string(&path).unwrap(), key);
        assert_eq!(mode(&path), 0o600);
        let mut seen = String::new();
        early_reader.read_to_string(&mut seen).unwrap();
        assert!(
            !seen.contains(&key),
            "the key went into the world-readable file"
        );

        // Reused while private; replaced once others could read it.
        assert_eq!(session_key(&state).unwrap(), key);
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        let fresh = session_key(&state).unwrap();
        assert_ne!(fresh, key);
        assert_eq!(mode(&path), 0o600);
        // No temporary file left behind.
        assert_eq!(fs::read_dir(&state).unwrap().count(), 1);
        fs::remove_dir_all(&state).unwrap();
    }
}
