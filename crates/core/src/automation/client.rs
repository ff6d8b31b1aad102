//! The automation service's calls (sans-IO), a capability object a backend client hands out
//! with [`BackendApi::automations`](crate::client::BackendApi::automations): local backends reach
//! the service on the agent server's origin under `/api/automation` with the session key, cloud
//! backends on the cloud host with their Bearer key. Plain data, no vtable: only the pages that
//! use it pull its decoders into their chunk.

use serde_json::Value;

use crate::automation::drafts::{decode_draft, decode_drafts, dispatch_body, ServiceDraft};
use crate::automation::find::{decode_tags, TagCount};
use crate::automation::git_sync::{
    decode_check, decode_status, decode_triggered, GitSyncCheck, GitSyncStatus,
};
use crate::automation::model::{
    decode_automation, decode_automation_page, decode_capabilities, decode_done, decode_run,
    decode_run_page, state_patch, Automation, AutomationPage, Capabilities, Run, RunPage,
};
use crate::automation::transfer::{decode_tarball, decode_upload};
use crate::automation::webhooks::{
    decode_created, decode_secret, decode_validation, decode_webhook, decode_webhooks,
    validate_body, Created, FieldProblem, Webhook,
};
use crate::automation::AutomationDraft;
use crate::client::service::Planned;
use crate::transport::encode::{id_segment, join_url, with_query, Query};
use crate::transport::plan::{Body, Call, Decoder, Method, RequestPlan};

/// Ordinary automation requests.
pub const TIMEOUT_MS: u32 = 15_000;
/// Creating uploads a tarball on the service's side.
pub const CREATE_TIMEOUT_MS: u32 = 60_000;
/// Most items one page may ask for (the service's `le=100`).
pub const MAX_LIMIT: u32 = 100;

/// Where the automation service is and how to authenticate to it.
#[derive(Debug, Clone, PartialEq)]
pub struct AutomationClient {
    /// `…/api/automation`, no trailing `/`.
    base: String,
    headers: Vec<(String, String)>,
}

impl AutomationClient {
    /// The service at `origin` + `/api/automation`, with `headers` (auth) on every request.
    pub fn new(origin: &str, headers: Vec<(String, String)>) -> Self {
        AutomationClient {
            base: join_url(origin, "/api/automation"),
            headers,
        }
    }

    /// The service's base URL (`…/api/automation`).
    pub fn base(&self) -> &str {
        &self.base
    }

