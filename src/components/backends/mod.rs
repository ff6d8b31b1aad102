//! Backend management UI (issue #5): the selector in the sidebar, the add / edit form, the
//! "Manage backends" dialog and the dialog helper (focus trap, Esc, focus return).
//!
//! Which dialog is open is UI state shared by the selector, the recovery screen and the shell:
//! [`provide_backends_ui`] once in `App`, [`use_backends_ui`] below it.

pub mod dialog;
pub mod form;
pub mod manage;
pub mod selector;

use crate::state::backends::BackendsCtx;
use crate::state::connection::{Connection, ConnectionCtx};
use crate::state::i18n::{say, t};
use canvas_core::backends::health::{backend_health_text, Health};
use canvas_core::backends::launcher::LockMode;
use canvas_core::backends::record::{AuthMode, BackendKind, LOCKED_CLOUD_ID};
use leptos::prelude::*;

/// The dialog on screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BackendDialog {
    /// The list with edit / delete.
    Manage,
    /// The add form.
    Add,
    /// The edit form of this backend.
    Edit(String),
}

#[derive(Clone, Copy)]
pub struct BackendsUi {
    pub dialog: RwSignal<Option<BackendDialog>>,
    /// The brief "Switching…" overlay after choosing another backend.
    pub switching: RwSignal<bool>,
}

impl BackendsUi {
    pub fn open(&self, d: BackendDialog) {
        self.dialog.set(Some(d));
    }

    pub fn close(&self) {
        self.dialog.set(None);
    }
}

pub fn provide_backends_ui() -> BackendsUi {
    let ui = BackendsUi {
        dialog: RwSignal::new(None),
        switching: RwSignal::new(false),
    };
    provide_context(ui);
    ui
}

pub fn use_backends_ui() -> BackendsUi {
    expect_context::<BackendsUi>()
}

/// A backend's health as the dots show it, with the text for its title (the last error when
/// failing): the active entry follows the live connection (core `backend_health`).
pub fn backend_status(
    backends: BackendsCtx,
    conn: ConnectionCtx,
    backend_id: &str,
    is_active_entry: bool,
) -> (Health, String) {
    let entry = backends.health.with(|h| h.get(backend_id).cloned());
    let live = is_active_entry.then(|| conn.live());
    let heard = backends.heard_from.with(|s| s.contains(backend_id));
    let (health, title) = backend_health_text(entry.as_ref(), live.as_ref(), heard);
    (health, say(&title))
}

/// What the main area shows: the app, the first-run onboarding (no backend at all), or the
/// public-mode key entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    App,
    Onboarding,
    /// Public mode without an accepted key; `rotated` when the saved key was refused.
    PublicKey {
        rotated: bool,
    },
}

/// The screen for the current state (public mode: `__AGENT_CANVAS_AUTH_REQUIRED__`, not locked).
pub fn current_screen(backends: BackendsCtx, conn: ConnectionCtx) -> Screen {
    use canvas_core::backends::probe::ProbeError;
    use canvas_core::error::ApiError;
    let public = backends
        .launcher
        .with_value(|l| l.auth_required && l.lock_to_cloud.is_none());
    let (none, default_local) = backends.active.with(|a| {
        (
            a.is_none(),
            a.backend.id == canvas_core::backends::record::DEFAULT_LOCAL_ID,
        )
    });
    if none {
        return if public {
            Screen::PublicKey { rotated: false }
        } else {
            Screen::Onboarding
        };
    }
    let refused = matches!(
        conn.state(),
        Connection::Failed {
            error: ProbeError::Api(ApiError::Unauthorized),
            ..
        }
    );
    if public && default_local && refused {
        return Screen::PublicKey { rotated: true };
    }
    Screen::App
}

/// In a locked-cloud build (api-key mode, BR-4) the locked backend's host and kind are not
/// editable: only its key (and name) are.
fn locked_fields(backends: BackendsCtx, id: &str) -> form::Fixed {
    match backends.lock_mode() {
        LockMode::ApiKey { host } if id == LOCKED_CLOUD_ID => form::Fixed {
            name: None,
            host: Some(host),
            kind: Some(BackendKind::Cloud),
            auth_mode: Some(AuthMode::ApiKey),
        },
        _ => form::Fixed::default(),
    }
}

/// The dialogs (rendered once, in the shell).
#[component]
pub fn BackendDialogs() -> impl IntoView {
    let ui = use_backends_ui();
    move || {
        ui.dialog.get().map(|d| {
            crate::lazy::lazy(
                crate::state::i18n::msg!("app.part.backend_dialog"),
                crate::components::backends::preload_backend_dialogs,
                move || crate::components::backends::backend_dialog(d.clone()),
            )
        })
    }
}

/// The dialog's content (loaded lazily by [`BackendDialogs`]).
pub fn dialog_view(d: BackendDialog) -> AnyView {
    let ui = use_backends_ui();
    let backends = crate::state::backends::use_backends();
    match d {
        BackendDialog::Manage => view! { <manage::ManageDialog /> }.into_any(),
        BackendDialog::Add => view! {
            <dialog::Dialog title=t!("sidebar.add_backend") testid="add-backend-dialog" on_close=Callback::new(move |_| ui.close())>
                <form::BackendForm mode=form::FormMode::Add on_done=Callback::new(move |_| ui.close()) />
            </dialog::Dialog>
        }
        .into_any(),
        BackendDialog::Edit(id) => {
            let fixed = locked_fields(backends, &id);
            view! {
                <dialog::Dialog title=t!("backends.edit_title") testid="edit-backend-dialog" on_close=Callback::new(move |_| ui.open(BackendDialog::Manage))>
                    <form::BackendForm mode=form::FormMode::Edit(id.clone()) fixed=fixed on_done=Callback::new(move |_| ui.open(BackendDialog::Manage)) />
                </dialog::Dialog>
            }
            .into_any()
        }
    }
}

/// "Switching…" while a newly chosen backend connects (shown briefly; never blocks).
#[component]
pub fn SwitchingOverlay() -> impl IntoView {
    let ui = use_backends_ui();
    view! {
        <Show when=move || ui.switching.get()>
            <div class="switching-overlay" data-testid="switching-overlay" role="status" aria-live="polite">
                <span class="switching-box">{t!("backends.switching")}</span>
            </div>
        </Show>
    }
}

crate::lazy::lazy_view! {
    /// Add / edit / manage backends.
    pub fn backend_dialog(dialog: crate::components::backends::BackendDialog) in backend_dialogs, preload preload_backend_dialogs {
        crate::components::backends::dialog_view(dialog)
    }
}
