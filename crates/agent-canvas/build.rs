//! Builds the release app into the binary (issue #40), and what `--version` says.
//!
//! The app comes from `$AGENT_CANVAS_DIST` (the release build's `dist/`, which `cargo xtask`
//! sets), else from `app/` beside this file (where `cargo xtask dist` stages it into a
//! package); with neither, the binary holds no app and asks for `--dist DIR`. Each file is
//! gzip-compressed here and its SHA-256 kept: the binary checks every file when it reads it,
//! and serves exactly the bytes of the build.
//!
//! The servers' lock files come from `server/` beside this file (a package), else from the
//! repository's `server/`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

const LOCKS: [&str; 3] = ["requirements.lock", "automation.lock", "omnigent.lock"];

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-env-changed=AGENT_CANVAS_DIST");
    println!("cargo:rerun-if-env-changed=AGENT_CANVAS_COMMIT");
    println!("cargo:rerun-if-changed=build.rs");

    // The app.
    let packaged = manifest.join("app");
    let dist = match std::env::var_os("AGENT_CANVAS_DIST").filter(|d| !d.is_empty()) {
        Some(d) => Some(PathBuf::from(d)),
        None => packaged
            .join("index.html")
            .exists()
            .then_some(packaged.clone()),
    };
    // The crate's directory, not `app/` itself: a path that does not exist would make cargo run
    // this again on every build; the directory notices `app/` coming, going or changing.
    println!("cargo:rerun-if-changed={}", manifest.display());
    let mut files = Vec::new();
    if let Some(dist) = &dist {
        println!("cargo:rerun-if-changed={}", dist.display());
        collect(dist, dist, &mut files);
        assert!(
            files.iter().any(|(p, _)| p == "/index.html"),
            "{}: no index.html (build the app first: cargo xtask build)",
            dist.display()
        );
    }
    let blobs = out.join("app");
    let _ = std::fs::remove_dir_all(&blobs);
    std::fs::create_dir_all(&blobs).unwrap();
    let mut table = String::from("&[\n");
    for (i, (path, file)) in files.iter().enumerate() {
        let bytes = std::fs::read(file).unwrap();
        let digest = sha2::Digest::finalize(sha2::Digest::chain_update(
            <sha2::Sha256 as sha2::Digest>::new(),
            &bytes,
        ));
        let hex: String = digest.iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        });
        let blob = blobs.join(format!("{i}.gz"));
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&blob).unwrap(),
            flate2::Compression::best(),
        );
        gz.write_all(&bytes).unwrap();
        gz.finish().unwrap();
        let _ = writeln!(
            table,
            "    Embedded {{ path: {path:?}, len: {}, sha256: {hex:?}, gzip: include_bytes!({:?}) }},",
            bytes.len(),
            blob.display().to_string()
        );
    }
    table.push(']');
    std::fs::write(out.join("embedded_app.rs"), table).unwrap();

    // The servers' lock files.
    let locks = if manifest.join("server").join(LOCKS[0]).exists() {
        manifest.join("server")
    } else {
        manifest.join("../../server")
    };
    for lock in LOCKS {
        let from = locks.join(lock);
        println!("cargo:rerun-if-changed={}", from.display());
        let text =
            std::fs::read_to_string(&from).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
        std::fs::write(out.join(lock), text).unwrap();
    }

    // The commit it was built from: $AGENT_CANVAS_COMMIT (xtask sets it), else git's answer.
    let commit = std::env::var("AGENT_CANVAS_COMMIT")
        .ok()
        .filter(|c| !c.is_empty())
        .or_else(|| {
            let out = std::process::Command::new("git")
                .args(["rev-parse", "--short=12", "HEAD"])
                .current_dir(&manifest)
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=AGENT_CANVAS_COMMIT={commit}");
}

/// Every file under `dir` as (URL path, file), sorted; dot files are not the app's (the
/// compressed cache of a served `dist/`).
fn collect(root: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            collect(root, &path, out);
        } else if path.is_file() {
            let rel = path.strip_prefix(root).unwrap();
            let key: String = rel
                .components()
                .map(|c| format!("/{}", c.as_os_str().to_str().expect("UTF-8 file names")))
                .collect();
            out.push((key, path));
        }
    }
}
