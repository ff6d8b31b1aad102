//! Installed skills or plugins of the active backend (issue #13): each with its version,
//! source and state; enable/disable, "Update" (fetch again from the source), "Uninstall"
//! (asked first); an install form (a git URL, `github:owner/repo`, or a folder on the agent's
//! machine) with progress; and the marketplace on request (offline it says so in bounded time).
//! `on_change` runs after anything changed what conversations get (the Skills page reloads its
//! merged list).

use crate::components::confirm::ConfirmDialog;
use crate::services::extensions as svc;
use crate::services::skills::not_available;
use crate::state::backends::use_backends;
use canvas_core::extensions::{Extension, InstallForm, Installed, MarketEntry};
use leptos::prelude::*;

#[component]
pub fn InstalledExtensions(
    kind: Extension,
    /// After an install, uninstall, update or enable/disable.
    #[prop(optional)]
    on_change: Option<Callback<()>>,
) -> impl IntoView {
    let backends = use_backends();
    let noun = kind.noun();
    let reload = RwSignal::new(0u32);
    let list = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { svc::installed(backends, &active, kind).await }
    });
    let changed = move || {
        reload.update(|r| *r = r.wrapping_add(1));
        if let Some(cb) = on_change {
            cb.run(());
        }
    };
    let changed = StoredValue::new_local(changed);
    let busy = RwSignal::new(None::<String>);
    let row_note = RwSignal::new(None::<(String, String, bool)>); // (name, text, is_error)
    let uninstalling = RwSignal::new(None::<String>);

    let toggle = Action::new_local(move |(name, enable): &(String, bool)| {
        let (name, enable) = (name.clone(), *enable);
        let active = backends.active.get_untracked();
        async move {
            let r = svc::set_enabled(backends, &active, kind, &name, enable).await;
            if busy.try_set(None).is_some() {
                return;
            }
            match r {
                Ok(()) => {
                    row_note.set(None);
                    changed.with_value(|c| c());
                }
                Err(e) => row_note.set(Some((name, e.user_message(), true))),
            }
        }
    });
    let update = Action::new_local(move |name: &String| {
        let name = name.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::update(backends, &active, kind, &name).await;
            if busy.try_set(None).is_some() {
                return;
            }
            match r {
                Ok(item) => {
                    let at = item
                        .resolved_ref
                        .map(|r| format!(" (at {})", r.chars().take(10).collect::<String>()))
                        .unwrap_or_default();
                    row_note.set(Some((name, format!("Updated from its source{at}."), false)));
                    changed.with_value(|c| c());
                }
                Err(e) => row_note.set(Some((
                    name,
                    format!("Could not update: {}", e.user_message()),
                    true,
                ))),
            }
        }
    });

    let row = move |item: Installed| {
        let name = item.name.clone();
        let (n1, n2, n3, n4, n5) = (
            name.clone(),
            name.clone(),
            name.clone(),
            name.clone(),
            name.clone(),
        );
        let enabled = item.enabled;
        let meta = [
            (!item.version.is_empty()).then(|| format!("v{}", item.version)),
            (!item.source.is_empty()).then(|| item.source.clone()),
            item.resolved_ref
                .as_ref()
                .map(|r| format!("at {}", r.chars().take(10).collect::<String>())),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
        let is_busy = move || busy.with(|b| b.as_deref() == Some(n1.as_str()));
        let any_busy = move || busy.with(Option::is_some);
        view! {
            <li class="installed-row" data-testid="installed-row" data-name=name.clone()
                data-enabled=enabled.to_string()>
                <div class="installed-head">
                    <strong>{name.clone()}</strong>
                    {(!enabled).then(|| view! { <span class="badge" data-testid="installed-disabled">"disabled"</span> })}
                    <span class="muted" data-testid="installed-meta">{meta}</span>
                </div>
                {(!item.description.is_empty()).then(|| view! { <p class="muted">{item.description.clone()}</p> })}
                <div class="row-actions">
                    <button type="button" class="btn small" data-testid="installed-toggle"
                        disabled=any_busy
                        on:click=move |_| {
                            busy.set(Some(n2.clone()));
                            toggle.dispatch((n2.clone(), !enabled));
                        }>
                        {if enabled { "Disable" } else { "Enable" }}
                    </button>
                    <button type="button" class="btn small" data-testid="installed-update"
                        disabled=any_busy
                        on:click=move |_| {
                            busy.set(Some(n3.clone()));
                            row_note.set(None);
                            update.dispatch(n3.clone());
                        }>
                        {move || if is_busy() { "Working…" } else { "Update" }}
                    </button>
                    <button type="button" class="btn small danger" data-testid="installed-uninstall"
                        disabled=any_busy on:click=move |_| uninstalling.set(Some(n4.clone()))>"Uninstall"</button>
                </div>
                {move || row_note.get().filter(|(n, _, _)| *n == n5).map(|(_, text, err)| view! {
                    <p class=if err { "field-error" } else { "ok" } role=if err { "alert" } else { "status" }
                        data-testid="installed-note">{text}</p>
                })}
            </li>
        }
    };

    let rows = move || {
        list.get().map(|r| match r {
            Err(e) if not_available(&e) => view! {
                <p class="muted" data-testid="installed-unavailable">
                    {format!("{} are not available on this backend.", kind.feature())}
                </p>
            }
            .into_any(),
            Err(e) => view! {
                <div class="error" role="alert" data-testid="installed-error">
                    <p>{e.user_message()}</p>
                    <button class="btn" on:click=move |_| reload.update(|r| *r += 1)>"Try again"</button>
                </div>
            }
            .into_any(),
            Ok(items) if items.is_empty() => view! {
                <p class="muted" data-testid="installed-empty">{format!("No {noun}s installed yet.")}</p>
            }
            .into_any(),
            Ok(items) => view! {
                <ul class="installed-list" data-testid="installed-list">
                    {items.into_iter().map(row).collect_view()}
                </ul>
            }
            .into_any(),
        })
    };
    let unsupported = move || matches!(list.get(), Some(Err(ref e)) if not_available(e));

    let confirm = move || {
        uninstalling.get().map(|name| {
            let text = format!("Uninstall the {noun} {name}? New conversations no longer get it.");
            view! {
                <ConfirmDialog title=format!("Uninstall {noun}") testid="uninstall-dialog"
                    confirm_testid="confirm-uninstall" text=text verb="Uninstall" busy_verb="Uninstalling…"
                    gone_is_done=true on_close=Callback::new(move |_| uninstalling.set(None))
                    on_done=Callback::new(move |_| changed.with_value(|c| c()))
                    run=move || {
                        let (n, active) = (name.clone(), backends.active.get_untracked());
                        async move { svc::uninstall(backends, &active, kind, &n).await }
                    } />
            }
        })
    };

    view! {
        <section class="installed" data-testid=format!("installed-{noun}s")>
            <Suspense fallback=move || view! { <p class="loading">{format!("Loading installed {noun}s…")}</p> }>
                {rows}
            </Suspense>
            {confirm}
            <Show when=move || !unsupported()>
                <InstallForm kind=kind on_installed=Callback::new(move |_| changed.with_value(|c| c())) />
                <Marketplace kind=kind on_installed=Callback::new(move |_| changed.with_value(|c| c())) />
            </Show>
        </section>
    }
}

