//! `cargo xtask run`: install what is missing, build, start a real agent server and
//! `canvas-serve` with its key injected, print the URL; Ctrl-C stops everything.

use crate::build;
use crate::supervise::{RestartPolicy, Supervisor};
use crate::tools;
use crate::util::{self, step, Ctx};
use canvas_fixtures::llm_stub::{self, StubHandle, StubScript};
use canvas_harness::omnigent::{OmnigentStack, STUB_AGENT_NAME};
use canvas_harness::{
    random_hex, AgentServer, AgentServerOptions, AutomationOptions, AutomationService, Group,
};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// `cargo xtask run [flags]`: every flag is part of the launcher's interface (the end-to-end
/// tests and people run it by these names).
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
    /// Where keys, HOME and the working dir live (default $XDG_STATE_HOME/agent-canvas/run, else
    /// ~/.local/state/agent-canvas/run: outside this checkout, so the agent never works inside it)
    #[arg(long, value_name = "DIR")]
    state_dir: Option<PathBuf>,
    /// Rebuild the app even if dist/ looks up to date
    #[arg(long)]
    rebuild: bool,
    /// Use the existing dist/ and canvas-serve binary (tests)
    #[arg(long)]
    skip_build: bool,
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

pub fn run(ctx: &Ctx, o: RunArgs) -> Result<(), String> {
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

    let (dist, serve_bin) = if o.skip_build {
        let (dist, bin) = (build::dist_dir(ctx), build::serve_bin(ctx));
        if !dist.join("index.html").exists() || !bin.exists() {
            return Err(
                "--skip-build: run `cargo xtask build` and build canvas-serve first".into(),
            );
        }
        (dist, bin)
    } else {
        (
            build::build_release(ctx, o.rebuild)?,
            build::build_serve(ctx)?,
        )
    };
    let python = if o.no_agent {
        None
    } else {
        Some(tools::ensure_agent_server_venv(ctx)?)
    };

    // Automation runs install the SDK through the agent server with uv: set that up first.
    let automation_python = if o.automations {
        Some(tools::ensure_automation_venv(ctx)?)
    } else {
        None
    };
    let tooling = match &automation_python {
        Some(p) => Some(tools::ensure_run_tooling(ctx, p)?),
        None => None,
    };
    let omnigent_python = if o.omnigent {
        Some(tools::ensure_omnigent_venv(ctx)?)
    } else {
        None
    };

    let mut agent: Option<AgentServer> = None;
    let mut agent_opts: Option<AgentServerOptions> = None;
    if let Some(python) = python {
        step(
            ctx,
            &format!(
                "starting the agent server on 127.0.0.1:{} (~15 s)",
                o.agent_port
            ),
        );
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
        step(
            ctx,
            &format!("agent server ready (log: {})", s.log.display()),
        );
        agent = Some(s);
        agent_opts = Some(opts);
    }
    let mut automation: Option<AutomationService> = None;
    let mut automation_opts: Option<AutomationOptions> = None;
    if let (Some(py), Some(a)) = (&automation_python, &agent) {
        step(
            ctx,
            &format!("starting the automation service on 127.0.0.1:{automation_port} (~15 s)"),
        );
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
        step(
            ctx,
            &format!(
                "automation service ready in {:.1} s (log: {})",
                svc.started_in.as_secs_f64(),
                svc.log.display()
            ),
        );
        automation = Some(svc);
    }
    if stop.load(Ordering::SeqCst) {
        return Ok(());
    }
    // --demo / --omnigent: the LLM stub lives on this runtime, which must outlive the whole run.
    let mut demo: Option<(tokio::runtime::Runtime, StubHandle)> = None;
    if (o.demo && agent.is_some()) || o.omnigent {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the LLM stub's runtime: {e}"))?;
        let stub = rt.block_on(llm_stub::start(StubScript::new()));
        if let (true, Some(a)) = (o.demo, &agent) {
            rt.block_on(configure_demo_llm(&a.url, &key, &stub.url()))?;
            println!("demo: LLM stub at {} (no LLM key needed)", stub.url());
        }
        demo = Some((rt, stub));
    }
    // --omnigent: server, host and the stub agent, all with private HOMEs under the state dir.
    let mut omnigent: Option<OmnigentStack> = None;
    if let Some(py) = &omnigent_python {
        step(
            ctx,
            &format!(
                "starting Omnigent on 127.0.0.1:{} (server, host, stub agent; ~5 s)",
                o.omnigent_port
            ),
        );
        let stub_url = demo.as_ref().map(|(_, stub)| stub.url());
        let stack = OmnigentStack::start_on(
            py.clone(),
            o.omnigent_port,
            state.join("omnigent"),
            stub_url.as_deref(),
        )?;
        step(
            ctx,
            &format!(
                "Omnigent ready: server in {:.1} s, host online in {:.1} s (logs: {}, {})",
                stack.timings.server_ready.as_secs_f64(),
                stack.timings.host_online.as_secs_f64(),
                stack.server.log.display(),
                stack.host.log.display()
            ),
        );
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
                (Some((rt, stub)), true) => Some((rt.handle().clone(), stub.url())),
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
            let stub_url = demo.as_ref().map(|(_, stub)| stub.url());
            Some(
                Supervisor::new("Omnigent stack", stack, policy, move || {
                    OmnigentStack::start_on(py.clone(), port, dir.clone(), stub_url.as_deref())
                })
                .with_stop(stop.clone()),
            )
        }
        _ => None,
    };

    step(ctx, "starting canvas-serve");
    let serve_log = state.join("canvas-serve.log");
    let (bin, dist2, port) = (serve_bin.clone(), dist.clone(), o.port);
    let (public, key2) = (o.public, key.clone());
    let (agent_url2, automation_url2) = (agent_url.clone(), automation_url.clone());
    let omnigent_url = omnigent_info.as_ref().map(|(url, _)| url.clone());
    let (lock, base) = (o.lock_to_cloud.clone(), o.base_path.clone());
    let serve_command = move || {
        let mut c = Command::new(&bin);
        c.arg("--dist")
            .arg(&dist2)
            .args(["--port", &port.to_string()]);
        if let Some(url) = &agent_url2 {
            c.args(["--agent-server-url", url]);
            if public {
                c.arg("--auth-required");
            } else {
                // The key travels by environment, not argv (argv is visible in `ps`).
                c.env("CANVAS_SESSION_API_KEY", &key2);
            }
        }
        if let Some(url) = &automation_url2 {
            c.args(["--automation-url", url]);
        }
        if let Some(url) = &omnigent_url {
            c.arg("--omnigent").arg(format!("local={url}"));
        }
        if let Some(l) = &lock {
            c.args(["--lock-to-cloud", l]);
        }
        if let Some(b) = &base {
            c.args(["--base-path", b]);
        }
        c
    };
    let Some(first) = ServeProcess::start(serve_command(), &serve_log, &stop)? else {
        return Ok(());
    };
    let url = first.url.clone();
    let restart_log = serve_log.clone();
    let restart_stop = stop.clone();
    let mut serve = Supervisor::new("canvas-serve", first, policy, move || {
        ServeProcess::start(serve_command(), &restart_log, &restart_stop)?
            .ok_or_else(|| "stopping".to_string())
    })
    .with_stop(stop.clone());
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
    println!("  canvas-serve's log: {}", serve_log.display());
    println!("  Press Ctrl-C to stop.");
    println!();

    // Wait for Ctrl-C or for a child to die.
    loop {
        if stop.load(Ordering::SeqCst) {
            println!("\nstopping…");
            break;
        }
        let mut say = |line: String| println!("{line}");
        serve.poll(&mut say);
        if serve.gave_up() {
            eprintln!("canvas-serve keeps failing; stopping everything");
            break;
        }
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
    drop(serve);
    drop(omnigent);
    drop(automation);
    drop(agent);
    drop(demo);
    Ok(())
}

