//! The split release build (issue #11): Trunk cannot split a wasm module (it runs cargo →
//! wasm-bindgen → wasm-opt with no step in between), so the release app is built here:
//!
//! 1. `cargo rustc -p agent-canvas-app --lib --crate-type cdylib --release` with
//!    `--cfg agent_canvas_split` (turns the `lazy_view!` split points on) and
//!    `-C link-arg=--emit-relocs` (the splitter needs the relocations);
//! 2. split the RAW rustc output with `wasm_split_cli_support::transform` (wasm-bindgen would
//!    drop the relocations): a main module, one wasm per split point (+ shared chunks) and the
//!    loader `__wasm_split.js`; then the chunks the sidebar uses (it is on every page with the
//!    shell) are merged into one `chunk_shell` (`crate::merge`);
//! 3. `wasm-bindgen --target web --keep-lld-exports --no-demangle` on the main module (the
//!    chunks import its memory, table and exports);
//! 4. `wasm-opt -Oz` on every module, except chunks under 4 KB, which only lose their custom
//!    sections (binaryen's start-up under node was most of their time);
//! 5. content-hashed names: chunks by their own content; the main JS, its wasm and the loader
//!    reference each other, so they share one build hash (over all of them) and the
//!    `new URL("./…", import.meta.url)` strings are rewritten accordingly;
//! 6. `index.html` from the repository's template: hashed CSS and icon, the module script,
//!    `modulepreload` of the main JS and the loader, `preload` of the main wasm;
//! 7. the JS and CSS minified by esbuild (npm, pinned in package.json) as they are written:
//!    −5.5 KB gzip on the first render when it came in (the wasm-bindgen glue 12.4 → 9.9 KB,
//!    the loader 2.5 → 1.7 KB, the first render's CSS 9.7 → 7.5 KB).
//!
//! The previous build's hashed files are kept in `dist/` (listed in `.build-files`), so a tab
//! opened before an upgrade can still fetch the chunks it was built with.

use crate::util::{self, cmd, step, Ctx};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// What the app loads before its first render, and the chunks it loads later.
#[derive(Debug, Default)]
pub struct Layout {
    /// index.html, the CSS, the main JS, the loader JS, the main wasm.
    pub initial: Vec<String>,
    /// The lazily loaded wasm chunks.
    pub chunks: Vec<String>,
}

/// The lazy part on every page with the shell: its chunks are merged into one (see
/// `crate::merge`).
const SHELL_PART: &str = "sidebar";

/// This build's files, one per line: `initial\t<name>` (loaded before the first render) or
/// `chunk\t<name>` (loaded on demand).
const LAYOUT_FILE: &str = ".build-files";
/// Each lazy part and its files (`preload::part_files`), read by canvas-serve.
const PRELOAD_FILE: &str = "chunks.json";
/// The committed budget for the initial gzip bytes.
const BUDGET_FILE: &str = "size-budget.txt";

fn hash16(bytes: &[u8]) -> String {
    format!("{:016x}", util::fnv1a(bytes))
}

fn read(p: &Path) -> Result<Vec<u8>, String> {
    fs::read(p).map_err(|e| format!("{}: {e}", p.display()))
}

fn write(p: &Path, bytes: &[u8]) -> Result<(), String> {
    fs::write(p, bytes).map_err(|e| format!("{}: {e}", p.display()))
}

fn text(p: &Path) -> Result<String, String> {
    String::from_utf8(read(p)?).map_err(|e| format!("{}: {e}", p.display()))
}

/// Chunks smaller than this skip `wasm-opt` and only lose their custom sections (names,
/// producers): `wasm-opt` would win a few hundred bytes on each, and most of its second per
/// chunk is node starting binaryen (94 such chunks cost ≈ 4 min of a release build).
const SMALL_CHUNK_BYTES: u64 = 4096;

