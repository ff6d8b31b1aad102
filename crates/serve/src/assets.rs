//! The static files of `dist`, loaded into memory once, pre-compressed, with their headers.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use axum::http::HeaderValue;
use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::html::{self, Injection};
use crate::ServeError;
use canvas_core::navigation::preload::RoutePreload;

/// `Cache-Control` of content-hashed assets.
pub(crate) const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `Cache-Control` of everything else (revalidate with the ETag).
pub(crate) const NO_CACHE: &str = "no-cache";
/// `Cache-Control` of `index.html` (also the SPA fallback): it may carry the session key, which
/// must not land in any cache.
pub(crate) const NO_STORE: &str = "no-store";

/// Files smaller than this are not worth compressing.
const MIN_COMPRESS_LEN: usize = 128;
/// Above this size brotli uses quality 9 instead of 11: q11 costs ~5-10 s per MB of wasm, q9
/// ~0.4 s per MB for a few percent more bytes, and the launcher waits for start-up.
const BROTLI_MAX_QUALITY_LEN: usize = 128 * 1024;

/// One encoding of a file.
#[derive(Debug, Clone)]
pub(crate) struct Variant {
    pub body: Bytes,
    pub etag: HeaderValue,
}

/// One file of `dist`.
#[derive(Debug, Clone)]
pub(crate) struct Asset {
    pub content_type: HeaderValue,
    pub cache_control: &'static str,
    /// Content-Security-Policy, for HTML documents only.
    pub csp: Option<HeaderValue>,
    pub identity: Variant,
    pub gzip: Option<Variant>,
    pub br: Option<Variant>,
}

/// The encodings a response can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Identity,
    Gzip,
    Brotli,
}

impl Asset {
    /// The best variant for an `Accept-Encoding` header value.
    pub(crate) fn negotiate(&self, accept_encoding: Option<&str>) -> (Encoding, &Variant) {
        let accepted = AcceptEncoding::parse(accept_encoding.unwrap_or(""));
        if let Some(br) = &self.br {
            if accepted.brotli {
                return (Encoding::Brotli, br);
            }
        }
        if let Some(gz) = &self.gzip {
            if accepted.gzip {
                return (Encoding::Gzip, gz);
            }
        }
        (Encoding::Identity, &self.identity)
    }

    /// Whether there is more than one representation (then responses carry `Vary`).
    pub(crate) fn has_variants(&self) -> bool {
        self.gzip.is_some() || self.br.is_some()
    }
}

/// What an `Accept-Encoding` header allows (q = 0 means "not acceptable").
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct AcceptEncoding {
    pub gzip: bool,
    pub brotli: bool,
}

impl AcceptEncoding {
    pub(crate) fn parse(value: &str) -> Self {
        let mut gzip: Option<bool> = None;
        let mut brotli: Option<bool> = None;
        let mut star: Option<bool> = None;
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let mut q = 1.0_f32;
            for param in parts {
                let param = param.trim();
                if let Some(v) = param
                    .strip_prefix("q=")
                    .or_else(|| param.strip_prefix("Q="))
                {
                    q = v.trim().parse().unwrap_or(0.0);
                }
            }
            let ok = q > 0.0;
            match coding.as_str() {
                "gzip" | "x-gzip" => gzip = Some(ok),
                "br" => brotli = Some(ok),
                "*" => star = Some(ok),
                _ => {}
            }
        }
        let star = star.unwrap_or(false);
        AcceptEncoding {
            gzip: gzip.unwrap_or(star),
            brotli: brotli.unwrap_or(star),
        }
    }
}

/// All files of `dist`, keyed by URL path relative to the base path (`/index.html`).
#[derive(Debug)]
pub(crate) struct Assets {
    pub files: HashMap<String, Asset>,
}

impl Assets {
    pub(crate) fn get(&self, path: &str) -> Option<&Asset> {
        self.files.get(path)
    }

    pub(crate) fn index(&self) -> Option<&Asset> {
        self.files.get("/index.html")
    }

    /// `index.html` as served for the app route `path`: with preloads of the lazy parts that
    /// route loads first ([`RoutePreload`]), when the build says which files those are.
    pub(crate) fn index_for(&self, path: &str) -> Option<&Asset> {
        self.files
            .get(&index_key(RoutePreload::for_path(path)))
            .or_else(|| self.index())
    }