/// canvas-serve as a supervised child: its output goes to a log file, and it is ready once it
/// printed where it listens (same port on every start, so an open page reconnects).
struct ServeProcess {
    group: Group,
    log: PathBuf,
    url: String,
}

impl ServeProcess {
    /// Starts `cmd` and waits (30 s at most) for its "listening on" line; `None` on Ctrl-C.
    fn start(mut cmd: Command, log: &Path, stop: &AtomicBool) -> Result<Option<Self>, String> {
        let out = fs::File::create(log).map_err(|e| format!("create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        cmd.stdin(Stdio::null()).stdout(out).stderr(err);
        let mut group = Group::spawn("canvas-serve", cmd).map_err(|e| e.to_string())?;
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            if stop.load(Ordering::SeqCst) {
                return Ok(None);
            }
            let text = fs::read_to_string(log).unwrap_or_default();
            if let Ok(Some(status)) = group.try_wait() {
                return Err(format!(
                    "canvas-serve exited ({}):\n{}",
                    crate::supervise::describe_exit(&status),
                    text.trim_end()
                ));
            }
            let url = text.lines().find_map(|l| {
                l.strip_prefix("canvas-serve listening on ")
                    .map(|u| u.trim().to_string())
            });
            if let Some(url) = url {
                return Ok(Some(ServeProcess {
                    group,
                    log: log.to_path_buf(),
                    url,
                }));
            }
            if std::time::Instant::now() > deadline {
                return Err(format!(
                    "canvas-serve did not say where it listens within 30 s (log: {})",
                    log.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl crate::supervise::Supervised for ServeProcess {
    fn pid(&self) -> u32 {
        self.group.id()
    }

    fn exited(&mut self) -> Option<crate::supervise::Exit> {
        let status = self.group.try_wait().ok().flatten()?;
        Some(crate::supervise::Exit {
            pid: self.group.id(),
            status,
            part: None,
            log: Some(self.log.clone()),
        })
    }
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

/// Where `cargo xtask run` keeps its state by default: the platform's state dir, outside any
/// checkout (issue #17: a conversation's working directory must not lie inside this repository).
fn default_state_dir() -> PathBuf {
    util::state_home().join("run")
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
