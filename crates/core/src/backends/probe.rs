//! The health probe (BR-7) and the version gate on connect (BR-9), as one async function over
//! the [`Transport`] trait: the same code runs in the browser and in native tests. Time is a
//! parameter (`sleep` is injected), nothing here reads a clock.

use crate::backends::health::ProbePolicy;
use crate::backends::record::Backend;
use crate::backends::version::{GateError, Version};
use crate::client::decode::decode_server_info;
use crate::client::factory::client_for;
use crate::error::ApiError;
use crate::transport::auth::auth_headers;
use crate::transport::plan::{Body, Method, RequestPlan, Route, Transport};
use std::future::Future;

pub use crate::backends::probe_plan::{ProbePlan, ProbeRequest};

/// Why a probe failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeError {
    /// A request failed (network, timeout, 401, …).
    Api(ApiError),
    /// The server answered but its version is missing or too old (BR-9).
    Gate(GateError),
    /// Not probed (e.g. a cloud backend without a key).
    Skipped,
}

impl ProbeError {
    /// What a probe that failed with this error says, as a message, given the `message` it
    /// recorded (its English): a rejected version its own message (with the versions), else
    /// [`crate::backends::health::failure_text`] of `message`.
    pub fn text(&self, message: &str) -> crate::i18n::Text {
        match self {
            ProbeError::Gate(g) => g.user_text(),
            _ => crate::backends::health::failure_text(message),
        }
    }

    /// Whether the failure may pass by itself: the server is away (no answer, a timeout, a 5xx
    /// such as canvas-serve's 502 while the agent server behind it restarts). A refused key, a
    /// version the gate rejects, no backend or a skipped probe needs the user instead.
    pub fn is_transient(&self) -> bool {
        match self {
            ProbeError::Api(ApiError::Network(_) | ApiError::Timeout) => true,
            ProbeError::Api(ApiError::Server { status, .. }) => *status >= 500,
            ProbeError::Gate(GateError::Unreachable { .. }) => true,
            _ => false,
        }
    }
}

/// How the app shows a failed connection to the active backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureView {
    /// The recovery screen takes the page's place (nothing on the page can work).
    Screen,
    /// A banner above the page, which stays as it was (its timeline, its drafts, its own
    /// reconnecting socket): the backend answered in this tab before and is only away.
    Banner,
}

/// The view for `error` on a backend that this tab `was_connected` to since it became active.
pub fn failure_view(error: &ProbeError, was_connected: bool) -> FailureView {
    if was_connected && error.is_transient() {
        FailureView::Banner
    } else {
        FailureView::Screen
    }
}

/// What one probe found. `message` is the user-facing text recorded in the health store.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeOutcome {
    /// Healthy; local backends report their (gated) version.
    Healthy {
        /// The gated version (local backends).
        version: Option<Version>,
    },
    /// Failed: record exactly one failure with `message`.
    Failed {
        /// User-facing text for the health store.
        message: String,
        /// What failed.
        error: ProbeError,
    },
}

fn plan_for(backend: &Backend, path: &str, authenticated: bool, timeout_ms: u32) -> RequestPlan {
    RequestPlan {
        method: Method::Get,
        url: format!("{}{path}", backend.host.trim_end_matches('/')),
        headers: if authenticated {
            auth_headers(backend)
        } else {
            Vec::new()
        },
        body: Body::None,
        timeout_ms,
        route: Route::Direct,
    }
}

/// One attempt: every request of the plan at once (a probe costs one round trip, not one per
/// request: the page waits for it before anything else), judged in the plan's order: the first
/// request that failed decides the error.
async fn attempt<X: Transport + ?Sized>(
    backend: &Backend,
    requests: &[ProbeRequest],
    transport: &X,
    timeout_ms: u32,
) -> Result<Option<Version>, ProbeError> {
    let sends = requests.iter().map(|r| {
        let plan = plan_for(backend, r.path, r.authenticated, timeout_ms);
        let secrets = plan.secrets();
        async move {
            transport.send(plan).await.map_err(|e| {
                let refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
                ProbeError::Api(e.redacted(&refs))
            })
        }
    });
    let answers = all(sends.collect()).await;
    let mut version = None;
    for (r, answer) in requests.iter().zip(answers) {
        let raw = answer?;
        let ok = (200..300).contains(&raw.status) || Some(raw.status) == r.also_ok_status;
        if !ok {
            return Err(ProbeError::Api(crate::transport::decode::status_error(
                raw.status, &raw.body,
            )));
        }
        if r.version_gate {
            let info = decode_server_info(raw.status, &raw.body).map_err(ProbeError::Api)?;
            version = Some(info.gate().map_err(ProbeError::Gate)?);
        }
    }
    Ok(version)
}

