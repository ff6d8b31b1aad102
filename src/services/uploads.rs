//! Uploads into a conversation's workspace, for a chat message's attachments (issue #15) and the
//! Files panel: reading the browser's files, where files go, what is already there, and
//! uploading them (cloud runtimes through the cloud proxy; the client decides).

use crate::services::conversation_tools::with_tools;
use crate::services::workspace;
use crate::state::api::{client, routing};
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::backend_api;
use canvas_core::client::SendPlanned;
use canvas_core::error::ActionError;
use canvas_core::i18n::english::{message, MessageRef};
use canvas_core::i18n::Text;
use canvas_core::transport::routing::ConversationRef;
use canvas_core::workspace::paths::upload_target;
use canvas_core::workspace::tree::Listing;
use wasm_bindgen_futures::JsFuture;

/// The bytes of a browser file.
pub async fn read_file(file: &web_sys::File) -> Result<Vec<u8>, ActionError> {
    match JsFuture::from(file.array_buffer()).await {
        Ok(buf) => Ok(js_sys::Uint8Array::new(&buf).to_vec()),
        Err(_) => {
            const UNREADABLE: MessageRef = message("error.file_unreadable");
            Err(ActionError::Refused(Text::new(UNREADABLE)).about_name(file.name()))
        }
    }
}

/// The largest file the backend takes in one upload (`None`: no limit known).
pub fn max_upload_bytes(backends: BackendsCtx, active: &ActiveBackend) -> Option<u64> {
    backend_api(active, &routing(&backends)).max_upload_bytes()
}

/// The directory files are uploaded into: the conversation's working directory, else the
/// runtime's home.
pub async fn upload_dir(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    working_dir: Option<String>,
) -> Result<String, ActionError> {
    if let Some(dir) = working_dir.filter(|d| !d.is_empty()) {
        return Ok(dir);
    }
    let c = client(backends, active);
    c.api
        .file_home(Some(conv))
        .send(&c.transport)
        .await
        .map(|h| h.home)
        .map_err(|e| {
            const NO_PLACE: MessageRef = message("error.no_upload_place");
            ActionError::from(e).about(Text::new(NO_PLACE))
        })
}

/// The names directly in `dir` (for conflicts; empty when it cannot be listed).
pub async fn names_in(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    dir: &str,
) -> Vec<String> {
    match workspace::list(backends, active, conv, Some(dir), "").await {
        Ok(Listing::Full(tree)) => tree
            .entries()
            .iter()
            .filter(|e| e.depth == 0)
            .map(|e| e.name.clone())
            .collect(),
        Ok(Listing::Dir { names, .. }) => names
            .into_iter()
            .map(|n| n.trim_end_matches('/').to_string())
            .collect(),
        Err(_) => Vec::new(),
    }
}

/// Uploads `bytes` as `dir/name`; the uploaded path, or what went wrong (about the name).
pub async fn upload(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    dir: &str,
    name: &str,
    bytes: Vec<u8>,
) -> Result<String, ActionError> {
    let target =
        upload_target(dir, name).map_err(|e| ActionError::Refused(e.text()).about_name(name))?;
    with_tools(backends, active, |t| {
        t.upload_file(Some(conv), &target, name, bytes)
    })
    .await
    .map_err(|e| ActionError::from(e).about_name(name))?;
    Ok(target)
}

/// Uploads one browser file into directory `dir` (absolute); the uploaded path, or what went
/// wrong (about the file's name).
pub async fn upload_browser_file(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    dir: &str,
    file: web_sys::File,
) -> Result<String, ActionError> {
    let name = file.name();
    upload_target(dir, &name).map_err(|e| ActionError::Refused(e.text()).about_name(&name))?;
    let bytes = read_file(&file).await?;
    upload(backends, active, conv, dir, &name, bytes).await
}

/// How to upload a file whose name is already in the directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnConflict {
    /// Find out, and ask.
    Ask,
    Replace,
    KeepBoth,
}

/// What uploading a message's files gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Uploaded {
    /// Every file is in place, at these paths.
    Paths(Vec<String>),
    /// Nothing was uploaded: these names are taken in `dir` (ask what to do).
    Taken { dir: String, names: Vec<String> },
}

/// Uploads `files` (name, bytes) into the conversation's working directory, one after the
/// other, calling `progress` with what is being done (`None` when done).
pub async fn upload_files(
    backends: BackendsCtx,
    active: &ActiveBackend,
    conv: &ConversationRef,
    working_dir: Option<String>,
    files: &[(String, Vec<u8>)],
    on_conflict: OnConflict,
    progress: impl Fn(Option<String>),
) -> Result<Uploaded, ActionError> {
    if files.is_empty() {
        return Ok(Uploaded::Paths(Vec::new()));
    }
    let dir = upload_dir(backends, active, conv, working_dir).await?;
    let mut existing = if on_conflict == OnConflict::Replace {
        Vec::new()
    } else {
        names_in(backends, active, conv, &dir).await
    };
    if on_conflict == OnConflict::Ask {
        let names: Vec<String> = files
            .iter()
            .filter(|(n, _)| existing.contains(n))
            .map(|(n, _)| n.clone())
            .collect();
        if !names.is_empty() {
            return Ok(Uploaded::Taken { dir, names });
        }
    }
    let mut paths = Vec::new();
    for (i, (name, bytes)) in files.iter().enumerate() {
        let name = if existing.contains(name) {
            let taken: Vec<&str> = existing.iter().map(String::as_str).collect();
            canvas_core::conversations::chat::attachments::keep_both_name(name, &taken)
        } else {
            name.clone()
        };
        progress(Some(format!(
            "Uploading {name} ({} of {})…",
            i + 1,
            files.len()
        )));
        let done = upload(backends, active, conv, &dir, &name, bytes.clone()).await;
        existing.push(name);
        match done {
            Ok(p) => paths.push(p),
            Err(e) => {
                progress(None);
                return Err(e);
            }
        }
    }
    progress(None);
    Ok(Uploaded::Paths(paths))
}
