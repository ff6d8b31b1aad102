//! The connection to the active backend: server info + version gate, re-checked every 30 s.

use crate::state::api;
use crate::state::backends::BackendsCtx;
use canvas_core::version::{GateError, Version};
use leptos::prelude::*;

#[derive(Clone, Debug, PartialEq)]
pub enum Connection {
    Checking,
    Connected(Version),
    Failed(GateError),
}

#[derive(Clone, Copy)]
pub struct ConnectionCtx {
    resource: LocalResource<Result<Version, GateError>>,
}

impl ConnectionCtx {
    pub fn state(&self) -> Connection {
        match self.resource.get() {
            None => Connection::Checking,
            Some(Ok(v)) => Connection::Connected(v),
            Some(Err(e)) => Connection::Failed(e),
        }
    }

    pub fn recheck(&self) {
        self.resource.refetch();
    }
}

pub fn provide_connection(backends: BackendsCtx) -> ConnectionCtx {
    let resource = LocalResource::new(move || {
        let active = backends.active.get();
        api::connect_local(active)
    });
    let ctx = ConnectionCtx { resource };
    // Re-check periodically so a server that stops or comes back is noticed.
    if let Ok(handle) =
        set_interval_with_handle(move || ctx.recheck(), std::time::Duration::from_secs(30))
    {
        on_cleanup(move || handle.clear());
    }
    provide_context(ctx);
    ctx
}

pub fn use_connection() -> ConnectionCtx {
    expect_context::<ConnectionCtx>()
}
