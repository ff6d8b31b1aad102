//! `cargo xtask <command>`: the project's entry points.
//!
//! - `run`   build the app into the `agent-canvas` binary and run it (a real local agent
//!   server, the app served connected to it, the URL printed)
//! - `test`  every test layer; ends with `N passed, M failed, I ignored; checks: K ok, L failed`
//! - `build` the release app in `dist/`
//! - `bench` sizes and timings against DESIGN.md's budgets
//! - `screenshots` the README's pictures (docs/screenshots/), made from the release app
//! - `setup` install whatever is missing (idempotent)

mod bench;
mod build;
mod catalog;
mod cycles;
mod dist;
mod merge;
mod pool;
mod preload;
mod run;
mod screenshots;
mod split;
mod test;
mod tools;
mod util;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// `cargo xtask <command> [flags]`: the project's entry points.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", disable_version_flag = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build the app and the agent-canvas binary with it, then run that (its flags: --port,
    /// --demo, --automations, --omnigent, …; see `agent-canvas --help`)
    Run(run::RunArgs),
    /// Fmt, clippy, host, wasm (Chromium) and end-to-end tests; `N passed, M failed, I ignored; checks: K ok, L failed`
    Test(test::TestArgs),
    /// What people who only run the console install: the agent-canvas wheel (maturin) and
    /// crate package, with the release app built in, in target/packages/
    Dist,
    /// The release app in dist/
    Build {
        /// Rebuild even if dist/ looks up to date
        #[arg(long)]
        force: bool,
    },
    /// Transfer size vs. the budget, and the timed benches (bench_* tests)
    Bench {
        /// Test-name filters for the timed benches (default: bench_)
        #[arg(value_name = "FILTER")]
        filters: Vec<String>,
    },
    /// The README's screenshots in docs/screenshots/: the release app against a real agent
    /// server and the LLM stub, headless Chromium, dark and light
    Screenshots,
    /// The automation templates' catalogue (crates/core/src/automation/templates/catalog.json)
    /// from the pinned npm `@openhands/extensions`
    Catalog,
    /// Install whatever is missing (wasm target, wasm-bindgen-cli, npm tools, the agent-server
    /// venv, chromium)
    Setup {
        /// Also install Trunk for `trunk serve` (unsplit dev builds)
        #[arg(long)]
        dev: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ctx = util::Ctx::new();
    let result = match cli.command {
        Command::Run(args) => run::run(&ctx, args).map(|_| true),
        Command::Test(args) => test::test(&ctx, args),
        Command::Bench { filters } => bench::bench(&ctx, &filters),
        Command::Dist => dist::dist(&ctx),
        Command::Build { force } => build::build_release(&ctx, force).map(|_| true),
        Command::Screenshots => screenshots::screenshots(&ctx),
        Command::Catalog => tools::ensure_npm_tools(&ctx)
            .and_then(|_| catalog::write(&ctx.root))
            .map(|_| true),
        Command::Setup { dev } => setup(&ctx, dev).map(|_| true),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn setup(ctx: &util::Ctx, dev: bool) -> Result<(), String> {
    tools::ensure_build_tools(ctx)?;
    if dev {
        tools::ensure_trunk(ctx)?;
    }
    tools::ensure_chromium(ctx)?;
    let py = tools::ensure_agent_server_venv(ctx)?;
    util::step(
        ctx,
        &format!("all tools present (agent server python: {})", py.display()),
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{Cli, Command};
    use clap::{CommandFactory, Parser};

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("xtask").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn run_passes_the_launchers_flags_on() {
        // The launcher's own flags are checked by its crate (crates/agent-canvas).
        let Command::Run(run) = parse(&["run", "--skip-build", "--port", "9001", "--demo"])
            .expect("parses")
            .command
        else {
            panic!("not run");
        };
        let shown = format!("{run:?}");
        assert!(shown.contains("skip_build: true"), "{shown}");
        assert!(
            shown.contains(r#"flags: ["--port", "9001", "--demo"]"#),
            "{shown}"
        );
        let Command::Run(run) = parse(&["run", "--demo", "--rebuild"])
            .expect("parses")
            .command
        else {
            panic!("not run");
        };
        assert!(format!("{run:?}").contains(r#"flags: ["--demo", "--rebuild"]"#));
    }

    #[test]
    fn test_takes_layers_and_a_filter_after_the_double_dash() {
        let Command::Test(t) = parse(&[
            "test", "--layer", "host", "--layer", "e2e", "--", "chat", "--exact",
        ])
        .expect("parses")
        .command
        else {
            panic!("not test");
        };
        let shown = format!("{t:?}");
        assert!(shown.contains(r#"layers: ["host", "e2e"]"#), "{shown}");
        assert!(shown.contains(r#"filter: ["chat", "--exact"]"#), "{shown}");
        assert!(parse(&["test", "--layer", "unit"]).is_err());
        assert!(parse(&["test", "chat"]).is_err(), "a filter goes after --");
        let help = Cli::command()
            .find_subcommand_mut("test")
            .expect("test")
            .render_long_help()
            .to_string();
        for word in ["--layer", "checks", "host", "wasm", "e2e", "FILTER"] {
            assert!(help.contains(word), "{word} missing from `test --help`");
        }
    }

    #[test]
    fn build_setup_and_bench_take_what_they_took() {
        assert!(matches!(
            parse(&["build", "--force"]).unwrap().command,
            Command::Build { force: true }
        ));
        assert!(matches!(
            parse(&["setup", "--dev"]).unwrap().command,
            Command::Setup { dev: true }
        ));
        let Command::Bench { filters } = parse(&["bench", "bench_vs_upstream"]).unwrap().command
        else {
            panic!("not bench");
        };
        assert_eq!(filters, ["bench_vs_upstream"]);
    }
}
