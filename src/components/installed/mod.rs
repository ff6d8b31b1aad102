//! Installed skills or plugins of the active backend (issue #13): each with its version,
//! source and state; enable/disable, "Update" (fetch again from the source), "Uninstall"
//! (asked first); an install form (a git URL, `github:owner/repo`, or a folder on the agent's
//! machine) with progress; and the marketplace on request (offline it says so in bounded time).
//! `on_change` runs after anything changed what conversations get (the Skills page reloads its
//! merged list).

use crate::components::confirm::ConfirmDialog;
use crate::components::loaded::{loaded, on_active, ListStates};
use crate::services::extensions as svc;
use crate::services::skills::not_available;
use crate::state::backends::use_backends;
use crate::state::i18n::t;
use canvas_core::settings::extensions::{Extension, Installed};
use leptos::prelude::*;

/// `by_kind!(kind, "installed.skill.x", "installed.plugin.x", name = value, …)`: the skill's or
/// the plugin's message (each its own sentence, so a language can inflect the noun).
macro_rules! by_kind {
    ($kind:expr, $skill:literal, $plugin:literal $(, $name:ident = $value:expr)* $(,)?) => {
        match $kind {
            canvas_core::settings::extensions::Extension::Skill => {
                $crate::state::i18n::t!($skill $(, $name = $value)*)
            }
            canvas_core::settings::extensions::Extension::Plugin => {
                $crate::state::i18n::t!($plugin $(, $name = $value)*)
            }
        }
    };
}

mod install;
mod row;

use install::{InstallForm, Marketplace};
use row::{installed_row, toggle_action, update_action};

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
    let list = on_active(reload, move |b, a| async move {
        svc::installed(b, &a, kind).await
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

    let toggle = toggle_action(backends, kind, busy, row_note, changed);
    let update = update_action(backends, kind, busy, row_note, changed);

    let row =
        move |item: Installed| installed_row(item, busy, row_note, uninstalling, toggle, update);

    let rows = move || {
        list.get().map(|r| {
            let states = ListStates {
                prefix: "installed",
                error_testid: None,
            };
            loaded(
                r,
                states,
                by_kind!(
                    kind,
                    "installed.skill.unavailable",
                    "installed.plugin.unavailable"
                ),
                Some((
                    by_kind!(kind, "installed.skill.empty", "installed.plugin.empty"),
                    Vec::is_empty,
                )),
                reload,
                |items| {
                    view! {
                        <ul class="installed-list" data-testid="installed-list">
                            {items.into_iter().map(row).collect_view()}
                        </ul>
                    }
                    .into_any()
                },
            )
        })
    };
    let unsupported = move || matches!(list.get(), Some(Err(ref e)) if not_available(e));

    let confirm = move || {
        uninstalling.get().map(|name| {
            let text = by_kind!(
                kind,
                "installed.skill.uninstall_text",
                "installed.plugin.uninstall_text",
                name = name
            );
            let title = by_kind!(
                kind,
                "installed.skill.uninstall_title",
                "installed.plugin.uninstall_title"
            );
            view! {
                <ConfirmDialog title=title testid="uninstall-dialog"
                    confirm_testid="confirm-uninstall" text=text verb=t!("installed.uninstall") busy_verb=t!("installed.uninstalling")
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
            <Suspense fallback=move || view! { <p class="loading">{by_kind!(kind, "installed.skill.loading", "installed.plugin.loading")}</p> }>
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
