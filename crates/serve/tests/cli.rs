//! The `canvas-serve` binary: ready line, key from the environment, port in use, SIGTERM.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const BIN: &str = env!("CARGO_BIN_EXE_canvas-serve");

fn wait_exit(child: &mut std::process::Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[tokio::test]
async fn prints_ready_line_injects_env_key_and_stops_on_sigterm() {
    let dist = make_dist();
    let mut child = Command::new(BIN)
        .args(["--dist", dist.path().to_str().unwrap(), "--port", "0"])
        .args([
            "--base-path",
            "/canvas",
            "--cloud-proxy-allow",
            "*.example.org",
        ])
        .env("CANVAS_SESSION_API_KEY", "env-secret-key")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let url = line
        .trim_end()
        .strip_prefix("canvas-serve listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/canvas"),
        "{url}"
    );

    let html = client()
        .get(format!("{url}/"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(html.contains("window.__AGENT_CANVAS_SESSION_API_KEY__=\"env-secret-key\";"));

    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let status = wait_exit(&mut child, Duration::from_secs(10)).expect("stops on SIGTERM");
    assert!(status.success(), "{status:?}");
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!rest.contains("env-secret-key") && !err.contains("env-secret-key"));
    assert!(rest.is_empty(), "exactly one line on stdout, then {rest:?}");
}

#[test]
fn port_in_use_exits_2_naming_the_port() {
    let holder = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = holder.local_addr().unwrap().port().to_string();
    let dist = make_dist();
    let out = Command::new(BIN)
        .args(["--dist", dist.path().to_str().unwrap(), "--port", &port])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim(),
        format!("error: port {port} is already in use (choose another with --port)")
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn help_does_not_show_the_env_key() {
    let out = Command::new(BIN)
        .arg("--help")
        .env("CANVAS_SESSION_API_KEY", "env-secret-key")
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("--cloud-proxy-allow-private"));
    assert!(help.contains("CANVAS_SESSION_API_KEY"));
    assert!(!help.contains("env-secret-key"));
}

/// Starts the binary and returns it with the URL of its ready line.
fn spawn_ready(args: &[&str], key: &str) -> (std::process::Child, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .env("CANVAS_SESSION_API_KEY", key)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim_end()
        .strip_prefix("canvas-serve listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (child, url)
}

fn stop(mut child: std::process::Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    if wait_exit(&mut child, Duration::from_secs(10)).is_none() {
        let _ = child.kill();
    }
}

#[tokio::test]
async fn non_loopback_bind_with_the_key_injected_needs_allowed_hosts() {
    let dist = make_dist();
    let dist_arg = dist.path().to_str().unwrap();
    let out = Command::new(BIN)
        .args(["--dist", dist_arg, "--port", "0", "--host", "0.0.0.0"])
        .env("CANVAS_SESSION_API_KEY", "env-secret-key")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    for part in ["0.0.0.0", "not loopback", "--allow-host", "--auth-required"] {
        assert!(err.contains(part), "{part:?} missing from {err}");
    }
    assert!(!err.contains("env-secret-key"));

    // Naming the hosts: those (and loopback) get the page, other Hosts 421.
    let (child, url) = spawn_ready(
        &[
            "--dist",
            dist_arg,
            "--port",
            "0",
            "--host",
            "0.0.0.0",
            "--allow-host",
            "canvas.example",
            "--allow-host",
            "10.1.2.3",
        ],
        "env-secret-key",
    );
    // The ready line says where it really listens; this machine reaches it on loopback.
    let url = url
        .strip_prefix("http://0.0.0.0:")
        .map(|port| format!("http://127.0.0.1:{port}"))
        .unwrap_or_else(|| panic!("not the bound address: {url}"));
    for host in [
        "canvas.example",
        "canvas.example:8080",
        "10.1.2.3",
        "localhost",
    ] {
        let r = client()
            .get(format!("{url}/"))
            .header("host", host)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{host}");
        assert!(r.text().await.unwrap().contains("env-secret-key"), "{host}");
    }
    let evil = client()
        .get(format!("{url}/"))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(evil.status(), 421);
    assert!(!evil.text().await.unwrap().contains("env-secret-key"));
    stop(child);

    // Public mode injects no key: no host list needed.
    let (child, _) = spawn_ready(
        &[
            "--dist",
            dist_arg,
            "--port",
            "0",
            "--host",
            "0.0.0.0",
            "--auth-required",
        ],
        "env-secret-key",
    );
    stop(child);
}

/// Runs the binary; `None` (after killing it) if it is still running after 10 s: it started.
fn refused(args: &[&str]) -> Option<(i32, String)> {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let Some(status) = wait_exit(&mut child, Duration::from_secs(10)) else {
        stop(child);
        return None;
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    Some((status.code().unwrap_or(-1), err))
}

#[tokio::test]
async fn a_non_loopback_ingress_needs_allowed_hosts() {
    let dist = make_dist();
    let dist_arg = dist.path().to_str().unwrap();
    let upstream = format!("http://127.0.0.1:{}", dead_port());
    for flag in ["--agent-server-url", "--automation-url"] {
        let args = [
            "--dist",
            dist_arg,
            "--port",
            "0",
            "--host",
            "0.0.0.0",
            "--auth-required",
            flag,
            &upstream,
        ];
        // Its proxied paths answer only the loopback names and the --allow-host ones: without
        // any, nobody reaching it over the network could use them.
        let (code, err) = refused(&args).unwrap_or_else(|| panic!("{flag}: it started"));
        assert_eq!(code, 2, "{flag}: {err}");
        for part in ["0.0.0.0", "--allow-host"] {
            assert!(err.contains(part), "{flag}: {part:?} missing from {err}");
        }
        let mut named = args.to_vec();
        named.extend(["--allow-host", "canvas.example"]);
        let (child, _) = spawn_ready(&named, "env-secret-key");
        stop(child);
    }
}

#[tokio::test]
async fn an_omnigent_mount_off_loopback_needs_the_operators_word() {
    let dist = make_dist();
    let dist_arg = dist.path().to_str().unwrap();
    let mount = format!("local=http://127.0.0.1:{}", dead_port());
    let args = [
        "--dist",
        dist_arg,
        "--port",
        "0",
        "--host",
        "0.0.0.0",
        "--auth-required",
        "--allow-host",
        "canvas.example",
        "--omnigent",
        &mount,
    ];
    // A single-user Omnigent acts for whoever reaches it: not off this machine by default.
    let (code, err) = refused(&args).expect("it started with an open Omnigent mount");
    assert_eq!(code, 2, "{err}");
    for part in [
        "0.0.0.0",
        "not loopback",
        "--omnigent-behind-auth-proxy",
        "127.0.0.1",
    ] {
        assert!(err.contains(part), "{part:?} missing from {err}");
    }

    // The operator's word (and the name the proxy in front uses): it starts, says where it
    // really listens, and the mount answers that name.
    let mut vouched = args.to_vec();
    vouched.push("--omnigent-behind-auth-proxy");
    let (child, url) = spawn_ready(&vouched, "env-secret-key");
    let port = url
        .strip_prefix("http://0.0.0.0:")
        .unwrap_or_else(|| panic!("not the bound address: {url}"));
    let resp = client()
        .get(format!("http://127.0.0.1:{port}/omnigent/local/v1/info"))
        .header("host", "canvas.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 502, "the mount answers (its server is down)");
    stop(child);

    // Its word alone does not name the host it is reached by.
    let mut nameless: Vec<&str> = vouched.clone();
    let at = nameless.iter().position(|a| *a == "--allow-host").unwrap();
    nameless.drain(at..at + 2);
    let (code, err) = refused(&nameless).expect("it started without --allow-host");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--allow-host"), "{err}");
}
