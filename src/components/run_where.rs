//! "Where should it run?" for backends that run sessions on hosts they coordinate: the agent,
//! the host (online or not, and whether the agent's harness is ready there, in words) and the
//! workspace on that host. Renders nothing on backends without hosts. Hosts are re-read every
//! 10 s while it is shown, so a host that goes offline is shown offline.

use crate::platform::time::every;
use crate::services::hosts::{has_hosts, host_rows, last_workspace, load_targets, Choice};
use crate::state::backends::use_backends;
use crate::state::i18n::Said;
use crate::state::i18n::{say, t};
use canvas_core::omnigent::dto::MANAGED_HOST;
use canvas_core::omnigent::hosts::HostRow;
use leptos::prelude::*;
use std::time::Duration;

const REFRESH_MS: u64 = 10_000;
/// How long typing in the workspace field pauses before its worktrees are asked for.
const ASK_AFTER_TYPING_MS: u32 = 600;

#[component]
pub fn RunWhere(
    /// The user's choice; `None` while the backend has no hosts.
    choice: RwSignal<Option<Choice>>,
) -> impl IntoView {
    let backends = use_backends();
    let tick = RwSignal::new(0u32);
    every(Duration::from_millis(REFRESH_MS), move || {
        tick.try_update(|t| *t += 1);
    });
    // A refused launch asks for the hosts again at once.
    let reread = Memo::new(move |_| choice.with(|c| c.as_ref().map_or(0, |c| c.reread)));
    let targets = LocalResource::new(move || {
        let active = backends.active.get();
        tick.track();
        reread.track();
        async move { load_targets(backends, &active).await }
    });
    // A choice exists exactly while the active backend has hosts.
    Effect::new(move |_| {
        let active = backends.active.get();
        let offered = has_hosts(backends, &active);
        choice.set(offered.then(|| Choice {
            workspace: last_workspace(&active),
            ..Choice::default()
        }));
    });
    // Default agent: the first one, once the agents are known.
    Effect::new(move |_| {
        let first = targets.with(|t| {
            t.as_ref()
                .and_then(|t| t.as_ref())
                .and_then(|t| t.as_ref().ok())
                .and_then(|t| t.agents.first().map(|a| a.id.clone()))
        });
        if let Some(first) = first {
            choice.update(|c| {
                if let Some(c) = c.as_mut().filter(|c| c.agent_id.is_empty()) {
                    c.agent_id = first;
                }
            });
        }
    });
    let agent_id =
        move || choice.with(|c| c.as_ref().map(|c| c.agent_id.clone()).unwrap_or_default());
    let host_id =
        move || choice.with(|c| c.as_ref().map(|c| c.host_id.clone()).unwrap_or_default());
    let set = move |f: &dyn Fn(&mut Choice)| {
        choice.update(|c| {
            if let Some(c) = c.as_mut() {
                f(c);
            }
        })
    };
    // The worktrees of the repository at the workspace (issue #39 §1), asked when a host is
    // picked, when the workspace field is left, and once typing pauses (not at every
    // keystroke).
    let committed = RwSignal::new(None::<String>);
    let typing = StoredValue::new(0u64);
    let pause_then_ask = move |path: String| {
        let mine = typing.get_value() + 1;
        typing.set_value(mine);
        leptos::task::spawn_local(async move {
            crate::platform::time::sleep_ms(ASK_AFTER_TYPING_MS).await;
            if typing.try_get_value() == Some(mine) {
                committed.try_set(Some(path));
            }
        });
    };
    // A signal set by a task, not a resource: a resource read here would make the
    // launcher's Suspense fall back (and the field lose what is being typed) at every ask.
    let worktrees = RwSignal::new(Vec::<canvas_core::omnigent::hosts::Worktree>::new());
    let host_memo = Memo::new(move |_| host_id());
    Effect::new(move |_| {
        let active = backends.active.get();
        let host = host_memo.get();
        let path = committed
            .get()
            .or_else(|| choice.with_untracked(|c| c.as_ref().map(|c| c.workspace.clone())))
            .unwrap_or_default();
        if host.is_empty() || host == MANAGED_HOST || !path.trim().starts_with('/') {
            worktrees.set(Vec::new());
            return;
        }
        leptos::task::spawn_local(async move {
            let list = crate::services::hosts::worktrees(backends, &active, &host, &path).await;
            // Only the answer for what is still asked about.
            let still = host_memo.try_get_untracked() == Some(host)
                && committed
                    .try_get_untracked()
                    .flatten()
                    .is_none_or(|c| c == path);
            if still {
                worktrees.try_set(list);
            }
        });
    });
    // Redrawn only when the kind of place changes: the field keeps its focus while typing.
    let managed = Memo::new(move |_| host_memo.get() == MANAGED_HOST);
    let workspace_now =
        move || choice.with(|c| c.as_ref().map(|c| c.workspace.clone()).unwrap_or_default());
    view! {
        <Show when=move || choice.with(Option::is_some)>
            <fieldset class="run-where" data-testid="run-where">
                <legend>{t!("launch.where.title")}</legend>
                <p class="run-where-hosts"><a href=crate::links::href("/hosts") data-testid="all-hosts">{t!("launch.where.all_hosts")}</a></p>
                {move || match targets.get().flatten() {
                    None => view! { <p class="muted">{t!("launch.where.loading_hosts")}</p> }.into_any(),
                    Some(Err(e)) => view! {
                        <p class="error" role="alert" data-testid="run-where-error">{e.said()}</p>
                    }.into_any(),
                    Some(Ok(t)) => {
                        let now = js_sys::Date::now() as i64;
                        let rows = host_rows(&t, &agent_id(), now);
                        let agents = t.agents.clone();
                        let sandbox = t.sandbox.clone();
                        view! {
                            <div class="field">
                                <label for="run-where-agent">{t!("launch.where.agent")}</label>
                                <select id="run-where-agent" data-testid="session-agent"
                                    prop:value=agent_id
                                    on:change=move |ev| { let v = event_target_value(&ev); set(&|c| c.agent_id = v.clone()); }>
                                    {agents.into_iter().map(|a| {
                                        let label = a.name.clone().unwrap_or_else(|| a.id.clone());
                                        view! { <option value=a.id.clone()>{label}</option> }
                                    }).collect_view()}
                                </select>
                            </div>
                            <div class="field" role="radiogroup" aria-label=t!("launch.where.host")>
                                <span class="label">{t!("launch.where.host")}</span>
                                {(rows.is_empty() && sandbox.is_none()).then(|| view! {
                                    <p class="muted" data-testid="no-hosts">{say(&canvas_core::i18n::Text::new(crate::services::hosts::NO_HOSTS_HINT))}</p>
                                })}
                                <ul class="host-list">
                                    {rows.into_iter().map(|r| host_row(r, host_id, set)).collect_view()}
                                    {sandbox.map(|p| managed_row(p, host_id, set))}
                                </ul>
                            </div>
                        }.into_any()
                    }
                }}
                {move || if managed.get() {
                    // A new sandbox has no directory yet: it may clone a repository.
                    view! {
                        <div class="field">
                            <label for="run-where-repository">{t!("launch.where.repository")}</label>
                            <input id="run-where-repository" data-testid="session-repository" spellcheck="false"
                                placeholder="https://github.com/owner/repo"
                                prop:value=move || choice.with(|c| c.as_ref().map(|c| c.repository.clone()).unwrap_or_default())
                                on:input=move |ev| { let v = event_target_value(&ev); set(&|c| c.repository = v.clone()); } />
                        </div>
                    }.into_any()
                } else {
                    view! {
                        <div class="field">
                            <label for="run-where-workspace">{t!("launch.where.workspace")}</label>
                            <input id="run-where-workspace" data-testid="session-workspace" spellcheck="false"
                                placeholder="/home/me/project"
                                prop:value=move || choice.with(|c| c.as_ref().map(|c| c.workspace.clone()).unwrap_or_default())
                                on:input=move |ev| { let v = event_target_value(&ev); set(&|c| c.workspace = v.clone()); pause_then_ask(v); }
                                on:change=move |ev| committed.set(Some(event_target_value(&ev))) />
                        </div>
                        {move || {
                            let list = worktrees.get();
                            (list.len() > 1).then(|| view! {
                                <div class="field worktrees" data-testid="session-worktrees">
                                    <span class="label">{t!("launch.where.worktrees")}</span>
                                    <ul class="inline-actions">
                                        {list.into_iter().map(|w| {
                                            let path = w.path.clone().unwrap_or_default();
                                            let (p1, p2) = (path.clone(), path.clone());
                                            let name = match (&w.branch, w.detached) {
                                                (Some(b), _) => b.clone(),
                                                (None, true) => t!("launch.where.detached"),
                                                (None, false) => path.clone(),
                                            };
                                            view! {
                                                <li>
                                                    <button type="button" class="btn small" data-testid="session-worktree"
                                                        data-path=path.clone() title=path.clone()
                                                        aria-pressed=move || (workspace_now() == p1).to_string()
                                                        on:click=move |_| set(&|c| c.workspace = p2.clone())>
                                                        {name}{w.is_main.then(|| format!(" · {}", t!("launch.where.main_checkout")))}
                                                    </button>
                                                </li>
                                            }
                                        }).collect_view()}
                                    </ul>
                                </div>
                            })
                        }}
                    }.into_any()
                }}
            </fieldset>
        </Show>
    }
}

