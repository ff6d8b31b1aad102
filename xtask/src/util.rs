//! Small helpers: the context, progress output, running commands.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

pub struct Ctx {
    pub root: PathBuf,
    pub cargo: String,
    pub started: Instant,
    pub logs: PathBuf,
}

impl Ctx {
    pub fn new() -> Ctx {
        let root = find_root();
        // Every build of this tree goes to its own `target/`: a target dir shared between
        // checkouts (e.g. git worktrees) makes cargo reuse another tree's artifacts.
        let target = root.join("target");
        if let Ok(t) = std::env::var("CARGO_TARGET_DIR") {
            if Path::new(&t) != target {
                eprintln!(
                    "note: ignoring CARGO_TARGET_DIR={t}; this tree builds into {}",
                    target.display()
                );
            }
        }
        std::env::set_var("CARGO_TARGET_DIR", &target);
        let logs = target.join("xtask-logs");
        let _ = fs::create_dir_all(&logs);
        Ctx {
            cargo: std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()),
            root,
            started: Instant::now(),
            logs,
        }
    }

    /// `$CARGO_HOME/bin/<name>` if present, else the bare name (found on PATH).
    pub fn cargo_bin(&self, name: &str) -> String {
        let p = cargo_home().join("bin").join(name);
        if p.exists() {
            p.to_string_lossy().into_owned()
        } else {
            name.to_string()
        }
    }

    /// PATH with the project's npm tools and cargo's bin first.
    pub fn path_env(&self) -> String {
        let mut parts = vec![
            self.root
                .join("node_modules/.bin")
                .to_string_lossy()
                .into_owned(),
            cargo_home().join("bin").to_string_lossy().into_owned(),
        ];
        if let Ok(p) = std::env::var("PATH") {
            parts.push(p);
        }
        parts.join(":")
    }
}

/// The workspace root: the nearest ancestor of the current directory with a `Cargo.toml` that
/// declares a `[workspace]` and has `xtask/`, else the directory this xtask was built from.
fn find_root() -> PathBuf {
    if let Ok(mut dir) = std::env::current_dir() {
        loop {
            let manifest = dir.join("Cargo.toml");
            if dir.join("xtask").is_dir()
                && fs::read_to_string(&manifest).is_ok_and(|m| m.contains("[workspace]"))
            {
                return dir;
            }
            if !dir.pop() {
                break;
            }
        }
    }
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

pub use canvas_harness::python::{home, state_home};

/// A short name for the checkout at `root` (FNV-1a of its path), so two checkouts' test state
/// never collide.
pub fn checkout_tag(root: &std::path::Path) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in root.as_os_str().as_encoded_bytes() {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

pub fn cargo_home() -> PathBuf {
    std::env::var("CARGO_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| home().join(".cargo"))
}

/// A command with the project PATH.
pub fn cmd(ctx: &Ctx, program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new(program);
    c.env("PATH", ctx.path_env());
    c
}

/// Prints a progress line with the elapsed time since the task started.
pub fn step(ctx: &Ctx, msg: &str) {
    println!("==> [{:>5.1}s] {msg}", ctx.started.elapsed().as_secs_f64());
    let _ = std::io::stdout().flush();
}

pub use canvas_harness::python::capture;

/// Bytes free for this user on the file system holding `path` (`df`'s "Available"), if `df`
/// answers.
pub fn free_space(path: &Path) -> Option<u64> {
    let text = capture(Command::new("df").arg("-Pk").arg(path)).ok()?;
    let kib: u64 = text
        .lines()
        .nth(1)?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// Runs a long command with its output in a log file, printing a heartbeat every 30 s and the
/// log's tail on failure (the harness's [`Installer::run_quiet`], with xtask's logs).
pub fn run_quiet(ctx: &Ctx, what: &str, c: &mut Command) -> Result<(), String> {
    let say = |line: &str| {
        println!("{line}");
        let _ = std::io::stdout().flush();
    };
    canvas_harness::python::Installer {
        logs: ctx.logs.clone(),
        uv: None,
        say: &say,
    }
    .run_quiet(what, c)
}
pub use canvas_harness::python::fnv1a;
