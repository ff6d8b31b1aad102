//! `cargo xtask bench`: measures what DESIGN.md budgets — the release app's transfer size
//! (raw, gzip, brotli) against the upstream console — and runs the ignored `bench_*` tests:
//! core's (e.g. applying 10,000 events, release) and the browser benches of the end-to-end
//! crate (e.g. the all-backends list with 3 real agent servers × 50 conversations, in real
//! Chromium), printing their numbers. Upstream (`@openhands/agent-canvas`, pinned in
//! `tools::UPSTREAM_UI_VERSION`) is installed into the cache and measured in the same run: its
//! bytes before first render here, its times in the `bench_vs_upstream_*` browser benches; one
//! table of ours, upstream's and the ratios ends the output. Arguments are test-name filters
//! (`cargo xtask bench bench_vs_upstream` runs only those). Nothing here asserts a time.

use crate::build;
use crate::split;
use crate::test::e2e_env;
use crate::tools;
use crate::util::{cmd, step, Ctx};
use std::fs;
use std::path::Path;

/// Upstream `@openhands/agent-canvas@1.20.0` `build/`: bytes before first render, gzip, as
/// measured once (session 1). Used only when its build cannot be installed (npm unreachable);
/// the output then says so.
const UPSTREAM_INITIAL_GZIP_FALLBACK: u64 = 689 * 1024;
/// Our budget at feature parity: ≤ 0.3× upstream's gzip bytes.
const BUDGET_RATIO: f64 = 0.3;

fn brotli_len(bytes: &[u8]) -> u64 {
    let mut out = Vec::new();
    let params = brotli::enc::BrotliEncoderParams {
        quality: 11,
        ..Default::default()
    };
    let _ = brotli::BrotliCompress(&mut &bytes[..], &mut out, &params);
    out.len() as u64
}

