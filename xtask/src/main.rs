//! `cargo xtask <command>`: the project's entry points.
//!
//! - `run`   build, start a real local agent server and `canvas-serve`, print the URL
//! - `test`  every test layer; ends with `N passed, M failed; checks: K ok, L failed`
//! - `build` the release app in `dist/`
//! - `bench` sizes and timings against DESIGN.md's budgets
//! - `setup` install whatever is missing (idempotent)

mod bench;
mod build;
mod cycles;
mod merge;
mod pool;
mod preload;
mod run;
mod split;
mod supervise;
mod test;
mod tools;
mod util;

use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask <command> [flags]

commands:
  run     build, start a real agent server and canvas-serve, print the URL (see `run --help`)
  test    fmt, clippy, host, wasm (Chromium) and end-to-end tests; `N passed, M failed; checks: K ok, L failed`
  build   the release app in dist/ (`--force` to rebuild)
  bench   transfer size vs. the budget, and the timed benches (bench_* tests)
  setup   install whatever is missing (wasm target, wasm-bindgen-cli, npm tools, the
          agent-server venv, chromium); `--dev` adds Trunk for `trunk serve` (unsplit dev builds)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ctx = util::Ctx::new();
    let (command, rest) = match args.split_first() {
        Some((c, rest)) => (c.as_str(), rest),
        None => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let result = match command {
        "run" => run::run(&ctx, rest).map(|_| true),
        "test" => test::test(&ctx, rest),
        "bench" => bench::bench(&ctx, rest),
        "build" => build::build_release(&ctx, rest.iter().any(|a| a == "--force")).map(|_| true),
        "setup" => setup(&ctx, rest.iter().any(|a| a == "--dev")).map(|_| true),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(true)
        }
        other => Err(format!("unknown command {other}\n\n{USAGE}")),
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
