//! The release app built into the binary (see `build.rs`): each file gzip-compressed, with its
//! length and SHA-256, checked when it is read.

use sha2::{Digest, Sha256};
use std::io::Read;

/// One file of the built app.
pub struct Embedded {
    /// URL path below the base path, e.g. `/index.html`.
    pub path: &'static str,
    /// Its length in bytes.
    pub len: usize,
    /// SHA-256 of its bytes, hex.
    pub sha256: &'static str,
    /// Its bytes, gzip-compressed.
    pub gzip: &'static [u8],
}

/// Every file of the app in this binary (empty when it was built without one).
pub static FILES: &[Embedded] = include!(concat!(env!("OUT_DIR"), "/embedded_app.rs"));

/// Whether this binary holds an app.
pub fn present() -> bool {
    !FILES.is_empty()
}

/// The app's files as (URL path, bytes); an error names a file whose bytes are not the ones
/// that were built in (a damaged binary).
pub fn files() -> Result<Vec<(String, Vec<u8>)>, String> {
    FILES
        .iter()
        .map(|f| {
            let mut bytes = Vec::with_capacity(f.len);
            flate2::read::GzDecoder::new(f.gzip)
                .read_to_end(&mut bytes)
                .map_err(|e| format!("the built-in app's {} cannot be read: {e}", f.path))?;
            if bytes.len() != f.len || hex(&Sha256::digest(&bytes)) != f.sha256 {
                return Err(format!(
                    "the built-in app's {} is damaged (its SHA-256 is not the one built in); \
                     reinstall agent-canvas",
                    f.path
                ));
            }
            Ok((f.path.to_string(), bytes))
        })
        .collect()
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
