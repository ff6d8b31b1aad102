//! `canvas-serve` command line. Prints `canvas-serve listening on <url>` once ready (the address
//! it bound: `http://0.0.0.0:PORT` on every interface).

use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use canvas_serve::{Config, OmnigentMount, ServeError};
use clap::Parser;

#[derive(Parser)]
#[command(
    name = "canvas-serve",
    version,
    about = "Serve Agent Canvas (static app + same-origin ingress + cloud proxy)"
)]
struct Args {
    /// Directory with the built app (Trunk's dist, containing index.html).
    #[arg(long, value_name = "DIR")]
    dist: PathBuf,
    /// Address to listen on.
    #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
    host: IpAddr,
    /// Port to listen on (0 = any free port).
    #[arg(long, value_name = "PORT", default_value_t = 8080)]
    port: u16,
    /// Agent server to reverse-proxy under /api, /sockets, /server_info, /health, /alive, /ready.
    #[arg(long, value_name = "URL")]
    agent_server_url: Option<String>,
    /// Automation service (PyPI openhands-automation) to reverse-proxy under /api/automation.
    #[arg(long, value_name = "URL")]
    automation_url: Option<String>,
    /// Omnigent server to reverse-proxy under /omnigent/<NAME>/ (repeatable; NAME of a-z, 0-9
    /// and -, unique), e.g. --omnigent local=http://127.0.0.1:6767.
    #[arg(long, value_name = "NAME=URL")]
    omnigent: Vec<OmnigentMount>,
    /// Allow the --omnigent mounts on a non-loopback --host. Only behind a proxy that
    /// authenticates every request: a single-user Omnigent acts for whoever reaches it.
    #[arg(long)]
    omnigent_behind_auth_proxy: bool,
    /// Session API key handed to the app (prefer the environment variable: it is not shown by ps).
    #[arg(
        long,
        value_name = "KEY",
        env = "CANVAS_SESSION_API_KEY",
        hide_env_values = true
    )]
    session_api_key: Option<String>,
    /// Public mode: the app asks the user for the key; the key is not injected.
    #[arg(long)]
    auth_required: bool,
    /// Lock the app to one cloud host.
    #[arg(long, value_name = "URL")]
    lock_to_cloud: Option<String>,
    /// Serve everything under this prefix, e.g. /canvas.
    #[arg(long, value_name = "/PREFIX")]
    base_path: Option<String>,
    /// Extra host the cloud proxy may reach: an exact host or *.suffix (repeatable).
    #[arg(long, value_name = "HOST")]
    cloud_proxy_allow: Vec<String>,
    /// Let the cloud proxy reach loopback, private and link-local addresses.
    #[arg(long)]
    cloud_proxy_allow_private: bool,
    /// Cloud-proxy requests in flight beyond which it answers 503.
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::value_parser!(u64).range(1..=10_000))]
    cloud_proxy_max_concurrent: u64,
    /// Host name this server is reached by, accepted while the key is injected and always on
    /// the proxied paths (agent server, automation, --omnigent mounts; repeatable); required with
    /// a non-loopback --host while the key is injected or anything is proxied.
    #[arg(long, value_name = "NAME")]
    allow_host: Vec<String>,
    /// Seconds a client may take to send a request head (also the keep-alive idle limit).
    #[arg(long, value_name = "SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    header_read_timeout_secs: u64,
    /// Seconds without traffic after which a connection with no request running is closed.
    #[arg(long, value_name = "SECS", default_value_t = 60,
          value_parser = clap::value_parser!(u64).range(1..=86400))]
    idle_timeout_secs: u64,
    /// Open connections (websockets included) beyond which new ones get 503.
    #[arg(long, value_name = "N", default_value_t = 512,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections: u64,
}

impl Args {
    fn into_config(self) -> Config {
        let mut c = Config::new(self.dist);
        c.host = self.host;
        c.port = self.port;
        c.agent_server_url = self.agent_server_url;
        c.automation_url = self.automation_url;
        c.omnigent = self.omnigent;
        c.omnigent_behind_auth_proxy = self.omnigent_behind_auth_proxy;
        c.session_api_key = self.session_api_key;
        c.auth_required = self.auth_required;
        c.lock_to_cloud = self.lock_to_cloud;
        c.base_path = self.base_path;
        c.cloud_proxy_allow = self.cloud_proxy_allow;
        c.cloud_proxy_allow_private = self.cloud_proxy_allow_private;
        c.allow_hosts = self.allow_host;
        c.cloud_proxy_max_concurrent =
            usize::try_from(self.cloud_proxy_max_concurrent).unwrap_or(usize::MAX);
        c.header_read_timeout = Duration::from_secs(self.header_read_timeout_secs);
        c.idle_timeout = Duration::from_secs(self.idle_timeout_secs);
        c.max_connections = usize::try_from(self.max_connections).unwrap_or(usize::MAX);
        c
    }
}

/// Waits for SIGTERM or Ctrl-C. The handlers are installed when this is called (before the
/// ready line is printed), so a signal sent right after the ready line is never missed.
fn stop_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    let ctrl_c = tokio::signal::ctrl_c();
    async move {
        #[cfg(unix)]
        if let Some(mut term) = term {
            tokio::select! {
                _ = term.recv() => {}
                _ = ctrl_c => {}
            }
            return;
        }
        let _ = ctrl_c.await;
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let config = Args::parse().into_config();
    let running = match canvas_serve::start(config).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return match e {
                ServeError::Io(_) => ExitCode::from(1),
                ServeError::PortInUse { .. }
                | ServeError::Dist { .. }
                | ServeError::InvalidConfig(_) => ExitCode::from(2),
            };
        }
    };
    let stopped = stop_signal();
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "canvas-serve listening on {}", running.bound_url());
        let _ = out.flush();
    }
    stopped.await;
    running.shutdown().await;
    ExitCode::SUCCESS
}
