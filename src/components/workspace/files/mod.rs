//! Files tab: the working directory's tree (local: one pruned, capped `find`; cloud: the
//! conversation's file listing, one directory at a time), a viewer (highlighted text, inline
//! images, large files offered for download), upload and download.

use super::{InlineError, PanelProps};
use crate::components::icon::{icons, Icon};
use crate::services::{uploads, workspace};
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::t;
use crate::state::i18n::Said;
use crate::state::workspace::ConvWorkspace;
use canvas_core::conversations::chat::attachments::human_size_text;
use canvas_core::error::ApiError;
use canvas_core::transport::routing::ConversationRef;
use canvas_core::workspace::tree::FileTree;
use leptos::prelude::*;

mod viewer;

use viewer::FileViewer;

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
    // Not a plain copy of the resource: directories opened later are merged into `tree`
    // (`list_dir` below), and a fresh listing replaces the whole of it.
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
    let upload = upload_action(backends, conv.clone(), uploading, upload_status, listing);
    let root_u = root.clone();
    let on_upload = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        let Some(files) = input.files() else { return };
        let Some(dir) = root_u.clone() else {
            upload_status.set(Some(Err(t!("workspace.files.upload_needs_dir"))));
            return;
        };
        let picked: Vec<_> = (0..files.length())
            .filter_map(|i| files.get(i))
            .map(send_wrapper::SendWrapper::new)
            .collect();
        input.set_value("");
        upload.dispatch((dir, picked));
    };

    let rows = move || tree_rows(ws, tree, toggle_dir);

    let conv_v = conv.clone();
    let root_v = root.clone();
    view! {
        <div class="ws-files" data-testid="files-tab">
            {toolbar(listing, uploading, on_upload)}
            {move || upload_status.get().map(|s| match s {
                Ok(m) => view! { <p class="ws-note" role="status" data-testid="upload-status">{m}</p> }.into_any(),
                Err(m) => view! { <InlineError message=m testid="upload-error" /> }.into_any(),
            })}
            <div class="ws-files-body">
                <Transition fallback=|| view! { <p class="ws-muted" data-testid="tree-loading">{t!("workspace.files.listing")}</p> }>
                    {move || { Suspend::new(async move {
                        match listing.await {
                            Ok(_) => view! {
                                {move || tree.with(|t| t.truncated).then(|| view! {
                                    <p class="ws-note" data-testid="tree-truncated">
                                        {t!("workspace.files.truncated")}
                                    </p>
                                })}
                                {move || tree.with(|t| t.entries().is_empty()).then(|| view! {
                                    <p class="ws-muted" data-testid="tree-empty">{t!("workspace.files.none")}</p>
                                })}
                                <ul class="ws-tree" role="tree" aria-label=t!("workspace.files.tree_label") data-testid="file-tree">{rows}</ul>
                            }.into_any(),
                            Err(e) => view! { <InlineError message=e.said() testid="tree-error" /> }.into_any(),
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

/// Uploads every chosen file to `dir` (one after the other), then lists the files again.
fn upload_action(
    backends: BackendsCtx,
    conv: ConversationRef,
    uploading: RwSignal<Option<String>>,
    upload_status: RwSignal<Option<Result<String, String>>>,
    listing: LocalResource<Result<FileTree, ApiError>>,
) -> Action<(String, Vec<send_wrapper::SendWrapper<web_sys::File>>), ()> {
    Action::new_local(
        move |(dir, picked): &(String, Vec<send_wrapper::SendWrapper<web_sys::File>>)| {
            let conv = conv.clone();
            let dir = dir.clone();
            let picked: Vec<web_sys::File> = picked.iter().map(|f| (**f).clone()).collect();
            let active = backends.active.get_untracked();
            async move {
                for file in picked {
                    uploading.set(Some(file.name()));
                    let r =
                        uploads::upload_browser_file(backends, &active, &conv, &dir, file).await;
                    uploading.set(None);
                    upload_status.set(Some(
                        r.map(|target| t!("workspace.files.uploaded", target = target))
                            .map_err(|e| e.said()),
                    ));
                }
                listing.refetch();
            }
        },
    )
}

/// The tree's visible rows: directories open and close, files open in the viewer.
fn tree_rows(
    ws: ConvWorkspace,
    tree: RwSignal<FileTree>,
    toggle_dir: impl Fn(String) + Copy + Send + Sync + 'static,
) -> impl IntoView {
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
                let icon = match (is_dir, open) {
                    (true, true) => icons::EXPANDED,
                    (true, false) => icons::COLLAPSED,
                    (false, _) => icons::FILE,
                };
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
                            <Icon icon=icon />{e.name.clone()}
                        </button>
                        {e.size.map(|s| view! { <span class="ws-size">{crate::state::i18n::say(&human_size_text(s))}</span> })}
                    </li>
                }
            })
            .collect_view()
    })
}

/// Refresh, upload, and the upload's progress.
fn toolbar(
    listing: LocalResource<Result<FileTree, ApiError>>,
    uploading: RwSignal<Option<String>>,
    on_upload: impl FnMut(leptos::ev::Event) + 'static,
) -> impl IntoView {
    view! {
        <div class="ws-toolbar">
            <button class="btn small" data-testid="files-refresh" on:click=move |_| listing.refetch()>{t!("workspace.refresh")}</button>
            <label class="btn small ws-upload">
                {t!("workspace.files.upload")}
                <input type="file" multiple class="ws-file-input" data-testid="files-upload"
                    aria-label=t!("workspace.files.upload_label") on:change=on_upload />
            </label>
            {move || uploading.get().map(|n| view! {
                <span class="ws-progress" data-testid="upload-progress" role="status">
                    <progress aria-label=t!("workspace.files.uploading_label", name = n)></progress>
                    {t!("workspace.files.uploading", name = n)}
                </span>
            })}
        </div>
    }
}
