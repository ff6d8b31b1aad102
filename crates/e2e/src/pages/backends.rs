//! Page object: backends — the selector's entries (one per backend, or per org of a cloud
//! backend), "Manage backends" with its add / edit / delete forms, onboarding, the public-mode
//! key screen, and the registry, selection and health this browser stores.

use crate::Browser;
use serde_json::{json, Value};

/// The add form's dialog.
const ADD: &str = "[data-testid=add-backend-dialog]";
/// The edit form's dialog.
const EDIT: &str = "[data-testid=edit-backend-dialog]";

/// Backend management (see the module docs).
pub struct BackendsPage<'a> {
    b: &'a Browser,
}

impl Browser {
    /// The backend selector, "Manage backends" and their forms.
    pub fn backends(&self) -> BackendsPage<'_> {
        BackendsPage { b: self }
    }
}

/// The selector's entry (entries, for a cloud backend) of backend `id`.
fn entry(id: &str) -> String {
    format!("[data-testid=backend-entry][data-backend-id='{id}']")
}

/// The "Manage backends" row of backend `id`.
fn manage_row(id: &str) -> String {
    format!("[data-testid=manage-row][data-backend-id='{id}']")
}

impl BackendsPage<'_> {
    // --- What this browser stores ---

    /// The backend registry in storage, parsed (`null` when none).
    pub async fn stored(&self) -> Value {
        self.b
            .js("return JSON.parse(localStorage.getItem('openhands-backends'))")
            .await
    }

    /// The backend registry in storage, as stored (`null` when none).
    pub async fn stored_raw(&self) -> Value {
        self.b
            .js("return localStorage.getItem('openhands-backends')")
            .await
    }

    /// Replaces the registry in storage with `list`.
    pub async fn store(&self, list: Value) {
        self.b
            .js(&format!(
                "localStorage.setItem('openhands-backends', JSON.stringify({list})); return true;"
            ))
            .await;
    }

    /// Adds a local backend to the registry in storage (as the Add form would).
    pub async fn store_local(&self, id: &str, name: &str, host: &str, key: &str) {
        self.b
            .js(&format!(
                "const list = JSON.parse(localStorage.getItem('openhands-backends') || '[]');
                 list.push({{id:{id}, name:{name}, host:{host}, apiKey:{key}, kind:'local'}});
                 localStorage.setItem('openhands-backends', JSON.stringify(list));
                 return list.length;",
                id = json!(id),
                name = json!(name),
                host = json!(host),
                key = json!(key),
            ))
            .await;
    }

    /// Stores `backend` (in `org`) as this tab's and the last selection.
    pub async fn store_selection(&self, backend: &str, org: Option<&str>) {
        self.b
            .js(&format!(
                "const sel = JSON.stringify({{backendId:{}, orgId:{}}});
                 localStorage.setItem('openhands-active-backend', sel);
                 sessionStorage.setItem('openhands-active-backend', sel);
                 return true;",
                json!(backend),
                json!(org)
            ))
            .await;
    }

    /// Stores `backend` (in `org`) as the last selection only (as another tab would).
    pub async fn store_last_selection(&self, backend: &str, org: Option<&str>) {
        self.b
            .js(&format!(
                "localStorage.setItem('openhands-active-backend',
                   JSON.stringify({{backendId:{}, orgId:{}}})); return true;",
                json!(backend),
                json!(org)
            ))
            .await;
    }

    /// This tab's selection (`{backendId, orgId}`, `null` when none).
    pub async fn selection(&self) -> Value {
        self.b
            .js("return JSON.parse(sessionStorage.getItem('openhands-active-backend'))")
            .await
    }

    /// The last selection made in any tab, as stored (`null` when none).
    pub async fn last_selection_raw(&self) -> Value {
        self.b
            .js("return localStorage.getItem('openhands-active-backend')")
            .await
    }

    /// Waits until this tab's selection is a backend not in `not`, with an org (`org` when
    /// given); its id.
    pub async fn wait_selected_other_than(
        &self,
        what: &str,
        not: &[&str],
        org: Option<&str>,
    ) -> String {
        let org_ok = match org {
            Some(o) => format!("s.orgId === {}", json!(o)),
            None => "s.orgId".to_string(),
        };
        self.b
            .wait_js(
                what,
                &format!(
                    "const s = JSON.parse(sessionStorage.getItem('openhands-active-backend') || 'null'); \
                     return s && !{}.includes(s.backendId) && {org_ok} ? s.backendId : null;",
                    json!(not)
                ),
            )
            .await
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Waits until the last selection is in `org`.
    pub async fn wait_last_selection_org(&self, what: &str, org: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "const s = JSON.parse(localStorage.getItem('openhands-active-backend')); \
                     return s && s.orgId === {};",
                    json!(org)
                ),
            )
            .await;
    }

    /// The stored health of every backend (`{}` when none).
    pub async fn health(&self) -> Value {
        self.b
            .js("return JSON.parse(localStorage.getItem('openhands-backend-health') || '{}')")
            .await
    }

    /// Replaces the stored health with `health`.
    pub async fn store_health(&self, health: Value) {
        self.b
            .js(&format!(
                "localStorage.setItem('openhands-backend-health', JSON.stringify({health})); return true;"
            ))
            .await;
    }

    /// Waits until backend `id` has no health record (healthy).
    pub async fn wait_healthy(&self, what: &str, id: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "const h = JSON.parse(localStorage.getItem('openhands-backend-health') || '{{}}'); \
                     return !h[{}];",
                    json!(id)
                ),
            )
            .await;
    }

    // --- The selector ---

    /// Clicks the selector's entry of backend `id` (its first org's, for a cloud backend).
    pub async fn select(&self, id: &str) {
        self.b.click(&entry(id)).await;
    }

    /// Clicks the selector's entry of cloud backend `id` in `org`.
    pub async fn select_org(&self, id: &str, org: &str) {
        self.b
            .click(&format!("{}[data-org-id='{org}']", entry(id)))
            .await;
    }

    /// Every entry of the selector: (backend id, org id, label).
    pub async fn entries(&self) -> Vec<(String, String, String)> {
        let v = self
            .b
            .js("return [...document.querySelectorAll('[data-testid=backend-entry]')].map(e => \
                 [e.dataset.backendId, e.dataset.orgId, e.querySelector('.backend-entry-label').innerText])")
            .await;
        serde_json::from_value(v).unwrap_or_default()
    }

    /// Waits until backend `id` has `n` entries.
    pub async fn wait_entry_count(&self, what: &str, id: &str, n: usize) {
        self.b
            .wait_js(
                what,
                &format!(
                    "return document.querySelectorAll('[data-testid=backend-entry][data-backend-id=\"{id}\"]').length === {n}"
                ),
            )
            .await;
    }

    /// Waits until `id`'s entry is marked active and connected.
    pub async fn wait_active_entry(&self, what: &str, id: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "const e = document.querySelector(\"{}\"); \
                     return !!e && e.getAttribute('aria-current') === 'true' && e.dataset.status === 'connected';",
                    entry(id)
                ),
            )
            .await;
    }

    /// Waits until the selector lists `n` entries, all connected.
    pub async fn wait_entries_connected(&self, what: &str, n: usize) {
        self.b
            .wait_js(
                what,
                &format!(
                    "const es = [...document.querySelectorAll('[data-testid=backend-entry]')]; \
                     return es.length === {n} && es.every(e => e.dataset.status === 'connected');"
                ),
            )
            .await;
    }

    /// The status of `id`'s entry right now.
    pub async fn entry_status(&self, id: &str) -> Value {
        self.b
            .js(&format!(
                "return document.querySelector(\"{}\").dataset.status",
                entry(id)
            ))
            .await
    }

    /// Waits until `id`'s entry has `status`.
    pub async fn wait_entry_status(&self, what: &str, id: &str, status: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "return document.querySelector(\"{}\")?.dataset.status === {}",
                    entry(id),
                    json!(status)
                ),
            )
            .await;
    }

    /// Waits until `id`'s entry has `status` and a hover text; that text.
    pub async fn wait_entry_hint(&self, what: &str, id: &str, status: &str) -> String {
        self.b
            .wait_js(
                what,
                &format!(
                    "const e = document.querySelector(\"{}\"); \
                     return e && e.dataset.status === {} ? e.title : null;",
                    entry(id),
                    json!(status)
                ),
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits for the entry of `org` whose text includes `label`.
    pub async fn wait_org_entry(&self, what: &str, org: &str, label: &str) {
        self.b
            .wait_js(
                what,
                &format!(
                    "const e = document.querySelector('[data-testid=backend-entry][data-org-id=\"{org}\"]'); \
                     return !!e && e.innerText.includes({});",
                    json!(label)
                ),
            )
            .await;
    }

    /// The accessible name of the selector's first entry.
    pub async fn first_entry_label(&self) -> Value {
        self.b
            .js("return document.querySelector('[data-testid=backend-entry]').getAttribute('aria-label')")
            .await
    }

    /// How many "Add backend" buttons the page offers.
    pub async fn add_buttons(&self) -> Value {
        self.b
            .js("return document.querySelectorAll('[data-testid=add-backend], [data-testid=manage-add-backend]').length")
            .await
    }

    // --- The add form ---

    /// Opens the add form from the sidebar, fills it (`kind`: `None` = inferred), tests the
    /// connection (expecting `expect` in the result) and saves.
    pub async fn add(&self, name: &str, host: &str, key: &str, kind: Option<&str>, expect: &str) {
        self.b.click("[data-testid=add-backend]").await;
        self.b
            .type_into(&format!("{ADD} [data-testid=backend-name]"), name)
            .await;
        self.b
            .type_into(&format!("{ADD} [data-testid=backend-host]"), host)
            .await;
        self.b
            .type_into(&format!("{ADD} [data-testid=backend-api-key]"), key)
            .await;
        if let Some(kind) = kind {
            let select = self
                .b
                .client
                .find(fantoccini::Locator::Css(&format!(
                    "{ADD} [data-testid=backend-kind]"
                )))
                .await
                .expect("kind select");
            select.select_by_value(kind).await.expect("choose kind");
        }
        self.b
            .click(&format!("{ADD} [data-testid=test-connection]"))
            .await;
        let script = "const r = document.querySelector('[data-testid=test-result]'); \
                      return r && r.dataset.outcome ? r.dataset.outcome + '|' + r.innerText : null;";
        let result = self.b.wait_js("the connection test", script).await;
        let result = result.as_str().unwrap_or_default().to_string();
        assert!(
            result.starts_with("ok|") && result.contains(expect),
            "test connection: {result}"
        );
        self.b
            .click(&format!("{ADD} [data-testid=save-backend]"))
            .await;
        self.wait_add_closed().await;
    }

    /// Waits until the add form is closed.
    pub async fn wait_add_closed(&self) {
        self.b
            .wait_js(
                "the add dialog to close",
                &format!("return !document.querySelector('{ADD}')"),
            )
            .await;
    }

    // --- The form on its own: onboarding, the locked-cloud key screen ---

    /// Waits for onboarding's backend form.
    pub async fn wait_onboarding(&self) {
        self.b
            .wait_js(
                "the onboarding screen",
                "return !!document.querySelector('[data-testid=onboarding] [data-testid=backend-form]')",
            )
            .await;
    }

    /// Whether onboarding is shown.
    pub async fn onboarding_shown(&self) -> bool {
        self.b
            .js("return !!document.querySelector('[data-testid=onboarding]')")
            .await
            == json!(true)
    }

    /// Types `text` into the form's field `field` (`name`, `host`, `api-key`).
    pub async fn fill(&self, field: &str, text: &str) {
        self.b
            .type_into(&format!("[data-testid=backend-{field}]"), text)
            .await;
    }

    /// Clicks the form's "Save".
    pub async fn save(&self) {
        self.b.click("[data-testid=save-backend]").await;
    }

    /// Clicks the form's "Test connection".
    pub async fn test_connection(&self) {
        self.b.click("[data-testid=test-connection]").await;
    }

    /// Waits for the form's connection-test error; its text.
    pub async fn wait_test_error(&self, what: &str) -> String {
        self.b
            .wait_js(
                what,
                "const e = document.querySelector('[data-testid=test-error]'); return e ? e.innerText : null;",
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits until the form shows at least two inline errors; their texts joined by `|`.
    pub async fn wait_field_errors(&self) -> String {
        self.b
            .wait_js(
                "inline errors",
                "const es = [...document.querySelectorAll('[data-testid=field-error]')].filter(e => !e.hidden); \
                 return es.length >= 2 ? es.map(e => e.innerText).join('|') : null;",
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    // --- Manage backends ---

    /// Clicks "Manage backends".
    pub async fn open_manage(&self) {
        self.b.click("[data-testid=manage-backends]").await;
    }

    /// Waits until the manage dialog is shown.
    pub async fn wait_manage(&self, what: &str) {
        self.b
            .wait_js(
                what,
                "return !!document.querySelector('[data-testid=manage-dialog]')",
            )
            .await;
    }

    /// Waits until the manage dialog is closed.
    pub async fn wait_manage_closed(&self) {
        self.b
            .wait_js(
                "the dialog to close",
                "return !document.querySelector('[data-testid=manage-dialog]')",
            )
            .await;
    }

    /// Waits for the error of `id`'s manage row; its text.
    pub async fn wait_row_error(&self, what: &str, id: &str) -> String {
        self.b
            .wait_js(
                what,
                &format!(
                    "const e = document.querySelector(\"{} [data-testid=manage-error]\"); return e ? e.innerText : null;",
                    manage_row(id)
                ),
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Clicks Edit on `id`'s manage row.
    pub async fn edit(&self, id: &str) {
        self.b
            .click(&format!("{} [data-testid=edit-backend]", manage_row(id)))
            .await;
    }

    /// Types `text` into the edit form's field `field` (`name`, `host`, `api-key`).
    pub async fn edit_field(&self, field: &str, text: &str) {
        self.b
            .type_into(&format!("{EDIT} [data-testid=backend-{field}]"), text)
            .await;
    }

    /// Clicks the edit form's "Save".
    pub async fn save_edit(&self) {
        self.b
            .click(&format!("{EDIT} [data-testid=save-backend]"))
            .await;
    }

    /// Clicks Delete on `id`'s manage row.
    pub async fn ask_delete(&self, id: &str) {
        self.b
            .click(&format!("{} [data-testid=delete-backend]", manage_row(id)))
            .await;
    }

    /// Confirms the deletion.
    pub async fn confirm_delete(&self) {
        self.b.click("[data-testid=confirm-delete]").await;
    }

    // --- Recovery and public mode ---

    /// Clicks the recovery screen's "Use the launcher's key".
    pub async fn use_launcher_key(&self) {
        self.b.click("[data-testid=use-launcher-key]").await;
    }

    /// Whether "Use the launcher's key" is offered.
    pub async fn launcher_key_offered(&self) -> bool {
        self.b
            .js("return !!document.querySelector('[data-testid=use-launcher-key]')")
            .await
            == json!(true)
    }

    /// Waits for the public-mode key screen.
    pub async fn wait_key_screen(&self) {
        self.b
            .wait_js(
                "the key screen",
                "return !!document.querySelector('[data-testid=public-key]')",
            )
            .await;
    }

    /// Whether the public-mode key screen is shown.
    pub async fn key_screen_shown(&self) -> bool {
        self.b
            .js("return !!document.querySelector('[data-testid=public-key]')")
            .await
            == json!(true)
    }

    /// The key screen's host field: `[value, readOnly]`.
    pub async fn key_screen_host(&self) -> Value {
        self.b
            .js("const e = document.querySelector('[data-testid=public-host]'); return [e.value, e.readOnly]")
            .await
    }

    /// Types `key` on the key screen and submits it.
    pub async fn enter_key(&self, key: &str) {
        self.b
            .type_into("[data-testid=public-key-input]", key)
            .await;
        self.b.click("[data-testid=public-key-submit]").await;
    }

    /// Waits for the key screen's inline error; its text.
    pub async fn wait_key_error(&self) -> String {
        self.b
            .wait_js(
                "the inline error",
                "const e = document.querySelector('[data-testid=public-key-error]'); \
                 return e && !e.hidden ? e.innerText : null;",
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits for the key screen's note that the key changed; its text.
    pub async fn wait_key_rotated(&self) -> String {
        self.b
            .wait_js(
                "the explanation",
                "const e = document.querySelector('[data-testid=key-rotated]'); return e ? e.innerText : null;",
            )
            .await
            .as_str()
            .unwrap_or_default()
            .to_string()
    }
}