    /// Reads every file of the app, rewrites `index.html` and pre-compresses.
    pub(crate) fn load(
        app: &crate::AppFiles,
        injection: &Injection<'_>,
    ) -> Result<Self, ServeError> {
        let (raw, cache) = match app {
            crate::AppFiles::Dir(dist) => (read_dist(dist)?, Some(dist.join(COMPRESSED_CACHE))),
            crate::AppFiles::Memory { files, cache } => {
                if !files.iter().any(|(p, _)| p == "/index.html") {
                    return Err(ServeError::Dist {
                        path: PathBuf::from("(built in)"),
                        message: "no index.html".into(),
                    });
                }
                (files.to_vec(), cache.clone())
            }
        };
        let parts = part_files(&raw);
        // HTML documents: inject (index.html) and compute their CSP.
        let mut prepared: Vec<Prepared> = Vec::with_capacity(raw.len());
        for (path, bytes) in raw {
            let name = path.rsplit('/').next().unwrap_or("").to_owned();
            let content_type = content_type_for(&name);
            let is_html = content_type.starts_with("text/html");
            let (bytes, csp) = if is_html {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let text = if path == "/index.html" {
                    html::prepare_index(&text, injection)
                } else {
                    text
                };
                let csp = html::content_security_policy(&html::inline_script_hashes(&text));
                (text.into_bytes(), Some(csp))
            } else {
                (bytes, None)
            };
            let cache_control = if path == "/index.html" {
                NO_STORE
            } else if !is_html && is_hashed_name(&name) {
                IMMUTABLE
            } else {
                NO_CACHE
            };
            if path == "/index.html" {
                if let Some(parts) = &parts {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    for route in RoutePreload::ALL {
                        let mut files: Vec<&str> = Vec::new();
                        for f in route.parts().iter().filter_map(|p| parts.get(*p)).flatten() {
                            if !files.contains(&f.as_str()) {
                                files.push(f);
                            }
                        }
                        let html = html::with_preloads(&text, &files);
                        let csp = html::content_security_policy(&html::inline_script_hashes(&html));
                        prepared.push(Prepared {
                            compress: html.len() >= MIN_COMPRESS_LEN,
                            path: index_key(route),
                            content_type: content_type.clone(),
                            cache_control,
                            csp: Some(csp),
                            bytes: html.into_bytes(),
                        });
                    }
                }
            }
            prepared.push(Prepared {
                compress: is_compressible(&content_type) && bytes.len() >= MIN_COMPRESS_LEN,
                path,
                content_type,
                cache_control,
                csp,
                bytes,
            });
        }

        let compressed = compress_all(&prepared, cache.as_deref());
        let mut files = HashMap::with_capacity(prepared.len());
        for (p, (gz, br)) in prepared.into_iter().zip(compressed) {
            let tag = etag_base(&p.bytes);
            let make = |body: Vec<u8>, suffix: &str| Variant {
                body: Bytes::from(body),
                etag: header_value(&format!("\"{tag}{suffix}\"")),
            };
            let len = p.bytes.len();
            let gzip = gz.filter(|b| b.len() < len).map(|b| make(b, "-gz"));
            let br = br.filter(|b| b.len() < len).map(|b| make(b, "-br"));
            let asset = Asset {
                content_type: header_value(&p.content_type),
                cache_control: p.cache_control,
                csp: p.csp.as_deref().map(header_value),
                identity: make(p.bytes, ""),
                gzip,
                br,
            };
            files.insert(p.path, asset);
        }
        Ok(Assets { files })
    }
}

/// Every file under `dist` (URL path, bytes; dot files left out); an error says what is wrong
/// with the directory.
pub fn read_dist(dist: &Path) -> Result<Vec<(String, Vec<u8>)>, ServeError> {
    let dist_err = |message: String| ServeError::Dist {
        path: dist.to_path_buf(),
        message,
    };
    let meta = std::fs::metadata(dist).map_err(|e| dist_err(format!("cannot read: {e}")))?;
    if !meta.is_dir() {
        return Err(dist_err("not a directory".into()));
    }
    let mut raw: Vec<(String, Vec<u8>)> = Vec::new();
    collect(dist, dist, &mut raw).map_err(|e| dist_err(e.to_string()))?;
    if !raw.iter().any(|(p, _)| p == "/index.html") {
        return Err(dist_err(
            "no index.html (build the app first, e.g. `trunk build`)".into(),
        ));
    }
    Ok(raw)
}

/// The key of `index.html` with `route`'s preloads: not a path any request can name (a
/// request path never holds a NUL).
fn index_key(route: RoutePreload) -> String {
    format!("\0index:{route:?}")
}

/// The build's `chunks.json` (each lazy part's files, written by the split build), when
/// there is one that reads; every file it names must be in `dist`. A build without it (Trunk)
/// or with one that does not add up is served without preloads, and says so.
fn part_files(raw: &[(String, Vec<u8>)]) -> Option<BTreeMap<String, Vec<String>>> {
    let (_, bytes) = raw.iter().find(|(p, _)| p == "/chunks.json")?;
    let parts: BTreeMap<String, Vec<String>> = match serde_json::from_slice(bytes) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("canvas-serve: chunks.json unreadable ({e}): no preloads");
            return None;
        }
    };
    let missing = parts.values().flatten().find(|f| {
        !raw.iter()
            .any(|(p, _)| p.strip_prefix('/') == Some(f.as_str()))
    });
    if let Some(f) = missing {
        eprintln!("canvas-serve: chunks.json names {f}, which is not in dist: no preloads");
        return None;
    }
    Some(parts)
}