pub fn bench(ctx: &Ctx, args: &[String]) -> Result<bool, String> {
    let dist = build::build_release(ctx, false)?;
    step(
        ctx,
        "transfer size of the release app: before the first render, then each lazy chunk",
    );
    let (initial, chunks) = split::measure(&dist)?;
    println!(
        "    {:<52} {:>10} {:>10} {:>10}",
        "before the first render", "raw", "gzip", "brotli"
    );
    let (mut raw, mut gz, mut br) = (0u64, 0u64, 0u64);
    for (name, r, g) in &initial {
        let b = brotli_len(&fs::read(dist.join(name)).map_err(|e| e.to_string())?);
        raw += r;
        gz += g;
        br += b;
        println!("    {name:<52} {r:>10} {g:>10} {b:>10}");
    }
    println!("    {:<52} {:>10} {:>10} {:>10}", "total", raw, gz, br);

    step(
        ctx,
        &format!(
            "upstream {}@{}: transfer size before the first render (its build/)",
            tools::UPSTREAM_UI_PACKAGE,
            tools::UPSTREAM_UI_VERSION
        ),
    );
    let upstream = tools::ensure_upstream_ui(ctx);
    let (up_gz, up_source) = match &upstream {
        Ok(package) => {
            let files = upstream_initial_files(&package.join("build"))?;
            let (mut uraw, mut ugz) = (0u64, 0u64);
            let mut kinds: std::collections::BTreeMap<&str, (usize, u64, u64)> = Default::default();
            for (kind, name) in &files {
                let bytes = fs::read(package.join("build").join(name))
                    .map_err(|e| format!("upstream {name}: {e}"))?;
                let g = split::gzip_len(&bytes);
                uraw += bytes.len() as u64;
                ugz += g;
                let k = kinds.entry(kind).or_default();
                k.0 += 1;
                k.1 += bytes.len() as u64;
                k.2 += g;
            }
            println!(
                "    {:<52} {:>10} {:>10}",
                "upstream, before the first render", "raw", "gzip"
            );
            for (kind, (n, r, g)) in &kinds {
                println!("    {:<52} {r:>10} {g:>10}", format!("{kind} ({n} files)"));
            }
            println!(
                "    {:<52} {uraw:>10} {ugz:>10}",
                format!("total ({} files)", files.len())
            );
            (ugz, "measured now from its build/".to_string())
        }
        Err(e) => {
            println!("    could not install upstream ({e})");
            (
                UPSTREAM_INITIAL_GZIP_FALLBACK,
                "FALLBACK CONSTANT (npm unreachable), not measured in this run".to_string(),
            )
        }
    };
    let budget = (up_gz as f64 * BUDGET_RATIO) as u64;
    println!(
        "    {:<26} {:>12} {:>12} {:>8}",
        "gzip before first render", "ours", "upstream", "ratio"
    );
    println!(
        "    {:<26} {gz:>12} {up_gz:>12} {:>7.2}×   (upstream: {up_source})",
        "",
        gz as f64 / up_gz as f64
    );
    println!(
        "    budget ≤ {BUDGET_RATIO}× upstream = {budget} B gzip: {}",
        if gz <= budget {
            "within budget"
        } else {
            "OVER BUDGET"
        }
    );
    let mut by_size = chunks.clone();
    by_size.sort_by_key(|(_, _, g)| std::cmp::Reverse(*g));
    let (craw, cgz): (u64, u64) = chunks
        .iter()
        .fold((0, 0), |(a, b), (_, r, g)| (a + r, b + g));
    println!(
        "    lazy chunks: {} files, {craw} bytes raw, {cgz} gzip; the largest:",
        chunks.len()
    );
    for (name, r, g) in by_size.iter().take(12) {
        println!("    {name:<52} {r:>10} {g:>10}");
    }

    // Test-name filters for both kinds of benches (libtest runs what matches any of them):
    // `cargo xtask bench bench_vs_upstream` runs only the side-by-side browser benches.
    let filters: Vec<String> = if args.is_empty() {
        vec!["bench_".to_string()]
    } else {
        args.to_vec()
    };
    step(ctx, "timed benches (ignored tests named bench_*)");
    let mut c = cmd(ctx, &ctx.cargo);
    c.args([
        "test",
        "--release",
        "-p",
        "canvas-core",
        "--",
        "--ignored",
        "--nocapture",
    ])
    .args(&filters)
    .current_dir(&ctx.root);
    let core_ok = c.status().map(|s| s.success()).unwrap_or(false);

    let upstream_build = upstream.ok().map(|p| p.join("build"));
    // The side-by-side benches append their rows here; printed with the size row at the end.
    let results = ctx.root.join("target/bench-vs-upstream.tsv");
    let _ = fs::remove_file(&results);
    let browser_ok = browser_benches(ctx, &filters, upstream_build.as_deref(), &results)?;
    print_side_by_side(ctx, gz, up_gz, &up_source, &results);
    Ok(core_ok && browser_ok)
}

