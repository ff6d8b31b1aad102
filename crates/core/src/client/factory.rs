//! THE factory (BR-10): the only place that picks a client implementation by the backend's
//! `kind`. Adding a kind touches its own client module and this file.

use crate::backends::record::{Backend, BackendKind};
use crate::backends::selection::ActiveBackend;
use crate::client::cloud::CloudApi;
use crate::client::local::LocalApi;
use crate::client::omnigent::OmnigentApi;
use crate::client::service::{
    BackendApi, CloudSandboxApi, ConversationStartApi, ConversationToolsApi, EventsApi, HostsApi,
    ServerApi, SettingsApi, SettingsPagesApi, WorkspaceToolsApi,
};
use crate::transport::routing::RoutingContext;

/// The implementation for `active`'s kind, boxed as any trait every kind implements.
macro_rules! by_kind {
    ($active:expr, $ctx:expr) => {
        match $active.backend.kind {
            BackendKind::Local => Box::new(LocalApi::new($active)),
            BackendKind::Cloud => Box::new(CloudApi::new($active, $ctx)),
            BackendKind::Omnigent => Box::new(OmnigentApi::new($active)),
            #[cfg(test)]
            BackendKind::Fake => Box::new(crate::client::fake::FakeApi::new($active)),
        }
    };
}

/// The client of the active backend. Local calls get their backend only through
/// `selection::effective_local` (BR-6): with the NO_BACKEND sentinel active every call fails
/// with [`ApiError::NoBackend`](crate::error::ApiError::NoBackend).
pub fn backend_api(active: &ActiveBackend, ctx: &RoutingContext) -> Box<dyn BackendApi> {
    by_kind!(active, ctx)
}

/// The client of any registered backend (active or not, no organization), e.g. to probe it.
pub fn client_for(backend: &Backend) -> Box<dyn BackendApi> {
    backend_api(
        &ActiveBackend {
            backend: backend.clone(),
            org_id: None,
        },
        &RoutingContext::default(),
    )
}

/// The conversation tools of the active backend (fork, trajectory, switch, ask, usage): built
/// on demand so that only the chunks that use them carry them, not `BackendApi`'s vtable.
pub fn conversation_tools(
    active: &ActiveBackend,
    ctx: &RoutingContext,
) -> Box<dyn ConversationToolsApi> {
    by_kind!(active, ctx)
}

/// The settings pages' calls for the active backend, built on demand like
/// [`conversation_tools`].
pub fn settings_pages(active: &ActiveBackend, ctx: &RoutingContext) -> Box<dyn SettingsPagesApi> {
    by_kind!(active, ctx)
}

/// The server's identity (`server_info`), built on demand like [`conversation_tools`] (the
/// probe reads `/server_info` itself).
pub fn server(active: &ActiveBackend, ctx: &RoutingContext) -> Box<dyn ServerApi> {
    by_kind!(active, ctx)
}

/// The backend's settings (read and patch), built on demand like [`conversation_tools`]: the
/// launcher's LLM settings and the skills pages use them, not the first render.
pub fn settings(active: &ActiveBackend, ctx: &RoutingContext) -> Box<dyn SettingsApi> {
    by_kind!(active, ctx)
}

/// A conversation's events (its history, sending a message, answering a confirmation), built
/// on demand like [`conversation_tools`]: only the conversation page's chunks carry them.
pub fn events(active: &ActiveBackend, ctx: &RoutingContext) -> Box<dyn EventsApi> {
    by_kind!(active, ctx)
}

/// The workspace tools of the active backend (terminal, files, git, skills), built on demand
/// like [`conversation_tools`].
pub fn workspace_tools(active: &ActiveBackend, ctx: &RoutingContext) -> Box<dyn WorkspaceToolsApi> {
    by_kind!(active, ctx)
}

/// The cloud start tasks and sandboxes of the active backend (typed errors on other kinds),
/// built on demand like [`conversation_tools`].
pub fn cloud_sandboxes(active: &ActiveBackend, ctx: &RoutingContext) -> Box<dyn CloudSandboxApi> {
    by_kind!(active, ctx)
}

/// Starting a conversation on the active backend (the launcher), built on demand like
/// [`conversation_tools`].
pub fn conversation_start(
    active: &ActiveBackend,
    ctx: &RoutingContext,
) -> Box<dyn ConversationStartApi> {
    by_kind!(active, ctx)
}

/// What a backend that runs sessions on hosts offers (Omnigent's hosts, agents, sessions),
/// built on demand like [`conversation_tools`]; `omnigent()` is `None` on other kinds.
pub fn hosts(active: &ActiveBackend, ctx: &RoutingContext) -> Box<dyn HostsApi> {
    by_kind!(active, ctx)
}
