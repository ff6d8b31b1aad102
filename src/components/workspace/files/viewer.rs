//! The file viewer: highlighted text, inline images, large files offered for download.

use super::super::InlineError;
use crate::services::workspace;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::client::WorkspaceFile;
use canvas_core::conversations::chat::attachments::human_size_text;
use canvas_core::error::ApiError;
use canvas_core::workspace::highlight::{highlight, Language};
use canvas_core::workspace::paths::{file_name, image_mime, join};
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
pub(super) fn FileViewer(
    conv: canvas_core::transport::routing::ConversationRef,
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
    let aria = t!("workspace.viewer.label", path = rel);
    view! {
        <section class="ws-viewer" data-testid="file-viewer" aria-label=aria>
            <header class="ws-viewer-head">
                <code data-testid="viewer-path">{rel.clone()}</code>
                <span class="ws-muted">{lang.name()}</span>
            </header>
            <Transition fallback=|| view! { <p class="ws-muted">{t!("workspace.viewer.loading")}</p> }>
                {
                    let (conv_d, abs_d, name_d) = (conv_d.clone(), abs_d.clone(), name_d.clone());
                    let rel = rel.clone();
                    move || {
                    let (conv_d, abs_d, name_d, rel) = (conv_d.clone(), abs_d.clone(), name_d.clone(), rel.clone());
                    Suspend::new(async move {
                    match content.await {
                        Ok(Viewed::TooLarge(n)) => view! {
                            <p class="ws-note" data-testid="viewer-too-large">
                                {t!("workspace.viewer.too_large", size = crate::state::i18n::say(&human_size_text(n)))}
                            </p>
                            <DownloadButton conv=conv_d abs=abs_d name=name_d />
                        }.into_any(),
                        Ok(Viewed::Bytes(bytes)) => {
                            if let Some(mime) = image_mime(&rel) {
                                let url = blob_url(&bytes, mime);
                                let dl = url.clone();
                                view! {
                                    <img class="ws-image" data-testid="viewer-image" src=url alt=name_d.clone() />
                                    <a class="btn small" href=dl download=name_d.clone() data-testid="viewer-download">{t!("workspace.viewer.download")}</a>
                                }.into_any()
                            } else {
                                match String::from_utf8(bytes) {
                                    Ok(text) => {
                                        let url = blob_url(text.as_bytes(), "application/octet-stream");
                                        view! {
                                            <a class="btn small" href=url download=name_d.clone() data-testid="viewer-download">{t!("workspace.viewer.download")}</a>
                                            <Code text=text lang=lang />
                                        }.into_any()
                                    }
                                    Err(e) => {
                                        let url = blob_url(e.as_bytes(), "application/octet-stream");
                                        view! {
                                            <p class="ws-note" data-testid="viewer-binary">{t!("workspace.viewer.binary")}</p>
                                            <a class="btn small" href=url download=name_d.clone() data-testid="viewer-download">{t!("workspace.viewer.download")}</a>
                                        }.into_any()
                                    }
                                }
                            }
                        }
                        Ok(Viewed::Text(text)) => view! { <Code text=text lang=lang /> }.into_any(),
                        Err(e) => view! { <InlineError message=e.said() testid="viewer-error" /> }.into_any(),
                    }
                })}}
            </Transition>
        </section>
    }
}

/// Downloads on demand (large files), then offers the blob link.
#[component]
fn DownloadButton(
    conv: canvas_core::transport::routing::ConversationRef,
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
                    {move || if fetch.pending().get() { t!("workspace.viewer.downloading") } else { t!("workspace.viewer.download") }}
                </button>
            }.into_any(),
            Some(Ok(bytes)) => {
                let url = blob_url(&bytes, "application/octet-stream");
                view! { <a class="btn small" href=url download=name.clone() data-testid="viewer-download">{t!("workspace.viewer.save")}</a> }.into_any()
            }
            Some(Err(e)) => view! { <InlineError message=e.said() /> }.into_any(),
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
