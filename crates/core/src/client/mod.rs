//! The typed, sans-IO backend clients (BR-6, BR-8, BR-10; `spec/agent-server.md`,
//! `spec/cloud.md`).
//!
//! ```text
//! page ──► backend_api(&active, &ctx) : Client                 (THE enum; kind → impl)
//!            │  .list_conversations(None, 20)?                 (sans-IO: a Call<T>)
//!            ▼
//!          Call<T> = RequestPlan (method, url, headers incl. auth, body, timeout,
//!                                 Route::Direct | Route::CloudProxy(envelope))
//!                  + decoder fn(status, bytes) -> Result<T, ApiError>
//!            │  .send(&transport).await                        (the ONE Transport trait)
//!            ▼
//!          Result<T, ApiError>  (non-2xx ⇒ from_status, bad JSON ⇒ Decode, keys redacted)
//! ```
//!
//! | module | what |
//! |---|---|
//! | [`service`] | the per-area traits each kind implements (defaults: `Unsupported`) |
//! | [`factory`] | [`Client`], [`backend_api`], [`client_for`]: the only match on the kind |
//! | [`unified`] | what pages see whatever the kind: `ConversationSummary`, `NewConversation`, … |
//! | [`decode`] | `decode_<x>(status, body)` for each answer of each kind |
//! | [`endpoints`] | the agent server's endpoints once, before routing (local: direct; cloud: the proxy) |
//! | [`local`], [`cloud`], [`omnigent`] | the three implementations (plus a test-only fake kind) |
//!
//! The plans, the routing and the DTOs live in [`crate::transport`], [`crate::agent_server`]
//! and [`crate::cloud`]; this facade re-exports what callers of the clients use with them.

pub mod cloud;
pub mod decode;
pub(crate) mod endpoints;
pub mod factory;
#[cfg(test)]
pub(crate) mod fake;
pub mod local;
pub mod omnigent;
pub mod service;
pub mod unified;

#[cfg(test)]
mod tests;

pub use crate::agent_server::dto::{
    BashCommand, BashEventPage, BashRequest, BashResult, Commit, CommitsPage, ConversationInfo,
    ConversationPage, Event, EventPage, ExecutionStatus, FileHome, FileUploadResult, GitChange,
    GitChangeStatus, GitDiff, OutgoingMessage, ServerInfo, Settings, SkillInfo, SkillType,
    SkillsRequest, SkillsResponse, Workspace,
};
pub use crate::cloud::dto::{
    AppConversation, AppConversationPage, KeyCheck, KeysCurrent, OrgMe, Organization,
    Organizations, Sandbox, SandboxStatus, StartTask, StartTaskStatus,
};
pub use crate::omnigent::dto::AgentScope;
pub use crate::transport::auth::{auth_headers, org_header, request_headers};
pub use crate::transport::plan::{
    Body, Call, Decoder, Method, ProxyBody, ProxyEnvelope, RawResponse, RequestPlan, Route,
    SendPlanned, Transport,
};
pub use crate::transport::routing::{
    runtime_base_url, runtime_target, ConversationRef, RoutingContext, RuntimeTarget,
};
pub use cloud::CloudApi;
pub use factory::{backend_api, client_for, Client};
pub use local::LocalApi;
pub use omnigent::OmnigentApi;
pub use service::{Live, Planned, ServerDescription, SocketTarget, WorkspaceFile};
pub use unified::{
    ConversationSummary, ConversationSummaryPage, Created, EventQuery, NewConversation,
};
