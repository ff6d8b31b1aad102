//! Files tab: the working directory's tree (local: one pruned, capped `find`; cloud: the
//! conversation's file listing, one directory at a time), a viewer (highlighted text, inline
//! images, large files offered for download), upload and download.

use super::{InlineError, PanelProps};
use crate::services::workspace;
use crate::state::backends::use_backends;
use canvas_core::api::WorkspaceFile;
use canvas_core::attachments::human_size;
use canvas_core::errors::ApiError;
use canvas_core::workspace::highlight::{highlight, Language};
use canvas_core::workspace::paths::{file_name, image_mime, join};
use canvas_core::workspace::tree::FileTree;
use canvas_core::workspace::MAX_VIEW_BYTES;
use leptos::prelude::*;

/// A blob URL for `bytes`, revoked when the owning view is cleaned up.
fn blob_url(bytes: &[u8], mime: &str) -> Option<String> {
    let array = js_sys::Uint8Array::from(bytes);
    let parts = js_sys::Array::of1(&array);
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts).ok()?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
    let revoke = url.clone();
    on_cleanup(move || {
        let _ = web_sys::Url::revoke_object_url(&revoke);
    });
    Some(url)
}

/// What the viewer shows for one file.
#[derive(Clone)]
enum Viewed {
    Text(String),
    Bytes(Vec<u8>),
    TooLarge(u64),
}

