//! Changes tab: the repository's changed files with status badges (refetched every few seconds
//! while visible, so the agent's edits show up), the selected file's diff (unified or side by
//! side), and recent commits with each commit's changed files.

use super::{InlineError, PanelProps};
use crate::platform::time::every;
use crate::services::workspace;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use crate::state::workspace::ConvWorkspace;
use crate::state::workspace::DiffMode;
use canvas_core::agent_server::dto::{Commit, GitChange};
use canvas_core::git::status::Base;
use canvas_core::transport::routing::ConversationRef;
use canvas_core::workspace::changes::{badge, label_text, RepoPlace};
use canvas_core::workspace::diff::{diff_lines, side_by_side, unified};
use canvas_core::workspace::paths::join;
use leptos::prelude::*;
use std::time::Duration;

const REFRESH: Duration = Duration::from_secs(4);

#[component]
pub(crate) fn ChangesTab(props: PanelProps) -> impl IntoView {
    let backends = use_backends();
    let PanelProps { conv, root, ws } = props;
    let repo = root.clone().unwrap_or_default();
    let (conv_c, repo_c) = (conv.clone(), repo.clone());
    // What the branch was made from, asked once per opening: the changes are the branch's own
    // since then (committed or not), not only what is uncommitted (issue #34).
    let base = StoredValue::new(None::<Option<Base>>);
    let changes = LocalResource::new(move || {
        let active = backends.active.get();
        let (conv, repo) = (conv_c.clone(), repo_c.clone());
        async move {
            let since = match base.get_value() {
                Some(b) => b,
                // The backend compares with the checked-out commit: no base to ask for.
                None if !workspace::changes_since_base(backends, &active) => {
                    base.set_value(Some(None));
                    None
                }
                None => {
                    let b = workspace::branch_base(backends, &active, &conv, &repo).await;
                    base.set_value(Some(b.clone()));
                    b
                }
            };
            let against = since.as_ref().map(|b| b.commit.clone());
            workspace::changes(backends, &active, &conv, &repo, against.as_deref())
                .await
                .map(|list| (since, list))
        }
    });
    // Refetch on a timer while this tab is mounted (i.e. visible); opening the tab fetches.
    every(REFRESH, move || changes.refetch());
    // Said once per opening: a folder inside another checkout shows that checkout's history.
    let (conv_p, repo_p) = (conv.clone(), repo.clone());
    let place = LocalResource::new(move || {
        let active = backends.active.get();
        let (conv, repo) = (conv_p.clone(), repo_p.clone());
        async move { workspace::repo_place_of(backends, &active, &conv, &repo).await }
    });
    let repo_n = repo.clone();
    let place_note = move || {
        let dir = repo_n.clone();
        Suspend::new(async move {
            match place.await {
                RepoPlace::NotARepository => Some(
                    view! {
                        <p class="ws-note" role="note" data-testid="not-a-repository">
                            {t!("workspace.changes.not_repo_before")}" " <code>{dir}</code>
                            {t!("workspace.changes.not_repo_after")}
                        </p>
                    }
                    .into_any(),
                ),
                RepoPlace::Inside { toplevel } => {
                    let shown = toplevel.clone();
                    Some(view! {
                        <p class="ws-note" role="note" data-testid="repo-parent" data-toplevel=toplevel>
                            {t!("workspace.changes.inside_repo_before")}" "
                            <code>{shown}</code> {t!("workspace.changes.inside_repo_after")}
                        </p>
                    }.into_any())
                }
                RepoPlace::Root | RepoPlace::Unknown => None,
            }
        })
    };
    let (conv_m, repo_m) = (conv.clone(), repo.clone());
    let commits = LocalResource::new(move || {
        let active = backends.active.get();
        let (conv, repo) = (conv_m.clone(), repo_m.clone());
        async move { workspace::commits(backends, &active, &conv, &repo).await }
    });

    // "Open in VS Code" where the backend runs one (asked once per opening; hidden otherwise,
    // whatever the reason). Its address carries the server's token: kept here, opened on click,
    // never put in the page.
    let (conv_e, repo_e) = (conv.clone(), repo.clone());
    let editor = LocalResource::new(move || {
        let active = backends.active.get();
        let (conv, repo) = (conv_e.clone(), repo_e.clone());
        async move {
            workspace::editor_url(backends, &active, &conv, &repo)
                .await
                .ok()
                .flatten()
        }
    });
    let editor_state = move || match editor.get() {
        None => "checking",
        Some(None) => "none",
        Some(Some(_)) => "ready",
    };
    let open_editor = move |_| {
        if let (Some(Some(url)), Some(w)) = (editor.get_untracked(), web_sys::window()) {
            let _ = w.open_with_url_and_target_and_features(&url, "_blank", "noopener,noreferrer");
        }
    };

    let list = move || {
        Suspend::new(async move {
            match changes.await {
                Ok((_, list)) if list.is_empty() => view! {
                    <p class="ws-muted" data-testid="changes-empty">{t!("workspace.changes.none")}</p>
                }
                .into_any(),
                Ok((since, list)) => {
                    let selected = ws.selected_change.get();
                    let since = since.map(|b| view! {
                        <p class="ws-muted" data-testid="changes-since" data-base=b.name.clone()>
                            {t!("workspace.changes.since", base = b.name)}
                        </p>
                    });
                    view! {
                        {since}
                        <ul class="ws-changes" data-testid="changes-list" aria-label=t!("workspace.changes.list_label")>
                            {list.into_iter().map(|ch| change_row(ch, selected.as_deref(), ws)).collect_view()}
                        </ul>
                    }
                    .into_any()
                }
                Err(e) => view! { <InlineError message=e.said() testid="changes-error" /> }
                    .into_any(),
            }
        })
    };

    let (conv_d, repo_d) = (conv.clone(), repo.clone());
    let (conv_k, repo_k) = (conv.clone(), repo.clone());
    view! {
        <div class="ws-changes-tab" data-testid="changes-tab">
            <div class="ws-toolbar" data-editor=editor_state>
                <button class="btn small" data-testid="changes-refresh" on:click=move |_| { changes.refetch(); commits.refetch(); }>{t!("workspace.refresh")}</button>
                {move || (editor_state() == "ready").then(|| view! {
                    <button class="btn small" data-testid="open-editor" on:click=open_editor>{t!("workspace.changes.open_editor")}</button>
                })}
                <span class="ws-muted">{t!("workspace.changes.repository", repo = if repo.is_empty() { t!("workspace.changes.unknown_repo") } else { repo.clone() })}</span>
            </div>
            <Suspense>{place_note}</Suspense>
            <Transition fallback=|| view! { <p class="ws-muted">{t!("workspace.changes.loading")}</p> }>{list}</Transition>
            {move || ws.selected_change.get().map(|p| {
                let against = base.get_value().flatten().map(|b| b.commit);
                view! { <Diff conv=conv_d.clone() repo=repo_d.clone() rel=p against=against mode=ws.diff_mode /> }
            })}
            <PullRequestsSection conv=conv.clone() />
            <h3 class="ws-h">{t!("workspace.changes.commits")}</h3>
            <Transition fallback=|| view! { <p class="ws-muted">{t!("workspace.changes.loading_commits")}</p> }>
                {move || {
                    let (conv_k, repo_k) = (conv_k.clone(), repo_k.clone());
                    Suspend::new(async move {
                    match commits.await {
                        Ok(page) if page.commits.is_empty() => view! { <p class="ws-muted">{t!("workspace.changes.no_commits")}</p> }.into_any(),
                        Ok(page) => view! {
                            <ul class="ws-commits" data-testid="commits-list">
                                {page.commits.into_iter().map(|c| commit_row(c, ws, &conv_k, &repo_k)).collect_view()}
                            </ul>
                        }.into_any(),
                        Err(e) => view! { <InlineError message=e.said() testid="commits-error" /> }.into_any(),
                    }
                })}}
            </Transition>
        </div>
    }
}