struct Prepared {
    path: String,
    content_type: String,
    cache_control: &'static str,
    csp: Option<String>,
    bytes: Vec<u8>,
    compress: bool,
}

impl Prepared {
    /// Only content-hashed files are kept compressed between starts: `index.html` carries the
    /// session key and must never be written anywhere.
    fn cacheable(&self) -> bool {
        self.cache_control == IMMUTABLE
    }
}

fn header_value(s: &str) -> HeaderValue {
    HeaderValue::from_str(s).unwrap_or_else(|_| HeaderValue::from_static("invalid"))
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        // Dot files are not the app's (the compressed cache, the build's file list).
        if path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'))
        {
            continue;
        }
        let meta = std::fs::metadata(&path)?;
        if meta.is_dir() {
            collect(root, &path, out)?;
        } else if meta.is_file() {
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let mut key = String::new();
            let mut ok = true;
            for comp in rel.components() {
                match comp.as_os_str().to_str() {
                    Some(s) => {
                        key.push('/');
                        key.push_str(s);
                    }
                    None => ok = false,
                }
            }
            if ok {
                out.push((key, std::fs::read(&path)?));
            }
        }
    }
    Ok(())
}

/// Strong ETag base: the first 16 bytes of the SHA-256 of the content, hex.
fn etag_base(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// `Content-Type` for a file name.
pub(crate) fn content_type_for(name: &str) -> String {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    let known = match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "wasm" => "application/wasm",
        "css" => "text/css; charset=utf-8",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "txt" => "text/plain; charset=utf-8",
        "ico" => "image/x-icon",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "avif" => "image/avif",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        "ttf" => "font/ttf",
        "otf" => "font/otf",
        "xml" => "application/xml",
        _ => "",
    };
    if !known.is_empty() {
        return known.to_owned();
    }
    let guessed = mime_guess::from_ext(&ext).first_or_octet_stream();
    if guessed.type_() == mime_guess::mime::TEXT {
        format!("{}; charset=utf-8", guessed.essence_str())
    } else {
        guessed.essence_str().to_owned()
    }
}

fn is_compressible(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    essence.starts_with("text/")
        || matches!(
            essence,
            "application/javascript"
                | "application/json"
                | "application/manifest+json"
                | "application/wasm"
                | "application/xml"
                | "image/svg+xml"
                | "image/x-icon"
                | "font/ttf"
                | "font/otf"
        )
}

/// Trunk's content-hashed names: `name-<16+ hex>.ext` and `name-<hash>_bg.wasm`.
pub(crate) fn is_hashed_name(name: &str) -> bool {
    let Some((stem, _ext)) = name.rsplit_once('.') else {
        return false;
    };
    let stem = stem.strip_suffix("_bg").unwrap_or(stem);
    let Some((_, hash)) = stem.rsplit_once('-') else {
        return false;
    };
    hash.len() >= 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())
}

type Compressed = (Option<Vec<u8>>, Option<Vec<u8>>);

/// Where compressed copies of content-hashed files are kept between starts, named by the
/// SHA-256 of the original and the codec (`dist/.compressed/<hex>.br`). Compressing a split
/// build's few hundred files costs tens of CPU-seconds per start; reading them back, none.
/// Written atomically (a temporary name, then a rename); a `dist` that cannot be written is
/// compressed in memory as before. Entries no current file names are removed.
pub(crate) const COMPRESSED_CACHE: &str = ".compressed";

/// The compression settings' version, part of every cache name (bump it when they change).
const CACHE_VERSION: &str = "v1";

fn cache_name(bytes: &[u8], brotli: bool) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}-{CACHE_VERSION}.{}", if brotli { "br" } else { "gz" })
}

