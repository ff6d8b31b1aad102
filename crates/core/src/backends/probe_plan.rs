//! What a health probe sends (BR-7), as each kind's client answers it.

/// One HTTP request of a probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeRequest {
    /// Path below the backend host.
    pub path: &'static str,
    /// Whether auth headers are sent.
    pub authenticated: bool,
    /// A non-2xx status that nevertheless means "healthy" (cloud legacy key: 400).
    pub also_ok_status: Option<u16>,
    /// Whether the body must pass the version gate (BR-9).
    pub version_gate: bool,
}

impl ProbeRequest {
    /// An authenticated request whose 2xx answer is all that counts.
    pub const fn authenticated(path: &'static str) -> Self {
        Self {
            path,
            authenticated: true,
            also_ok_status: None,
            version_gate: false,
        }
    }
}

/// What a probe does for a backend (BR-7); each kind's client says it
/// ([`BackendApi::probe_plan`](crate::client::service::BackendApi::probe_plan)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProbePlan {
    /// Send these requests in order; every one must succeed.
    Requests(Vec<ProbeRequest>),
    /// Do not probe; record this failure message instead.
    Skip {
        /// The message to record.
        message: String,
    },
}
