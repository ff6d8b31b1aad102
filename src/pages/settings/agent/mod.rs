//! `/settings/agent` (issue #13; in the settings chunk): the agent's and new conversations'
//! settings as forms the agent server's own schemas generate (`canvas_core::settings::form`).
//! The schema decides the fields, their editors, choices, defaults and help; minor fields wait
//! under "Show advanced"; a field whose condition is off hides; secrets are write-only; only
//! what changed is sent, in one `PATCH /api/settings`. Enter saves; a wrong value is named at
//! its field and nothing is sent.

use crate::components::loaded::{loaded, on_active, ListStates};
use crate::services::settings as svc;
use crate::state::i18n::t;
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
    let reload = RwSignal::new(0u32);
    let data = on_active(
        reload,
        move |b, a| async move { svc::agent_forms(b, &a).await },
    );
    let body = move || {
        data.get().map(|r| {
            let states = ListStates {
                prefix: "agent-settings",
                error_testid: None,
            };
            loaded(
                r,
                states,
                t!("settings.agent.unavailable"),
                None,
                reload,
                |forms| view! { <AgentForm forms=forms reload=reload /> }.into_any(),
            )
        })
    };
    view! {
        <div class="settings-section" data-testid="settings-agent">
            <Suspense fallback=|| view! { <p class="loading" data-testid="agent-settings-loading">{t!("settings.agent.loading")}</p> }>
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
