//! Process helpers shared by `xtask` and the end-to-end tests.
//!
//! - [`Group`]: a child started in its own process group; dropping it stops the whole group
//!   (SIGTERM, then SIGKILL after a grace period), so nothing it started is orphaned.
//! - [`AgentServer`]: a REAL `openhands-agent-server` on 127.0.0.1 with a private HOME and
//!   working directory, waited for with a deadline (never a fixed sleep).
//! - [`wait_until`], [`http_get`], [`free_port`], [`random_hex`]: small building blocks.

pub mod omnigent;
pub mod python;

use std::fs;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A child process leading its own process group. Dropping it terminates the group.
pub struct Group {
    child: Child,
    name: String,
    /// The group was stopped or killed already. Its id is never signalled again: once every
    /// member is gone the kernel may give that number to an unrelated new process group (pids
    /// wrap at `pid_max`), and a late `kill(-pgid)` from Drop would kill it.
    stopped: bool,
}

impl Group {
    /// Spawns `cmd` as the leader of a new process group.
    pub fn spawn(name: &str, mut cmd: Command) -> io::Result<Group> {
        cmd.process_group(0);
        let child = cmd
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("could not start {name}: {e}")))?;
        Ok(Group {
            child,
            name: name.to_string(),
            stopped: false,
        })
    }

    pub fn id(&self) -> u32 {
        self.child.id()
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the leader has exited (and how).
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.child.try_wait()
    }

    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Stops the whole group: SIGTERM, wait up to `grace`, then SIGKILL. Idempotent.
    pub fn stop(&mut self, grace: Duration) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let pgid = self.child.id() as libc::pid_t;
        if let Ok(Some(_)) = self.child.try_wait() {
            // The leader is gone; members may still live.
            signal_group(pgid, libc::SIGKILL);
            return;
        }
        signal_group(pgid, libc::SIGTERM);
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        signal_group(pgid, libc::SIGKILL);
        let _ = self.child.wait();
    }

    /// Kills the whole group at once (SIGKILL: a crash, no clean shutdown). Idempotent.
    pub fn kill(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        signal_group(self.child.id() as libc::pid_t, libc::SIGKILL);
        let _ = self.child.wait();
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(5));
    }
}

fn signal_group(pgid: libc::pid_t, sig: libc::c_int) {
    if pgid > 0 {
        // SAFETY: kill(2) with a negative pid signals the process group; no memory is involved.
        unsafe {
            libc::kill(-pgid, sig);
        }
    }
}

