//! A REAL Omnigent (PyPI `omnigent`, issue #12) on 127.0.0.1 for tests and
//! `cargo xtask run --omnigent`: the coordinating server, one host daemon connected to it, and an
//! offline agent installed on the `openai-agents` harness that talks to the LLM stub.
//!
//! ```ignore
//! let stub = canvas_fixtures::llm_stub::start(StubScript::new()).await;
//! let stack = OmnigentStack::start(python, state_dir, Some(&stub.url()))?; // blocking
//! stack.server.url();      // http://127.0.0.1:PORT (single-user: no auth headers needed)
//! stack.host.host_id();    // for POST /v1/sessions {agent_id, host_id, workspace}
//! stack.agent_id;          // the stub agent ("stub-chat")
//! stack.host.stop();       // the host disconnects; /v1/hosts shows it offline within ~1 s
//! ```
//!
//! Every process gets a private `HOME` under the state dir (the server's SQLite database and the
//! host's id live there) and a minimal environment: no `OMNIGENT_*`/`XDG_*` variables and no LLM
//! keys from the caller's environment, plus `OMNIGENT_NO_UPDATE_CHECK=1`,
//! `OMNIGENT_DISABLE_TELEMETRY=1` and `DO_NOT_TRACK=1`. The host alone gets
//! `OPENAI_BASE_URL=<stub>/v1` and `OPENAI_API_KEY=sk-stub` (the stub agent reads them), and a
//! private npm global prefix (`NPM_CONFIG_PREFIX=host/npm-global`, its `bin` first on `PATH`):
//! a harness the server installs on the host (`npm install -g`, issue #39 §1) lands there, never
//! in the machine's global packages. npm's download cache stays the user's (`~/.npm`), so a
//! second install downloads nothing.
//!
//! Layout of the state dir: `home/` (server), `omnigent-server.log`, `host/home/`, `host/`
//! (the host's working directory), `omnigent-host.log`. Reusing a state dir reuses the server's
//! database and the host's id.

use std::fs;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{free_port, http_get, port_in_use, tail, wait_until, Group};

/// The stub agent's `config.yaml` (`openai-agents` harness, chat completions, model
/// `stub-model`): the copy of `reference/omnigent/stub-agent-config.yaml`.
pub const STUB_AGENT_CONFIG: &str = include_str!("../omnigent/stub-agent-config.yaml");

/// The stub agent's name (its `config.yaml`'s `name`).
pub const STUB_AGENT_NAME: &str = "stub-chat";

/// The stub agent with a workspace (issue #39 §4): the same, plus an environment on its host
/// (`os_env`: the session's workspace, files, shell, changes) and a `bash` terminal. Only such
/// an agent's sessions have resources; the plain one's answer 404.
pub const WORKSPACE_AGENT_CONFIG: &str =
    include_str!("../omnigent/stub-workspace-agent-config.yaml");

/// The workspace agent's name.
pub const WORKSPACE_AGENT_NAME: &str = "stub-workspace";

