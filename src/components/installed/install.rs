//! Installing: from a source, or from the marketplace.

use crate::services::extensions as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::settings::extensions::{Extension, InstallForm, MarketEntry};
use leptos::prelude::*;

/// "Install": a source (and optionally a ref and a folder in the repository).
#[component]
pub(super) fn InstallForm(kind: Extension, on_installed: Callback<()>) -> impl IntoView {
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
                {by_kind!(kind, "installed.skill.install_progress", "installed.plugin.install_progress")}
            </p>
        }.into_any()),
        Some(Ok(item)) => Some(view! {
            <p class="ok" role="status" data-testid="install-done">{t!("installed.done", name = item.name)}</p>
        }.into_any()),
        Some(Err(e)) => Some(view! {
            <p class="field-error" role="alert" data-testid="install-error">{e.said()}</p>
        }.into_any()),
        None => None,
    }
    };
    let id = format!("install-{noun}-source");
    view! {
        <form class="install-form" data-testid="install-form" on:submit=submit>
            <label for=id.clone()>{by_kind!(kind, "installed.skill.install_label", "installed.plugin.install_label")}</label>
            <input id=id type="text" data-testid="install-source" autocomplete="off" spellcheck="false"
                placeholder=t!("installed.source_placeholder")
                prop:value=move || source.get() on:input=move |ev| source.set(event_target_value(&ev)) />
            <details>
                <summary>{t!("installed.advanced")}</summary>
                <label>{t!("installed.ref_label")}
                    <input type="text" data-testid="install-ref" prop:value=move || git_ref.get()
                        on:input=move |ev| git_ref.set(event_target_value(&ev)) />
                </label>
                <label>{t!("installed.repo_path_label")}
                    <input type="text" data-testid="install-repo-path" prop:value=move || repo_path.get()
                        on:input=move |ev| repo_path.set(event_target_value(&ev)) />
                </label>
                <label class="choice">
                    <input type="checkbox" data-testid="install-force" prop:checked=move || force.get()
                        on:change=move |ev| force.set(event_target_checked(&ev)) />
                    {format!(" {}", by_kind!(kind, "installed.skill.force", "installed.plugin.force"))}
                </label>
            </details>
            <button class="btn" type="submit" data-testid="install-submit" disabled=move || install.pending().get()>
                {move || if install.pending().get() { t!("installed.installing") } else { t!("installed.install") }}
            </button>
            {status}
        </form>
    }
}

/// The marketplace, loaded on request.
#[component]
pub(super) fn Marketplace(kind: Extension, on_installed: Callback<()>) -> impl IntoView {
    let backends = use_backends();
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
                        t!("installed.done", name = item.name),
                        false,
                    )));
                    on_installed.run(());
                    load.dispatch(());
                }
                Err(e) => note.set(Some((entry.name.clone(), e.said(), true))),
            }
        }
    });
    let body = move || {
        if load.pending().get() {
            return Some(view! {
                <p class="muted" role="status" data-testid="marketplace-loading">{t!("installed.market.loading")}</p>
            }.into_any());
        }
        load.value().get().map(|r| match r {
            Err(e) => view! {
                <p class="field-error" role="alert" data-testid="marketplace-error">
                    {t!("installed.market.error", error = e.said())}
                </p>
            }.into_any(),
            Ok(entries) if entries.is_empty() => view! {
                <p class="muted" data-testid="marketplace-empty">{by_kind!(kind, "installed.skill.market_empty", "installed.plugin.market_empty")}</p>
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
                                    view! { <span class="badge">{t!("installed.badge_installed")}</span> }.into_any()
                                } else {
                                    view! {
                                        <button type="button" class="btn small" data-testid="marketplace-install"
                                            disabled=move || installing.with(Option::is_some)
                                            on:click=move |_| {
                                                installing.set(Some(n1.clone()));
                                                install.dispatch(e1.clone());
                                            }>
                                            {move || if installing.with(|i| i.as_deref() == Some(n2.as_str())) { t!("installed.installing") } else { t!("installed.install") }}
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
                {t!("installed.market.open")}
            </button>
            {body}
        </div>
    }
}
