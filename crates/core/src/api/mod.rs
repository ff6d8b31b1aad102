//! The typed, sans-IO backend clients (BR-6, BR-8, BR-10; `spec/agent-server.md`,
//! `spec/cloud.md`).
//!
//! ```text
//! page ──► backend_api(&active, &ctx) : Box<dyn BackendApi>   (THE factory; kind → impl)
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
//! | [`plan`] | `RequestPlan`, `Body`, `Route`, `ProxyEnvelope`, `RawResponse`, `Transport`, `Call` |
//! | [`multipart`] | one file as a `multipart/form-data` body (uploads through the cloud proxy) |
//! | [`auth`] | BR-8 auth headers and `X-Org-Id` |
//! | [`encode`] | path segments and queries |
//! | [`routing`] | `RoutingContext`, runtime base URL, "sandbox still starting" |
//! | [`dto`], [`cloud_dto`] | tolerant DTOs |
//! | [`view`] | what pages see whatever the kind: `ConversationSummary`, `NewConversation`, … |
//! | [`decode`] | `decode_<x>(status, body)` |
//! | [`service`] | the per-area traits, `BackendApi`, [`backend_api`] |
//! | [`local`], [`cloud`], [`omnigent`] | the three implementations (plus a test-only fake kind) |

pub mod auth;
pub mod cloud;
pub mod cloud_dto;
pub(crate) mod de;
pub mod decode;
pub mod dto;
pub mod encode;
#[cfg(test)]
pub(crate) mod fake;
pub mod local;
pub mod multipart;
pub mod omnigent;
pub mod plan;
pub mod routing;
pub mod service;
pub mod view;

#[cfg(test)]
mod tests;

pub use auth::{auth_headers, org_header, request_headers};
pub use cloud::CloudApi;
pub use cloud_dto::{
    AppConversation, AppConversationPage, KeyCheck, KeysCurrent, OrgMe, Organization,
    Organizations, Sandbox, SandboxStatus, StartTask, StartTaskStatus,
};
pub use dto::{
    BashCommand, BashEventPage, BashRequest, BashResult, Commit, CommitsPage, ConversationInfo,
    ConversationPage, Event, EventPage, ExecutionStatus, FileHome, FileUploadResult, GitChange,
    GitChangeStatus, GitDiff, OutgoingMessage, ServerInfo, Settings, SkillInfo, SkillType,
    SkillsRequest, SkillsResponse, Workspace,
};
pub use local::LocalApi;
pub use omnigent::{AgentScope, OmnigentApi, OmnigentApiExt};
pub use plan::{
    Body, Call, Decoder, Method, ProxyBody, ProxyEnvelope, RawResponse, RequestPlan, Route,
    SendPlanned, Transport,
};
pub use routing::{
    runtime_base_url, runtime_target, ConversationRef, RoutingContext, RuntimeTarget,
};
pub use service::{
    backend_api, client_for, conversation_tools, settings_pages, BackendApi, CloudAccountApi,
    ConversationToolsApi, ConversationsApi, EventsApi, FilesApi, GitApi, Planned, RuntimeApi,
    ServerApi, SettingsApi, SettingsPagesApi, SkillsApi, WorkspaceFile,
};
pub use view::{
    ConversationSummary, ConversationSummaryPage, Created, EventQuery, NewConversation,
};