/// How long the server may take to answer `GET /v1/info` (measured: ~3 s with compiled bytecode).
const SERVER_READY_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a host may take to show up online in `GET /v1/hosts` (measured: ~1.5 s).
const HOST_ONLINE_TIMEOUT: Duration = Duration::from_secs(60);
/// Grace between SIGTERM and SIGKILL when stopping (the host disconnects cleanly on SIGTERM).
const STOP_GRACE: Duration = Duration::from_secs(10);
/// Read timeout of one harness HTTP call.
const HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// Variables of the caller's environment the Omnigent processes keep (everything else is
/// dropped: LLM keys, `OMNIGENT_*`, `XDG_*`, `PYTHONPATH`, `VIRTUAL_ENV`, …).
const KEPT_ENV: &[&str] = &[
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "USER",
    "LOGNAME",
    "SHELL",
    // The machine's certificate authorities (a registry reached through a TLS proxy): without
    // them a harness install from npm retries for a minute before it gets through.
    "NODE_EXTRA_CA_CERTS",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// The host's private npm global prefix, under its directory (`<state>/host/npm-global`).
pub const NPM_GLOBAL: &str = "npm-global";

/// How to start Omnigent processes.
#[derive(Clone, Debug)]
pub struct OmnigentOptions {
    /// The omnigent venv's python (`<venv>/bin/python`); its `omnigent` console script next to
    /// it is preferred, else `python -m omnigent`.
    pub python: PathBuf,
    /// The server's port on 127.0.0.1.
    pub port: u16,
    /// Private state (see the module documentation).
    pub state_dir: PathBuf,
    /// The LLM stub's OpenAI base URL for the host (`StubHandle::url()`, `http://127.0.0.1:P/v1`;
    /// `/v1` is appended when missing). `None`: the host gets no LLM (external events only).
    pub stub_llm_url: Option<String>,
    /// Extra variables for the server alone, e.g. `("OMNIGENT_AUTH_HEADER", "Cf-Access-…")`.
    pub server_env: Vec<(String, String)>,
    /// The host's name (`host.name` in its `config.yaml`); `None`: the machine's hostname. A
    /// second host of the same owner needs a name of its own: the server keeps one host per
    /// (owner, name) and takes a new id under a known name for the old host's new identity.
    pub host_name: Option<String>,
    /// Managed sandboxes on (issue #39 §2): the server gets a `sandbox:` config whose provider
    /// is the test stand-in [`LOCAL_SANDBOX_PROVIDER`] (a community provider plugin that runs
    /// `omnigent host` as a local process in a private directory; see
    /// `omnigent/local-sandbox/`), since every real provider needs a cloud account or KVM.
    pub local_sandboxes: bool,
}

/// The stand-in managed-sandbox provider's name.
pub const LOCAL_SANDBOX_PROVIDER: &str = "canvas-local";

/// Where the stand-in provider's plugin lives (put on the server's `PYTHONPATH`).
const LOCAL_SANDBOX_PLUGIN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/omnigent/local-sandbox");

impl OmnigentOptions {
    pub fn new(python: impl Into<PathBuf>, port: u16, state_dir: impl Into<PathBuf>) -> Self {
        OmnigentOptions {
            python: python.into(),
            port,
            state_dir: state_dir.into(),
            stub_llm_url: None,
            server_env: Vec::new(),
            host_name: None,
            local_sandboxes: false,
        }
    }
}

/// `<venv>/bin/omnigent` when it exists, else `<python> -m omnigent`.
fn omnigent_command(python: &Path) -> Command {
    match python.parent().map(|d| d.join("omnigent")) {
        Some(script) if script.is_file() => Command::new(script),
        _ => {
            let mut c = Command::new(python);
            c.args(["-m", "omnigent"]);
            c
        }
    }
}

/// The stub's OpenAI base URL (`/v1` appended when missing).
fn llm_base(stub: &str) -> String {
    let stub = stub.trim_end_matches('/');
    if stub.ends_with("/v1") {
        stub.to_string()
    } else {
        format!("{stub}/v1")
    }
}

/// The minimal, private environment of an Omnigent process.
fn private_env(cmd: &mut Command, home: &Path, cwd: &Path) {
    cmd.env_clear();
    for k in KEPT_ENV {
        if let Some(v) = std::env::var_os(k) {
            cmd.env(k, v);
        }
    }
    cmd.env("HOME", home)
        .env("OMNIGENT_NO_UPDATE_CHECK", "1")
        .env("OMNIGENT_DISABLE_TELEMETRY", "1")
        .env("DO_NOT_TRACK", "1")
        .env("PYTHONUNBUFFERED", "1")
        .current_dir(cwd)
        .stdin(Stdio::null());
}

/// The state directory (private: its chat database, logs and artifacts are the user's alone)
/// and the `dirs` inside it.
fn create_dirs(state_dir: &Path, dirs: &[&Path]) -> Result<(), String> {
    crate::private_dir(state_dir)?;
    for d in dirs {
        fs::create_dir_all(d).map_err(|e| format!("create {}: {e}", d.display()))?;
    }
    Ok(())
}

fn log_file(path: &Path) -> Result<(fs::File, fs::File), String> {
    let out = fs::File::create(path).map_err(|e| format!("create {}: {e}", path.display()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((out, err))
}

/// Appends the log tail unless the message already carries it.
fn with_log_tail(e: String, log: &Path) -> String {
    if e.contains("log tail") {
        e
    } else {
        format!("{e}; log tail ({}):\n{}", log.display(), tail(log, 3000))
    }
}

/// A running `omnigent server`; dropping it stops it (SIGTERM to its process group).
pub struct OmnigentServer {
    group: Group,
    url: String,
    addr: SocketAddr,
    /// Its stdout/stderr.
    pub log: PathBuf,
    /// Its private HOME (`.omnigent/chat.db`, its own logs under `.omnigent/logs/server/`).
    pub home: PathBuf,
    /// How long it took to answer `GET /v1/info` with 200.
    pub started_in: Duration,
}

impl OmnigentServer {
    /// Starts `omnigent server --host 127.0.0.1 --port P --no-open` and waits until
    /// `GET /v1/info` answers 200.
    pub fn start(opts: &OmnigentOptions) -> Result<OmnigentServer, String> {
        let home = opts.state_dir.join("home");
        create_dirs(&opts.state_dir, &[&home])?;
        if port_in_use(opts.port) {
            return Err(format!(
                "port {} is already in use; choose another port for the Omnigent server",
                opts.port
            ));
        }
        let log = opts.state_dir.join("omnigent-server.log");
        let (out, err) = log_file(&log)?;
        let mut cmd = omnigent_command(&opts.python);
        cmd.args(["server", "--host", "127.0.0.1", "--port"])
            .arg(opts.port.to_string())
            .arg("--no-open");
        private_env(&mut cmd, &home, &opts.state_dir);
        cmd.envs(opts.server_env.iter().map(|(k, v)| (k, v)));
        if opts.local_sandboxes {
            let config = opts.state_dir.join("server-config.yaml");
            fs::write(
                &config,
                format!(
                    "sandbox:\n  provider: {LOCAL_SANDBOX_PROVIDER}\n  server_url: http://127.0.0.1:{}\n",
                    opts.port
                ),
            )
            .map_err(|e| format!("write {}: {e}", config.display()))?;
            cmd.arg("--config").arg(&config);
            cmd.env("PYTHONPATH", LOCAL_SANDBOX_PLUGIN)
                .env("CANVAS_SANDBOX_ROOT", opts.state_dir.join("sandboxes"));
            if let Some(stub) = &opts.stub_llm_url {
                cmd.env("CANVAS_SANDBOX_LLM_URL", llm_base(stub));
            }
        }
        cmd.stdout(out).stderr(err);
        let started = Instant::now();
        let mut group = Group::spawn("omnigent server", cmd).map_err(|e| {
            format!(
                "{e} (is {} the omnigent venv's python? `cargo xtask test` installs it)",
                opts.python.display()
            )
        })?;
        let addr: SocketAddr = ([127, 0, 0, 1], opts.port).into();
        wait_until(
            "the Omnigent server's GET /v1/info",
            SERVER_READY_TIMEOUT,
            || {
                if let Ok(Some(status)) = group.try_wait() {
                    return Err(format!(
                        "the Omnigent server exited ({status}); log tail ({}):\n{}",
                        log.display(),
                        tail(&log, 3000)
                    ));
                }
                Ok(matches!(http_get(addr, "/v1/info", &[]), Ok((200, _))).then_some(()))
            },
        )
        .map_err(|e| with_log_tail(e, &log))?;
        Ok(OmnigentServer {
            group,
            url: format!("http://127.0.0.1:{}", opts.port),
            addr,
            log,
            home,
            started_in: started.elapsed(),
        })
    }

    /// `http://127.0.0.1:<port>` (no trailing `/`).
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops the server now. Idempotent.
    pub fn stop(&mut self) {
        self.group.stop(STOP_GRACE);
    }

    pub fn pid(&self) -> u32 {
        self.group.id()
    }

    /// How the server exited, once it has (`None` while it runs).
    pub fn try_wait(&mut self) -> Option<std::process::ExitStatus> {
        self.group.try_wait().ok().flatten()
    }
}

/// A running `omnigent host` connected to a server; dropping it stops it.
pub struct OmnigentHost {
    group: Group,
    host_id: String,
    server_url: String,
    /// Its stdout/stderr.
    pub log: PathBuf,
    /// Its private HOME (`.omnigent/config.yaml` holds its id; runner logs under
    /// `.omnigent/logs/runner/`).
    pub home: PathBuf,
    /// How long it took to show up online in `GET /v1/hosts`.
    pub online_in: Duration,
    /// Its `TMPDIR` (short, under the system's: a tmux socket path must fit in 108 bytes),
    /// where its runners' terminals keep their tmux servers; they are ended with it.
    tmp: PathBuf,
}

impl OmnigentHost {
    /// Starts `omnigent host --server <url> --no-open --non-interactive` with its own HOME under
    /// `opts.state_dir/host` and waits until `GET /v1/hosts` lists it with `status: "online"`.
    pub fn start(server_url: &str, opts: &OmnigentOptions) -> Result<OmnigentHost, String> {
        let dir = opts.state_dir.join("host");
        let home = dir.join("home");
        create_dirs(&opts.state_dir, &[&home])?;
        let log = opts.state_dir.join("omnigent-host.log");
        let config = home.join(".omnigent/config.yaml");
        if let (Some(name), false) = (&opts.host_name, config.exists()) {
            // The host completes the section with a generated id and keeps it.
            fs::create_dir_all(home.join(".omnigent"))
                .and_then(|()| fs::write(&config, format!("host:\n  name: {name:?}\n")))
                .map_err(|e| format!("write {}: {e}", config.display()))?;
        }
        let (out, err) = log_file(&log)?;
        let server_url = server_url.trim_end_matches('/').to_string();
        let mut cmd = omnigent_command(&opts.python);
        cmd.args([
            "host",
            "--server",
            &server_url,
            "--no-open",
            "--non-interactive",
        ]);
        private_env(&mut cmd, &home, &dir);
        if let Some(stub) = &opts.stub_llm_url {
            cmd.env("OPENAI_BASE_URL", llm_base(stub))
                .env("OPENAI_API_KEY", "sk-stub");
        }
        let npm_global = dir.join(NPM_GLOBAL);
        let mut path = std::ffi::OsString::from(npm_global.join("bin"));
        if let Some(p) = std::env::var_os("PATH") {
            path.push(":");
            path.push(p);
        }
        cmd.env("NPM_CONFIG_PREFIX", &npm_global).env("PATH", path);
        // The runners' terminals (tmux servers, which leave the process group) live here, so
        // that stopping the host can end them.
        let tmp = std::env::temp_dir().join(format!(
            "cvh-{}",
            crate::random_hex(4).map_err(|e| format!("random: {e}"))?
        ));
        fs::create_dir_all(&tmp).map_err(|e| format!("create {}: {e}", tmp.display()))?;
        cmd.env("TMPDIR", &tmp);
        if let Some(real_home) = std::env::var_os("HOME") {
            cmd.env("npm_config_cache", PathBuf::from(real_home).join(".npm"));
        }
        cmd.stdout(out).stderr(err);
        let started = Instant::now();
        let mut group = Group::spawn("omnigent host", cmd).map_err(|e| e.to_string())?;
        let host_id = wait_until(
            "the Omnigent host to be online in GET /v1/hosts",
            HOST_ONLINE_TIMEOUT,
            || {
                if let Ok(Some(status)) = group.try_wait() {
                    return Err(format!(
                        "the Omnigent host exited ({status}); log tail ({}):\n{}",
                        log.display(),
                        tail(&log, 3000)
                    ));
                }
                // The host writes its id, then prints `Connected as '<name>' (<id>)`; then the
                // server must list it online (a reused state dir may list it online from before).
                let Some(id) = read_host_id(&config) else {
                    return Ok(None);
                };
                if !tail(&log, 64 * 1024).contains("Connected as") {
                    return Ok(None);
                }
                match host_status(&server_url, &id) {
                    Ok(Some(s)) if s == "online" => Ok(Some(id)),
                    _ => Ok(None),
                }
            },
        )
        .map_err(|e| with_log_tail(e, &log))?;
        Ok(OmnigentHost {
            group,
            host_id,
            server_url,
            log,
            home,
            online_in: started.elapsed(),
            tmp,
        })
    }

    /// Its id on the server (`host_id` in `GET /v1/hosts`, `POST /v1/sessions`).
    pub fn host_id(&self) -> &str {
        &self.host_id
    }

    /// The server it connected to.
    pub fn server_url(&self) -> &str {
        &self.server_url
    }

    /// Stops the daemon now (SIGTERM: it disconnects and the server marks it offline).
    /// Idempotent.
    pub fn stop(&mut self) {
        self.group.stop(STOP_GRACE);
        end_tmux_servers(&self.tmp);
    }

    pub fn pid(&self) -> u32 {
        self.group.id()
    }

    /// How the daemon exited, once it has (`None` while it runs).
    pub fn try_wait(&mut self) -> Option<std::process::ExitStatus> {
        self.group.try_wait().ok().flatten()
    }
}

impl Drop for OmnigentHost {
    fn drop(&mut self) {
        self.stop();
        let _ = fs::remove_dir_all(&self.tmp);
    }
}

/// Ends every tmux server whose socket is under `tmp` (`tmux -S <socket> kill-server`): the
/// terminals a host's runners started outlive the host's process group otherwise.
fn end_tmux_servers(tmp: &Path) {
    let Ok(dirs) = fs::read_dir(tmp) else {
        return;
    };
    for d in dirs.flatten() {
        let Ok(files) = fs::read_dir(d.path()) else {
            continue;
        };
        for f in files.flatten() {
            let is_socket = f
                .file_type()
                .is_ok_and(|t| std::os::unix::fs::FileTypeExt::is_socket(&t));
            if is_socket {
                let _ = Command::new("tmux")
                    .arg("-S")
                    .arg(f.path())
                    .arg("kill-server")
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
            }
        }
    }
}

/// `host_id` from the host's `~/.omnigent/config.yaml` (`host:\n  host_id: <hex>`).
fn read_host_id(config: &Path) -> Option<String> {
    let text = fs::read_to_string(config).ok()?;
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("host_id:"))
        .map(|v| v.trim().trim_matches(|c| c == '"' || c == '\'').to_string())
        .find(|v| !v.is_empty())
}

/// The `status` (`"online"`/`"offline"`) of host `host_id` in `GET /v1/hosts`; `None` when it is
/// not listed.
pub fn host_status(server_url: &str, host_id: &str) -> Result<Option<String>, String> {
    let (status, body) = request(server_url, "GET", "/v1/hosts", &[], &[])?;
    if status != 200 {
        return Err(format!(
            "GET /v1/hosts answered {status}: {}",
            String::from_utf8_lossy(&body)
        ));
    }
    let v: serde_json::Value =
        serde_json::from_slice(&body).map_err(|e| format!("GET /v1/hosts: not JSON: {e}"))?;
    Ok(v["hosts"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|h| h["host_id"] == host_id)
        .map(|h| h["status"].as_str().unwrap_or("").to_string()))
}

/// The stub agent as a bundle: a `.tar.gz` holding [`STUB_AGENT_CONFIG`] as `config.yaml`.
pub fn stub_agent_bundle() -> Vec<u8> {
    agent_bundle(STUB_AGENT_CONFIG)
}

/// An agent bundle: a `.tar.gz` holding `config` as `config.yaml`.
fn agent_bundle(config: &str) -> Vec<u8> {
    let tar = tar_one_file("config.yaml", config.as_bytes());
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into a Vec cannot fail.
    let _ = gz.write_all(&tar);
    gz.finish().unwrap_or_default()
}

/// A POSIX ustar archive with one regular file.
fn tar_one_file(name: &str, data: &[u8]) -> Vec<u8> {
    let mut header = [0u8; 512];
    let put = |h: &mut [u8; 512], at: usize, bytes: &[u8]| {
        h[at..at + bytes.len()].copy_from_slice(bytes);
    };
    put(&mut header, 0, name.as_bytes());
    put(&mut header, 100, b"0000644\0");
    put(&mut header, 108, b"0000000\0");
    put(&mut header, 116, b"0000000\0");
    put(
        &mut header,
        124,
        format!("{:011o}\0", data.len()).as_bytes(),
    );
    put(&mut header, 136, b"00000000000\0");
    put(&mut header, 148, b"        ");
    header[156] = b'0';
    put(&mut header, 257, b"ustar\0");
    put(&mut header, 263, b"00");
    let sum: u32 = header.iter().map(|&b| u32::from(b)).sum();
    put(&mut header, 148, format!("{sum:06o}\0 ").as_bytes());
    let mut out = header.to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out.extend_from_slice(&[0u8; 1024]);
    out
}

/// Installs the stub agent (`POST /v1/agents`, multipart `bundle`); returns its id.
/// Reinstalling replaces the bundle and keeps the id.
pub fn install_stub_agent(server_url: &str) -> Result<String, String> {
    install_agent(server_url, STUB_AGENT_NAME, STUB_AGENT_CONFIG)
}

/// Installs the workspace agent ([`WORKSPACE_AGENT_CONFIG`]); returns its id.
pub fn install_workspace_agent(server_url: &str) -> Result<String, String> {
    install_agent(server_url, WORKSPACE_AGENT_NAME, WORKSPACE_AGENT_CONFIG)
}

/// Installs the agent `name` whose `config.yaml` is `config`; returns its id.
fn install_agent(server_url: &str, name: &str, config: &str) -> Result<String, String> {
    let boundary = format!(
        "----canvas-harness-{}",
        crate::random_hex(12).unwrap_or_default()
    );
    let mut body = Vec::new();
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"bundle\"; \
             filename=\"{name}.tar.gz\"\r\nContent-Type: application/gzip\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(&agent_bundle(config));
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let (status, answer) = request(
        server_url,
        "POST",
        "/v1/agents",
        &[("Content-Type", &content_type)],
        &body,
    )?;
    let text = String::from_utf8_lossy(&answer);
    if !(200..300).contains(&status) {
        return Err(format!(
            "installing agent {name} (POST /v1/agents) answered {status}: {text}"
        ));
    }
    let v: serde_json::Value = serde_json::from_slice(&answer)
        .map_err(|e| format!("POST /v1/agents: not JSON ({e}): {text}"))?;
    v["id"]
        .as_str()
        .filter(|id| !id.is_empty())
        .map(str::to_string)
        .ok_or_else(|| format!("POST /v1/agents: no `id` in {text}"))
}

/// A blocking HTTP/1.1 request to a plain-`http` server on this machine (`server_url` like
/// `http://127.0.0.1:6767`, optionally with a path prefix). Returns (status, body); chunked
/// answers are decoded.
pub fn request(
    server_url: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Result<(u16, Vec<u8>), String> {
    let what = format!("{method} {server_url}{path}");
    let rest = server_url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{what}: only http:// URLs are supported here"))?;
    let (authority, prefix) = match rest.find('/') {
        Some(i) => (&rest[..i], rest[i..].trim_end_matches('/')),
        None => (rest, ""),
    };
    let addr = authority
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| format!("{what}: cannot resolve {authority}"))?;
    let io = |e: io::Error| format!("{what}: {e}");
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(io)?;
    stream.set_read_timeout(Some(HTTP_TIMEOUT)).map_err(io)?;
    let mut head = format!(
        "{method} {prefix}{path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).map_err(io)?;
    stream.write_all(body).map_err(io)?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).map_err(io)?;
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("{what}: no complete HTTP answer"))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| format!("{what}: no HTTP status line"))?;
    let chunked = head.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    let payload = &raw[split + 4..];
    let body = if chunked {
        dechunk(payload).ok_or_else(|| format!("{what}: malformed chunked answer"))?
    } else {
        payload.to_vec()
    };
    Ok((status, body))
}

