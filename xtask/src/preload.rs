//! `dist/chunks.json` (issue #30): every lazy part of the split loader and the files it loads —
//! its own module and every chunk it waits for — so that a host can preload a route's files
//! beside the main module (`canvas_core::navigation::preload` names each route's parts;
//! canvas-serve writes the `<link rel="preload">`s into `index.html`).

use std::collections::{BTreeMap, BTreeSet};

/// The loader's prefix of a lazy part's export: `export const __wasm_split_load_<part> = …`.
const PART_PREFIX: &str = "__wasm_split_load_";

/// One `const X = …makeLoad(` definition of the loader: the file it fetches and its
/// dependencies (other definitions).
struct Def {
    file: String,
    deps: Vec<String>,
}

/// Every definition of `loader`, by name.
fn defs(loader: &str) -> Result<BTreeMap<String, Def>, String> {
    let mut out = BTreeMap::new();
    let mut current: Option<(String, Option<String>)> = None;
    for line in loader.lines() {
        let decl = line
            .strip_prefix("export const ")
            .or_else(|| line.strip_prefix("const "));
        if let Some(decl) = decl.filter(|_| line.contains("makeLoad(")) {
            let name = decl.split(" =").next().unwrap_or("").trim().to_string();
            if name.is_empty() {
                return Err(format!(
                    "the split loader: a definition without a name: {line}"
                ));
            }
            current = Some((name, None));
            continue;
        }
        let Some((name, file)) = current.as_mut() else {
            continue;
        };
        if let Some(at) = line.find("fetch(new URL(\"./") {
            let rest = &line[at + "fetch(new URL(\"./".len()..];
            let end = rest
                .find('"')
                .ok_or("the split loader: an unterminated URL")?;
            *file = Some(rest[..end].to_string());
        } else if let Some(rest) = line.strip_prefix(", [") {
            let close = rest
                .find(']')
                .ok_or("the split loader: an unterminated list")?;
            let deps = rest[..close]
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(str::to_string)
                .collect();
            let file = file
                .take()
                .ok_or_else(|| format!("the split loader: {name} fetches no file"))?;
            out.insert(std::mem::take(name), Def { file, deps });
            current = None;
        }
    }
    Ok(out)
}

/// Each lazy part of `loader` and its files (its own module first, then the chunks it waits
/// for, transitively, in name order).
pub fn part_files(loader: &str) -> Result<BTreeMap<String, Vec<String>>, String> {
    let defs = defs(loader)?;
    let mut parts = BTreeMap::new();
    for (name, def) in &defs {
        let Some(part) = name.strip_prefix(PART_PREFIX) else {
            continue;
        };
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut todo: Vec<&str> = def.deps.iter().map(String::as_str).collect();
        while let Some(dep) = todo.pop() {
            if !seen.insert(dep) {
                continue;
            }
            let d = defs
                .get(dep)
                .ok_or_else(|| format!("the split loader: {part} waits for unknown {dep}"))?;
            todo.extend(d.deps.iter().map(String::as_str));
        }
        let mut files = vec![def.file.clone()];
        files.extend(seen.iter().map(|d| defs[*d].file.clone()));
        parts.insert(part.to_string(), files);
    }
    if parts.is_empty() {
        return Err("the split loader exports no lazy part".into());
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::part_files;

    const LOADER: &str = r#"import { initSync } from "./agent-canvas-1.js";
function makeLoad(fetcher, deps) { return deps; }
/* 2 chunks in one: a, b */
const __chunk_shell = makeLoad(() => {
    const src = fetch(new URL("./chunk_shell-1.wasm", import.meta.url));
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
}
, []);
/* a */
const __chunk_7 = makeLoad(() => {
    const src = fetch(new URL("./chunk_7-2.wasm", import.meta.url));
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
}
, []);
export const __wasm_split_load_a = wrapAsyncCb(makeLoad(() => {
    const src = fetch(new URL("./split_a-3.wasm", import.meta.url));
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
}
, [__chunk_shell, __chunk_7]));
export const __wasm_split_load_b = wrapAsyncCb(makeLoad(() => {
    const src = fetch(new URL("./split_b-4.wasm", import.meta.url));
    return async (imports) => (WebAssembly.instantiateStreaming(src, imports));
}
, [__chunk_shell]));
"#;

    #[test]
    fn each_part_lists_its_module_then_the_chunks_it_waits_for() {
        let parts = part_files(LOADER).unwrap();
        assert_eq!(
            parts["a"],
            ["split_a-3.wasm", "chunk_7-2.wasm", "chunk_shell-1.wasm"]
        );
        assert_eq!(parts["b"], ["split_b-4.wasm", "chunk_shell-1.wasm"]);
        assert_eq!(parts.len(), 2);
    }

    #[test]
    fn a_loader_that_does_not_add_up_is_an_error_never_a_guess() {
        let unknown = LOADER.replace("[__chunk_shell]));", "[__chunk_9]));");
        assert!(part_files(&unknown).unwrap_err().contains("__chunk_9"));
        assert!(part_files("const x = 1;\n").is_err());
    }
}
