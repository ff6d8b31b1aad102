//! A test-only backend kind. It exists to prove the architecture rule of BR-10: a new kind is
//! its own client module plus one arm in the factory ([`backend_api`]); probing, the events
//! socket and the workspace tree accept it without any other change.
//!
//! The fake speaks a made-up protocol: health at `GET /fake/health` (authenticated), events
//! at `/fake/events/{id}`, the workspace as `GET /fake/tree?dir=` returning a JSON list of
//! names.

use crate::backends::probe_plan::{ProbePlan, ProbeRequest};
use crate::backends::record::BackendKind;
use crate::backends::selection::ActiveBackend;
use crate::client::decode::{decode_json, decode_text};
use crate::client::service::SocketTarget;
use crate::client::service::{
    BackendApi, CloudSandboxApi, ConversationsApi, EventsApi, FilesApi, GitApi, Planned,
    RuntimeApi, ServerApi, SettingsApi, SettingsPagesApi, SkillsApi, WorkspaceFile,
};
use crate::error::ApiError;
use crate::transport::auth::request_headers;
use crate::transport::encode::{id_segment, join_url, with_query, Query};
use crate::transport::plan::{Body, Call, Method, RequestPlan};
use crate::transport::routing::ConversationRef;
use crate::workspace::tree::Listing;

/// The fake kind's client.
#[derive(Debug, Clone)]
pub struct FakeApi {
    active: ActiveBackend,
}

impl FakeApi {
    /// The client of `active`.
    pub fn new(active: &ActiveBackend) -> Self {
        Self {
            active: active.clone(),
        }
    }

    fn get(&self, path_and_query: &str) -> RequestPlan {
        RequestPlan::direct(
            Method::Get,
            &self.active.backend.host,
            path_and_query,
            request_headers(&self.active.backend, &self.active),
            Body::None,
            1_000,
        )
    }
}

impl ServerApi for FakeApi {}
impl ConversationsApi for FakeApi {}
impl crate::client::service::ConversationStartApi for FakeApi {}
impl EventsApi for FakeApi {
    fn socket_target(
        &self,
        conv: &ConversationRef,
        _newest_timestamp: Option<&str>,
    ) -> Result<SocketTarget, ApiError> {
        let host = self.active.backend.host.replacen("http", "ws", 1);
        Ok(SocketTarget {
            url: join_url(&host, &format!("/fake/events/{}", id_segment(&conv.id)?)),
            key: self.active.backend.api_key.clone(),
        })
    }
}
impl RuntimeApi for FakeApi {}
impl CloudSandboxApi for FakeApi {}
impl crate::client::service::CloudAccountApi for FakeApi {}
impl crate::client::service::HostsApi for FakeApi {}

impl FilesApi for FakeApi {
    fn list_workspace(
        &self,
        _conv: &ConversationRef,
        _root: Option<&str>,
        dir: &str,
    ) -> Planned<Listing> {
        let q = Query::new().push("dir", dir);
        let dir = dir.to_string();
        Ok(Call::new(
            self.get(&with_query("/fake/tree", &q)),
            decode_json::<Vec<String>>,
        )
        .map(move |names| {
            Ok(Listing::Dir {
                dir: dir.clone(),
                names,
            })
        }))
    }

    fn read_workspace_file(
        &self,
        _conv: &ConversationRef,
        _root: Option<&str>,
        rel: &str,
    ) -> Planned<WorkspaceFile> {
        let q = Query::new().push("path", rel);
        Ok(
            Call::new(self.get(&with_query("/fake/file", &q)), decode_text)
                .map(|t| Ok(WorkspaceFile::Text(t))),
        )
    }
}
impl GitApi for FakeApi {}
impl SettingsApi for FakeApi {}
impl SettingsPagesApi for FakeApi {}
impl crate::client::service::AgentsApi for FakeApi {}
impl SkillsApi for FakeApi {}
impl crate::client::service::ConversationToolsApi for FakeApi {}

impl BackendApi for FakeApi {
    fn kind(&self) -> BackendKind {
        BackendKind::Fake
    }

