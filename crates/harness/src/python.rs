//! The Python side of a run: find a CPython ≥ 3.12, get `uv`, and install the pinned servers
//! into venvs kept in a cache, keyed by their lock file's text. `xtask` and the `agent-canvas`
//! binary (issue #40) share this, so both make (and reuse) the same venvs.
//!
//! Nothing here downloads anything but packages from the package index (PyPI).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The `uv` bootstrapped into the cache when none comes with the binary (PyPI `uv`).
pub const UV_VERSION: &str = "0.13.9";

/// One of the pinned servers: its lock file, what it installs and how to check it installed.
#[derive(Debug, Clone, Copy)]
pub struct Pinned {
    /// Venv name in the cache (`<name>-<hash of the lock>`).
    pub name: &'static str,
    /// The lock file, relative to the repository (for messages).
    pub lock_file: &'static str,
    /// The package it installs (for messages and `--version`).
    pub package: &'static str,
    /// A Python statement that succeeds once it is installed.
    pub check: &'static str,
}

/// The agent server (`server/requirements.lock`).
pub const AGENT_SERVER: Pinned = Pinned {
    name: "agent-server",
    lock_file: "server/requirements.lock",
    package: "openhands-agent-server",
    check: "import openhands.agent_server",
};
/// The automation service (`server/automation.lock`, issue #14).
pub const AUTOMATION: Pinned = Pinned {
    name: "automation",
    lock_file: "server/automation.lock",
    package: "openhands-automation",
    check: "import openhands.automation.app",
};
/// Omnigent (`server/omnigent.lock`, issue #12). Cold: ~10 s.
pub const OMNIGENT: Pinned = Pinned {
    name: "omnigent",
    lock_file: "server/omnigent.lock",
    package: "omnigent",
    check: "import omnigent.cli, omnigent.server.app",
};

/// The version a lock pins for `package` (`package==1.2.3`), if it does.
pub fn pinned_version<'a>(lock: &'a str, package: &str) -> Option<&'a str> {
    lock.lines()
        .filter_map(|l| l.trim().split_once("=="))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case(package))
        .map(|(_, v)| v.split([' ', ';', '\\']).next().unwrap_or("").trim())
}

/// The shared cache for what outlives a run (venvs keyed by their lock file):
/// `$AGENT_CANVAS_CACHE`, else `$XDG_CACHE_HOME/agent-canvas`, else `~/.cache/agent-canvas`.
pub fn cache_dir() -> PathBuf {
    if let Ok(d) = std::env::var("AGENT_CANVAS_CACHE") {
        return PathBuf::from(d);
    }
    let base = std::env::var("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| home().join(".cache"));
    base.join("agent-canvas")
}

/// The platform's state directory for this project: `$XDG_STATE_HOME/agent-canvas`, else
/// `~/.local/state/agent-canvas` — outside any checkout, so an agent's working directory under
/// it never lies inside a repository it did not choose (issue #17).
pub fn state_home() -> PathBuf {
    std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| home().join(".local/state"))
        .join("agent-canvas")
}