/// `wasm` without its custom sections (id 0), every other section copied as it is.
fn strip_custom_sections(wasm: &[u8]) -> Result<Vec<u8>, String> {
    const HEADER: usize = 8;
    if wasm.len() < HEADER || &wasm[..4] != b"\0asm" {
        return Err("not a wasm module".into());
    }
    let mut out = wasm[..HEADER].to_vec();
    let mut at = HEADER;
    while at < wasm.len() {
        let start = at;
        let id = wasm[at];
        at += 1;
        // The section's size: unsigned LEB128, at most 5 bytes.
        let (mut size, mut shift) = (0u64, 0u32);
        loop {
            let b = *wasm.get(at).ok_or("a section size runs past the end")?;
            at += 1;
            size |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 28 {
                return Err("a section size is too long".into());
            }
        }
        let end = at
            .checked_add(usize::try_from(size).map_err(|e| e.to_string())?)
            .filter(|e| *e <= wasm.len())
            .ok_or("a section runs past the end")?;
        if id != 0 {
            out.extend_from_slice(&wasm[start..end]);
        }
        at = end;
    }
    Ok(out)
}

/// `bytes` minified by esbuild (`loader`: "js" for ES modules, "css"). Names the module
/// exports and imports, and property names (wasm-bindgen's import object), are kept.
fn minify(ctx: &Ctx, name: &str, loader: &str, bytes: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Write;
    use std::process::Stdio;
    let esbuild = ctx.root.join("node_modules/.bin/esbuild");
    let mut child = cmd(ctx, &esbuild)
        .args([
            "--minify",
            &format!("--loader={loader}"),
            "--log-level=error",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{}: {e}", esbuild.display()))?;
    let mut stdin = child.stdin.take().ok_or("esbuild: no stdin")?;
    let input = bytes.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child
        .wait_with_output()
        .map_err(|e| format!("esbuild {name}: {e}"))?;
    let _ = writer.join();
    if !out.status.success() || out.stdout.is_empty() {
        return Err(format!(
            "esbuild could not minify {name}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(out.stdout)
}

fn wasm_opt(ctx: &Ctx, input: &Path, output: &Path) -> Result<(), String> {
    if std::env::var("AGENT_CANVAS_SPLIT_DEBUG").is_ok_and(|v| v == "1") {
        return fs::copy(input, output)
            .map(|_| ())
            .map_err(|e| format!("{}: {e}", input.display()));
    }
    let small = !input.ends_with("agent_canvas_bg.wasm")
        && fs::metadata(input).is_ok_and(|m| m.len() < SMALL_CHUNK_BYTES);
    if small {
        let stripped = strip_custom_sections(&read(input)?)
            .map_err(|e| format!("{}: {e}", input.display()))?;
        return write(output, &stripped);
    }
    let mut c = cmd(
        ctx,
        ctx.root
            .join("node_modules/.bin/wasm-opt")
            .display()
            .to_string(),
    );
    c.args([
        "-Oz",
        "--enable-bulk-memory",
        "--enable-nontrapping-float-to-int",
    ])
    .arg(input)
    .arg("-o")
    .arg(output);
    let name = input.file_name().and_then(|n| n.to_str()).unwrap_or("wasm");
    util::run_quiet(ctx, &format!("wasm-opt {name}"), &mut c)
}

/// Builds the split release app into `dist`.
pub fn build(ctx: &Ctx, dist: &Path) -> Result<Layout, String> {
    let work = ctx.root.join("target/split");
    let _ = fs::remove_dir_all(&work);
    let (split_dir, bindgen_dir) = (work.join("split"), work.join("bindgen"));
    for d in [&split_dir, &bindgen_dir] {
        fs::create_dir_all(d).map_err(|e| format!("{}: {e}", d.display()))?;
    }

    // AGENT_CANVAS_SPLIT_DEBUG=1: a dev-profile split build without wasm-opt (debug assertions
    // name the signal behind a "disposed" panic); for diagnosis only.
    let debug = std::env::var("AGENT_CANVAS_SPLIT_DEBUG").is_ok_and(|v| v == "1");
    step(ctx, "compiling the app with its split points (cargo rustc)");
    let mut c = cmd(ctx, &ctx.cargo);
    c.args([
        "rustc",
        "-p",
        "agent-canvas-app",
        "--lib",
        "--crate-type",
        "cdylib",
    ]);
    if !debug {
        c.arg("--release");
    }
    c.args([
        "--target",
        "wasm32-unknown-unknown",
        "--",
        "--cfg",
        "agent_canvas_split",
        "-C",
        "link-arg=--emit-relocs",
    ])
    .current_dir(&ctx.root);
    util::run_quiet(ctx, "cargo rustc (split)", &mut c)?;
    let raw = ctx.root.join(if debug {
        "target/wasm32-unknown-unknown/debug/agent_canvas.wasm"
    } else {
        "target/wasm32-unknown-unknown/release/agent_canvas.wasm"
    });

    step(ctx, "splitting the wasm at its lazy views");
    let input = read(&raw)?;
    let main_split = split_dir.join("agent_canvas.wasm");
    {
        let mut opts = wasm_split_cli_support::Options::new(&input);
        opts.output_dir = &split_dir;
        opts.main_out_path = &main_split;
        opts.main_module = "./agent_canvas.js";
        wasm_split_cli_support::transform(opts).map_err(|e| format!("wasm split: {e:?}"))?;
    }
    // Every page with the shell loads the sidebar's chunks: one file instead of dozens.
    let merged = crate::merge::bundle(&split_dir, SHELL_PART, "shell")?;
    step(
        ctx,
        &format!("merged the {merged} chunks the sidebar uses into chunk_shell"),
    );
    // The other lazy parts: chunks grouped by who loads them, so a route asks for a few files
    // instead of up to a hundred (issue #30 item 3).
    let (grouped, files) = crate::merge::bundle_groups(&split_dir, crate::merge::WASTE_PER_FILE)?;
    step(
        ctx,
        &format!("merged {grouped} more chunks into {files} files by who loads them"),
    );

    step(ctx, "wasm-bindgen on the main module");
    let mut c = cmd(ctx, ctx.cargo_bin("wasm-bindgen"));
    c.args([
        "--target",
        "web",
        "--keep-lld-exports",
        "--no-demangle",
        "--no-typescript",
        "--out-name",
        "agent_canvas",
        "--out-dir",
    ])
    .arg(&bindgen_dir)
    .arg(&main_split);
    util::run_quiet(ctx, "wasm-bindgen", &mut c)?;

    step(
        ctx,
        "wasm-opt -Oz on every module (chunks under 4 KB: custom sections stripped)",
    );
    let mut chunk_names: Vec<String> = fs::read_dir(&split_dir)
        .map_err(|e| e.to_string())?
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".wasm") && n != "agent_canvas.wasm")
        .collect();
    chunk_names.sort();
    let opt_dir = work.join("opt");
    fs::create_dir_all(&opt_dir).map_err(|e| e.to_string())?;
    // Two at a time (this wasm-opt is binaryen compiled to wasm under node: most of a small
    // chunk's second is its start-up), the main module first.
    let mut jobs = vec![(
        bindgen_dir.join("agent_canvas_bg.wasm"),
        opt_dir.join("agent_canvas_bg.wasm"),
    )];
    jobs.extend(
        chunk_names
            .iter()
            .map(|n| (split_dir.join(n), opt_dir.join(n))),
    );
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((input, output)) = jobs.get(i) else {
                    break;
                };
                if let Err(e) = wasm_opt(ctx, input, output) {
                    if let Ok(mut f) = failures.lock() {
                        f.push(e);
                    }
                }
            });
        }
    });
    if let Some(e) = failures.into_inner().unwrap_or_default().into_iter().next() {
        return Err(e);
    }

    step(ctx, "naming files by content and writing dist/");
    fs::create_dir_all(dist).map_err(|e| format!("{}: {e}", dist.display()))?;
    let previous = fs::read_to_string(dist.join(LAYOUT_FILE)).unwrap_or_default();
    let mut layout = Layout::default();

    // Chunks: named by their own content; the loader's URLs follow.
    let mut loader = text(&split_dir.join("__wasm_split.js"))?;
    let mut renames = BTreeMap::new();
    for n in &chunk_names {
        let bytes = read(&opt_dir.join(n))?;
        let stem = n.trim_end_matches(".wasm");
        let hashed = format!("{stem}-{}.wasm", hash16(&bytes));
        write(&dist.join(&hashed), &bytes)?;
        renames.insert(n.clone(), hashed.clone());
        layout.chunks.push(hashed);
    }
    for (old, new) in &renames {
        let before = loader.clone();
        loader = loader.replace(&format!("\"./{old}\""), &format!("\"./{new}\""));
        loader = loader.replace(&format!("'./{old}'"), &format!("'./{new}'"));
        if loader == before {
            return Err(format!("the split loader does not name {old}"));
        }
    }

    // Each lazy part's files, for hosts that preload a route's parts (issue #30).
    let parts = crate::preload::part_files(&loader)?;
    let parts = serde_json::to_string_pretty(&parts).map_err(|e| e.to_string())?;
    write(&dist.join(PRELOAD_FILE), parts.as_bytes())?;

    // The main JS, its wasm and the loader: one build hash over all three.
    let mut main_js = text(&bindgen_dir.join("agent_canvas.js"))?;
    let main_wasm = read(&opt_dir.join("agent_canvas_bg.wasm"))?;
    let build = {
        let mut all = main_js.clone().into_bytes();
        all.extend_from_slice(&main_wasm);
        all.extend_from_slice(loader.as_bytes());
        // They are minified after naming (the names are inside them): the minifier's version
        // is part of what they become.
        all.extend_from_slice(crate::tools::ESBUILD_VERSION.as_bytes());
        hash16(&all)
    };
    let js_name = format!("agent-canvas-{build}.js");
    let wasm_name = format!("agent-canvas-{build}_bg.wasm");
    let loader_name = format!("__wasm_split-{build}.js");
    // Only the import specifiers change; the wasm's import module keys stay "./__wasm_split.js".
    let before = main_js.clone();
    main_js = main_js
        .replace(
            "from './__wasm_split.js'",
            &format!("from './{loader_name}'"),
        )
        .replace(
            "from \"./__wasm_split.js\"",
            &format!("from \"./{loader_name}\""),
        );
    if main_js == before {
        return Err("the main JS does not import ./__wasm_split.js".into());
    }
    main_js = main_js
        .replace("'agent_canvas_bg.wasm'", &format!("'{wasm_name}'"))
        .replace("\"agent_canvas_bg.wasm\"", &format!("\"{wasm_name}\""));
    loader = loader
        .replace("from './agent_canvas.js'", &format!("from './{js_name}'"))
        .replace(
            "from \"./agent_canvas.js\"",
            &format!("from \"./{js_name}\""),
        );
    write(
        &dist.join(&js_name),
        &minify(ctx, &js_name, "js", main_js.as_bytes())?,
    )?;
    write(&dist.join(&wasm_name), &main_wasm)?;
    write(
        &dist.join(&loader_name),
        &minify(ctx, &loader_name, "js", loader.as_bytes())?,
    )?;
    // Inline JS snippets of wasm-bindgen, if any, keep their relative paths.
    copy_dir(&bindgen_dir.join("snippets"), &dist.join("snippets"))?;

    let (html, assets, lazy_css) = index_html(ctx, dist, &js_name, &wasm_name, &loader_name)?;
    // Fetched after the first render's files, like the wasm chunks.
    layout.chunks.extend(lazy_css);
    write(&dist.join("index.html"), html.as_bytes())?;
    layout.initial = vec!["index.html".into()];
    layout.initial.extend(assets);
    layout
        .initial
        .extend([js_name.clone(), loader_name.clone(), wasm_name.clone()]);

    // Keep this build's and the previous build's files; drop older hashed files.
    let current: Vec<String> = layout
        .initial
        .iter()
        .chain(&layout.chunks)
        .cloned()
        .collect();
    let keep: std::collections::BTreeSet<String> = current
        .iter()
        .cloned()
        .chain(
            previous
                .lines()
                .map(|l| l.rsplit('\t').next().unwrap_or(l).to_string()),
        )
        .collect();
    for e in fs::read_dir(dist).map_err(|e| e.to_string())?.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let generated = [".wasm", ".js", ".css", ".svg"]
            .iter()
            .any(|ext| name.ends_with(ext));
        if e.path().is_file() && generated && !keep.contains(&name) {
            let _ = fs::remove_file(e.path());
        }
    }
    let manifest: Vec<String> = layout
        .initial
        .iter()
        .map(|f| format!("initial\t{f}"))
        .chain(layout.chunks.iter().map(|f| format!("chunk\t{f}")))
        .collect();
    write(&dist.join(LAYOUT_FILE), manifest.join("\n").as_bytes())?;
    Ok(layout)
}