/// Polls `check` until it returns `Ok(Some(_))`; `Err` stops at once (a fatal condition);
/// after `timeout` it fails with `what` in the message.
pub fn wait_until<T>(
    what: &str,
    timeout: Duration,
    mut check: impl FnMut() -> Result<Option<T>, String>,
) -> Result<T, String> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = check()? {
            return Ok(v);
        }
        if Instant::now() >= deadline {
            return Err(format!("timed out after {timeout:?} waiting for {what}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One Python server boots at a time on this machine. A boot is mostly CPU (imports, the app's
/// start-up: ≈ 10–20 s of one core for the agent server); several at once on a small machine
/// take each other past any start timeout, so tests and binaries that run side by side queue
/// here instead (an advisory `flock` on a file in the temp dir, released when the boot ends or
/// its process dies). The start timeout counts from the turn, not from the queue.
pub struct BootTurn {
    _file: Option<fs::File>,
}

impl BootTurn {
    /// Waits (up to `patience`) for this machine's boot turn; without a lock file it goes
    /// ahead at once.
    pub fn wait(patience: Duration, cancel: &Option<Arc<AtomicBool>>) -> Result<BootTurn, String> {
        let path = std::env::temp_dir().join("agent-canvas-server-boot.lock");
        let Ok(file) = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
        else {
            return Ok(BootTurn { _file: None });
        };
        wait_until("this machine's server boot turn", patience, || {
            if cancelled(cancel) {
                return Err("cancelled while waiting to start".to_string());
            }
            // An exclusive `flock` on Unix, released with the file (or its process).
            Ok(file.try_lock().is_ok().then_some(()))
        })?;
        Ok(BootTurn { _file: Some(file) })
    }
}

/// How long a boot waits for its turn (others' boots are bounded by their own timeouts).
const BOOT_PATIENCE: Duration = Duration::from_secs(600);

/// A minimal blocking HTTP/1.1 GET on loopback. Returns (status, body).
pub fn http_get(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
) -> io::Result<(u16, String)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    stream.write_all(req.as_bytes())?;
    let mut buf = Vec::new();
    stream.read_to_end(&mut buf)?;
    let text = String::from_utf8_lossy(&buf).to_string();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no HTTP status line"))?;
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

/// A free TCP port on 127.0.0.1 (bound and released; good enough for tests and the launcher).
///
/// It is picked BELOW the kernel's ephemeral range (`ip_local_port_range`): a port handed out
/// here is free for the seconds a server needs to import and bind it, because `bind(0)` and
/// outgoing connections (Chromium's, canvas-serve's, every other test's) only ever take ports
/// inside that range. A port from `bind(0)` itself could be taken by any of them meanwhile,
/// and the server would then fail to bind, or its readiness check would be answered by someone
/// else. One process never hands out the same port twice.
pub fn free_port() -> io::Result<u16> {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static GIVEN: Mutex<Option<HashSet<u16>>> = Mutex::new(None);
    let (low, high) = private_port_range();
    if high > low {
        let mut given = GIVEN.lock().unwrap_or_else(|p| p.into_inner());
        let given = given.get_or_insert_with(HashSet::new);
        let mut seed = [0u8; 2];
        for _ in 0..256 {
            fs::File::open("/dev/urandom")?.read_exact(&mut seed)?;
            let port = low + u16::from_le_bytes(seed) % (high - low);
            if !given.contains(&port) && !port_in_use(port) {
                given.insert(port);
                return Ok(port);
            }
        }
    }
    let l = TcpListener::bind("127.0.0.1:0")?;
    Ok(l.local_addr()?.port())
}

/// `[low, high)`: the ports [`free_port`] picks from, 10000 up to the first ephemeral port.
fn private_port_range() -> (u16, u16) {
    let first_ephemeral = fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u16>().ok())
        .unwrap_or(32768);
    (10_000, first_ephemeral)
}

/// Whether something already listens on 127.0.0.1:`port`.
pub fn port_in_use(port: u16) -> bool {
    TcpListener::bind(("127.0.0.1", port)).is_err()
}

/// `n` random bytes from the OS, hex-encoded (2n characters).
pub fn random_hex(n: usize) -> io::Result<String> {
    let mut bytes = vec![0u8; n];
    fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The last `max` bytes of a text file (for error messages).
pub fn tail(path: &Path, max: usize) -> String {
    match fs::read(path) {
        Ok(bytes) => {
            let start = bytes.len().saturating_sub(max);
            String::from_utf8_lossy(&bytes[start..]).to_string()
        }
        Err(_) => String::new(),
    }
}

/// How to start a real agent server.
#[derive(Clone, Debug)]
pub struct AgentServerOptions {
    /// The venv's python (with `openhands-agent-server` installed).
    pub python: PathBuf,
    pub port: u16,
    /// Private state: `home/`, `work/` and `agent-server.log` live here.
    pub state_dir: PathBuf,
    pub session_api_key: String,
    /// Extra environment (e.g. CORS origins).
    pub env: Vec<(String, String)>,
    /// How long to wait for `/health`.
    pub ready_timeout: Duration,
    /// Set (e.g. by Ctrl-C) while waiting for `/health`: stop the server and give up.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl AgentServerOptions {
    pub fn new(python: PathBuf, port: u16, state_dir: PathBuf, session_api_key: String) -> Self {
        AgentServerOptions {
            python,
            port,
            state_dir,
            session_api_key,
            env: Vec::new(),
            ready_timeout: Duration::from_secs(90),
            cancel: None,
        }
    }
}

/// Whether `cancel` is set.
fn cancelled(cancel: &Option<Arc<AtomicBool>>) -> bool {
    cancel.as_ref().is_some_and(|c| c.load(Ordering::SeqCst))
}

/// A running agent server; dropping it stops it (SIGTERM to its process group).
pub struct AgentServer {
    group: Group,
    pub url: String,
    pub addr: SocketAddr,
    pub session_api_key: String,
    pub log: PathBuf,
    pub work_dir: PathBuf,
}

/// Creates `dir` (and its parents) and makes it private to this user (0700 on Unix, also when it
/// was there already): a server's state — keys, conversations, chat databases, logs — is
/// nobody else's to read (issue #41).
pub fn private_dir(dir: &Path) -> Result<(), String> {
    fs::create_dir_all(dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("make {} private: {e}", dir.display()))?;
    }
    Ok(())
}

impl AgentServer {
    /// Starts the server and waits until `GET /health` answers 200.
    pub fn start(opts: &AgentServerOptions) -> Result<AgentServer, String> {
        private_dir(&opts.state_dir)?;
        let home = opts.state_dir.join("home");
        let work = opts.state_dir.join("work");
        for d in [&home, &work] {
            fs::create_dir_all(d).map_err(|e| format!("create {}: {e}", d.display()))?;
        }
        let turn = BootTurn::wait(BOOT_PATIENCE, &opts.cancel)?;
        if port_in_use(opts.port) {
            return Err(format!(
                "port {} is already in use; choose another agent-server port",
                opts.port
            ));
        }
        let log = opts.state_dir.join("agent-server.log");
        let out = fs::File::create(&log).map_err(|e| format!("create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&opts.python);
        cmd.args([
            "-m",
            "openhands.agent_server",
            "--host",
            "127.0.0.1",
            "--port",
        ])
        .arg(opts.port.to_string())
        .current_dir(&work)
        .env("HOME", &home)
        .env("SESSION_API_KEY", &opts.session_api_key)
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("OPENHANDS_SUPPRESS_BANNER", "1")
        .env("OH_ENABLE_VSCODE", "false")
        .env("OH_ENABLE_BROWSER", "false")
        .env("OH_PRELOAD_TOOLS", "false")
        .env("PYTHONUNBUFFERED", "1")
        .env_remove("PYTHONPATH")
        .env_remove("VIRTUAL_ENV")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
        for (k, v) in &opts.env {
            cmd.env(k, v);
        }
        let mut group = Group::spawn("agent server", cmd).map_err(|e| e.to_string())?;
        let addr: SocketAddr = ([127, 0, 0, 1], opts.port).into();
        let log_for_err = log.clone();
        wait_until("the agent server's /health", opts.ready_timeout, || {
            if cancelled(&opts.cancel) {
                return Err("cancelled while the agent server was starting".to_string());
            }
            if let Ok(Some(status)) = group.try_wait() {
                return Err(format!(
                    "the agent server exited ({status}); log tail:\n{}",
                    tail(&log_for_err, 3000)
                ));
            }
            match http_get(addr, "/health", &[]) {
                // Still alive after answering: a server that failed to bind its port exits,
                // and then whoever holds the port answered.
                Ok((200, _)) if matches!(group.try_wait(), Ok(None)) => Ok(Some(())),
                Ok(_) => Ok(None),
                Err(_) => Ok(None),
            }
        })
        .map_err(|e| {
            if e.contains("exited") || e.starts_with("cancelled") {
                e
            } else {
                format!("{e}; log tail:\n{}", tail(&log, 3000))
            }
        })?;
        drop(turn);
        Ok(AgentServer {
            group,
            url: format!("http://127.0.0.1:{}", opts.port),
            addr,
            session_api_key: opts.session_api_key.clone(),
            log,
            work_dir: work,
        })
    }

    /// Stops the server now (SIGTERM; it shuts down cleanly).
    pub fn stop(&mut self) {
        self.group.stop(Duration::from_secs(10));
    }

    /// Kills the server at once (SIGKILL, as a crash would: no clean shutdown), and the tmux
    /// server its terminal tool started (a daemon outside its process group, which a clean
    /// shutdown would have ended).
    pub fn kill(&mut self) {
        let pid = self.group.id();
        self.group.kill();
        // The server keeps its terminals' tmux sockets in a directory of its own,
        // `<tmp>/openhands-agent-server-<pid>/tmux-<uid>/openhands-<id>` (one tmux server per
        // terminal), and removes it on a clean shutdown.
        for root in [std::env::temp_dir(), PathBuf::from("/tmp")] {
            let dir = root.join(format!("openhands-agent-server-{pid}"));
            let sockets = fs::read_dir(&dir)
                .into_iter()
                .flatten()
                .flatten()
                .flat_map(|uid| fs::read_dir(uid.path()).into_iter().flatten().flatten());
            for socket in sockets {
                let _ = Command::new("tmux")
                    .arg("-S")
                    .arg(socket.path())
                    .arg("kill-server")
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
            }
            let _ = fs::remove_dir_all(&dir);
        }
        // The port is free only once every process holding its socket has gone, which a
        // loaded machine may take a moment after the leader was reaped; a restart on the same
        // port (the crash tests) must not find it taken ("port … is already in use").
        let port = self.addr.port();
        let _ = wait_until(
            "the killed agent server's port to be free",
            Duration::from_secs(20),
            || Ok((!port_in_use(port)).then_some(())),
        );
    }

    pub fn pid(&self) -> u32 {
        self.group.id()
    }

    /// How the server exited, once it has (`None` while it runs).
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.group.try_wait().ok().flatten()
    }
}

/// What an automation run needs on the agent server's side (issue #14): the service's setup
/// script runs `uv venv` and `uv pip install openhands-sdk…` through the agent server, so `uv`,
/// a Python ≥ 3.12 and `curl` must be on its PATH; a uv cache already holding those wheels makes
/// the install offline and fast. `xtask` fills the cache and passes these as
/// `CANVAS_RUN_UV_DIR`, `CANVAS_RUN_PYTHON_DIR`, `CANVAS_RUN_UV_CACHE`.
#[derive(Clone, Debug)]
pub struct RunTooling {
    /// Directory holding `uv`.
    pub uv_dir: PathBuf,
    /// Directory holding a `python3` ≥ 3.12.
    pub python_dir: PathBuf,
    /// A filled uv cache.
    pub uv_cache: PathBuf,
}

impl RunTooling {
    /// From the `CANVAS_RUN_*` variables, when all three are set.
    pub fn from_env() -> Option<RunTooling> {
        let var = |k: &str| {
            std::env::var(k)
                .ok()
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        Some(RunTooling {
            uv_dir: var("CANVAS_RUN_UV_DIR")?,
            python_dir: var("CANVAS_RUN_PYTHON_DIR")?,
            uv_cache: var("CANVAS_RUN_UV_CACHE")?,
        })
    }

    /// The `CANVAS_RUN_*` variables (for a child that calls [`RunTooling::from_env`]).
    pub fn vars(&self) -> Vec<(String, String)> {
        vec![
            (
                "CANVAS_RUN_UV_DIR".into(),
                self.uv_dir.display().to_string(),
            ),
            (
                "CANVAS_RUN_PYTHON_DIR".into(),
                self.python_dir.display().to_string(),
            ),
            (
                "CANVAS_RUN_UV_CACHE".into(),
                self.uv_cache.display().to_string(),
            ),
        ]
    }

    /// The agent server's extra environment: PATH with uv and Python first, the cache, offline.
    pub fn agent_server_env(&self) -> Vec<(String, String)> {
        let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into());
        vec![
            (
                "PATH".into(),
                format!(
                    "{}:{}:{path}",
                    self.uv_dir.display(),
                    self.python_dir.display()
                ),
            ),
            ("UV_CACHE_DIR".into(), self.uv_cache.display().to_string()),
            ("UV_OFFLINE".into(), "1".into()),
            ("UV_PYTHON_DOWNLOADS".into(), "never".into()),
            ("UV_NO_PROGRESS".into(), "1".into()),
        ]
    }
}

/// How to start the real automation service (PyPI `openhands-automation`) in local mode.
#[derive(Clone, Debug)]
pub struct AutomationOptions {
    /// The service venv's python.
    pub python: PathBuf,
    /// Port on 127.0.0.1.
    pub port: u16,
    /// Private state: `home/`, the SQLite db, workspaces, storage and `automation.log`.
    pub state_dir: PathBuf,
    /// The agent server runs go to.
    pub agent_server_url: String,
    /// The agent server's session key; also the key clients of the service send.
    pub session_api_key: String,
    /// How long to wait for `/api/automation/health`.
    pub ready_timeout: Duration,
    /// Set (e.g. by Ctrl-C) while waiting for its health route: stop it and give up.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl AutomationOptions {
    /// Defaults: 90 s to start.
    pub fn new(
        python: PathBuf,
        port: u16,
        state_dir: PathBuf,
        agent_server_url: &str,
        session_api_key: &str,
    ) -> Self {
        AutomationOptions {
            python,
            port,
            state_dir,
            agent_server_url: agent_server_url.to_string(),
            session_api_key: session_api_key.to_string(),
            ready_timeout: Duration::from_secs(90),
            cancel: None,
        }
    }
}

/// A running automation service; dropping it stops it.
pub struct AutomationService {
    group: Group,
    /// `http://127.0.0.1:<port>` (its routes are under `/api/automation`).
    pub url: String,
    /// Its log.
    pub log: PathBuf,
    /// How long it took to answer `/api/automation/health`.
    pub started_in: Duration,
}

impl AutomationService {
    /// Starts `uvicorn openhands.automation.app:app` and waits for its health route.
    pub fn start(opts: &AutomationOptions) -> Result<AutomationService, String> {
        private_dir(&opts.state_dir)?;
        let home = opts.state_dir.join("home");
        let storage = opts.state_dir.join("storage");
        let workspaces = opts.state_dir.join("workspaces");
        for d in [&home, &storage, &workspaces] {
            fs::create_dir_all(d).map_err(|e| format!("create {}: {e}", d.display()))?;
        }
        let turn = BootTurn::wait(BOOT_PATIENCE, &opts.cancel)?;
        if port_in_use(opts.port) {
            return Err(format!("port {} is already in use", opts.port));
        }
        let db = opts.state_dir.join("automation.db");
        let log = opts.state_dir.join("automation.log");
        let out = fs::File::create(&log).map_err(|e| format!("create {}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let url = format!("http://127.0.0.1:{}", opts.port);
        let kv_secret = random_hex(32).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&opts.python);
        cmd.args([
            "-m",
            "uvicorn",
            "openhands.automation.app:app",
            "--host",
            "127.0.0.1",
            "--port",
        ])
        .arg(opts.port.to_string())
        .current_dir(&opts.state_dir)
        .env("HOME", &home)
        .env(
            "AUTOMATION_DB_URL",
            format!("sqlite+aiosqlite:///{}", db.display()),
        )
        .env("AUTOMATION_AGENT_SERVER_URL", &opts.agent_server_url)
        .env("AUTOMATION_AGENT_SERVER_API_KEY", &opts.session_api_key)
        // Without a local key the service checks credentials against the public cloud.
        .env("AUTOMATION_LOCAL_API_KEY", &opts.session_api_key)
        .env("AUTOMATION_BASE_URL", &url)
        .env("AUTOMATION_WORKSPACE_BASE", &workspaces)
        .env("AUTOMATION_KV_SECRET", kv_secret)
        .env("AUTOMATION_DISPATCHER_INTERVAL_SECONDS", "2")
        .env("AUTOMATION_WATCHDOG_INTERVAL_SECONDS", "10")
        .env("FILE_STORE", "local")
        .env("LOCAL_STORAGE_PATH", &storage)
        .env("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        .env("DO_NOT_TRACK", "1")
        .env("PYTHONUNBUFFERED", "1")
        .env_remove("PYTHONPATH")
        .env_remove("VIRTUAL_ENV")
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
        let started = Instant::now();
        let mut group = Group::spawn("automation service", cmd).map_err(|e| e.to_string())?;
        let addr: SocketAddr = ([127, 0, 0, 1], opts.port).into();
        wait_until(
            "the automation service's /api/automation/health",
            opts.ready_timeout,
            || {
                if cancelled(&opts.cancel) {
                    return Err("cancelled while the automation service was starting".to_string());
                }
                if let Ok(Some(status)) = group.try_wait() {
                    return Err(format!(
                        "the automation service exited ({status}); log tail:\n{}",
                        tail(&log, 3000)
                    ));
                }
                Ok(
                    matches!(http_get(addr, "/api/automation/health", &[]), Ok((200, _)))
                        .then_some(()),
                )
            },
        )
        .map_err(|e| {
            if e.contains("exited") || e.starts_with("cancelled") {
                e
            } else {
                format!("{e}; log tail:\n{}", tail(&log, 3000))
            }
        })?;
        drop(turn);
        Ok(AutomationService {
            group,
            url,
            log,
            started_in: started.elapsed(),
        })
    }

    /// Stops the service now.
    pub fn stop(&mut self) {
        self.group.stop(Duration::from_secs(10));
    }

    pub fn pid(&self) -> u32 {
        self.group.id()
    }

    /// How the service exited, once it has (`None` while it runs).
    pub fn try_wait(&mut self) -> Option<ExitStatus> {
        self.group.try_wait().ok().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::{free_port, private_port_range, BootTurn, Group};
    use std::collections::HashSet;
    use std::process::Command;
    use std::time::Duration;

    #[test]
    fn free_ports_are_below_the_ephemeral_range_bindable_and_never_repeated() {
        let (low, first_ephemeral) = private_port_range();
        let mut seen = HashSet::new();
        for _ in 0..50 {
            let port = free_port().expect("a port");
            assert!((low..first_ephemeral).contains(&port), "{port}");
            assert!(seen.insert(port), "{port} handed out twice");
            std::net::TcpListener::bind(("127.0.0.1", port)).expect("bindable");
        }
    }

    #[test]
    fn a_stopped_group_is_never_signalled_again() {
        let mut g = Group::spawn("sleep", {
            let mut c = Command::new("sleep");
            c.arg("30");
            c
        })
        .expect("spawn");
        g.kill();
        assert!(g.try_wait().expect("status").is_some(), "killed and reaped");
        // Idempotent: a second kill and the stop in Drop return at once without signalling the
        // (possibly reused) group id; `stopped` says so.
        g.kill();
        g.stop(Duration::from_secs(5));
        assert!(g.stopped);
    }

    #[test]
    fn one_boot_turn_at_a_time_and_it_ends_with_its_holder() {
        let first = BootTurn::wait(Duration::from_secs(300), &None).expect("a turn");
        let waited = BootTurn::wait(Duration::from_millis(300), &None);
        assert!(
            waited.as_ref().is_err_and(|e| e.contains("boot turn")),
            "a second boot waits for the first"
        );
        drop(first);
        // Another binary's boot may hold it now: its own timeout bounds the wait.
        assert!(BootTurn::wait(Duration::from_secs(300), &None).is_ok());
    }
}
