//! Supervising what the launcher started (issue #17): when the agent server, the
//! automation service or the Omnigent stack exits on its own, say so — how it exited (exit code
//! or signal), where its log is and the log's last lines — and start it again with backoff
//! (1 s, 2 s, 4 s, … at most 30 s); after 5 failures within 2 minutes, give up and say so.
//!
//! [`RestartState::on_failure`] is the whole policy, pure (time is a parameter) and table-tested;
//! [`Supervisor`] applies it to a real child: [`Supervisor::poll`] is called from the launcher's
//! loop, and dropping the supervisor stops the child (Ctrl-C).

use canvas_harness::omnigent::OmnigentStack;
use canvas_harness::{AgentServer, AutomationService};
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When to start a child again, and when to stop trying.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Delay before the first restart; doubled after each further failure in a row.
    pub first_delay: Duration,
    /// The longest delay.
    pub max_delay: Duration,
    /// Give up at this many failures within [`RestartPolicy::window`].
    pub max_failures: usize,
    /// The window failures are counted in. A run that lasted this long also starts the backoff
    /// over.
    pub window: Duration,
}

impl RestartPolicy {
    /// 1 s, 2 s, 4 s, … at most 30 s; give up after 5 failures within 2 minutes.
    pub const DEFAULT: RestartPolicy = RestartPolicy {
        first_delay: Duration::from_secs(1),
        max_delay: Duration::from_secs(30),
        max_failures: 5,
        window: Duration::from_secs(120),
    };
}

/// What to do after a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Start it again after `after`; `failures` within the window so far.
    Restart { after: Duration, failures: usize },
    /// `failures` within the window: leave it stopped.
    GiveUp { failures: usize },
}

/// The failures seen so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RestartState {
    /// When the failures of the current window happened (time since supervision began).
    recent: Vec<Duration>,
    /// Failures in a row, without a run that lasted a whole window between them.
    streak: u32,
}

impl RestartState {
    /// The child failed (exited on its own, or did not start) at `now` (time since supervision
    /// began), after running for `uptime`.
    pub fn on_failure(
        &mut self,
        policy: &RestartPolicy,
        now: Duration,
        uptime: Duration,
    ) -> Decision {
        if uptime >= policy.window {
            self.streak = 0;
        }
        self.recent
            .retain(|t| now.saturating_sub(*t) < policy.window);
        self.recent.push(now);
        self.streak = self.streak.saturating_add(1);
        let failures = self.recent.len();
        if failures >= policy.max_failures {
            return Decision::GiveUp { failures };
        }
        let factor = 1u32.checked_shl(self.streak - 1).unwrap_or(u32::MAX);
        Decision::Restart {
            after: policy
                .first_delay
                .saturating_mul(factor)
                .min(policy.max_delay),
            failures,
        }
    }
}

/// How a supervised child (or one of its parts) ended.
#[derive(Debug)]
pub struct Exit {
    /// The process that exited.
    pub pid: u32,
    pub status: ExitStatus,
    /// Which part, for a service made of several processes (Omnigent: server or host).
    pub part: Option<&'static str>,
    /// Its log (stdout and stderr).
    pub log: Option<PathBuf>,
}

/// A child the [`Supervisor`] can watch.
pub trait Supervised {
    /// Its process id (the leader of its process group).
    fn pid(&self) -> u32;
    /// `Some` once it (or a part of it) has exited.
    fn exited(&mut self) -> Option<Exit>;
}

impl Supervised for AgentServer {
    fn pid(&self) -> u32 {
        AgentServer::pid(self)
    }

    fn exited(&mut self) -> Option<Exit> {
        let status = self.try_wait()?;
        Some(Exit {
            pid: self.pid(),
            status,
            part: None,
            log: Some(self.log.clone()),
        })
    }
}

impl Supervised for AutomationService {
    fn pid(&self) -> u32 {
        AutomationService::pid(self)
    }

    fn exited(&mut self) -> Option<Exit> {
        let status = self.try_wait()?;
        Some(Exit {
            pid: self.pid(),
            status,
            part: None,
            log: Some(self.log.clone()),
        })
    }
}

impl Supervised for OmnigentStack {
    fn pid(&self) -> u32 {
        self.server.pid()
    }