/// Decodes a complete chunked body.
fn dechunk(mut data: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&data[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(data.get(..size)?);
        data = data.get(size + 2..)?;
    }
}

/// How long each step of [`OmnigentStack::start`] took.
#[derive(Clone, Copy, Debug)]
pub struct StackTimings {
    /// Start until `GET /v1/info` answered 200.
    pub server_ready: Duration,
    /// Host start until it was online in `GET /v1/hosts`.
    pub host_online: Duration,
    /// `POST /v1/agents`.
    pub agent_install: Duration,
}

/// A server, one host connected to it and the stub agent installed. Dropping it stops the host
/// first, then the server.
pub struct OmnigentStack {
    /// Declared before `server`: dropped (stopped) first.
    pub host: OmnigentHost,
    pub server: OmnigentServer,
    /// The stub agent's id (`POST /v1/sessions {agent_id}`).
    pub agent_id: String,
    pub timings: StackTimings,
}

impl OmnigentStack {
    /// Starts the server on a free port, a host with `stub_llm_url` as its OpenAI base URL, and
    /// installs the stub agent. Blocking (call it from `spawn_blocking` in async tests).
    pub fn start(
        python: impl Into<PathBuf>,
        state_dir: impl Into<PathBuf>,
        stub_llm_url: Option<&str>,
    ) -> Result<OmnigentStack, String> {
        let port = free_port().map_err(|e| format!("no free port: {e}"))?;
        Self::start_on(python, port, state_dir, stub_llm_url)
    }

    /// Like [`OmnigentStack::start`] on a given port.
    pub fn start_on(
        python: impl Into<PathBuf>,
        port: u16,
        state_dir: impl Into<PathBuf>,
        stub_llm_url: Option<&str>,
    ) -> Result<OmnigentStack, String> {
        let mut opts = OmnigentOptions::new(python, port, state_dir);
        opts.stub_llm_url = stub_llm_url.map(str::to_string);
        Self::start_with(&opts)
    }

    /// Like [`OmnigentStack::start`] with every option given (`opts.port` must be free).
    pub fn start_with(opts: &OmnigentOptions) -> Result<OmnigentStack, String> {
        let opts = opts.clone();
        let server = OmnigentServer::start(&opts)?;
        let host = OmnigentHost::start(server.url(), &opts)?;
        let t = Instant::now();
        let agent_id = install_stub_agent(server.url())?;
        let agent_install = t.elapsed();
        Ok(OmnigentStack {
            timings: StackTimings {
                server_ready: server.started_in,
                host_online: host.online_in,
                agent_install,
            },
            host,
            server,
            agent_id,
        })
    }

    /// The server's URL.
    pub fn url(&self) -> &str {
        self.server.url()
    }
}
