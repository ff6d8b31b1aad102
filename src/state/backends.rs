//! The backend registry and this tab's selection (spec/backends.md §2–§6), as reactive state
//! over the pure rules of `canvas_core`.

use crate::platform::{globals, location, storage::WebStorage};
use canvas_core::backend::Backend;
use canvas_core::health::HealthMap;
use canvas_core::launcher::LauncherConfig;
use canvas_core::registry;
use canvas_core::selection::{self, ActiveBackend, Selection};
use leptos::prelude::*;

#[derive(Clone, Copy)]
pub struct BackendsCtx {
    pub backends: RwSignal<Vec<Backend>>,
    pub selection: RwSignal<Option<Selection>>,
    pub health: RwSignal<HealthMap>,
    pub launcher: StoredValue<LauncherConfig>,
    /// The snapshot: the active backend and org (NO_BACKEND when there is none).
    pub active: Memo<ActiveBackend>,
}

/// Resolves the launcher config from build-time settings and window globals.
pub fn launcher_config() -> LauncherConfig {
    let b = globals::BUILD_TIME;
    canvas_core::launcher::resolve_launcher(
        &canvas_core::launcher::BuildTimeConfig {
            backend_base_url: b.backend_base_url,
            session_api_key: b.session_api_key,
            lock_to_cloud: b.lock_to_cloud,
        },
        &canvas_core::launcher::WindowGlobals {
            session_api_key: globals::window_global("__AGENT_CANVAS_SESSION_API_KEY__"),
            auth_required: globals::window_global("__AGENT_CANVAS_AUTH_REQUIRED__"),
            lock_to_cloud: globals::window_global("__AGENT_CANVAS_LOCK_TO_CLOUD__"),
            base_path: globals::window_global("__AGENT_CANVAS_BASE_PATH__"),
        },
        &location::origin(),
    )
}

pub fn provide_backends() -> BackendsCtx {
    let local = WebStorage::local();
    let session = WebStorage::session();
    let launcher = launcher_config();
    let origin = location::origin();
    let list = registry::read_registry(&local, &session, &launcher, &origin);
    // URL pinning (BR-5): a registered `?backend=` wins and is written to both storages.
    let sel = canvas_core::url::startup_selection(&location::search(), &list, &local, &session);
    let health = canvas_core::health::read_health(&local);
    let backends = RwSignal::new(list);
    let selection = RwSignal::new(sel);
    let health = RwSignal::new(health);
    let active = Memo::new(move |_| {
        backends
            .with(|b| selection.with(|s| health.with(|h| selection::snapshot(b, s.as_ref(), h))))
    });
    let ctx = BackendsCtx {
        backends,
        selection,
        health,
        launcher: StoredValue::new(launcher),
        active,
    };
    provide_context(ctx);
    ctx
}

pub fn use_backends() -> BackendsCtx {
    expect_context::<BackendsCtx>()
}