#[component]
pub(crate) fn FilesTab(props: PanelProps) -> impl IntoView {
    let backends = use_backends();
    let PanelProps { conv, root, ws } = props;
    let tree = RwSignal::new(FileTree::default());
    let upload_status = RwSignal::new(None::<Result<String, String>>);
    let uploading = RwSignal::new(None::<String>);
    let conv_l = conv.clone();
    let root_l = root.clone();

    // The listing (refetch = a fresh listing).
    let listing = LocalResource::new(move || {
        let active = backends.active.get();
        let conv = conv_l.clone();
        let root = root_l.clone();
        async move {
            let listing = workspace::list(backends, &active, &conv, root.as_deref(), "").await?;
            let mut t = FileTree::default();
            t.apply(listing);
            Ok::<_, ApiError>(t)
        }
    });
    Effect::new(move |_| {
        if let Some(Ok(t)) = listing.get() {
            let t: FileTree = t;
            tree.set(t.clone());
        }
    });

    // A kind that lists one directory at a time: opening one not listed yet lists it.
    let (conv_x, root_x) = (conv.clone(), root.clone());
    let list_dir = Action::new_local(move |path: &String| {
        let (conv, root, path) = (conv_x.clone(), root_x.clone(), path.clone());
        let active = backends.active.get_untracked();
        async move {
            if let Ok(listing) =
                workspace::list(backends, &active, &conv, root.as_deref(), &path).await
            {
                tree.update(|t| t.apply(listing));
            }
        }
    });
    let toggle_dir = move |path: String| {
        let opening = !ws.expanded.with_untracked(|e| e.contains(&path));
        ws.expanded.update(|e| {
            if !e.remove(&path) {
                e.insert(path.clone());
            }
        });
        if opening && !tree.with_untracked(|t| t.is_loaded(&path)) {
            list_dir.dispatch(path);
        }
    };

    // Upload: every chosen file goes to <root>/<name>.
    let conv_u = conv.clone();
    let upload = Action::new_local(
        move |(dir, picked): &(String, Vec<send_wrapper::SendWrapper<web_sys::File>>)| {
            let conv = conv_u.clone();
            let dir = dir.clone();
            let picked: Vec<web_sys::File> = picked.iter().map(|f| (**f).clone()).collect();
            let active = backends.active.get_untracked();
            async move {
                for file in picked {
                    uploading.set(Some(file.name()));
                    let r = workspace::upload(backends, &active, &conv, &dir, file).await;
                    uploading.set(None);
                    upload_status.set(Some(r.map(|target| format!("Uploaded {target}"))));
                }
                listing.refetch();
            }
        },
    );
    let root_u = root.clone();
    let on_upload = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(files) = input.files() else { return };
        let Some(dir) = root_u.clone() else {
            upload_status.set(Some(Err(
                "Uploads need an absolute working directory.".into()
            )));
            return;
        };
        let picked: Vec<_> = (0..files.length())
            .filter_map(|i| files.get(i))
            .map(send_wrapper::SendWrapper::new)
            .collect();
        input.set_value("");
        upload.dispatch((dir, picked));
    };

    let rows = move || {
        let expanded = ws.expanded.get();
        let selected = ws.selected_file.get();
        tree.with(|t| {
            t.visible(&expanded)
                .into_iter()
                .map(|e| {
                    let path = e.path.clone();
                    let is_dir = e.is_dir;
                    let open = expanded.contains(&path);
                    let sel = selected.as_deref() == Some(path.as_str());
                    let p2 = path.clone();
                    let toggle = toggle_dir;
                    let icon = if is_dir { if open { "▾ " } else { "▸ " } } else { "" };
                    view! {
                        <li role="treeitem"
                            class="ws-tree-row"
                            class:dir=is_dir
                            class:selected=sel
                            aria-expanded=is_dir.then(|| open.to_string())
                            aria-selected=sel.to_string()
                            data-depth=e.depth.to_string()
                            data-testid="tree-entry"
                            data-path=path.clone()>
                            <button class="ws-tree-btn" data-depth=e.depth.min(12).to_string()
                                on:click=move |_| {
                                    if is_dir { toggle(p2.clone()) } else { ws.selected_file.set(Some(p2.clone())) }
                                }>
                                {icon}{e.name.clone()}
                            </button>
                            {e.size.map(|s| view! { <span class="ws-size">{human_size(s)}</span> })}
                        </li>
                    }
                })
                .collect_view()
        })
    };

    let conv_v = conv.clone();
    let root_v = root.clone();
    view! {
        <div class="ws-files" data-testid="files-tab">
            <div class="ws-toolbar">
                <button class="btn small" data-testid="files-refresh" on:click=move |_| listing.refetch()>"Refresh"</button>
                <label class="btn small ws-upload">
                    "Upload…"
                    <input type="file" multiple class="ws-file-input" data-testid="files-upload"
                        aria-label="Upload files to the working directory" on:change=on_upload />
                </label>
                {move || uploading.get().map(|n| view! {
                    <span class="ws-progress" data-testid="upload-progress" role="status">
                        <progress aria-label=format!("Uploading {n}")></progress>
                        {format!("Uploading {n}…")}
                    </span>
                })}
            </div>
            {move || upload_status.get().map(|s| match s {
                Ok(m) => view! { <p class="ws-note" role="status" data-testid="upload-status">{m}</p> }.into_any(),
                Err(m) => view! { <InlineError message=m testid="upload-error" /> }.into_any(),
            })}
            <div class="ws-files-body">
                <Transition fallback=|| view! { <p class="ws-muted" data-testid="tree-loading">"Listing files…"</p> }>
                    {move || { Suspend::new(async move {
                        match listing.await {
                            Ok(_) => view! {
                                {move || tree.with(|t| t.truncated).then(|| view! {
                                    <p class="ws-note" data-testid="tree-truncated">
                                        "Only the first 2,000 entries are shown (listing truncated)."
                                    </p>
                                })}
                                {move || tree.with(|t| t.entries().is_empty()).then(|| view! {
                                    <p class="ws-muted" data-testid="tree-empty">"No files."</p>
                                })}
                                <ul class="ws-tree" role="tree" aria-label="Files" data-testid="file-tree">{rows}</ul>
                            }.into_any(),
                            Err(e) => view! { <InlineError message=e.user_message() testid="tree-error" /> }.into_any(),
                        }
                    })}}
                </Transition>
                {move || ws.selected_file.get().map(|rel| {
                    let size = tree.with(|t| t.entries().iter().find(|e| e.path == rel).and_then(|e| e.size));
                    view! { <FileViewer conv=conv_v.clone() root=root_v.clone() rel=rel size=size /> }
                })}
            </div>
        </div>
    }
}

