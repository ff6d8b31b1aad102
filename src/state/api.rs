//! The active backend's client: core's service implementation for its `kind` (pages never
//! branch on kind, BR-10) plus the browser transport (the one HTTP chokepoint), which records
//! every successful answer as a health success for that backend (BR-7).

use crate::platform::http::BrowserTransport;
use crate::platform::location;
use crate::state::backends::BackendsCtx;
use canvas_core::backends::selection::ActiveBackend;
use canvas_core::client::{backend_api, Client, Planned, SendPlanned};
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

/// The active backend's client (core's one enum, by the backend's kind) and the transport
/// that sends its calls. There is one client for every area: the enum dispatches each method
/// in a `match`, so a lazy chunk carries only the methods it calls (issue #30).
pub struct Api {
    pub api: Client,
    pub transport: BrowserTransport,
}

impl Api {
    /// Plans one call and sends it.
    pub async fn call<T: 'static>(
        &self,
        plan: impl FnOnce(&Client) -> Planned<T>,
    ) -> Result<T, ApiError> {
        plan(&self.api).send(&self.transport).await
    }
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

/// The client of `active` and its transport (build it inside the reactive closure that read
/// `active`).
pub fn client(backends: BackendsCtx, active: &ActiveBackend) -> Api {
    Api {
        api: backend_api(active, &routing(&backends)),
        transport: transport(backends, active),
    }
}
