//! `agent-canvas`: start the console (and a local agent server) and print its URL.

use agent_canvas::Cli;
use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

fn main() -> ExitCode {
    // Made once at start; clap keeps it for the whole run.
    let long: &'static str = Box::leak(agent_canvas::version_text().into_boxed_str());
    let matches = Cli::command().long_version(long).get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    match agent_canvas::launch::run(cli.run) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