/// One codec of one file, from the cache when it holds it.
fn compress_cached(data: &[u8], brotli: bool, cache: Option<&Path>) -> Option<Vec<u8>> {
    let compress = || {
        if brotli {
            brotli_bytes(data)
        } else {
            gzip_bytes(data)
        }
    };
    let Some(dir) = cache else {
        return compress();
    };
    let path = dir.join(cache_name(data, brotli));
    if let Ok(kept) = std::fs::read(&path) {
        if !kept.is_empty() {
            return Some(kept);
        }
    }
    let out = compress()?;
    let tmp = dir.join(format!(
        ".tmp-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    if std::fs::create_dir_all(dir).is_ok()
        && std::fs::write(&tmp, &out).is_ok()
        && std::fs::rename(&tmp, &path).is_err()
    {
        let _ = std::fs::remove_file(&tmp);
    }
    Some(out)
}

/// Removes cache entries that no current file names (older builds'), and stray temporaries.
fn prune_cache(dir: &Path, keep: &std::collections::HashSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let stale_tmp = name.starts_with(".tmp-")
            && e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age.as_secs() > 600);
        if stale_tmp || (!name.starts_with(".tmp-") && !keep.contains(&name)) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// gzip + brotli of every compressible file, spread over the available cores; content-hashed
/// files through the cache in `cache` (when given).
fn compress_all(files: &[Prepared], cache: Option<&Path>) -> Vec<Compressed> {
    let results: Vec<Mutex<Compressed>> = files.iter().map(|_| Mutex::new((None, None))).collect();
    // Largest first so that the big wasm file starts immediately.
    let mut order: Vec<usize> = (0..files.len()).filter(|&i| files[i].compress).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(files[i].bytes.len()));
    // Each job is (file, codec): the wasm file's gzip and brotli run on different cores.
    let jobs: Vec<(usize, bool)> = order
        .iter()
        .flat_map(|&i| [(i, true), (i, false)])
        .collect();
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 8)
        .min(jobs.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(i, brotli)) = jobs.get(j) else {
                    break;
                };
                let data = &files[i].bytes;
                let out = compress_cached(data, brotli, cache.filter(|_| files[i].cacheable()));
                if let Ok(mut slot) = results[i].lock() {
                    if brotli {
                        slot.1 = out;
                    } else {
                        slot.0 = out;
                    }
                }
            });
        }
    });
    if let Some(dir) = cache {
        let keep = files
            .iter()
            .filter(|f| f.compress && f.cacheable())
            .flat_map(|f| [cache_name(&f.bytes, true), cache_name(&f.bytes, false)])
            .collect();
        prune_cache(dir, &keep);
    }
    results
        .into_iter()
        .map(|m| m.into_inner().unwrap_or((None, None)))
        .collect()
}

/// `data` gzip-compressed as canvas-serve serves it (level 9), `None` if compressing failed.
pub fn gzip_bytes(data: &[u8]) -> Option<Vec<u8>> {
    let mut enc = flate2::write::GzEncoder::new(
        Vec::with_capacity(data.len() / 3),
        flate2::Compression::best(),
    );
    enc.write_all(data).ok()?;
    enc.finish().ok()
}

/// `data` brotli-compressed as canvas-serve serves it (quality 11, 9 above 128 KiB).
pub fn brotli_bytes(data: &[u8]) -> Option<Vec<u8>> {
    let quality = if data.len() <= BROTLI_MAX_QUALITY_LEN {
        11
    } else {
        9
    };
    let mut out = Vec::with_capacity(data.len() / 3);
    {
        let mut w = brotli::CompressorWriter::new(&mut out, 64 * 1024, quality, 22);
        w.write_all(data).ok()?;
        w.flush().ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names() {
        assert!(is_hashed_name("agent-canvas-0123456789abcdef.js"));
        assert!(is_hashed_name("agent-canvas-0123456789abcdef_bg.wasm"));
        assert!(is_hashed_name("style-0123456789ABCDEF0123.css"));
        assert!(!is_hashed_name("agent-canvas-0123456789abcde.js")); // 15 hex
        assert!(!is_hashed_name("agent-canvas-0123456789abcdeg.js"));
        assert!(!is_hashed_name("favicon.ico"));
        assert!(!is_hashed_name("index.html"));
        assert!(!is_hashed_name("0123456789abcdef0123"));
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type_for("a_bg.wasm"), "application/wasm");
        assert!(content_type_for("a.js").starts_with("text/javascript"));
        assert!(content_type_for("a.css").starts_with("text/css"));
        assert!(content_type_for("index.html").starts_with("text/html"));
        assert_eq!(content_type_for("logo.svg"), "image/svg+xml");
        assert_eq!(content_type_for("blob"), "application/octet-stream");
    }

    #[test]
    fn accept_encoding() {
        let p = AcceptEncoding::parse;
        assert_eq!(p(""), AcceptEncoding::default());
        assert_eq!(
            p("gzip, deflate, br, zstd"),
            AcceptEncoding {
                gzip: true,
                brotli: true
            }
        );
        assert_eq!(
            p("gzip;q=1.0, br;q=0"),
            AcceptEncoding {
                gzip: true,
                brotli: false
            }
        );
        assert_eq!(
            p("*"),
            AcceptEncoding {
                gzip: true,
                brotli: true
            }
        );
        assert_eq!(
            p("*;q=0.5, br;q=0"),
            AcceptEncoding {
                gzip: true,
                brotli: false
            }
        );
        assert_eq!(p("identity"), AcceptEncoding::default());
    }
}