/// "Install": a source (and optionally a ref and a folder in the repository).
#[component]
fn InstallForm(kind: Extension, on_installed: Callback<()>) -> impl IntoView {
    let backends = use_backends();
    let noun = kind.noun();
    let source = RwSignal::new(String::new());
    let git_ref = RwSignal::new(String::new());
    let repo_path = RwSignal::new(String::new());
    let force = RwSignal::new(false);
    let install = Action::new_local(move |form: &InstallForm| {
        let form = form.clone();
        let active = backends.active.get_untracked();
        async move { svc::install(backends, &active, kind, &form).await }
    });
    Effect::new(move |_| {
        if let Some(Ok(_)) = install.value().get() {
            source.set(String::new());
            git_ref.set(String::new());
            repo_path.set(String::new());
            force.set(false);
            on_installed.run(());
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if install.pending().get_untracked() {
            return;
        }
        install.dispatch(InstallForm {
            source: source.get_untracked(),
            git_ref: git_ref.get_untracked(),
            repo_path: repo_path.get_untracked(),
            force: force.get_untracked(),
        });
    };
    let status = move || {
        match install.value().get() {
        _ if install.pending().get() => Some(view! {
            <p class="muted" role="status" data-testid="install-progress">
                {format!("Installing the {noun}… fetching a repository can take a minute.")}
            </p>
        }.into_any()),
        Some(Ok(item)) => Some(view! {
            <p class="ok" role="status" data-testid="install-done">{format!("Installed {}.", item.name)}</p>
        }.into_any()),
        Some(Err(e)) => Some(view! {
            <p class="field-error" role="alert" data-testid="install-error">{e}</p>
        }.into_any()),
        None => None,
    }
    };
    let id = format!("install-{noun}-source");
    view! {
        <form class="install-form" data-testid="install-form" on:submit=submit>
            <label for=id.clone()>{format!("Install a {noun}")}</label>
            <input id=id type="text" data-testid="install-source" autocomplete="off" spellcheck="false"
                placeholder="github:owner/repo/path, a git URL, or /a/folder/on/the/agent/machine"
                prop:value=move || source.get() on:input=move |ev| source.set(event_target_value(&ev)) />
            <details>
                <summary>"Branch, folder, replace"</summary>
                <label>"Branch, tag or commit"
                    <input type="text" data-testid="install-ref" prop:value=move || git_ref.get()
                        on:input=move |ev| git_ref.set(event_target_value(&ev)) />
                </label>
                <label>"Folder in the repository"
                    <input type="text" data-testid="install-repo-path" prop:value=move || repo_path.get()
                        on:input=move |ev| repo_path.set(event_target_value(&ev)) />
                </label>
                <label class="choice">
                    <input type="checkbox" data-testid="install-force" prop:checked=move || force.get()
                        on:change=move |ev| force.set(event_target_checked(&ev)) />
                    {format!(" Replace an installed {noun} of the same name")}
                </label>
            </details>
            <button class="btn" type="submit" data-testid="install-submit" disabled=move || install.pending().get()>
                {move || if install.pending().get() { "Installing…" } else { "Install" }}
            </button>
            {status}
        </form>
    }
}

/// The marketplace, loaded on request.
#[component]
fn Marketplace(kind: Extension, on_installed: Callback<()>) -> impl IntoView {
    let backends = use_backends();
    let noun = kind.noun();
    let load = Action::new_local(move |_: &()| {
        let active = backends.active.get_untracked();
        async move { svc::marketplace(backends, &active, kind).await }
    });
    let installing = RwSignal::new(None::<String>);
    let note = RwSignal::new(None::<(String, String, bool)>);
    let install = Action::new_local(move |entry: &MarketEntry| {
        let entry = entry.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::install(backends, &active, kind, &entry.install_form()).await;
            installing.try_set(None);
            match r {
                Ok(item) => {
                    note.set(Some((
                        entry.name.clone(),
                        format!("Installed {}.", item.name),
                        false,
                    )));
                    on_installed.run(());
                    load.dispatch(());
                }
                Err(e) => note.set(Some((entry.name.clone(), e, true))),
            }
        }
    });
    let body = move || {
        if load.pending().get() {
            return Some(view! {
                <p class="muted" role="status" data-testid="marketplace-loading">"Asking the server for its marketplace…"</p>
            }.into_any());
        }
        load.value().get().map(|r| match r {
            Err(e) => view! {
                <p class="field-error" role="alert" data-testid="marketplace-error">
                    {format!("The marketplace could not be loaded: {} (offline servers cannot reach it).", e.user_message())}
                </p>
            }.into_any(),
            Ok(entries) if entries.is_empty() => view! {
                <p class="muted" data-testid="marketplace-empty">{format!("The marketplace offers no {noun}s here (an offline server has none to offer).")}</p>
            }.into_any(),
            Ok(entries) => view! {
                <ul class="market-list" data-testid="marketplace-list">
                    {entries.into_iter().map(|e| {
                        let (e1, n1, n2) = (e.clone(), e.name.clone(), e.name.clone());
                        view! {
                            <li data-testid="marketplace-row" data-name=e.name.clone()>
                                <strong>{e.name.clone()}</strong>
                                " " <span class="muted">{e.description.clone()}</span>
                                {if e.installed {
                                    view! { <span class="badge">"installed"</span> }.into_any()
                                } else {
                                    view! {
                                        <button type="button" class="btn small" data-testid="marketplace-install"
                                            disabled=move || installing.with(Option::is_some)
                                            on:click=move |_| {
                                                installing.set(Some(n1.clone()));
                                                install.dispatch(e1.clone());
                                            }>
                                            {move || if installing.with(|i| i.as_deref() == Some(n2.as_str())) { "Installing…" } else { "Install" }}
                                        </button>
                                    }.into_any()
                                }}
                                {let n = e.name.clone(); move || note.get().filter(|(x, _, _)| *x == n).map(|(_, t, err)| view! {
                                    <p class=if err { "field-error" } else { "ok" }>{t}</p>
                                })}
                            </li>
                        }
                    }).collect_view()}
                </ul>
            }.into_any(),
        })
    };
    view! {
        <div class="marketplace">
            <button type="button" class="btn" data-testid="marketplace-open"
                disabled=move || load.pending().get() on:click=move |_| { load.dispatch(()); }>
                "Browse the marketplace"
            </button>
            {body}
        </div>
    }
}