/// One changed file: its status badge and path; choosing it shows its diff.
fn change_row(ch: GitChange, selected: Option<&str>, ws: ConvWorkspace) -> impl IntoView {
    let (letter, css) = badge(&ch.status);
    let path = ch.path.clone();
    let p2 = path.clone();
    let p3 = path.clone();
    let sel = selected == Some(path.as_str());
    view! {
        <li data-testid="change-row" data-path=p3 data-status=css>
            <button class="ws-change-btn" class:selected=sel aria-pressed=sel.to_string()
                on:click=move |_| ws.selected_change.set(Some(p2.clone()))>
                <span class=format!("ws-badge {css}") data-testid="change-badge"
                    title=crate::state::i18n::say(&label_text(&ch.status)) aria-label=crate::state::i18n::say(&label_text(&ch.status))>{letter}</span>
                <span class="ws-change-path">{path}</span>
            </button>
        </li>
    }
}

/// One commit: its short hash, subject and author; opening it lists the files it changed.
fn commit_row(c: Commit, ws: ConvWorkspace, conv: &ConversationRef, repo: &str) -> impl IntoView {
    let sha = c.sha.clone();
    let s2 = sha.clone();
    let open = move || ws.selected_commit.get().as_deref() == Some(s2.as_str());
    let open2 = open.clone();
    let (conv, repo) = (conv.clone(), repo.to_string());
    view! {
        <li data-testid="commit-row">
            <button class="ws-change-btn" aria-expanded=move || open().to_string()
                on:click=move |_| ws.selected_commit.update(|s| {
                    *s = if s.as_deref() == Some(sha.as_str()) { None } else { Some(sha.clone()) }
                })>
                <code>{c.short_sha.clone()}</code>" "{c.subject.clone()}
                <span class="ws-muted">{format!(" — {}", c.author)}</span>
            </button>
            {move || open2().then(|| view! { <CommitFiles conv=conv.clone() repo=repo.clone() sha=c.sha.clone() /> })}
        </li>
    }
}