    fn call<T: 'static>(
        &self,
        method: Method,
        path_and_query: &str,
        body: Body,
        timeout_ms: u32,
        decoder: Decoder<T>,
    ) -> Call<T> {
        Call::new(
            RequestPlan::direct(
                method,
                &self.base,
                path_and_query,
                self.headers.clone(),
                body,
                timeout_ms,
            ),
            decoder,
        )
    }

    fn get<T: 'static>(&self, path_and_query: &str, decoder: Decoder<T>) -> Call<T> {
        self.call(Method::Get, path_and_query, Body::None, TIMEOUT_MS, decoder)
    }

    /// `GET /v1/capabilities`: the cron floor and accepted zones.
    pub fn capabilities(&self) -> Call<Capabilities> {
        self.get("/v1/capabilities", decode_capabilities)
    }

    /// `GET /v1?limit&offset[&tag]`: newest first, only those with `tag` when given.
    pub fn list(&self, limit: u32, offset: u64, tag: Option<&str>) -> Call<AutomationPage> {
        let q = Query::new()
            .push("limit", limit.clamp(1, MAX_LIMIT))
            .push("offset", offset)
            .push_opt("tag", tag);
        self.get(&with_query("/v1", &q), decode_automation_page)
    }

    /// `GET /v1/tags`: every tag in use, most used first.
    pub fn tags(&self) -> Call<Vec<TagCount>> {
        self.get("/v1/tags", decode_tags)
    }

    /// `GET /v1/{id}`.
    pub fn get_automation(&self, id: &str) -> Planned<Automation> {
        Ok(self.get(&format!("/v1/{}", id_segment(id)?), decode_automation))
    }

    /// Creates `d` (validated): `POST /v1/preset/prompt`, or `POST /v1` for its own code.
    pub fn create(&self, d: &AutomationDraft) -> Call<Automation> {
        self.call(
            Method::Post,
            d.create_path(),
            Body::Json(d.create_body()),
            CREATE_TIMEOUT_MS,
            decode_automation,
        )
    }

    /// `POST /v1/preset/prompt` with a body made elsewhere (a template's,
    /// [`Template::create_body`](crate::automation::templates::Template::create_body)).
    pub fn create_preset(&self, body: Value) -> Call<Automation> {
        self.call(
            Method::Post,
            "/v1/preset/prompt",
            Body::Json(body),
            CREATE_TIMEOUT_MS,
            decode_automation,
        )
    }

    /// `POST /v1/uploads?name=`: an archive of code, as it is (the service takes the raw tar,
    /// not a form); answers where the service keeps it.
    pub fn upload(&self, name: &str, content_type: &str, bytes: Vec<u8>) -> Call<String> {
        let q = Query::new().push("name", name);
        self.call(
            Method::Post,
            &with_query("/v1/uploads", &q),
            Body::Bytes {
                bytes,
                content_type: content_type.into(),
            },
            CREATE_TIMEOUT_MS,
            decode_upload,
        )
    }

    /// `PATCH /v1/{id}` with a partial body.
    pub fn update(&self, id: &str, patch: Value) -> Planned<Automation> {
        Ok(self.call(
            Method::Patch,
            &format!("/v1/{}", id_segment(id)?),
            Body::Json(patch),
            TIMEOUT_MS,
            decode_automation,
        ))
    }

    /// Turn it on or off (`state` ACTIVE/INACTIVE).
    pub fn set_active(&self, id: &str, active: bool) -> Planned<Automation> {
        self.update(id, state_patch(active))
    }

    /// `DELETE /v1/{id}` (204).
    pub fn delete(&self, id: &str) -> Planned<()> {
        Ok(self.call(
            Method::Delete,
            &format!("/v1/{}", id_segment(id)?),
            Body::None,
            TIMEOUT_MS,
            decode_done,
        ))
    }

    /// `POST /v1/{id}/dispatch` ("Run now") → the PENDING run.
    pub fn dispatch(&self, id: &str) -> Planned<Run> {
        Ok(self.call(
            Method::Post,
            &format!("/v1/{}/dispatch", id_segment(id)?),
            Body::None,
            TIMEOUT_MS,
            decode_run,
        ))
    }

    /// `GET /v1/{id}/runs?limit&offset`: newest first, with lifetime counts.
    pub fn runs(&self, id: &str, limit: u32, offset: u64) -> Planned<RunPage> {
        let q = Query::new()
            .push("limit", limit.clamp(1, MAX_LIMIT))
            .push("offset", offset);
        Ok(self.get(
            &with_query(&format!("/v1/{}/runs", id_segment(id)?), &q),
            decode_run_page,
        ))
    }

    /// `POST /v1/runs/{run}/cancel` (409 once the run finished).
    pub fn cancel_run(&self, run_id: &str) -> Planned<Run> {
        Ok(self.call(
            Method::Post,
            &format!("/v1/runs/{}/cancel", id_segment(run_id)?),
            Body::None,
            TIMEOUT_MS,
            decode_run,
        ))
    }

    /// `GET /v1/webhooks`: the custom webhooks, newest first (their secrets never come back).
    pub fn webhooks(&self) -> Call<Vec<Webhook>> {
        let q = Query::new().push("limit", MAX_LIMIT).push("offset", 0);
        self.get(&with_query("/v1/webhooks", &q), decode_webhooks)
    }

    /// `POST /v1/webhooks` (see [`webhooks::create_body`]) → the webhook and its secret, once.
    pub fn create_webhook(&self, body: Value) -> Call<Created> {
        self.call(
            Method::Post,
            "/v1/webhooks",
            Body::Json(body),
            TIMEOUT_MS,
            decode_created,
        )
    }

    /// `PATCH /v1/webhooks/{id}` (`name`, `enabled`, …; not the source).
    pub fn update_webhook(&self, id: &str, patch: Value) -> Planned<Webhook> {
        Ok(self.call(
            Method::Patch,
            &format!("/v1/webhooks/{}", id_segment(id)?),
            Body::Json(patch),
            TIMEOUT_MS,
            decode_webhook,
        ))
    }

    /// `DELETE /v1/webhooks/{id}` (204). Automations on its source stay and get no events.
    pub fn delete_webhook(&self, id: &str) -> Planned<()> {
        Ok(self.call(
            Method::Delete,
            &format!("/v1/webhooks/{}", id_segment(id)?),
            Body::None,
            TIMEOUT_MS,
            decode_done,
        ))
    }

    /// `POST /v1/webhooks/{id}/rotate-secret` → the new secret, once (the old one stops).
    pub fn rotate_webhook_secret(&self, id: &str) -> Planned<String> {
        Ok(self.call(
            Method::Post,
            &format!("/v1/webhooks/{}/rotate-secret", id_segment(id)?),
            Body::None,
            TIMEOUT_MS,
            decode_secret,
        ))
    }

    /// `POST /v1/validate` of a prompt automation's create body: what it would refuse, by field.
    pub fn validate(&self, create_body: &Value) -> Call<Vec<FieldProblem>> {
        self.call(
            Method::Post,
            "/v1/validate",
            Body::Json(validate_body(create_body)),
            TIMEOUT_MS,
            decode_validation,
        )
    }

    /// `GET /v1/git-sync/status`: the organization's git sync settings and last sync.
    pub fn git_sync_status(&self) -> Call<GitSyncStatus> {
        self.get("/v1/git-sync/status", decode_status)
    }

    /// `PUT /v1/git-sync/config` with [`GitSyncForm::body`](crate::automation::git_sync::GitSyncForm::body).
    pub fn save_git_sync(&self, body: Value) -> Call<GitSyncStatus> {
        self.call(
            Method::Put,
            "/v1/git-sync/config",
            Body::Json(body),
            TIMEOUT_MS,
            decode_status,
        )
    }

    /// `POST /v1/git-sync/check`: whether git reaches the repository with these settings
    /// (nothing is saved). git may take a while to answer.
    pub fn check_git_sync(&self, body: Value) -> Call<GitSyncCheck> {
        self.call(
            Method::Post,
            "/v1/git-sync/check",
            Body::Json(body),
            CREATE_TIMEOUT_MS,
            decode_check,
        )
    }

    /// `POST /v1/git-sync/sync`: a sync now (`false`: one was already running).
    pub fn sync_git(&self) -> Call<bool> {
        self.call(
            Method::Post,
            "/v1/git-sync/sync",
            Body::None,
            TIMEOUT_MS,
            decode_triggered,
        )
    }

    /// `GET /v1/{id}/tarball`: the code a run executes, as the service stores it.
    pub fn tarball(&self, id: &str) -> Planned<Vec<u8>> {
        Ok(self.get(&format!("/v1/{}/tarball", id_segment(id)?), decode_tarball))
    }

    /// `GET /v1/drafts?limit=100`: the user's drafts, newest first.
    pub fn drafts(&self) -> Call<Vec<ServiceDraft>> {
        let q = Query::new().push("limit", MAX_LIMIT).push("offset", 0);
        self.get(&with_query("/v1/drafts", &q), decode_drafts)
    }

    /// `POST /v1/drafts` with [`draft_body`](crate::automation::drafts::draft_body) (`new`).
    pub fn create_draft(&self, body: Value) -> Call<ServiceDraft> {
        self.call(
            Method::Post,
            "/v1/drafts",
            Body::Json(body),
            TIMEOUT_MS,
            decode_draft,
        )
    }

    /// `PATCH /v1/drafts/{id}`.
    pub fn update_draft(&self, id: &str, body: Value) -> Planned<ServiceDraft> {
        Ok(self.call(
            Method::Patch,
            &format!("/v1/drafts/{}", id_segment(id)?),
            Body::Json(body),
            TIMEOUT_MS,
            decode_draft,
        ))
    }

    /// `DELETE /v1/drafts/{id}` (its test automation goes with it).
    pub fn delete_draft(&self, id: &str) -> Planned<()> {
        Ok(self.call(
            Method::Delete,
            &format!("/v1/drafts/{}", id_segment(id)?),
            Body::None,
            TIMEOUT_MS,
            decode_done,
        ))
    }

    /// `POST /v1/drafts/{id}/dispatch`: a test run (of the draft's test automation).
    pub fn dispatch_draft(&self, id: &str, event: Option<Value>) -> Planned<Run> {
        Ok(self.call(
            Method::Post,
            &format!("/v1/drafts/{}/dispatch", id_segment(id)?),
            Body::Json(dispatch_body(event)),
            CREATE_TIMEOUT_MS,
            decode_run,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn client() -> AutomationClient {
        AutomationClient::new(
            "http://127.0.0.1:8000/",
            vec![("X-Session-API-Key".into(), "k".into())],
        )
    }

    #[test]
    fn calls_go_under_api_automation_with_the_backends_auth() {
        let c = client();
        let p = c.list(500, 20, None).into_plan();
        assert_eq!(
            p.url,
            "http://127.0.0.1:8000/api/automation/v1?limit=100&offset=20"
        );
        let p = c.list(100, 0, Some("sales team")).into_plan();
        assert_eq!(
            p.url,
            "http://127.0.0.1:8000/api/automation/v1?limit=100&offset=0&tag=sales+team"
        );
        assert!(c
            .tags()
            .into_plan()
            .url
            .ends_with("/api/automation/v1/tags"));
        assert_eq!(p.header("x-session-api-key"), Some("k"));
        let p = c.dispatch("a/b").unwrap().into_plan();
        assert_eq!(p.method, Method::Post);
        assert_eq!(
            p.url,
            "http://127.0.0.1:8000/api/automation/v1/a%2Fb/dispatch"
        );
        let p = c.set_active("id", false).unwrap().into_plan();
        assert_eq!(p.method, Method::Patch);
        assert_eq!(p.body.json(), Some(&json!({"state": "INACTIVE"})));
        assert_eq!(
            c.cancel_run("r").unwrap().into_plan().url,
            "http://127.0.0.1:8000/api/automation/v1/runs/r/cancel"
        );
        assert!(c.delete("..").is_err());
    }
}