    fn exited(&mut self) -> Option<Exit> {
        if let Some(status) = self.server.try_wait() {
            return Some(Exit {
                pid: self.server.pid(),
                status,
                part: Some("server"),
                log: Some(self.server.log.clone()),
            });
        }
        let status = self.host.try_wait()?;
        Some(Exit {
            pid: self.host.pid(),
            status,
            part: Some("host daemon"),
            log: Some(self.host.log.clone()),
        })
    }
}

/// `exit code 3`, `killed by signal 9 (SIGKILL)`.
pub fn describe_exit(status: &ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit code {code}");
    }
    match status.signal() {
        Some(sig) => {
            let name = match sig {
                1 => " (SIGHUP)",
                2 => " (SIGINT)",
                3 => " (SIGQUIT)",
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                13 => " (SIGPIPE)",
                15 => " (SIGTERM)",
                _ => "",
            };
            format!("killed by signal {sig}{name}")
        }
        None => status.to_string(),
    }
}

/// The last `n` lines of a text file (at most its last 64 KiB are read).
pub fn last_lines(path: &Path, n: usize) -> Vec<String> {
    let text = canvas_harness::tail(path, 64 * 1024);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// Lines of a log shown when its child exits.
const LOG_LINES: usize = 20;

/// Moves `log` aside as `<log>.<n>` (the first number not taken: a restart creates `log`
/// afresh, and an earlier run's kept logs stay); the path it is at now.
fn keep_log(log: &Path) -> PathBuf {
    let taken = |n: u32| {
        let mut name = log.as_os_str().to_owned();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    };
    let Some(kept) = (1..10_000).map(taken).find(|p| !p.exists()) else {
        return log.to_path_buf();
    };
    match fs::rename(log, &kept) {
        Ok(()) => kept,
        Err(_) => log.to_path_buf(),
    }
}

fn secs(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() >= 60 && d.as_secs() % 60 == 0 {
        format!("{} min", d.as_secs() / 60)
    } else if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

enum Phase<S> {
    Running { child: S, since: Instant },
    Waiting { until: Instant },
    GaveUp,
}

type Start<S> = Box<dyn FnMut() -> Result<S, String>>;

/// Watches one child and starts it again when it exits on its own.
pub struct Supervisor<S: Supervised> {
    name: String,
    start: Start<S>,
    policy: RestartPolicy,
    state: RestartState,
    began: Instant,
    phase: Phase<S>,
    /// Set on Ctrl-C: a start that fails then is not a failure worth reporting.
    stop: Option<Arc<AtomicBool>>,
}

impl<S: Supervised> Supervisor<S> {
    /// Supervises `child` (already started); `start` starts it again.
    pub fn new(
        name: &str,
        child: S,
        policy: RestartPolicy,
        start: impl FnMut() -> Result<S, String> + 'static,
    ) -> Supervisor<S> {
        let now = Instant::now();
        Supervisor {
            name: name.to_string(),
            start: Box::new(start),
            policy,
            state: RestartState::default(),
            began: now,
            phase: Phase::Running { child, since: now },
            stop: None,
        }
    }

    /// Ctrl-C sets `stop`: no restart begins after it, and a start it interrupted is not
    /// reported as a failure.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Supervisor<S> {
        self.stop = Some(stop);
        self
    }

    /// The running child, if any.
    #[cfg(test)]
    pub fn child(&self) -> Option<&S> {
        match &self.phase {
            Phase::Running { child, .. } => Some(child),
            _ => None,
        }
    }

    /// The running child's pid.
    #[cfg(test)]
    pub fn pid(&self) -> Option<u32> {
        self.child().map(Supervised::pid)
    }

    /// It failed too often and is left stopped.
    pub fn gave_up(&self) -> bool {
        matches!(self.phase, Phase::GaveUp)
    }

    fn stopping(&self) -> bool {
        self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst))
    }

    /// Looks at the child once: reports an exit and schedules the restart, or starts it again
    /// when the delay is over (blocking until it is ready). What to print goes to `say`, one
    /// line at a time.
    pub fn poll(&mut self, say: &mut dyn FnMut(String)) {
        let now = Instant::now();
        match &mut self.phase {
            Phase::GaveUp => {}
            Phase::Running { child, since } => {
                let Some(exit) = child.exited() else {
                    return;
                };
                let (pid, uptime) = (exit.pid, now.duration_since(*since));
                let what = match exit.part {
                    Some(part) => format!("the {} ({part}, pid {pid})", self.name),
                    None => format!("the {} (pid {pid})", self.name),
                };
                say(format!(
                    "{what} exited unexpectedly after {}: {}",
                    secs(Duration::from_secs(uptime.as_secs())),
                    describe_exit(&exit.status)
                ));
                if let Some(log) = &exit.log {
                    let kept = keep_log(log);
                    let lines = last_lines(&kept, LOG_LINES);
                    if lines.is_empty() {
                        say(format!("  its log: {} (empty)", kept.display()));
                    } else {
                        say(format!(
                            "  its log: {} — last {} lines:",
                            kept.display(),
                            lines.len()
                        ));
                        for l in lines {
                            say(format!("    | {l}"));
                        }
                    }
                }
                // Drop what is left of it (other members of its process group).
                self.phase = Phase::GaveUp;
                self.failed(now, uptime, say);
            }
            Phase::Waiting { until } => {
                if now < *until {
                    return;
                }
                if self.stopping() {
                    self.phase = Phase::GaveUp;
                    return;
                }
                say(format!("restarting the {}…", self.name));
                match (self.start)() {
                    Ok(child) => {
                        say(format!(
                            "the {} is running again (pid {})",
                            self.name,
                            child.pid()
                        ));
                        self.phase = Phase::Running {
                            child,
                            since: Instant::now(),
                        };
                    }
                    Err(_) if self.stopping() => self.phase = Phase::GaveUp,
                    Err(e) => {
                        let first = e.lines().next().unwrap_or_default().to_string();
                        say(format!("the {} did not start again: {first}", self.name));
                        for l in e.lines().skip(1).take(LOG_LINES) {
                            say(format!("    | {l}"));
                        }
                        self.failed(Instant::now(), Duration::ZERO, say);
                    }
                }
            }
        }
    }

    fn failed(&mut self, now: Instant, uptime: Duration, say: &mut dyn FnMut(String)) {
        let since_began = now.duration_since(self.began);
        let p = self.policy;
        match self.state.on_failure(&p, since_began, uptime) {
            Decision::Restart { after, failures } => {
                say(format!(
                    "  restarting it in {} (failure {failures}; at {} within {} it is left \
                     stopped)",
                    secs(after),
                    p.max_failures,
                    secs(p.window)
                ));
                self.phase = Phase::Waiting { until: now + after };
            }
            Decision::GiveUp { failures } => {
                say(format!(
                    "the {} failed {failures} times within {}: giving up, it stays stopped \
                     (the rest keeps running; see its log above, then start agent-canvas again)",
                    self.name,
                    secs(p.window)
                ));
                self.phase = Phase::GaveUp;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canvas_harness::Group;
    use std::process::{Command, Stdio};

    const S: fn(u64) -> Duration = Duration::from_secs;

    #[test]
    fn backoff_doubles_to_the_cap_and_gives_up_after_five_failures_in_two_minutes() {
        let p = RestartPolicy::DEFAULT;
        let restart = |after: u64, failures: usize| Decision::Restart {
            after: S(after),
            failures,
        };
        // (failure at, after running for, decision), in seconds.
        type Step = (u64, u64, Decision);
        let table: &[(&str, &[Step])] = &[
            (
                "crashing at once: 1, 2, 4, 8 s, then give up at the fifth",
                &[
                    (0, 0, restart(1, 1)),
                    (1, 0, restart(2, 2)),
                    (3, 0, restart(4, 3)),
                    (7, 0, restart(8, 4)),
                    (15, 0, Decision::GiveUp { failures: 5 }),
                ],
            ),
            (
                "crashing once a minute: never five in two minutes, backoff capped at 30 s",
                &[
                    (60, 59, restart(1, 1)),
                    (121, 60, restart(2, 2)),
                    (183, 60, restart(4, 2)),
                    (247, 60, restart(8, 2)),
                    (315, 60, restart(16, 2)),
                    (391, 60, restart(30, 2)),
                    (481, 60, restart(30, 2)),
                ],
            ),
            (
                "a run that lasted two minutes starts the backoff over",
                &[
                    (10, 10, restart(1, 1)),
                    (11, 0, restart(2, 2)),
                    (13, 0, restart(4, 3)),
                    (300, 287, restart(1, 1)),
                    (301, 0, restart(2, 2)),
                ],
            ),
            (
                "failures older than two minutes do not count",
                &[
                    (0, 0, restart(1, 1)),
                    (1, 0, restart(2, 2)),
                    (3, 0, restart(4, 3)),
                    (7, 0, restart(8, 4)),
                    (130, 115, restart(16, 1)),
                    (146, 0, restart(30, 2)),
                    (176, 0, restart(30, 3)),
                    (206, 0, restart(30, 4)),
                    (236, 0, Decision::GiveUp { failures: 5 }),
                ],
            ),
        ];
        for (what, steps) in table {
            let mut state = RestartState::default();
            for (i, (at, uptime, want)) in steps.iter().enumerate() {
                assert_eq!(
                    state.on_failure(&p, S(*at), S(*uptime)),
                    *want,
                    "{what}: step {i}"
                );
            }
        }
    }

    #[test]
    fn the_delay_never_overflows() {
        let p = RestartPolicy {
            max_failures: usize::MAX,
            ..RestartPolicy::DEFAULT
        };
        let mut state = RestartState::default();
        for i in 0..200u64 {
            match state.on_failure(&p, S(i * 3600), Duration::ZERO) {
                Decision::Restart { after, .. } => assert!(after <= p.max_delay),
                Decision::GiveUp { .. } => panic!("gave up"),
            }
        }
    }

    #[test]
    fn exits_in_words() {
        let status = |cmd: &str| Command::new("sh").args(["-c", cmd]).status().expect("sh");
        assert_eq!(describe_exit(&status("exit 3")), "exit code 3");
        assert_eq!(
            describe_exit(&status("kill -9 $$")),
            "killed by signal 9 (SIGKILL)"
        );
        assert_eq!(
            describe_exit(&status("kill -TERM $$")),
            "killed by signal 15 (SIGTERM)"
        );
    }

    /// A real process standing in for a server: `sh -c <script>` in its own process group,
    /// writing to `log`.
    struct Proc {
        group: Group,
        log: PathBuf,
    }

    impl Proc {
        fn start(script: &str, log: &Path) -> Result<Proc, String> {
            let out = fs::File::create(log).map_err(|e| e.to_string())?;
            let err = out.try_clone().map_err(|e| e.to_string())?;
            let mut cmd = Command::new("sh");
            cmd.args(["-c", script])
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err);
            let group = Group::spawn("stand-in", cmd).map_err(|e| e.to_string())?;
            Ok(Proc {
                group,
                log: log.to_path_buf(),
            })
        }
    }

    impl Supervised for Proc {
        fn pid(&self) -> u32 {
            self.group.id()
        }

        fn exited(&mut self) -> Option<Exit> {
            let status = self.group.try_wait().ok().flatten()?;
            Some(Exit {
                pid: self.group.id(),
                status,
                part: None,
                log: Some(self.log.clone()),
            })
        }
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "xtask-supervise-{name}-{}",
            canvas_harness::random_hex(6).unwrap()
        ));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn alive(pid: u32) -> bool {
        Command::new("kill")
            .args(["-0", &pid.to_string()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    const FAST: RestartPolicy = RestartPolicy {
        first_delay: Duration::from_millis(100),
        max_delay: Duration::from_millis(400),
        max_failures: 5,
        window: Duration::from_secs(120),
    };

    /// Polls until `done` (10 s at most); every line said so far.
    fn poll_until<S: Supervised>(
        sup: &mut Supervisor<S>,
        said: &mut Vec<String>,
        done: impl Fn(&Supervisor<S>, &[String]) -> bool,
    ) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done(sup, said) {
            assert!(Instant::now() < deadline, "timed out; said: {said:#?}");
            sup.poll(&mut |l| said.push(l));
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn a_killed_child_is_reported_and_started_again_with_a_new_pid() {
        let dir = scratch("kill");
        let log = dir.join("server.log");
        let script = "echo listening; echo ready for work; exec sleep 300";
        let first = Proc::start(script, &log).unwrap();
        let old_pid = first.pid();
        let log_for_start = log.clone();
        let mut sup = Supervisor::new("stand-in server", first, FAST, move || {
            Proc::start(script, &log_for_start)
        });
        let mut said = Vec::new();
        sup.poll(&mut |l| said.push(l));
        assert!(said.is_empty(), "{said:?}");
        // Its output is in the log before it is killed.
        poll_until(&mut sup, &mut said, |_, _| {
            fs::read_to_string(&log).is_ok_and(|t| t.contains("ready for work"))
        });

        let killed = Command::new("kill")
            .args(["-9", &old_pid.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        poll_until(&mut sup, &mut said, |s, _| {
            s.pid().is_some_and(|p| p != old_pid)
        });
        let text = said.join("\n");
        assert!(
            text.contains(&format!(
                "the stand-in server (pid {old_pid}) exited unexpectedly"
            )),
            "{text}"
        );
        assert!(text.contains("killed by signal 9 (SIGKILL)"), "{text}");
        let kept = format!("{}.1", log.display());
        assert!(text.contains(&format!("its log: {kept}")), "{text}");
        assert!(text.contains("    | ready for work"), "{text}");
        assert!(text.contains("restarting it in 0.1 s"), "{text}");
        let new_pid = sup.pid().unwrap();
        assert!(
            text.contains(&format!(
                "the stand-in server is running again (pid {new_pid})"
            )),
            "{text}"
        );
        assert!(alive(new_pid));
        assert!(!alive(old_pid));
        // The old run's log was kept aside; the new run writes a new one.
        assert!(fs::read_to_string(&kept)
            .unwrap()
            .contains("ready for work"));
        assert!(!sup.gave_up());

        // Ctrl-C drops the supervisor: the child stops with it.
        drop(sup);
        assert!(!alive(new_pid), "the restarted child outlived the launcher");
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_child_that_keeps_failing_is_given_up_on() {
        let dir = scratch("fail");
        let log = dir.join("server.log");
        let script = "echo starting; echo 'boom: port taken' >&2; exit 3";
        let first = Proc::start(script, &log).unwrap();
        let log_for_start = log.clone();
        let starts = std::rc::Rc::new(std::cell::Cell::new(0));
        let counted = starts.clone();
        let mut sup = Supervisor::new("stand-in server", first, FAST, move || {
            counted.set(counted.get() + 1);
            Proc::start(script, &log_for_start)
        });
        let mut said = Vec::new();
        poll_until(&mut sup, &mut said, |s, _| s.gave_up());
        let text = said.join("\n");
        assert_eq!(starts.get(), 4, "{text}");
        assert_eq!(text.matches("exited unexpectedly").count(), 5, "{text}");
        assert!(text.contains("exit code 3"), "{text}");
        assert!(text.contains("    | boom: port taken"), "{text}");
        for (n, delay) in [(1, "0.1 s"), (2, "0.2 s"), (3, "0.4 s"), (4, "0.4 s")] {
            assert!(
                text.contains(&format!("restarting it in {delay} (failure {n};")),
                "{text}"
            );
        }
        assert!(
            text.contains("the stand-in server failed 5 times within 2 min: giving up"),
            "{text}"
        );
        // Each run's log was kept.
        for n in 1..=5 {
            assert!(dir.join(format!("server.log.{n}")).exists(), "log {n}");
        }
        // Given up: polling again does nothing.
        let before = said.len();
        sup.poll(&mut |l| said.push(l));
        assert_eq!(said.len(), before);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_restart_counts_as_a_failure_and_ctrl_c_cancels_the_next() {
        let dir = scratch("nostart");
        let log = dir.join("server.log");
        let first = Proc::start("exit 1", &log).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let stop_in_start = stop.clone();
        let mut sup = Supervisor::new("stand-in server", first, FAST, move || {
            stop_in_start.store(true, Ordering::SeqCst);
            Err::<Proc, _>("port 8000 is already in use\nsecond line".to_string())
        })
        .with_stop(stop.clone());
        let mut said = Vec::new();
        // The first exit, then a start that fails while Ctrl-C comes: nothing more is said.
        poll_until(&mut sup, &mut said, |s, _| s.gave_up());
        let text = said.join("\n");
        assert!(text.contains("exit code 1"), "{text}");
        assert!(!text.contains("did not start again"), "{text}");

        // Without Ctrl-C, a start that fails is reported and retried.
        let first = Proc::start("exit 1", &log).unwrap();
        let mut sup = Supervisor::new("stand-in server", first, FAST, move || {
            Err::<Proc, _>("port 8000 is already in use\nsecond line".to_string())
        });
        let mut said = Vec::new();
        poll_until(&mut sup, &mut said, |s, _| s.gave_up());
        let text = said.join("\n");
        assert_eq!(
            text.matches("did not start again: port 8000 is already in use")
                .count(),
            4,
            "{text}"
        );
        assert!(text.contains("    | second line"), "{text}");
        assert!(text.contains("failed 5 times"), "{text}");
        let _ = fs::remove_dir_all(&dir);
    }
}