/// The end-to-end crate's `bench_*` tests (those matching `filters`): the same environment as
/// the end-to-end layer (the split release build, `canvas-serve`, a fresh shared agent server,
/// Chromium). Skipped, with the reason, when Chromium or the agent server's venv is missing and
/// cannot be set up.
fn browser_benches(
    ctx: &Ctx,
    filters: &[String],
    upstream: Option<&Path>,
    results: &Path,
) -> Result<bool, String> {
    step(
        ctx,
        "browser benches (ignored end-to-end tests named bench_*: real agent servers, Chromium)",
    );
    let skip = |why: &str| {
        println!("    skipped: {why}");
        Ok(true)
    };
    let missing: Vec<&str> = ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        .into_iter()
        .filter(|p| !Path::new(p).exists())
        .collect();
    if !missing.is_empty() {
        return skip(&format!(
            "{} missing (`cargo xtask setup` installs Debian's chromium and chromium-driver)",
            missing.join(" and ")
        ));
    }
    // Installed when missing, as for `cargo xtask test` (PyPI only, ≈ 30 s once).
    let python = match tools::ensure_agent_server_venv(ctx) {
        Ok(p) => p,
        Err(e) => {
            return skip(&format!(
                "no agent-server venv and it could not be installed ({e}); \
                 `cargo xtask setup` installs it"
            ))
        }
    };
    // The agent server it starts stops when `_agent` is dropped, after the benches.
    let (env, _agent) = e2e_env(ctx, Some(&python))?;
    step(
        ctx,
        "running crates/e2e/tests/bench.rs (cargo test -p canvas-e2e)",
    );
    let mut c = cmd(ctx, &ctx.cargo);
    c.args([
        "test",
        "-p",
        "canvas-e2e",
        "--test",
        "bench",
        "--",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .args(filters)
    .envs(env)
    .current_dir(&ctx.root);
    // The same artifacts as the end-to-end layer's build and canvas-serve's.
    crate::pool::with_lints(ctx, &mut c);
    // Upstream's published build for the side-by-side benches (`bench_vs_upstream_*`), which
    // say so and measure ours only when it is missing.
    if let Some(build) = upstream {
        c.env("CANVAS_BENCH_UPSTREAM_BUILD", build);
    }
    c.env("CANVAS_BENCH_RESULTS", results);
    Ok(c.status().map(|s| s.success()).unwrap_or(false))
}

/// The table of ours vs upstream: the size row measured here, then the rows the browser benches
/// appended to `results` (`what\tours\tupstream\tunit`, upstream `-` when not measured).
fn print_side_by_side(ctx: &Ctx, gz: u64, up_gz: u64, up_source: &str, results: &Path) {
    step(ctx, "ours vs upstream (this run)");
    let line = |what: &str, o: &str, u: &str, r: &str| {
        println!("    {what:<52} {o:>12} {u:>12} {r:>8}");
    };
    line("", "ours", "upstream", "ratio");
    line(
        "gzip bytes before the first render",
        &gz.to_string(),
        &up_gz.to_string(),
        &format!("{:.2}×", gz as f64 / up_gz as f64),
    );
    let text = fs::read_to_string(results).unwrap_or_default();
    for row in text.lines() {
        let f: Vec<&str> = row.split('\t').collect();
        let [what, ours, theirs, unit] = f[..] else {
            continue;
        };
        let (o, u) = (ours.parse::<f64>().ok(), theirs.parse::<f64>().ok());
        let show = |v: Option<f64>| {
            v.map_or("-".to_string(), |v| match unit {
                "" => format!("{v:.0}"),
                "ms" => format!("{v:.0} ms"),
                _ => format!("{v:.1} {unit}"),
            })
        };
        let ratio = match (o, u) {
            (Some(o), Some(u)) if u > 0.0 => format!("{:.2}×", o / u),
            _ => "-".to_string(),
        };
        line(what, &show(o), &show(u), &ratio);
    }
    if text.is_empty() {
        println!("    (no browser bench rows: the side-by-side benches did not run)");
    }
    println!("    upstream's size: {up_source}");
}

/// The value of attribute `name` in one tag's text (`<link rel="x" href="y"/>`), quoted with
/// `"` or `'`; `None` when absent.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(i) = tag[from..].find(name) {
        let at = from + i;
        from = at + name.len();
        let before = tag[..at].chars().next_back();
        if !before.is_some_and(char::is_whitespace) {
            continue;
        }
        let rest = tag[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let q = rest.chars().next()?;
        if q != '"' && q != '\'' {
            return rest.split(|c: char| c.is_whitespace() || c == '>').next();
        }
        return rest[1..].split(q).next();
    }
    None
}

/// What the browser loads before upstream's first render, read from its `index.html` (a React
/// Router SPA build): the page itself, every `<link rel="modulepreload">` and
/// `<link rel="stylesheet">`, every `<script src>`, and the modules the inline module scripts
/// import (`import "…"`, `import("…")`: the manifest, the root route and `entry.client`, which
/// are also modulepreloaded). Route modules that the router imports later (the home page's,
/// the list's) are not counted, nor images, fonts or locale files. Checked by hand for 1.20.0:
/// the static imports of these modules are all among the modulepreloads (the closure adds
/// nothing). Returns (kind, path under `build/`), each path once.
fn upstream_initial_files(build: &Path) -> Result<Vec<(&'static str, String)>, String> {
    let html = fs::read_to_string(build.join("index.html"))
        .map_err(|e| format!("upstream index.html: {e}"))?;
    let mut out: Vec<(&'static str, String)> = vec![("index.html", "index.html".into())];
    let mut add = |kind: &'static str, url: &str| {
        // Same-origin absolute paths only (the build's own files).
        let Some(path) = url.strip_prefix('/').filter(|p| !p.starts_with('/')) else {
            return;
        };
        let path = path.split(['?', '#']).next().unwrap_or(path).to_string();
        if !out.iter().any(|(_, p)| *p == path) {
            out.push((kind, path));
        }
    };
    let mut rest = html.as_str();
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        let tag = &rest[..end];
        let lower = tag.to_ascii_lowercase();
        if lower.starts_with("<link") {
            let rel = attr(tag, "rel").unwrap_or_default().to_ascii_lowercase();
            if let Some(href) = attr(tag, "href") {
                if rel.split_whitespace().any(|r| r == "modulepreload") {
                    add("modulepreload JS", href);
                } else if rel.split_whitespace().any(|r| r == "stylesheet") {
                    add("stylesheet CSS", href);
                }
            }
        } else if lower.starts_with("<script") {
            if let Some(src) = attr(tag, "src") {
                add("script JS", src);
            } else if attr(tag, "type") == Some("module") {
                let body_end = rest[end..]
                    .find("</script>")
                    .map_or(rest.len(), |b| end + b);
                let body = &rest[end..body_end];
                for pat in ["import \"", "import(\"", "from \""] {
                    let mut b = body;
                    while let Some(j) = b.find(pat) {
                        b = &b[j + pat.len()..];
                        if let Some(url) = b.split('"').next() {
                            add("inline-imported JS", url);
                        }
                    }
                }
            }
        }
        rest = &rest[end..];
    }
    for (_, p) in &out {
        if !build.join(p).is_file() {
            return Err(format!(
                "upstream index.html references {p}, not in its build/"
            ));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_initial_files_follow_the_html() {
        let dir = std::env::temp_dir().join(format!("xtask-upstream-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("assets")).unwrap();
        for f in [
            "a.js", "b.js", "c.css", "d.js", "e.js", "late.js", "icon.svg",
        ] {
            fs::write(dir.join("assets").join(f), f).unwrap();
        }
        fs::write(
            dir.join("index.html"),
            r#"<html><head><link rel="icon" href="/assets/icon.svg"/>
            <link rel="modulepreload" href="/assets/a.js"/><link rel='modulepreload' href='/assets/b.js'>
            <link rel="stylesheet" href="/assets/c.css"/><link rel="modulepreload" href="https://x/y.js"/>
            <script src="/assets/d.js"></script></head><body>
            <script type="module" async="">import "/assets/a.js";
            import * as r from "/assets/e.js"; import("/assets/b.js");</script>
            <script>var late = "/assets/late.js";</script></body></html>"#,
        )
        .unwrap();
        let files = upstream_initial_files(&dir).unwrap();
        let names: Vec<&str> = files.iter().map(|(_, p)| p.as_str()).collect();
        assert_eq!(
            names,
            [
                "index.html",
                "assets/a.js",
                "assets/b.js",
                "assets/c.css",
                "assets/d.js",
                "assets/e.js"
            ]
        );
        assert_eq!(files[5].0, "inline-imported JS");
        let _ = fs::remove_dir_all(&dir);
    }
}
