//! The backend registry and this tab's selection (spec/backends.md §2–§6), as reactive state
//! over the pure rules of `canvas_core`. Every change goes through a core operation that says
//! what to persist; this module persists it and updates the signals.

use crate::platform::{globals, location, storage::WebStorage};
use crate::state::i18n::Said;
use canvas_core::backends::health::{read_health, write_health, HealthMap};
use canvas_core::backends::launcher::LauncherConfig;
use canvas_core::backends::record::Backend;
use canvas_core::backends::registry::{
    self, BackendDraft, RegistryChange, RegistryError, RegistrySource, SelectionUpdate,
};
use canvas_core::backends::selection::{self, ActiveBackend, Selection};
use canvas_core::storage::{Storage, BACKENDS_KEY, HEALTH_KEY};
use leptos::prelude::*;
use std::collections::BTreeSet;
use wasm_bindgen::JsCast;

#[derive(Clone, Copy)]
pub struct BackendsCtx {
    pub backends: RwSignal<Vec<Backend>>,
    pub selection: RwSignal<Option<Selection>>,
    pub health: RwSignal<HealthMap>,
    pub launcher: StoredValue<LauncherConfig>,
    /// Where the registry came from at start-up (a corrupt or unreadable registry is reported,
    /// never overwritten).
    pub source: RwSignal<RegistrySource>,
    /// The last storage write that failed (shown to the user; nothing is lost in memory).
    pub storage_error: RwSignal<Option<String>>,
    /// The snapshot: the active backend and org (NO_BACKEND when there is none).
    pub active: Memo<ActiveBackend>,
    /// Backends with a recorded outcome in this tab (a backend with no health entry is
    /// "connected" only once it was heard from; before that it is "checking").
    pub heard_from: RwSignal<BTreeSet<String>>,
}

/// Resolves the launcher config from build-time settings and window globals.
pub fn launcher_config() -> LauncherConfig {
    let b = globals::BUILD_TIME;
    let mut config = canvas_core::backends::launcher::resolve_launcher(
        &canvas_core::backends::launcher::BuildTimeConfig {
            backend_base_url: b.backend_base_url,
            session_api_key: b.session_api_key,
            lock_to_cloud: b.lock_to_cloud,
        },
        &canvas_core::backends::launcher::WindowGlobals {
            session_api_key: globals::window_global("__AGENT_CANVAS_SESSION_API_KEY__"),
            auth_required: globals::window_global("__AGENT_CANVAS_AUTH_REQUIRED__"),
            lock_to_cloud: globals::window_global("__AGENT_CANVAS_LOCK_TO_CLOUD__"),
            base_path: globals::window_global("__AGENT_CANVAS_BASE_PATH__"),
            omnigent: globals::window_global("__AGENT_CANVAS_OMNIGENT__"),
        },
        &location::origin(),
    );
    // Served under a base path (`canvas-serve --base-path /canvas`), the same-origin agent
    // server lives under it too (`/canvas/api/…`): the default backend's host is the page origin
    // plus the base path, unless a build-time base URL says otherwise.
    if b.backend_base_url.is_none() {
        if let Some(base) = config.base_path.as_deref() {
            config.host = format!("{}{base}", config.host);
        }
    }
    config
}

const LOCAL: WebStorage = WebStorage::local();
const SESSION: WebStorage = WebStorage::session();

pub fn provide_backends() -> BackendsCtx {
    let launcher = launcher_config();
    let origin = location::origin();
    let read = registry::read_registry_detailed(&LOCAL, &SESSION, &launcher, &origin);
    // URL pinning (BR-5): a registered `?backend=` wins and is written to both storages.
    let sel = canvas_core::backends::url::startup_selection(
        &location::search(),
        &read.backends,
        &LOCAL,
        &SESSION,
    );
    let backends = RwSignal::new(read.backends);
    let selection = RwSignal::new(sel);
    let health = RwSignal::new(read_health(&LOCAL));
    let active = Memo::new(move |_| {
        backends
            .with(|b| selection.with(|s| health.with(|h| selection::snapshot(b, s.as_ref(), h))))
    });
    let ctx = BackendsCtx {
        backends,
        selection,
        health,
        launcher: StoredValue::new(launcher),
        source: RwSignal::new(read.source),
        storage_error: RwSignal::new(read.write_error.map(|e| e.said())),
        active,
        heard_from: RwSignal::new(BTreeSet::new()),
    };
    listen_to_other_tabs(ctx);
    provide_context(ctx);
    ctx
}