/// The files one commit changed (`git show --name-status` in the runtime).
#[component]
fn CommitFiles(conv: ConversationRef, repo: String, sha: String) -> impl IntoView {
    let backends = use_backends();
    let files = LocalResource::new(move || {
        let active = backends.active.get();
        let (conv, repo, sha) = (conv.clone(), repo.clone(), sha.clone());
        async move { workspace::commit_files(backends, &active, &conv, &repo, &sha).await }
    });
    view! {
        <Transition fallback=|| view! { <p class="ws-muted">{t!("workspace.loading_short")}</p> }>
            {move || Suspend::new(async move {
                match files.await {
                    Ok(list) => view! {
                        <ul class="ws-changes nested" data-testid="commit-files">
                            {list.into_iter().map(|(status, path)| {
                                let (letter, css) = badge(&status);
                                let p2 = path.clone();
                                view! {
                                    <li data-path=p2>
                                        <span class=format!("ws-badge {css}") aria-label=crate::state::i18n::say(&label_text(&status))>{letter}</span>
                                        " "<span class="ws-change-path">{path}</span>
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(e) => view! { <InlineError message=e.said() /> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Diff(
    conv: ConversationRef,
    repo: String,
    rel: String,
    against: Option<String>,
    mode: RwSignal<DiffMode>,
) -> impl IntoView {
    let backends = use_backends();
    let abs = join(&repo, &rel);
    let diff = LocalResource::new(move || {
        let active = backends.active.get();
        let (conv, abs, against) = (conv.clone(), abs.clone(), against.clone());
        async move { workspace::diff(backends, &active, &conv, &abs, against.as_deref()).await }
    });
    view! {
        <section class="ws-diff" data-testid="diff-view" aria-label=t!("workspace.diff.label", path = rel)>
            <header class="ws-viewer-head">
                <code>{rel.clone()}</code>
                <div class="ws-seg" role="group" aria-label=t!("workspace.diff.layout")>
                    <button class="btn small" data-testid="diff-unified" aria-pressed=move || (mode.get() == DiffMode::Unified).to_string()
                        on:click=move |_| mode.set(DiffMode::Unified)>{t!("workspace.diff.unified")}</button>
                    <button class="btn small" data-testid="diff-split" aria-pressed=move || (mode.get() == DiffMode::SideBySide).to_string()
                        on:click=move |_| mode.set(DiffMode::SideBySide)>{t!("workspace.diff.side_by_side")}</button>
                </div>
            </header>
            <Transition fallback=|| view! { <p class="ws-muted">{t!("workspace.diff.loading")}</p> }>
                {move || Suspend::new(async move {
                    match diff.await {
                        Ok(d) => {
                            let lines = diff_lines(d.original.as_deref(), d.modified.as_deref());
                            if lines.iter().all(|l| l.kind == canvas_core::workspace::diff::LineKind::Same) {
                                return view! { <p class="ws-muted" data-testid="diff-none">{t!("workspace.diff.none")}</p> }.into_any();
                            }
                            let l2 = lines.clone();
                            (move || match mode.get() {
                                DiffMode::Unified => view! {
                                    <div class="ws-diff-body unified" data-testid="diff-unified-body">
                                        {unified(&l2, 3).into_iter().map(|h| view! {
                                            <div class="ws-hunk-head">{h.header}</div>
                                            {h.lines.into_iter().map(|l| view! {
                                                <div class=format!("ws-dl {}", l.kind.css()) data-testid="diff-line" data-kind=l.kind.css()>
                                                    <span class="ws-ln">{l.old_no.map(|n| n.to_string())}</span>
                                                    <span class="ws-ln">{l.new_no.map(|n| n.to_string())}</span>
                                                    <span class="ws-mark">{l.kind.marker()}</span>
                                                    <span class="ws-dtext">{l.text}</span>
                                                </div>
                                            }).collect_view()}
                                        }).collect_view()}
                                    </div>
                                }.into_any(),
                                DiffMode::SideBySide => view! {
                                    <div class="ws-diff-body split" data-testid="diff-split-body">
                                        {side_by_side(&l2).into_iter().map(|r| {
                                            let cell = |c: Option<canvas_core::workspace::diff::Cell>| match c {
                                                Some(c) => view! {
                                                    <span class="ws-ln">{c.no}</span>
                                                    <span class=format!("ws-dtext {}", c.kind.css())>{c.text}</span>
                                                }.into_any(),
                                                None => view! { <span class="ws-ln"></span><span class="ws-dtext empty"></span> }.into_any(),
                                            };
                                            view! { <div class="ws-srow">{cell(r.left)}{cell(r.right)}</div> }
                                        }).collect_view()}
                                    </div>
                                }.into_any(),
                            }).into_any()
                        }
                        Err(e) => view! { <InlineError message=e.said() testid="diff-error" /> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

/// The conversation's pull requests where the backend keeps them (Omnigent's session on its
/// host): the list, or why the host cannot read them. Left out elsewhere.
#[component]
fn PullRequestsSection(conv: ConversationRef) -> impl IntoView {
    let backends = use_backends();
    let prs = LocalResource::new(move || {
        let active = backends.active.get();
        let conv = conv.clone();
        async move { workspace::pull_requests(backends, &active, &conv).await }
    });
    view! {
        <Suspense>
            {move || Suspend::new(async move {
                let body = match prs.await {
                    Err(e) if e.is_unsupported() => return None,
                    Err(e) => view! { <InlineError message=e.said() testid="prs-error" /> }.into_any(),
                    Ok(p) if !p.cli_available => view! {
                        <p class="ws-note" role="note" data-testid="prs-unavailable">{t!("workspace.prs.no_cli")}</p>
                    }.into_any(),
                    Ok(p) if !p.authenticated => view! {
                        <p class="ws-note" role="note" data-testid="prs-unavailable">
                            {t!("workspace.prs.signed_out")}
                            {p.hint.map(|h| view! { " " <code>{h}</code> })}
                        </p>
                    }.into_any(),
                    Ok(p) if p.prs.is_empty() => view! {
                        <p class="ws-muted" data-testid="prs-empty">{t!("workspace.prs.none")}</p>
                    }.into_any(),
                    Ok(p) => view! {
                        <ul class="ws-changes" data-testid="prs-list">
                            {p.prs.into_iter().map(|pr| {
                                let url = pr.url.clone().unwrap_or_default();
                                let label = match (pr.number, pr.title) {
                                    (Some(n), Some(t)) => format!("#{n} {t}"),
                                    (Some(n), None) => format!("#{n}"),
                                    (None, Some(t)) => t,
                                    (None, None) => url.clone(),
                                };
                                view! {
                                    <li data-testid="pr-row">
                                        <a href=url target="_blank" rel="noopener noreferrer">{label}</a>
                                        {pr.repository.map(|r| view! { " " <span class="ws-muted">{r}</span> })}
                                    </li>
                                }
                            }).collect_view()}
                        </ul>
                    }.into_any(),
                };
                Some(view! {
                    <h3 class="ws-h">{t!("workspace.prs.title")}</h3>
                    {body}
                })
            })}
        </Suspense>
    }
}