/// Runs `futures` together and returns their outputs in order (a probe's two or three
/// requests; `futures_util::future::join_all` would add its general machinery to the first
/// render's module for this).
async fn all<F: Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<std::pin::Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut out: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, o) in futures.iter_mut().zip(out.iter_mut()) {
            if o.is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *o = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

/// Probes `backend` once: up to `policy.quick_retries` quick retries `policy.retry_delay_ms`
/// apart for transient errors (never for auth errors or version-gate failures). The result is
/// exactly one success or one failure to record.
pub async fn probe<X, S, F>(
    backend: &Backend,
    transport: &X,
    policy: ProbePolicy,
    sleep: S,
) -> ProbeOutcome
where
    X: Transport + ?Sized,
    S: Fn(u32) -> F,
    F: Future<Output = ()>,
{
    let api = client_for(backend);
    let requests = match api.probe_plan() {
        ProbePlan::Skip { message } => {
            return ProbeOutcome::Failed {
                message,
                error: ProbeError::Skipped,
            }
        }
        ProbePlan::Requests(r) => r,
    };
    let mut n = 0;
    loop {
        match attempt(backend, &requests, transport, policy.timeout_ms).await {
            Ok(version) => return ProbeOutcome::Healthy { version },
            Err(ProbeError::Api(e)) if policy.should_retry(e.kind(), n) => {
                n += 1;
                sleep(policy.retry_delay_ms).await;
            }
            Err(error) => {
                let message = match &error {
                    ProbeError::Api(e) => api.probe_failure_message(e),
                    ProbeError::Gate(g) => g.user_message(),
                    ProbeError::Skipped => String::new(),
                };
                return ProbeOutcome::Failed { message, error };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::record::BackendKind;
    use crate::backends::version::GateError;
    use crate::test_util::block_on as run;
    use crate::transport::plan::RawResponse;

    fn probe_plan(backend: &Backend) -> ProbePlan {
        client_for(backend).probe_plan()
    }

    #[test]
    fn a_backend_that_answered_before_and_is_only_away_keeps_the_page() {
        let server = |status| {
            ProbeError::Api(ApiError::Server {
                status,
                detail: "x".into(),
            })
        };
        let unreachable = ProbeError::Gate(GateError::Unreachable { detail: "x".into() });
        let transient = [
            ProbeError::Api(ApiError::Network("refused".into())),
            ProbeError::Api(ApiError::Timeout),
            server(502),
            server(503),
            unreachable,
        ];
        for e in &transient {
            assert!(e.is_transient(), "{e:?}");
            assert_eq!(failure_view(e, true), FailureView::Banner, "{e:?}");
            // Never connected in this tab: nothing to keep, the recovery screen says what to do.
            assert_eq!(failure_view(e, false), FailureView::Screen, "{e:?}");
        }
        let needs_the_user = [
            ProbeError::Api(ApiError::Unauthorized),
            ProbeError::Api(ApiError::Forbidden),
            ProbeError::Api(ApiError::NotFound),
            server(404),
            server(418),
            ProbeError::Api(ApiError::Decode("x".into())),
            ProbeError::Gate(GateError::NoBackendConfigured),
            ProbeError::Gate(GateError::UnsupportedVersion {
                required: "1.28.0".into(),
                reported: "1.0.0".into(),
            }),
            ProbeError::Skipped,
        ];
        for e in &needs_the_user {
            assert!(!e.is_transient(), "{e:?}");
            assert_eq!(failure_view(e, true), FailureView::Screen, "{e:?}");
        }
    }

    fn probe_failure_message(backend: &Backend, error: &ApiError) -> String {
        client_for(backend).probe_failure_message(error)
    }
    use crate::test_util::Scripted;
    use std::cell::RefCell;

    fn local() -> Backend {
        Backend::new("l", "Local", "http://h:1/", "k", BackendKind::Local)
    }

    fn info(version: &str) -> Result<RawResponse, ApiError> {
        Ok(RawResponse::new(
            200,
            format!(r#"{{"version":"{version}","sdk_version":"{version}"}}"#),
        ))
    }

    fn settings() -> Result<RawResponse, ApiError> {
        Ok(RawResponse::new(200, "{}"))
    }

    #[test]
    fn br7_local_probe_checks_settings_with_the_key_then_server_info_without() {
        let t = Scripted::new(vec![settings(), info("1.58.2")]);
        let out = run(probe(&local(), &t, ProbePolicy::DEFAULT, |_| async {}));
        assert_eq!(
            out,
            ProbeOutcome::Healthy {
                version: Some(Version::parse("1.58.2").unwrap())
            }
        );
        let sent = t.sent.borrow();
        assert_eq!(sent[0].url, "http://h:1/api/settings");
        assert_eq!(sent[0].header("X-Session-API-Key"), Some("k"));
        assert_eq!(sent[0].timeout_ms, 4_000);
        assert_eq!(sent[1].url, "http://h:1/server_info");
        assert_eq!(sent[1].header("X-Session-API-Key"), None);
    }

    #[test]
    fn br7_transient_errors_get_two_quick_retries_then_one_failure() {
        // Each attempt sends both requests; the settings answer fails every time.
        let t = Scripted::new(vec![
            Err(ApiError::Network("refused".into())),
            info("1.58.2"),
            Err(ApiError::Timeout),
            info("1.58.2"),
            Err(ApiError::Network("refused".into())),
            info("1.58.2"),
            settings(),
        ]);
        let slept = RefCell::new(Vec::new());
        let out = run(probe(&local(), &t, ProbePolicy::DEFAULT, |ms| {
            slept.borrow_mut().push(ms);
            async {}
        }));
        assert!(matches!(
            out,
            ProbeOutcome::Failed {
                error: ProbeError::Api(ApiError::Network(_)),
                ..
            }
        ));
        assert_eq!(
            t.sent.borrow().len(),
            6,
            "1 attempt + 2 quick retries, two requests each"
        );
        assert_eq!(*slept.borrow(), vec![300, 300]);
    }

    #[test]
    fn br7_retry_can_recover() {
        let t = Scripted::new(vec![
            Err(ApiError::Timeout),
            info("1.58.2"),
            settings(),
            info("1.28.0"),
        ]);
        let out = run(probe(&local(), &t, ProbePolicy::DEFAULT, |_| async {}));
        assert!(matches!(out, ProbeOutcome::Healthy { .. }), "{out:?}");
    }

    #[test]
    fn br7_auth_errors_are_not_retried_and_say_invalid_key() {
        let t = Scripted::new(vec![
            Ok(RawResponse::new(401, r#"{"detail":"Unauthorized"}"#)),
            info("1.58.2"),
        ]);
        let out = run(probe(&local(), &t, ProbePolicy::DEFAULT, |_| async {}));
        assert_eq!(t.sent.borrow().len(), 2, "one attempt, no retry");
        match out {
            ProbeOutcome::Failed { message, error } => {
                assert_eq!(message, "Invalid API key");
                assert_eq!(error, ProbeError::Api(ApiError::Unauthorized));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_probe_sends_its_requests_at_once_and_the_plans_first_failure_decides() {
        /// Answers nothing until both requests are out (a probe that sent them one after the
        /// other would get a network error here instead).
        struct BothOut(RefCell<Vec<String>>);
        impl Transport for BothOut {
            async fn send(&self, plan: RequestPlan) -> Result<RawResponse, ApiError> {
                let path = plan.url.rsplit_once(':').map(|(_, p)| p.to_string());
                self.0.borrow_mut().push(path.unwrap_or_default());
                let mut polls = 0;
                std::future::poll_fn(|_| {
                    polls += 1;
                    if self.0.borrow().len() >= 2 || polls > 100 {
                        std::task::Poll::Ready(())
                    } else {
                        std::task::Poll::Pending
                    }
                })
                .await;
                if self.0.borrow().len() < 2 {
                    return Err(ApiError::Network("sent one at a time".into()));
                }
                match plan.url.ends_with("/api/settings") {
                    // The key is refused and the server's info is unreachable: the plan's first
                    // request (settings) decides: an auth error, not retried.
                    true => Ok(RawResponse::new(401, "{}")),
                    false => Err(ApiError::Network("refused".into())),
                }
            }
        }
        let t = BothOut(RefCell::new(Vec::new()));
        let out = run(probe(&local(), &t, ProbePolicy::DEFAULT, |_| async {}));
        assert_eq!(*t.0.borrow(), ["1/api/settings", "1/server_info"]);
        assert_eq!(
            out,
            ProbeOutcome::Failed {
                message: "Invalid API key".into(),
                error: ProbeError::Api(ApiError::Unauthorized),
            }
        );
    }

    #[test]
    fn br9_old_server_fails_the_gate_without_retry() {
        let t = Scripted::new(vec![settings(), info("1.20.0")]);
        let out = run(probe(&local(), &t, ProbePolicy::DEFAULT, |_| async {}));
        match out {
            ProbeOutcome::Failed {
                message,
                error: ProbeError::Gate(GateError::UnsupportedVersion { .. }),
            } => {
                assert!(
                    message.contains("1.28.0") && message.contains("1.20.0"),
                    "{message}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(t.sent.borrow().len(), 2);
    }

    #[test]
    fn br7_cloud_probes() {
        // Legacy key: 400 from /api/keys/current is healthy.
        let cloud = Backend::new(
            "c",
            "Cloud",
            "https://app.all-hands.dev",
            "sk",
            BackendKind::Cloud,
        );
        let t = Scripted::new(vec![Ok(RawResponse::new(400, "{}"))]);
        let out = run(probe(&cloud, &t, ProbePolicy::DEFAULT, |_| async {}));
        assert_eq!(out, ProbeOutcome::Healthy { version: None });
        assert_eq!(
            t.sent.borrow()[0].url,
            "https://app.all-hands.dev/api/keys/current"
        );
        assert_eq!(
            t.sent.borrow()[0].header("Authorization"),
            Some("Bearer sk")
        );
        // 401 ⇒ "Logged out".
        let t = Scripted::new(vec![Ok(RawResponse::new(401, "{}"))]);
        match run(probe(&cloud, &t, ProbePolicy::DEFAULT, |_| async {})) {
            ProbeOutcome::Failed { message, .. } => assert_eq!(message, "Logged out"),
            other => panic!("{other:?}"),
        }
        // A blank key: no request at all.
        let blank = Backend::new(
            "c",
            "Cloud",
            "https://app.all-hands.dev",
            " ",
            BackendKind::Cloud,
        );
        let t = Scripted::new(vec![]);
        match run(probe(&blank, &t, ProbePolicy::DEFAULT, |_| async {})) {
            ProbeOutcome::Failed { message, error } => {
                assert_eq!(message, "API key required");
                assert_eq!(error, ProbeError::Skipped);
            }
            other => panic!("{other:?}"),
        }
        assert!(t.sent.borrow().is_empty());
    }

    #[test]
    fn br7_probe_plan_table() {
        let local = Backend::new("l", "L", "http://h", "k", BackendKind::Local);
        let cloud = Backend::new("c", "C", "https://h", "t", BackendKind::Cloud);
        let blank = Backend::new("c", "C", "https://h", " ", BackendKind::Cloud);
        let cookie = Backend::locked_cloud("https://h");
        let paths = |p: ProbePlan| match p {
            ProbePlan::Requests(r) => r.iter().map(|r| r.path).collect::<Vec<_>>(),
            ProbePlan::Skip { .. } => vec!["<skip>"],
        };
        assert_eq!(paths(probe_plan(&local)), ["/api/settings", "/server_info"]);
        assert_eq!(paths(probe_plan(&cloud)), ["/api/keys/current"]);
        assert_eq!(paths(probe_plan(&cookie)), ["/api/organizations"]);
        assert_eq!(
            probe_plan(&blank),
            ProbePlan::Skip {
                message: "API key required".into()
            }
        );
        match probe_plan(&cloud) {
            ProbePlan::Requests(r) => assert_eq!(r[0].also_ok_status, Some(400)),
            other => panic!("{other:?}"),
        }
        match probe_plan(&local) {
            ProbePlan::Requests(r) => {
                assert!(r[0].authenticated && !r[1].authenticated && r[1].version_gate)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn br7_probe_messages_table() {
        let local = Backend::new("l", "L", "http://h", "k", BackendKind::Local);
        let cloud = Backend::new("c", "C", "https://h", "t", BackendKind::Cloud);
        let cases = vec![
            (&local, ApiError::Unauthorized, "Invalid API key"),
            (&cloud, ApiError::Unauthorized, "Logged out"),
            (
                &cloud,
                ApiError::Network("cors".into()),
                "Cloud API key or network issue",
            ),
            (
                &local,
                ApiError::Network("x".into()),
                "Disconnected (check URL or network)",
            ),
            (
                &local,
                ApiError::Timeout,
                "Disconnected (request timed out)",
            ),
            (
                &local,
                ApiError::Incompatible(GateError::UnsupportedVersion {
                    required: "1.28.0".into(),
                    reported: "1.0.0".into(),
                }),
                "Agent Canvas requires agent-server ≥ 1.28.0",
            ),
        ];
        for (b, err, prefix) in cases {
            let m = probe_failure_message(b, &err);
            assert!(m.starts_with(prefix), "{err:?}: {m}");
        }
    }
}