/// Gzip bytes (best compression) of `bytes`.
pub fn gzip_len(bytes: &[u8]) -> u64 {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let _ = enc.write_all(bytes);
    enc.finish().map(|v| v.len() as u64).unwrap_or(0)
}

/// The built app as `.build-files` lists it: (initial, chunks), each `(name, raw, gzip)`.
#[allow(clippy::type_complexity)]
pub fn measure(dist: &Path) -> Result<(Vec<(String, u64, u64)>, Vec<(String, u64, u64)>), String> {
    let manifest = fs::read_to_string(dist.join(LAYOUT_FILE)).map_err(|e| {
        format!(
            "{}: {e} (build the app first)",
            dist.join(LAYOUT_FILE).display()
        )
    })?;
    let (mut initial, mut chunks) = (Vec::new(), Vec::new());
    for line in manifest.lines() {
        let Some((kind, name)) = line.split_once('\t') else {
            continue;
        };
        let bytes = read(&dist.join(name))?;
        let row = (name.to_string(), bytes.len() as u64, gzip_len(&bytes));
        if kind == "initial" {
            initial.push(row);
        } else {
            chunks.push(row);
        }
    }
    Ok((initial, chunks))
}

/// The size guard (issue #11): the initial gzip bytes against the committed budget.
pub fn check_budget(ctx: &Ctx, dist: &Path) -> Result<String, String> {
    let budget_path = ctx.root.join(BUDGET_FILE);
    let text =
        fs::read_to_string(&budget_path).map_err(|e| format!("{}: {e}", budget_path.display()))?;
    let budget: u64 = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .and_then(|l| l.parse().ok())
        .ok_or_else(|| format!("{BUDGET_FILE}: no byte count"))?;
    let (initial, _) = measure(dist)?;
    let total: u64 = initial.iter().map(|(_, _, g)| g).sum();
    let line = format!("initial gzip bytes {total} (budget {budget}, {BUDGET_FILE})");
    if total > budget {
        let detail: Vec<String> = initial
            .iter()
            .map(|(n, _, g)| format!("      {n:<48} {g:>9}"))
            .collect();
        Err(format!(
            "{line}: over budget by {} bytes\n{}",
            total - budget,
            detail.join("\n")
        ))
    } else {
        Ok(line)
    }
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    let Ok(rd) = fs::read_dir(from) else {
        return Ok(());
    };
    fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()))?;
        } else {
            fs::copy(&p, to.join(e.file_name())).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// `index.html` from the repository's template: each `<link data-trunk rel="css|icon"
/// href="…">` becomes a hashed copy in `dist`, the `rel="rust"` link becomes the module script
/// and the preloads. A stylesheet marked `data-lazy-css` (used only by lazily loaded parts) is
/// linked with `media="print"`: fetched at low priority, not render-blocking, and switched on
/// by the app (`src/lazy.rs`) before the first lazy part is built. A `rel="copy-dir"` link (the
/// locale files) copies its folder into `dist` as it is. Returns the HTML, the files
/// needed before the first render, and the lazy stylesheets.
fn index_html(
    ctx: &Ctx,
    dist: &Path,
    js: &str,
    wasm: &str,
    loader: &str,
) -> Result<(String, Vec<String>, Vec<String>), String> {
    let template = text(&ctx.root.join("index.html"))?;
    let mut out = String::new();
    let mut assets = Vec::new();
    let mut lazy_css = Vec::new();
    let mut in_comment = false;
    for line in template.lines() {
        let t = line.trim();
        // Comments in the template are for its readers, not the built page.
        if in_comment || t.starts_with("<!--") {
            in_comment = !t.ends_with("-->");
            continue;
        }
        if !t.starts_with("<link data-trunk") {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let attr = |name: &str| -> Option<String> {
            let key = format!("{name}=\"");
            let i = t.find(&key)? + key.len();
            let j = t[i..].find('"')? + i;
            Some(t[i..j].to_string())
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        match attr("rel").as_deref() {
            Some("rust") => {
                out.push_str(&format!(
                    "{indent}<script type=\"module\">\n\
                     {indent}import init from './{js}';\n\
                     {indent}await init({{ module_or_path: './{wasm}' }});\n\
                     {indent}</script>\n\
                     {indent}<link rel=\"modulepreload\" href=\"./{js}\" />\n\
                     {indent}<link rel=\"modulepreload\" href=\"./{loader}\" />\n\
                     {indent}<link rel=\"preload\" href=\"./{wasm}\" as=\"fetch\" type=\"application/wasm\" crossorigin=\"anonymous\" />\n"
                ));
            }
            Some(rel @ ("css" | "icon")) => {
                let href = attr("href").ok_or_else(|| format!("index.html: no href in {t}"))?;
                let src = ctx.root.join(&href);
                let mut bytes = read(&src)?;
                if rel == "css" {
                    bytes = minify(ctx, &href, "css", &bytes)?;
                }
                let file = Path::new(&href)
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("asset");
                let (stem, ext) = file.rsplit_once('.').unwrap_or((file, ""));
                let hashed = format!("{stem}-{}.{ext}", hash16(&bytes));
                write(&dist.join(&hashed), &bytes)?;
                let lazy = rel == "css" && t.contains(" data-lazy-css");
                let tag = if lazy {
                    format!("{indent}<link rel=\"stylesheet\" href=\"./{hashed}\" media=\"print\" data-lazy-css />\n")
                } else if rel == "css" {
                    format!("{indent}<link rel=\"stylesheet\" href=\"./{hashed}\" />\n")
                } else {
                    format!("{indent}<link rel=\"icon\" href=\"./{hashed}\" />\n")
                };
                out.push_str(&tag);
                if lazy {
                    lazy_css.push(hashed);
                } else if rel == "css" {
                    assets.push(hashed);
                }
            }
            Some("copy-dir") => {
                let href = attr("href").ok_or_else(|| format!("index.html: no href in {t}"))?;
                let name = Path::new(&href)
                    .file_name()
                    .ok_or_else(|| format!("index.html: no folder name in {t}"))?;
                let to = dist.join(name);
                let _ = fs::remove_dir_all(&to);
                copy_dir(&ctx.root.join(&href), &to)?;
            }
            other => return Err(format!("index.html: unsupported data-trunk link {other:?}")),
        }
    }
    Ok((out, assets, lazy_css))
}

#[cfg(test)]
mod tests {
    use super::strip_custom_sections;

    #[test]
    fn custom_sections_go_and_every_other_section_stays_as_it_is() {
        let header = b"\0asm\x01\0\0\0".to_vec();
        let custom = [0u8, 5, 4, b'n', b'a', b'm', b'e'];
        let types = [1u8, 4, 1, 0x60, 0, 0];
        let code = [10u8, 4, 1, 2, 0, 0x0b];
        let mut wasm = header.clone();
        wasm.extend_from_slice(&custom);
        wasm.extend_from_slice(&types);
        wasm.extend_from_slice(&custom);
        wasm.extend_from_slice(&code);
        let mut want = header;
        want.extend_from_slice(&types);
        want.extend_from_slice(&code);
        assert_eq!(strip_custom_sections(&wasm).unwrap(), want);
        // A multi-byte size (LEB128: 0x80 0x01 = 128).
        let mut big = b"\0asm\x01\0\0\0".to_vec();
        big.extend_from_slice(&[0, 0x80, 0x01]);
        big.extend_from_slice(&[0u8; 128]);
        assert_eq!(strip_custom_sections(&big).unwrap(), b"\0asm\x01\0\0\0");
        // Damaged input is an error, never a panic or a silently short module.
        assert!(strip_custom_sections(b"\0asm\x01\0\0\0\x01\x09\x00").is_err());
        assert!(strip_custom_sections(b"\0asm\x01\0\0\0\x01\x80").is_err());
        assert!(strip_custom_sections(b"nope").is_err());
    }
}
