//! The active backend's client: core's service implementation for its `kind` (pages never
//! branch on kind, BR-10) plus the browser transport (the one HTTP chokepoint), which records
//! every successful answer as a health success for that backend (BR-7).

use crate::platform::http::BrowserTransport;
use crate::platform::location;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::factory::{backend_api, workspace_tools};
use canvas_core::client::service::{
    BackendApi, EventsApi, HostsApi, SettingsApi, WorkspaceToolsApi,
};
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

pub struct Client {
    pub api: Box<dyn BackendApi>,
    pub transport: BrowserTransport,
}

/// The transport for `active`'s calls: every 2xx answer is a health success for it (BR-7).
pub fn transport(backends: BackendsCtx, active: &ActiveBackend) -> BrowserTransport {
    let id = active.backend.id.clone();
    BrowserTransport::reporting(Rc::new(move |status| {
        if (200..300).contains(&status) {
            backends.record_health(&id, Ok(()), js_sys::Date::now() as i64);
        }
    }))
}

/// The client of `active` (build it inside the reactive closure that read `active`).
pub fn client(backends: BackendsCtx, active: &ActiveBackend) -> Client {
    Client {
        api: backend_api(active, &routing(&backends)),
        transport: transport(backends, active),
    }
}

/// A conversation's events on the active backend (history, messages, confirmations) and its
/// transport: built on demand, apart from [`Client`], so that only the conversation page's
/// chunks carry them.
pub struct Events {
    pub api: Box<dyn EventsApi>,
    pub transport: BrowserTransport,
}

/// The events calls of `active` (see [`Events`]).
pub fn events(backends: BackendsCtx, active: &ActiveBackend) -> Events {
    Events {
        api: canvas_core::client::factory::events(active, &routing(&backends)),
        transport: transport(backends, active),
    }
}

/// The active backend's settings (read and patch) and its transport: built on demand, apart
/// from [`Client`] (the launcher's LLM settings, the settings and skills pages).
pub struct SettingsClient {
    pub api: Box<dyn SettingsApi>,
    pub transport: BrowserTransport,
}

/// The settings calls of `active` (see [`SettingsClient`]).
pub fn settings(backends: BackendsCtx, active: &ActiveBackend) -> SettingsClient {
    SettingsClient {
        api: canvas_core::client::factory::settings(active, &routing(&backends)),
        transport: transport(backends, active),
    }
}

/// The active backend's workspace tools (terminal, files, git, skills) and its transport: built
/// on demand, apart from [`Client`], so that only the lazy chunks that use them carry them.
pub struct Tools {
    pub api: Box<dyn WorkspaceToolsApi>,
    pub transport: BrowserTransport,
}

/// The workspace tools of `active` (see [`Tools`]).
pub fn tools(backends: BackendsCtx, active: &ActiveBackend) -> Tools {
    Tools {
        api: workspace_tools(active, &routing(&backends)),
        transport: transport(backends, active),
    }
}

/// The hosts capability of `active` (Omnigent's hosts, agents, sessions and stream; `omnigent()`
/// is `None` on other kinds), built on demand like [`tools`].
pub fn hosts(backends: BackendsCtx, active: &ActiveBackend) -> Box<dyn HostsApi> {
    canvas_core::client::factory::hosts(active, &routing(&backends))
}
