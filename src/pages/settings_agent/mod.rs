//! `/settings/agent` (issue #13; in the settings chunk): the agent's and new conversations'
//! settings as forms the agent server's own schemas generate (`canvas_core::settings::form`).
//! The schema decides the fields, their editors, choices, defaults and help; minor fields wait
//! under "Show advanced"; a field whose condition is off hides; secrets are write-only; only
//! what changed is sent, in one `PATCH /api/settings`. Enter saves; a wrong value is named at
//! its field and nothing is sent.

use crate::services::settings as svc;
use crate::services::skills::not_available;
use crate::state::backends::use_backends;
use canvas_core::settings::form::{effective, Schema, SchemaKind};
use leptos::prelude::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

mod field;
mod form;

use form::AgentForm;

/// The edits of one form: field key → the text its editor holds.
type Edits = RwSignal<BTreeMap<String, String>>;

#[component]
pub fn AgentSection() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let data = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { svc::agent_forms(backends, &active).await }
    });
    let body = move || {
        data.get().map(|r| match r {
            Err(e) if not_available(&e) => view! {
                <p class="muted" data-testid="agent-settings-unavailable">
                    "Agent settings are not available on this backend."
                </p>
            }
            .into_any(),
            Err(e) => view! {
                <div class="error" role="alert" data-testid="agent-settings-error">
                    <p>{e.user_message()}</p>
                    <button class="btn" on:click=move |_| reload.update(|r| *r += 1)>"Try again"</button>
                </div>
            }
            .into_any(),
            Ok(forms) => view! { <AgentForm forms=forms reload=reload /> }.into_any(),
        })
    };
    view! {
        <div class="settings-section" data-testid="settings-agent">
            <Suspense fallback=|| view! { <p class="loading" data-testid="agent-settings-loading">"Loading the agent settings…"</p> }>
                {body}
            </Suspense>
        </div>
    }
}

/// One schema's form state.
#[derive(Clone)]
struct Form {
    kind: SchemaKind,
    schema: Arc<Schema>,
    values: Arc<Value>,
    edits: Edits,
}

impl Form {
    fn new(kind: SchemaKind, schema: Schema, values: Value) -> Form {
        Form {
            kind,
            schema: Arc::new(schema),
            values: Arc::new(values),
            edits: RwSignal::new(BTreeMap::new()),
        }
    }

    /// A field's value as the form has it now (tracks the edits).
    fn lookup(&self, key: &str) -> Value {
        let Some(f) = self
            .schema
            .sections
            .iter()
            .flat_map(|s| &s.fields)
            .find(|f| f.key == key)
        else {
            return Value::Null;
        };
        self.edits
            .with(|e| effective(f, &self.values, e.get(key).map(String::as_str)))
    }
}
