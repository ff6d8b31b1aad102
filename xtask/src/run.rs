//! `cargo xtask run`: build the release app and the `agent-canvas` binary with it built in,
//! then become that binary (issue #40: people who only run the console use the same launcher,
//! from a wheel or a crate). Its flags are the binary's (`agent-canvas --help`).

use crate::build;
use crate::util::Ctx;
use std::os::unix::process::CommandExt;
use std::process::Command;

/// `cargo xtask run [--rebuild | --skip-build] [launcher flags]`.
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Rebuild the app even if dist/ looks up to date
    #[arg(long)]
    rebuild: bool,
    /// Use the existing dist/ and agent-canvas binary (tests)
    #[arg(long)]
    skip_build: bool,
    /// The launcher's flags, passed on as they are: --port, --agent-server-port,
    /// --no-agent-server, --public, --lock-to-cloud, --base-path, --state-dir, --demo,
    /// --automations, --automation-port, --omnigent, --omnigent-port (see `agent-canvas --help`)
    #[arg(
        value_name = "FLAGS",
        trailing_var_arg = true,
        allow_hyphen_values = true
    )]
    flags: Vec<String>,
}

pub fn run(ctx: &Ctx, o: RunArgs) -> Result<(), String> {
    // `--rebuild` / `--skip-build` may come after a launcher flag: they are xtask's either way.
    let rebuild = o.rebuild || o.flags.iter().any(|f| f == "--rebuild");
    let skip_build = o.skip_build || o.flags.iter().any(|f| f == "--skip-build");
    let flags: Vec<&String> = o
        .flags
        .iter()
        .filter(|f| *f != "--rebuild" && *f != "--skip-build")
        .collect();
    let bin = build::launcher_bin(ctx);
    if skip_build {
        if !bin.exists() {
            return Err(format!(
                "--skip-build: {} is not built (run `cargo xtask run` once without it)",
                bin.display()
            ));
        }
    } else {
        let dist = build::build_release(ctx, rebuild)?;
        build::build_serve(ctx, &dist)?;
    }
    // The launcher replaces this process: Ctrl-C and signals reach it directly.
    let err = Command::new(&bin).args(flags).exec();
    Err(format!("cannot start {}: {err}", bin.display()))
}
