//! Running the launcher as a person does (`cargo xtask run`, or the `agent-canvas` binary of
//! issue #40): wait for the URL it prints, then Ctrl-C.

use canvas_harness::{wait_until, Group};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Starts `c` in a process group of its own with its output read, and waits (`patience` at
/// most) for its "Agent Canvas is running: <url>" line; returns the process and the URL (no
/// trailing `/`). Its lines are echoed with `name` before them.
pub fn until_running(name: &str, mut c: Command, patience: Duration) -> (Group, String) {
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut run = Group::spawn(name, c).unwrap_or_else(|e| panic!("start {name}: {e}"));
    let out = run.child_mut().stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    let prefix = name.to_string();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{prefix}: {line}");
            let _ = tx.send(line);
        }
    });
    let url = wait_until(&format!("{name} to print its URL"), patience, || {
        match rx.try_recv() {
            Ok(line) => Ok(line
                .split_once("Agent Canvas is running: ")
                .map(|(_, u)| u.trim().trim_end_matches('/').to_string())),
            Err(mpsc::TryRecvError::Empty) => Ok(None),
            Err(mpsc::TryRecvError::Disconnected) => Err(format!("{name} exited early")),
        }
    })
    .expect("URL");
    (run, url)
}

/// SIGINT to the launcher (what Ctrl-C sends); it must exit successfully within 30 s.
pub fn ctrl_c(run: &mut Group) {
    let status = Command::new("kill")
        .args(["-INT", &run.id().to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    let code = wait_until(
        &format!("{} to exit after Ctrl-C", run.name()),
        Duration::from_secs(30),
        || run.try_wait().map_err(|e| e.to_string()),
    )
    .expect("exit");
    assert!(code.success(), "{} exited with {code}", run.name());
}