/// Other tabs' registry and health edits arrive as `storage` events (this tab's selection is
/// per tab and stays as it is).
fn listen_to_other_tabs(ctx: BackendsCtx) {
    crate::platform::listen::on_window_event("storage", move |ev| {
        let key = ev
            .dyn_ref::<web_sys::StorageEvent>()
            .and_then(web_sys::StorageEvent::key);
        match key.as_deref() {
            Some(BACKENDS_KEY) | None => ctx.reload(),
            Some(HEALTH_KEY) => ctx.health.set(read_health(&LOCAL)),
            _ => {}
        }
    });
}

impl BackendsCtx {
    /// Re-reads the registry and health from storage (after another tab changed them).
    pub fn reload(&self) {
        let launcher = self.launcher.get_value();
        let read =
            registry::read_registry_detailed(&LOCAL, &SESSION, &launcher, &location::origin());
        self.source.set(read.source);
        self.backends.set(read.backends);
        self.health.set(read_health(&LOCAL));
    }

    fn apply(&self, change: RegistryChange) {
        if let Err(e) = registry::persist_change(&LOCAL, &SESSION, &change) {
            self.storage_error.set(Some(e.said()));
        }
        // LLM keys and launcher options stored for a backend that is gone or now points elsewhere go with it.
        let stale = self.backends.with_untracked(|before| {
            canvas_core::conversations::start::llm_settings::stale_llm_settings_keys(
                before,
                &change.backends,
            )
        });
        for key in stale {
            let _ = LOCAL.remove(&key);
        }
        match &change.selection {
            SelectionUpdate::Keep => {}
            SelectionUpdate::Set(s) => self.selection.set(Some(s.clone())),
            SelectionUpdate::Clear => self.selection.set(None),
        }
        if let Some(id) = &change.reset_health {
            self.health.update(|h| {
                h.remove(id);
            });
        }
        self.backends.set(change.backends);
    }

    /// Adds a backend (a new UUIDv4 id); it becomes active. Returns its id.
    pub fn add(&self, draft: BackendDraft) -> Result<String, RegistryError> {
        let id = crate::platform::ids::uuid_v4();
        let change = self
            .backends
            .with_untracked(|b| registry::add_backend(b, &id, draft))?;
        self.apply(change);
        Ok(id)
    }

    /// Edits a backend; a changed host or key bumps its revision and resets its health.
    pub fn update(&self, id: &str, draft: BackendDraft) -> Result<(), RegistryError> {
        let change = self
            .backends
            .with_untracked(|b| registry::update_backend(b, id, draft))?;
        self.apply(change);
        Ok(())
    }

    /// Removes a backend; removing the active one falls back (BR-5.1).
    pub fn remove(&self, id: &str) -> Result<(), RegistryError> {
        let sel = self.selection.get_untracked();
        let change = self
            .backends
            .with_untracked(|b| registry::remove_backend(b, id, sel.as_ref()))?;
        self.apply(change);
        Ok(())
    }

    /// Makes a registered backend (and org) active in this tab (written to both storages).
    pub fn select(&self, id: &str, org_id: Option<&str>) -> Result<(), RegistryError> {
        let sel = self
            .backends
            .with_untracked(|b| registry::select_backend(b, id, org_id))?;
        if let Err(e) = selection::write_selection(&LOCAL, &SESSION, &sel) {
            self.storage_error.set(Some(e.said()));
        }
        self.selection.set(Some(sel));
        Ok(())
    }