/// A new managed sandbox, where the server provisions them (issue #39 §2): the server's
/// provider names it; the server removes it with the session.
fn managed_row(
    provider: String,
    host_id: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(&dyn Fn(&mut Choice)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let provider = if provider.is_empty() {
        "?".to_string()
    } else {
        provider
    };
    view! {
        <li data-testid="session-host-managed" data-provider=provider.clone()>
            <label>
                <input type="radio" name="run-where-host" value=MANAGED_HOST
                    prop:checked=move || host_id() == MANAGED_HOST
                    on:change=move |_| set(&|c| c.host_id = MANAGED_HOST.to_string()) />
                <span class="dot ok" aria-hidden="true"></span>
                <strong>{t!("launch.where.managed")}</strong>
                <span class="muted">{format!(" — {}", t!("launch.where.managed_note", provider = provider))}</span>
            </label>
        </li>
    }
}

/// One host: online or not, its readiness and note; picking it (when it can run the agent)
/// makes it the choice.
fn host_row(
    r: HostRow,
    host_id: impl Fn() -> String + Send + Sync + 'static,
    set: impl Fn(&dyn Fn(&mut Choice)) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let id = r.host_id.clone();
    let checked = {
        let id = id.clone();
        move || host_id() == id
    };
    let pick = {
        let id = id.clone();
        move |_| set(&|c| c.host_id = id.clone())
    };
    view! {
        <li data-testid="session-host" data-host-id=id.clone()
            data-online=r.online.to_string() data-selectable=r.selectable.to_string()>
            <label>
                <input type="radio" name="run-where-host" value=id.clone()
                    disabled=!r.selectable prop:checked=checked on:change=pick />
                <span class=if r.online { "dot ok" } else { "dot bad" } aria-hidden="true"></span>
                <strong>{r.name.clone()}</strong>
                " "
                <span class="muted" data-testid="host-state">
                    {if r.online { t!("launch.where.online") } else { t!("launch.where.offline") }}
                    {r.readiness.as_ref().map(|x| format!(" · {}", say(&x.label_text())))}
                </span>
                {r.note_text.as_ref().map(|n| view! { <span class="muted">{format!(" — {}", say(n))}</span> })}
            </label>
        </li>
    }
}

crate::lazy::lazy_view! {
    /// "Where should it run?" under the launcher, on backends that run sessions on hosts.
    pub fn run_where(
        choice: RwSignal<Option<crate::services::hosts::Choice>>,
    ) in launch, preload preload_run_where {
        view! { <crate::components::run_where::RunWhere choice=choice /> }
    }
}
