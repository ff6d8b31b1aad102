//! `cargo xtask screenshots`: the README's pictures, made by the project so they stay true —
//! the end-to-end test `crates/e2e/tests/screenshots.rs` (the release app, a real agent server
//! of its own, the LLM stub, headless Chromium, dark and light) with its output pointed at
//! `docs/screenshots/`. The same test runs in the end-to-end layer of `cargo xtask test`
//! (writing under `target/`), so a page that starts showing an error fails CI.

use crate::util::{cmd, step, Ctx};
use std::path::Path;

pub fn screenshots(ctx: &Ctx) -> Result<bool, String> {
    for p in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
        if !Path::new(p).exists() {
            return Err(format!(
                "{p} missing (`cargo xtask setup` installs Debian's chromium and chromium-driver)"
            ));
        }
    }
    let python = crate::tools::ensure_agent_server_venv(ctx)?;
    // The shared agent server it starts stops when `_agent` is dropped, after the test.
    let (env, _agent) = crate::test::e2e_env(ctx, Some(&python))?;
    let out = ctx.root.join("docs/screenshots");
    step(
        ctx,
        &format!(
            "running crates/e2e/tests/screenshots.rs into {}",
            out.display()
        ),
    );
    let mut c = cmd(ctx, &ctx.cargo);
    c.args([
        "test",
        "-p",
        "canvas-e2e",
        "--test",
        "screenshots",
        "--",
        "--nocapture",
        "--test-threads=1",
    ])
    .envs(env)
    .env("CANVAS_SCREENSHOTS_OUT", &out)
    .current_dir(&ctx.root);
    crate::pool::with_lints(ctx, &mut c);
    Ok(c.status().map(|s| s.success()).unwrap_or(false))
}
