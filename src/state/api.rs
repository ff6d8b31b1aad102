//! The active backend's client: core's service implementation for its `kind` (pages never
//! branch on kind, BR-10) plus the browser transport (the one HTTP chokepoint), which records
//! every successful answer as a health success for that backend (BR-7).

use crate::platform::http::BrowserTransport;
use crate::platform::location;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::factory::{self, backend_api, workspace_tools};
use canvas_core::client::service::Planned;
use canvas_core::client::service::{
    BackendApi, EventsApi, HostsApi, SettingsApi, WorkspaceToolsApi,
};
use canvas_core::client::SendPlanned;
use canvas_core::error::ApiError;
use canvas_core::transport::routing::RoutingContext;
use leptos::prelude::*;
use std::rc::Rc;

/// Where `/api/cloud-proxy` is: the page origin plus the base path.
pub fn routing(backends: &BackendsCtx) -> RoutingContext {
    let origin = location::origin();
    let base = backends
        .launcher
        .with_value(|l| l.base_path.clone().unwrap_or_default());
    RoutingContext {
        page_origin: Some(origin.clone()),
        proxy_base: Some(format!("{origin}{base}")),
    }
}

/// One group of `active`'s calls (built by core's factory, by the backend's kind) and the
/// transport that sends them. The groups other than [`Client`] are built on demand, so that
/// only the lazy chunks that call them carry them (issue #11).
pub struct With<A: ?Sized> {
    pub api: Box<A>,
    pub transport: BrowserTransport,
}

impl<A: ?Sized> With<A> {
    /// Plans one call on this group and sends it.
    pub async fn call<T: 'static>(
        &self,
        plan: impl FnOnce(&A) -> Planned<T>,
    ) -> Result<T, ApiError> {
        plan(&self.api).send(&self.transport).await
    }
}

/// What every page may ask (the list, the probe, the account).
pub type Client = With<dyn BackendApi>;
/// A conversation page's calls: run control, history, messages, confirmations, the socket.
pub type Events = With<dyn EventsApi>;
/// The backend's settings, read and patched (the launcher's LLM settings, the settings and
/// skills pages).
pub type SettingsClient = With<dyn SettingsApi>;
/// The workspace tools (terminal, files, git, skills).
pub type Tools = With<dyn WorkspaceToolsApi>;

/// The transport for `active`'s calls: every 2xx answer is a health success for it (BR-7).
pub fn transport(backends: BackendsCtx, active: &ActiveBackend) -> BrowserTransport {
    let id = active.backend.id.clone();
    BrowserTransport::reporting(Rc::new(move |status| {
        if (200..300).contains(&status) {
            backends.record_health(&id, Ok(()), js_sys::Date::now() as i64);
        }
    }))
}

/// `active`'s calls of the group `build` makes (one of core's factories).
fn with<A: ?Sized>(
    backends: BackendsCtx,
    active: &ActiveBackend,
    build: fn(&ActiveBackend, &RoutingContext) -> Box<A>,
) -> With<A> {
    With {
        api: build(active, &routing(&backends)),
        transport: transport(backends, active),
    }
}

/// The client of `active` (build it inside the reactive closure that read `active`).
pub fn client(backends: BackendsCtx, active: &ActiveBackend) -> Client {
    with(backends, active, backend_api)
}

/// The conversation page's calls of `active` (see [`Events`]).
pub fn events(backends: BackendsCtx, active: &ActiveBackend) -> Events {
    with(backends, active, factory::events)
}

/// The settings calls of `active` (see [`SettingsClient`]).
pub fn settings(backends: BackendsCtx, active: &ActiveBackend) -> SettingsClient {
    with(backends, active, factory::settings)
}

/// The workspace tools of `active` (see [`Tools`]).
pub fn tools(backends: BackendsCtx, active: &ActiveBackend) -> Tools {
    with(backends, active, workspace_tools)
}

/// The hosts capability of `active` (Omnigent's hosts, agents, sessions and stream; `omnigent()`
/// is `None` on other kinds), built on demand like [`tools`].
pub fn hosts(backends: BackendsCtx, active: &ActiveBackend) -> Box<dyn HostsApi> {
    canvas_core::client::factory::hosts(active, &routing(&backends))
}
