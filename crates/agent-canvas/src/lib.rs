//! `agent-canvas`: the app, its server (`canvas-serve`) and the launcher in one binary
//! (issue #40). `cargo xtask run` builds the app into it and runs it; `cargo xtask dist` makes
//! the Python wheel and the crate package that carry it to people who only run it.

pub mod embedded;
pub mod launch;
pub mod supervise;

use canvas_harness::python::{pinned_version, AGENT_SERVER, AUTOMATION, OMNIGENT};

/// `agent-canvas [flags]`.
#[derive(Debug, clap::Parser)]
#[command(
    name = "agent-canvas",
    version,
    about = "Agent Canvas: a browser console for AI coding agents. Starts a local OpenHands agent \
             server (installed with uv on first use) and serves the console connected to it; \
             Ctrl-C stops everything."
)]
pub struct Cli {
    #[command(flatten)]
    pub run: launch::RunArgs,
}

/// What `agent-canvas --version` prints after its name: the version, the commit it was built
/// from, the pinned servers it installs, and the app inside.
pub fn version_text() -> String {
    let pin = |lock: &str, package: &str| {
        format!(
            "{package} {}",
            pinned_version(lock, package).unwrap_or("(not pinned)")
        )
    };
    let app = if embedded::present() {
        let bytes: usize = embedded::FILES.iter().map(|f| f.len).sum();
        format!(
            "built in ({} files, {:.1} MB)",
            embedded::FILES.len(),
            bytes as f64 / 1e6
        )
    } else {
        "not built in (pass --dist DIR)".into()
    };
    format!(
        "{} (commit {})\nservers: {}, {}, {} (installed with uv on first use)\napp: {app}",
        env!("CARGO_PKG_VERSION"),
        env!("AGENT_CANVAS_COMMIT"),
        pin(launch::AGENT_SERVER_LOCK, AGENT_SERVER.package),
        pin(launch::AUTOMATION_LOCK, AUTOMATION.package),
        pin(launch::OMNIGENT_LOCK, OMNIGENT.package),
    )
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::{CommandFactory, Parser};

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("agent-canvas").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_flag_keeps_its_name() {
        let help = Cli::command().render_long_help().to_string();
        for flag in [
            "--port",
            "--agent-server-port",
            "--no-agent-server",
            "--public",
            "--lock-to-cloud",
            "--base-path",
            "--state-dir",
            "--dist",
            "--demo",
            "--automations",
            "--automation-port",
            "--omnigent",
            "--omnigent-port",
            "--version",
        ] {
            assert!(help.contains(flag), "{flag} missing from `--help`");
        }
        let cli = parse(&[
            "--port",
            "9001",
            "--public",
            "--lock-to-cloud",
            "https://cloud.example",
            "--base-path",
            "/canvas",
            "--state-dir",
            "/tmp/s",
            "--dist",
            "/tmp/d",
            "--demo",
            "--automations",
            "--automation-port",
            "9003",
            "--omnigent",
            "--omnigent-port",
            "9004",
            "--agent-server-port",
            "9002",
        ])
        .expect("parses");
        let shown = format!("{:?}", cli.run);
        for part in [
            "port: 9001",
            "agent_port: 9002",
            "no_agent: false",
            "public: true",
            "lock_to_cloud: Some(\"https://cloud.example\")",
            "base_path: Some(\"/canvas\")",
            "state_dir: Some(\"/tmp/s\")",
            "dist: Some(\"/tmp/d\")",
            "demo: true",
            "automations: true",
            "automation_port: Some(9003)",
            "omnigent: true",
            "omnigent_port: 9004",
        ] {
            assert!(shown.contains(part), "{part} not in {shown}");
        }
        // The defaults.
        let shown = format!("{:?}", parse(&[]).expect("parses").run);
        for part in [
            "port: 8080",
            "agent_port: 8000",
            "automation_port: None",
            "omnigent_port: 6767",
            "dist: None",
        ] {
            assert!(shown.contains(part), "{part} not in {shown}");
        }
        assert!(parse(&["--port", "http"]).is_err());
        assert!(parse(&["--no-such-flag"]).is_err());
        assert!(
            parse(&["--skip-build"]).is_err(),
            "xtask's, not the binary's"
        );
    }

    #[test]
    fn the_version_names_the_pinned_servers_and_the_commit() {
        let text = super::version_text();
        assert!(text.starts_with(env!("CARGO_PKG_VERSION")), "{text}");
        assert!(text.contains("(commit "), "{text}");
        for package in [
            "openhands-agent-server 1.",
            "openhands-automation ",
            "omnigent 0.",
        ] {
            assert!(text.contains(package), "{package} not in {text}");
        }
        assert!(text.contains("app: "), "{text}");
    }
}
