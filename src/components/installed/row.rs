//! One installed skill or plugin: enable/disable, update from its source, uninstall.

use crate::services::extensions as svc;
use crate::state::backends::BackendsCtx;
use crate::state::i18n::t;
use crate::state::i18n::Said;
use canvas_core::settings::extensions::{Extension, Installed};
use leptos::prelude::*;

/// A row's note: (name, text, is_error).
type RowNote = RwSignal<Option<(String, String, bool)>>;

/// Enables or disables one (its row shows an error); the list is read again after it.
pub(super) fn toggle_action(
    backends: BackendsCtx,
    kind: Extension,
    busy: RwSignal<Option<String>>,
    row_note: RowNote,
    changed: StoredValue<impl Fn() + 'static, LocalStorage>,
) -> Action<(String, bool), ()> {
    Action::new_local(move |(name, enable): &(String, bool)| {
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
                Err(e) => row_note.set(Some((name, e.said(), true))),
            }
        }
    })
}

/// Fetches one again from its source; its row says at which revision.
pub(super) fn update_action(
    backends: BackendsCtx,
    kind: Extension,
    busy: RwSignal<Option<String>>,
    row_note: RowNote,
    changed: StoredValue<impl Fn() + 'static, LocalStorage>,
) -> Action<String, ()> {
    Action::new_local(move |name: &String| {
        let name = name.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::update(backends, &active, kind, &name).await;
            if busy.try_set(None).is_some() {
                return;
            }
            match r {
                Ok(item) => {
                    let text = match item.resolved_ref {
                        Some(r) => t!(
                            "installed.updated_at",
                            rev = r.chars().take(10).collect::<String>()
                        ),
                        None => t!("installed.updated"),
                    };
                    row_note.set(Some((name, text, false)));
                    changed.with_value(|c| c());
                }
                Err(e) => row_note.set(Some((
                    name,
                    t!("installed.update_error", error = e.said()),
                    true,
                ))),
            }
        }
    })
}

/// One installed item: name, state, version, source; its actions and note.
pub(super) fn installed_row(
    item: Installed,
    busy: RwSignal<Option<String>>,
    row_note: RowNote,
    uninstalling: RwSignal<Option<String>>,
    toggle: Action<(String, bool), ()>,
    update: Action<String, ()>,
) -> impl IntoView {
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
        item.resolved_ref.as_ref().map(|r| {
            t!(
                "installed.meta_at",
                rev = r.chars().take(10).collect::<String>()
            )
        }),
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
                {(!enabled).then(|| view! { <span class="badge" data-testid="installed-disabled">{t!("installed.disabled_badge")}</span> })}
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
                    {if enabled { t!("installed.disable") } else { t!("installed.enable") }}
                </button>
                <button type="button" class="btn small" data-testid="installed-update"
                    disabled=any_busy
                    on:click=move |_| {
                        busy.set(Some(n3.clone()));
                        row_note.set(None);
                        update.dispatch(n3.clone());
                    }>
                    {move || if is_busy() { t!("installed.working") } else { t!("installed.update") }}
                </button>
                <button type="button" class="btn small danger" data-testid="installed-uninstall"
                    disabled=any_busy on:click=move |_| uninstalling.set(Some(n4.clone()))>{t!("installed.uninstall")}</button>
            </div>
            {move || row_note.get().filter(|(n, _, _)| *n == n5).map(|(_, text, err)| view! {
                <p class=if err { "field-error" } else { "ok" } role=if err { "alert" } else { "status" }
                    data-testid="installed-note">{text}</p>
            })}
        </li>
    }
}