#[component]
fn FileViewer(
    conv: canvas_core::api::routing::ConversationRef,
    root: Option<String>,
    rel: String,
    size: Option<u64>,
) -> impl IntoView {
    let backends = use_backends();
    let abs = root.as_deref().map(|r| join(r, &rel));
    let (conv_r, rel_r, root_r) = (conv.clone(), rel.clone(), root.clone());
    let content = LocalResource::new(move || {
        let active = backends.active.get();
        let (conv, rel, root) = (conv_r.clone(), rel_r.clone(), root_r.clone());
        async move {
            if let Some(s) = size.filter(|s| *s > MAX_VIEW_BYTES) {
                return Ok::<_, ApiError>(Viewed::TooLarge(s));
            }
            match workspace::read(backends, &active, &conv, root.as_deref(), &rel).await? {
                WorkspaceFile::Text(text) => Ok(Viewed::Text(text)),
                WorkspaceFile::Bytes(bytes) if bytes.len() as u64 > MAX_VIEW_BYTES => {
                    Ok(Viewed::TooLarge(bytes.len() as u64))
                }
                WorkspaceFile::Bytes(bytes) => Ok(Viewed::Bytes(bytes)),
            }
        }
    });
    let name = file_name(&rel).to_string();
    let lang = Language::detect(&rel);
    let (conv_d, abs_d, name_d) = (conv.clone(), abs.clone(), name.clone());
    let aria = format!("File {rel}");
    view! {
        <section class="ws-viewer" data-testid="file-viewer" aria-label=aria>
            <header class="ws-viewer-head">
                <code data-testid="viewer-path">{rel.clone()}</code>
                <span class="ws-muted">{lang.name()}</span>
            </header>
            <Transition fallback=|| view! { <p class="ws-muted">"Loading the file…"</p> }>
                {
                    let (conv_d, abs_d, name_d) = (conv_d.clone(), abs_d.clone(), name_d.clone());
                    let rel = rel.clone();
                    move || {
                    let (conv_d, abs_d, name_d, rel) = (conv_d.clone(), abs_d.clone(), name_d.clone(), rel.clone());
                    Suspend::new(async move {
                    match content.await {
                        Ok(Viewed::TooLarge(n)) => view! {
                            <p class="ws-note" data-testid="viewer-too-large">
                                {format!("This file is {} — too large to show here.", human_size(n))}
                            </p>
                            <DownloadButton conv=conv_d abs=abs_d name=name_d />
                        }.into_any(),
                        Ok(Viewed::Bytes(bytes)) => {
                            if let Some(mime) = image_mime(&rel) {
                                let url = blob_url(&bytes, mime);
                                let dl = url.clone();
                                view! {
                                    <img class="ws-image" data-testid="viewer-image" src=url alt=name_d.clone() />
                                    <a class="btn small" href=dl download=name_d.clone() data-testid="viewer-download">"Download"</a>
                                }.into_any()
                            } else {
                                match String::from_utf8(bytes) {
                                    Ok(text) => {
                                        let url = blob_url(text.as_bytes(), "application/octet-stream");
                                        view! {
                                            <a class="btn small" href=url download=name_d.clone() data-testid="viewer-download">"Download"</a>
                                            <Code text=text lang=lang />
                                        }.into_any()
                                    }
                                    Err(e) => {
                                        let url = blob_url(e.as_bytes(), "application/octet-stream");
                                        view! {
                                            <p class="ws-note" data-testid="viewer-binary">"Binary file."</p>
                                            <a class="btn small" href=url download=name_d.clone() data-testid="viewer-download">"Download"</a>
                                        }.into_any()
                                    }
                                }
                            }
                        }
                        Ok(Viewed::Text(text)) => view! { <Code text=text lang=lang /> }.into_any(),
                        Err(e) => view! { <InlineError message=e.user_message() testid="viewer-error" /> }.into_any(),
                    }
                })}}
            </Transition>
        </section>
    }
}

/// Downloads on demand (large files), then offers the blob link.
#[component]
fn DownloadButton(
    conv: canvas_core::api::routing::ConversationRef,
    abs: Option<String>,
    name: String,
) -> impl IntoView {
    let backends = use_backends();
    let fetch = Action::new_local(move |_: &()| {
        let (conv, abs) = (conv.clone(), abs.clone());
        async move {
            let active = backends.active.get_untracked();
            let abs = abs.ok_or(ApiError::NotFound)?;
            workspace::download(backends, &active, &conv, &abs).await
        }
    });
    view! {
        {move || match fetch.value().get() {
            None => view! {
                <button class="btn small" data-testid="viewer-fetch" disabled=move || fetch.pending().get()
                    on:click=move |_| { fetch.dispatch(()); }>
                    {move || if fetch.pending().get() { "Downloading…" } else { "Download" }}
                </button>
            }.into_any(),
            Some(Ok(bytes)) => {
                let url = blob_url(&bytes, "application/octet-stream");
                view! { <a class="btn small" href=url download=name.clone() data-testid="viewer-download">"Save the file"</a> }.into_any()
            }
            Some(Err(e)) => view! { <InlineError message=e.user_message() /> }.into_any(),
        }}
    }
}

/// Highlighted source: one span per token (text nodes only, never HTML).
#[component]
fn Code(text: String, lang: Language) -> impl IntoView {
    let lines = highlight(&text, lang);
    view! {
        <pre class="ws-code" data-testid="viewer-code"><code>
            {lines.into_iter().enumerate().map(|(i, toks)| view! {
                <span class="ws-line" data-line=(i + 1).to_string()>
                    {toks.into_iter().map(|t| view! { <span class=t.class.css()>{t.text}</span> }).collect_view()}
                    "\n"
                </span>
            }).collect_view()}
        </code></pre>
    }
}