/// `$HOME` (else `/root`).
pub fn home() -> PathBuf {
    std::env::var("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from("/root"))
}

/// A program on `PATH`.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var("PATH").ok()?;
    path.split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// Runs a command and returns its stdout (stderr discarded); error if it fails to run or exits
/// non-zero.
pub fn capture(c: &mut Command) -> Result<String, String> {
    let out = c
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("exit {}", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// FNV-1a 64: a stable fingerprint for cache keys (not security).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

fn python_version(python: &Path) -> Option<(u32, u32)> {
    let out = capture(Command::new(python).args([
        "-c",
        "import sys; print(sys.version_info[0], sys.version_info[1])",
    ]))
    .ok()?;
    let mut it = out.split_whitespace().map(|s| s.parse::<u32>().ok());
    Some((it.next()??, it.next()??))
}

/// Finds a CPython ≥ 3.12: `$AGENT_CANVAS_PYTHON`, `python3.12`/`python3.13` on PATH, pyenv's
/// versions, then `python3`. Detects, never assumes.
pub fn find_python() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Ok(p) = std::env::var("AGENT_CANVAS_PYTHON") {
        candidates.push(PathBuf::from(p));
    }
    // 3.12 first: the version the pinned agent server is tested with.
    for name in ["python3.12", "python3.13"] {
        if let Some(p) = which(name) {
            candidates.push(p);
        }
    }
    let pyenv_root = std::env::var("PYENV_ROOT")
        .map(PathBuf::from)
        .unwrap_or_else(|_| home().join(".pyenv"));
    if let Ok(rd) = fs::read_dir(pyenv_root.join("versions")) {
        let mut vs: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        vs.sort();
        for prefix in ["3.12", "3.13"] {
            for v in vs.iter().rev() {
                let name = v.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if name.starts_with(prefix) {
                    candidates.push(v.join("bin/python3"));
                }
            }
        }
    }
    if let Some(p) = which("python3") {
        candidates.push(p);
    }
    candidates
        .into_iter()
        .find(|p| p.exists() && python_version(p).is_some_and(|(maj, min)| maj == 3 && min >= 12))
}

/// Installs into the cache, saying what it does through `say` (one line per step).
pub struct Installer<'a> {
    /// Where long commands' output goes (one log per command, its tail shown on failure).
    pub logs: PathBuf,
    /// A `uv` to use instead of bootstrapping one (the wheel brings its own, beside the binary).
    pub uv: Option<PathBuf>,
    /// Progress lines.
    pub say: &'a dyn Fn(&str),
}

impl Installer<'_> {
    /// Runs a long command with its output in a log file, saying every 30 s that it still runs
    /// and giving the log's tail on failure.
    pub fn run_quiet(&self, what: &str, c: &mut Command) -> Result<(), String> {
        let slug: String = what
            .chars()
            .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '-' })
            .collect();
        let _ = fs::create_dir_all(&self.logs);
        let log = self.logs.join(format!("{slug}.log"));
        let file = fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = file.try_clone().map_err(|e| e.to_string())?;
        let t0 = Instant::now();
        let mut child = c
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(err)
            .spawn()
            .map_err(|e| format!("{what}: could not start: {e}"))?;
        let mut next_beat = Duration::from_secs(30);
        let status = loop {
            if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
                break s;
            }
            if t0.elapsed() >= next_beat {
                (self.say)(&format!("    … {what}: {}s", t0.elapsed().as_secs()));
                next_beat += Duration::from_secs(30);
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        if status.success() {
            (self.say)(&format!(
                "    {what}: done in {:.1}s",
                t0.elapsed().as_secs_f64()
            ));
            Ok(())
        } else {
            Err(format!(
                "{what} failed ({status}); log: {}\n{}",
                log.display(),
                crate::tail(&log, 4000)
            ))
        }
    }

    /// `uv`: the one given, else a pinned one in the cache (installed with pip into a small
    /// bootstrap venv on first use).
    pub fn uv(&self) -> Result<PathBuf, String> {
        if let Some(uv) = self.uv.as_ref().filter(|p| p.is_file()) {
            return Ok(uv.clone());
        }
        let dir = cache_dir().join(format!("uv-{UV_VERSION}"));
        let uv = dir.join("bin/uv");
        if capture(Command::new(&uv).arg("--version"))
            .is_ok_and(|out| out.split_whitespace().any(|w| w == UV_VERSION))
        {
            return Ok(uv);
        }
        (self.say)(&format!(
            "installing uv {UV_VERSION} from PyPI into {}",
            dir.display()
        ));
        let _ = fs::remove_dir_all(&dir);
        let base = which("python3")
            .or_else(find_python)
            .ok_or("no python3 to bootstrap uv with: install Python ≥ 3.12 or uv")?;
        self.run_quiet(
            "python3 -m venv",
            Command::new(base).args(["-m", "venv"]).arg(&dir),
        )?;
        self.run_quiet(
            "pip install uv",
            Command::new(dir.join("bin/pip")).args([
                "install",
                "-q",
                "--disable-pip-version-check",
                &format!("uv=={UV_VERSION}"),
            ]),
        )?;
        Ok(uv)
    }

    /// The venv of `pinned` in the cache, named `<name>-<hash of lock>`, installed from `lock`
    /// (the lock file's text) with uv on first use and checked; returns its python.
    pub fn venv(&self, pinned: &Pinned, lock: &str) -> Result<PathBuf, String> {
        let dir = cache_dir().join(format!("{}-{:016x}", pinned.name, fnv1a(lock.as_bytes())));
        let python = dir.join("bin/python");
        let marker = dir.join(".complete");
        if marker.exists() && python.exists() {
            return Ok(python);
        }
        let base = find_python().ok_or(
            "no Python >= 3.12 found (tried $AGENT_CANVAS_PYTHON, python3.13, python3.12, \
             ~/.pyenv/versions/3.1[23]*, python3); install one or set AGENT_CANVAS_PYTHON",
        )?;
        let uv = self.uv()?;
        (self.say)(&format!(
            "installing {} {} (pinned by {}) into {} with {} — once, ~30 s",
            pinned.package,
            pinned_version(lock, pinned.package).unwrap_or("(pinned)"),
            pinned.lock_file,
            dir.display(),
            base.display()
        ));
        let _ = fs::remove_dir_all(&dir);
        if let Some(parent) = dir.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        let lock_path = dir.with_extension("lock");
        fs::write(&lock_path, lock).map_err(|e| format!("{}: {e}", lock_path.display()))?;
        let installed = (|| {
            self.run_quiet(
                "uv venv",
                Command::new(&uv)
                    .args(["venv", "-q", "-p"])
                    .arg(&base)
                    .arg(&dir),
            )?;
            self.run_quiet(
                &format!("uv pip install {}", pinned.package),
                Command::new(&uv)
                    .args(["pip", "install", "-q", "--compile-bytecode", "--python"])
                    .arg(&python)
                    .arg("-r")
                    .arg(&lock_path),
            )?;
            self.run_quiet(
                "import check",
                Command::new(&python).args(["-c", pinned.check]),
            )
        })();
        let _ = fs::remove_file(&lock_path);
        installed?;
        let _ = std::io::stdout().flush();
        fs::write(&marker, b"ok").map_err(|e| e.to_string())?;
        Ok(python)
    }

    /// What an automation run needs on the agent server's side (issue #14): the service's setup
    /// script makes a venv with `uv` and installs `openhands-sdk`/`-tools`/`-workspace` at the
    /// service's SDK version. This fills a shared uv cache with those wheels once (while the
    /// index is reachable), so runs install offline (`UV_OFFLINE=1`) in seconds.
    /// `automation_python` is the service venv's python.
    pub fn run_tooling(&self, automation_python: &Path) -> Result<crate::RunTooling, String> {
        let uv = self.uv()?;
        let base = find_python().ok_or("no Python >= 3.12 found")?;
        let version = capture(Command::new(automation_python).args([
            "-c",
            "import importlib.metadata as m; print(m.version('openhands-sdk'))",
        ]))?
        .trim()
        .to_string();
        let uv_cache = cache_dir().join("uv-cache");
        let marker = uv_cache.join(format!(".agent-canvas-sdk-{version}"));
        if !marker.exists() {
            (self.say)(&format!(
                "filling the uv cache with openhands-sdk {version} for automation runs"
            ));
            let scratch = cache_dir().join("uv-cache-fill");
            let _ = fs::remove_dir_all(&scratch);
            self.run_quiet(
                "uv venv (cache fill)",
                Command::new(&uv)
                    .env("UV_CACHE_DIR", &uv_cache)
                    .args(["venv", "-q", "-p"])
                    .arg(&base)
                    .arg(&scratch),
            )?;
            self.run_quiet(
                "uv pip install openhands-sdk (cache fill)",
                Command::new(&uv)
                    .env("UV_CACHE_DIR", &uv_cache)
                    .args(["pip", "install", "-q", "--python"])
                    .arg(scratch.join("bin/python"))
                    .args([
                        format!("openhands-sdk=={version}"),
                        format!("openhands-tools=={version}"),
                        format!("openhands-workspace=={version}"),
                    ]),
            )?;
            let _ = fs::remove_dir_all(&scratch);
            fs::write(&marker, b"ok").map_err(|e| e.to_string())?;
        }
        let dir_of = |p: &Path| {
            p.parent()
                .map(Path::to_path_buf)
                .ok_or_else(|| format!("{} has no parent directory", p.display()))
        };
        Ok(crate::RunTooling {
            uv_dir: dir_of(&uv)?,
            python_dir: dir_of(&base)?,
            uv_cache,
        })
    }
}
