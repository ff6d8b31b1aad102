//! The "Add an MCP server" form: tried first with "Test", then added.

use super::TEST_TIMEOUT_S;
use crate::services::settings as svc;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::Said;
use crate::state::i18n::{self, t};
use canvas_core::settings::mcp::{McpForm, McpTest, Transport};
use leptos::prelude::*;

#[component]
pub(super) fn McpAddForm(names: Signal<Vec<String>>, on_added: Callback<()>) -> impl IntoView {
    let backends = use_backends();
    let form = RwSignal::new(McpForm::default());
    let error = RwSignal::new(None::<String>);
    let note = RwSignal::new(None::<(bool, String)>);
    let busy = RwSignal::new(None::<&'static str>);
    let test = test_action(backends, busy, note, error);
    let add = add_action(backends, busy, form, note, error, on_added);
    let start_test = move |_: web_sys::MouseEvent| {
        if busy.get_untracked().is_some() {
            return;
        }
        note.set(None);
        match form.with_untracked(|f| f.test_body(TEST_TIMEOUT_S)) {
            Ok(body) => {
                error.set(None);
                busy.set(Some("test"));
                test.dispatch(body);
            }
            Err(e) => error.set(Some(e.said())),
        }
    };
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked().is_some() {
            return;
        }
        note.set(None);
        let checked = form.with_untracked(|f| {
            f.check(&names.get_untracked())
                .and_then(|name| f.server_body().map(|b| (name, b)))
        });
        match checked {
            Ok(pair) => {
                error.set(None);
                busy.set(Some("add"));
                add.dispatch(pair);
            }
            Err(e) => error.set(Some(e.said())),
        }
    };
    let stdio = move || form.with(|f| f.transport == Transport::Stdio);
    let field = move |get: fn(&McpForm) -> &String| move || form.with(|f| get(f).clone());
    let options = Transport::ALL
        .iter()
        .map(|t| view! { <option value=t.token()>{i18n::say(&t.label_text())}</option> })
        .collect_view();
    view! {
        <form class="form secret-form" data-testid="mcp-form" on:submit=submit>
            <h2>{t!("settings.mcp.add_title")}</h2>
            <label class="field">
                <span>{t!("settings.common.name")}</span>
                <input type="text" data-testid="mcp-name" autocomplete="off" spellcheck="false" maxlength="64"
                    placeholder="fetch" prop:value=field(|f| &f.name)
                    on:input=move |ev| form.update(|f| f.name = event_target_value(&ev)) />
            </label>
            <label class="field">
                <span>{t!("settings.mcp.transport")}</span>
                <select data-testid="mcp-transport"
                    prop:value=move || form.with(|f| f.transport.token())
                    on:change=move |ev| {
                        let t = Transport::from_token(&event_target_value(&ev)).unwrap_or(Transport::Stdio);
                        form.update(|f| f.transport = t);
                    }>{options}</select>
            </label>
            <div class="mcp-stdio" hidden=move || !stdio()>
                {form_field(form, t!("settings.mcp.command"), "mcp-command", Some("text"), "uvx", |f| &f.command, |f, v| f.command = v)}
                <label class="field">
                    <span>{t!("settings.mcp.args")}</span>
                    <textarea data-testid="mcp-args" rows="2" spellcheck="false" placeholder="mcp-server-fetch"
                        prop:value=field(|f| &f.args)
                        on:input=move |ev| form.update(|f| f.args = event_target_value(&ev))></textarea>
                </label>
                {form_field(form, t!("settings.mcp.env"),
                    "mcp-env", None, "", |f| &f.env, |f, v| f.env = v)}
            </div>
            <div class="mcp-remote" hidden=stdio>
                {form_field(form, t!("settings.mcp.url"), "mcp-url", Some("url"), "https://mcp.example.com/mcp", |f| &f.url, |f, v| f.url = v)}
                {form_field(form, t!("settings.mcp.headers"),
                    "mcp-headers", None, "", |f| &f.headers, |f, v| f.headers = v)}
            </div>
            <label class="field">
                <span>{t!("settings.common.description_optional")}</span>
                <input type="text" data-testid="mcp-description" autocomplete="off"
                    prop:value=field(|f| &f.description)
                    on:input=move |ev| form.update(|f| f.description = event_target_value(&ev)) />
            </label>
            <p class="field-error" role="alert" data-testid="mcp-error" hidden=move || error.with(Option::is_none)>
                {move || error.get().unwrap_or_default()}
            </p>
            <p role="status" data-testid="mcp-note" data-ok=move || note.with(|n| matches!(n, Some((true, _))).to_string())
                class=move || if note.with(|n| matches!(n, Some((true, _)))) { "ok-note" } else { "field-error" }
                hidden=move || note.with(Option::is_none)>
                {move || note.get().map(|(_, m)| m).unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" data-testid="mcp-test" disabled=move || busy.get().is_some()
                    on:click=start_test>
                    {move || if busy.get() == Some("test") { t!("settings.mcp.testing") } else { t!("settings.common.test") }}
                </button>
                <button type="submit" class="btn primary" data-testid="mcp-add" disabled=move || busy.get().is_some()>
                    {move || if busy.get() == Some("add") { t!("settings.mcp.adding") } else { t!("settings.mcp.add") }}
                </button>
            </div>
        </form>
    }
}

/// Asks the server to connect to the server described and list its tools (nothing is stored).
fn test_action(
    backends: BackendsCtx,
    busy: RwSignal<Option<&'static str>>,
    note: RwSignal<Option<(bool, String)>>,
    error: RwSignal<Option<String>>,
) -> Action<serde_json::Value, ()> {
    Action::new_local(move |body: &serde_json::Value| {
        let body = body.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::test_mcp_server(backends, &active, &body).await;
            if busy.try_set(None).is_some() {
                return;
            }
            match r {
                Ok(t) => note.set(Some((
                    matches!(t, McpTest::Tools(_)),
                    i18n::say(&t.message_text()),
                ))),
                Err(e) => error.set(Some(e.said())),
            }
        }
    })
}

