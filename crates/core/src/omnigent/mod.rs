//! Omnigent, the third backend kind (`spec/omnigent.md`, seed 003, issue #12): DTOs and
//! decoders of its `/v1/*` API, host liveness, and the session stream reduced into the same
//! timeline item model as the agent server's events. Pure: time is a parameter.
//!
//! The client itself (request plans, the hosts, agents and sessions calls) is
//! [`crate::client::omnigent`]; this module holds what it decodes into and the rules around it.
//!
//! | module | what |
//! |---|---|
//! | [`dto`] | `Info`, `Me`, `Host`, `Agent`/`AgentPage`, `Session`/`SessionPage`, `NewSession`, the error body → [`ApiError`](crate::error::ApiError) with advice, the decoders |
//! | [`environment`] | a session's workspace on its host (shell, changes, diffs, files), its model and policies |
//! | [`hosts`] | `HarnessReadiness` in words, `host_online` (90 s rule), `pickable`, the picker's rows |
//! | [`scheduled`] | `ScheduledTasks`: `/v1/scheduled-tasks` said as automations (tasks, runs, bodies) |
//! | [`sse`] | `SseParser`: incremental server-sent events over arbitrary chunks |
//! | [`stream`] | `SessionStream`: the stream + snapshot reducer into `events::ViewItem`s, heartbeats and the reconnect rule |

pub mod approvals;
pub mod dto;
pub mod environment;
pub mod hosts;
pub mod scheduled;
pub mod sse;
pub mod stream;
pub mod terminal;
pub mod usage;

pub use dto::{
    Agent, AgentPage, ErrorBody, ErrorDetail, Host, Info, Me, NewSession, Session, SessionPage,
    SessionStatus,
};
pub use hosts::{
    harness_readiness, host_online, is_managed, pickable, picker_rows, HarnessReadiness, HostRow,
    HOST_LIVENESS_MS,
};
pub use sse::{SseEvent, SseParser};
pub use stream::{Changed, SessionStream, Usage, HEARTBEAT_INTERVAL_MS, RECONNECT_AFTER_MS};