    fn probe_plan(&self) -> ProbePlan {
        ProbePlan::Requests(vec![ProbeRequest::authenticated("/fake/health")])
    }

    /// The test backend's own words ("fake: " and the common message), in English.
    fn probe_failure_text(&self, error: &ApiError) -> crate::i18n::Text {
        crate::i18n::Text::as_is(format!("fake: {}", error.user_message()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backends::health::ProbePolicy;
    use crate::backends::probe::{probe, ProbeOutcome};
    use crate::backends::record::Backend;
    use crate::client::factory::backend_api;
    use crate::conversations::live::{live_source, Live};
    use crate::error::unsupported;
    use crate::test_util::block_on;
    use crate::transport::plan::{RawResponse, Transport};
    use crate::transport::routing::RoutingContext;
    use crate::workspace::tree::FileTree;
    use std::cell::RefCell;

    /// Answers every request with `answer` and records the URLs.
    struct Echo {
        answer: (u16, &'static str),
        urls: RefCell<Vec<String>>,
    }

    impl Transport for Echo {
        async fn send(&self, plan: RequestPlan) -> Result<RawResponse, ApiError> {
            self.urls.borrow_mut().push(plan.url.clone());
            Ok(RawResponse::new(self.answer.0, self.answer.1))
        }
    }

    fn fake() -> Backend {
        Backend::new("f", "Fake", "http://fake:9", "fk", BackendKind::Fake)
    }

    fn active() -> ActiveBackend {
        ActiveBackend {
            backend: fake(),
            org_id: None,
        }
    }

    #[test]
    fn the_factory_builds_the_fake_kind() {
        let api = backend_api(&active(), &RoutingContext::default());
        assert_eq!(api.kind(), BackendKind::Fake);
        assert!(!api.has_organizations());
        assert!(!api.runs_on_hosts());
        // Capabilities it lacks are one typed error, decided before any I/O.
        let err = api.list_conversations(None, 10).unwrap_err();
        assert!(err.is_unsupported(), "{err:?}");
        assert_eq!(err, unsupported!("feature.conversations"));
        assert!(api.describe_server().unwrap_err().is_unsupported());
    }

    #[test]
    fn probing_accepts_the_fake_kind() {
        let t = Echo {
            answer: (200, "{}"),
            urls: RefCell::new(Vec::new()),
        };
        let out = block_on(probe(&fake(), &t, ProbePolicy::DEFAULT, |_| async {}));
        assert_eq!(out, ProbeOutcome::Healthy { version: None });
        assert_eq!(*t.urls.borrow(), ["http://fake:9/fake/health"]);

        let t = Echo {
            answer: (401, ""),
            urls: RefCell::new(Vec::new()),
        };
        match block_on(probe(&fake(), &t, ProbePolicy::DEFAULT, |_| async {})) {
            ProbeOutcome::Failed { message, .. } => assert!(message.starts_with("fake: ")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_events_socket_accepts_the_fake_kind() {
        let Ok(Live::Socket(t)) = live_source(
            &active(),
            &ConversationRef::new("c1"),
            &RoutingContext::default(),
            None,
        ) else {
            panic!("the fake kind's live events come by socket");
        };
        assert_eq!(t.url, "ws://fake:9/fake/events/c1");
        assert_eq!(t.key, "fk");
    }

    #[test]
    fn the_workspace_tree_accepts_the_fake_kind() {
        let api = backend_api(&active(), &RoutingContext::default());
        let t = Echo {
            answer: (200, r#"["src/", "README.md"]"#),
            urls: RefCell::new(Vec::new()),
        };
        let listing = block_on(
            api.list_workspace(&ConversationRef::new("c1"), None, "")
                .unwrap()
                .send(&t),
        )
        .unwrap();
        let mut tree = FileTree::default();
        tree.apply(listing);
        assert!(tree.contains("src") && tree.contains("README.md"));
        assert!(tree.is_loaded("") && !tree.is_loaded("src"));
        assert_eq!(*t.urls.borrow(), ["http://fake:9/fake/tree?dir="]);
    }
}