/// Adds the server; the form (with the values typed) is emptied once it is added.
fn add_action(
    backends: BackendsCtx,
    busy: RwSignal<Option<&'static str>>,
    form: RwSignal<McpForm>,
    note: RwSignal<Option<(bool, String)>>,
    error: RwSignal<Option<String>>,
    on_added: Callback<()>,
) -> Action<(String, serde_json::Value), ()> {
    Action::new_local(move |(name, body): &(String, serde_json::Value)| {
        let (name, body) = (name.clone(), body.clone());
        let active = backends.active.get_untracked();
        async move {
            let r = svc::add_mcp_server(backends, &active, &name, &body).await;
            if busy.try_set(None).is_some() {
                return;
            }
            match r {
                Ok(()) => {
                    // The values typed (environment, headers) leave the page with the form.
                    form.set(McpForm::default());
                    note.set(Some((true, t!("settings.mcp.added", name = name))));
                    on_added.run(());
                }
                Err(e) => error.set(Some(e.said())),
            }
        }
    })
}

/// A text field of the form: one line (an `input` of type `kind`, with `placeholder`) for what
/// the server runs or where it is; one entry per line (a `textarea`) when `kind` is `None`, for
/// values that are sent once and never shown again (environment, headers).
fn form_field(
    form: RwSignal<McpForm>,
    label: String,
    testid: &'static str,
    kind: Option<&'static str>,
    placeholder: &'static str,
    get: fn(&McpForm) -> &String,
    set: fn(&mut McpForm, String),
) -> impl IntoView {
    let value = move || form.with(|f| get(f).clone());
    let on_input = move |ev: leptos::ev::Event| form.update(|f| set(f, event_target_value(&ev)));
    let control = match kind {
        Some(kind) => view! {
            <input type=kind data-testid=testid autocomplete="off" spellcheck="false"
                placeholder=placeholder prop:value=value on:input=on_input />
        }
        .into_any(),
        None => view! {
            <textarea data-testid=testid rows="2" spellcheck="false" autocomplete="off"
                prop:value=value on:input=on_input></textarea>
        }
        .into_any(),
    };
    view! {
        <label class="field">
            <span>{label}</span>
            {control}
        </label>
    }
}