    /// Adds a backend under a fixed id (public mode's `default-local`, the locked cloud's
    /// `locked-cloud`), or edits it when it exists (a changed key bumps its revision and resets
    /// its health). Either way it becomes active.
    pub fn upsert_with_id(&self, id: &str, draft: BackendDraft) -> Result<(), RegistryError> {
        let exists = self
            .backends
            .with_untracked(|b| b.iter().any(|x| x.id == id));
        let change = self.backends.with_untracked(|b| {
            if exists {
                registry::update_backend(b, id, draft)
            } else {
                registry::add_backend(b, id, draft)
            }
        })?;
        self.apply(change);
        if exists {
            let org = self.selection.with_untracked(|s| {
                s.as_ref()
                    .filter(|s| s.backend_id == id)
                    .and_then(|s| s.org_id.clone())
            });
            self.select(id, org.as_deref())?;
        }
        Ok(())
    }

    /// Beyond upstream (BR-2 step 5): the launcher's key for this backend's host, when the
    /// launcher has one that differs from the stored key (offered after a 401).
    pub fn launcher_key_fix(&self, backend: &Backend) -> bool {
        self.launcher
            .with_value(|l| registry::launcher_key_fix(backend, l).is_some())
    }

    /// Replaces a local backend's key with the launcher's for the same host (an ordinary edit:
    /// the revision is bumped and its health reset). Returns whether there was a key to apply.
    pub fn apply_launcher_key(&self, id: &str) -> Result<bool, RegistryError> {
        let launcher = self.launcher.get_value();
        let change = self
            .backends
            .with_untracked(|b| registry::apply_launcher_key(b, id, &launcher))?;
        Ok(change.map(|c| self.apply(c)).is_some())
    }

    /// Forgets a backend's failures (its circuit closes) and persists the health map.
    pub fn reset_health(&self, backend_id: &str) {
        let mut changed = false;
        self.health.update(|h| changed = h.reset(backend_id));
        if changed {
            let h = self.health.get_untracked();
            if let Err(e) = write_health(&LOCAL, &h) {
                self.storage_error.set(Some(e.said()));
            }
        }
    }

    /// The locked-cloud mode for this page (BR-4).
    pub fn lock_mode(&self) -> canvas_core::backends::launcher::LockMode {
        self.launcher
            .with_value(|l| canvas_core::backends::launcher::lock_mode(l, &location::origin()))
    }

    /// Records that the server refused `backend_id`'s key (issue #17): its circuit opens at once
    /// and stays open until the key changes; persists the health map.
    pub fn record_key_rejected(&self, backend_id: &str, message: &str, now_ms: i64) {
        if backend_id == canvas_core::backends::record::NO_BACKEND_ID {
            return;
        }
        self.health
            .update(|h| _ = h.record_key_rejected(backend_id, now_ms, message));
        let h = self.health.get_untracked();
        if let Err(e) = write_health(&LOCAL, &h) {
            self.storage_error.set(Some(e.said()));
        }
    }

    /// Records a probe or request outcome for a backend (BR-7) and persists the health map.
    pub fn record_health(&self, backend_id: &str, outcome: Result<(), String>, now_ms: i64) {
        if backend_id == canvas_core::backends::record::NO_BACKEND_ID {
            return;
        }
        if !self.heard_from.with_untracked(|s| s.contains(backend_id)) {
            self.heard_from.update(|s| {
                s.insert(backend_id.to_string());
            });
        }
        let mut changed = false;
        self.health.update(|h| match &outcome {
            Ok(()) => changed = h.record_success(backend_id),
            Err(e) => {
                h.record_failure(backend_id, now_ms, e);
                changed = true;
            }
        });
        if changed {
            let h = self.health.get_untracked();
            if let Err(e) = write_health(&LOCAL, &h) {
                self.storage_error.set(Some(e.said()));
            }
        }
    }
}

pub fn use_backends() -> BackendsCtx {
    expect_context::<BackendsCtx>()
}
