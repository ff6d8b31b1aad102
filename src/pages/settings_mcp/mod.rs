//! `/settings/mcp` (issue #13; in the settings chunk): the active backend's MCP servers — listed
//! (what each runs or where it is, the names of its environment variables and headers, never
//! their values), added (a command over stdio, or a URL over HTTP or SSE), tried first with
//! "Test" (the server connects and lists the tools; nothing is stored), edited (what it runs or
//! where it is, its description; secrets stay as stored), turned off and on, removed after
//! asking.
//! Rules and bodies are `canvas_core::mcp`.

use crate::components::confirm::ConfirmDialog;
use crate::services::settings as svc;
use crate::services::skills::not_available;
use crate::state::backends::use_backends;
use canvas_core::mcp::{enabled_patch, McpEdit, McpForm, McpServer, McpTest, Transport};
use leptos::prelude::*;

/// Seconds the server waits for a tested server to connect and list its tools.
const TEST_TIMEOUT_S: u32 = 30;

#[component]
pub fn McpSection() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let list = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { svc::mcp_servers(backends, &active).await }
    });
    let removing = RwSignal::new(None::<String>);
    let rows = move || {
        list.get().map(|r| match r {
            Err(e) if not_available(&e) => view! {
                <p class="muted" data-testid="mcp-unavailable">
                    "MCP servers are not available on this backend."
                </p>
            }
            .into_any(),
            Err(e) => view! {
                <div class="error" role="alert" data-testid="mcp-error-list">
                    <p>{e.user_message()}</p>
                    <button class="btn" on:click=move |_| reload.update(|r| *r += 1)>"Try again"</button>
                </div>
            }
            .into_any(),
            Ok(servers) if servers.is_empty() => view! {
                <p class="muted" data-testid="mcp-empty">"No MCP servers yet."</p>
            }
            .into_any(),
            Ok(servers) => view! {
                <ul class="secret-list" data-testid="mcp-list">
                    {servers.into_iter().map(|s| view! {
                        <McpRow server=s removing=removing on_changed=Callback::new(move |_| reload.update(|r| *r += 1)) />
                    }).collect_view()}
                </ul>
            }
            .into_any(),
        })
    };
    let names = Signal::derive(move || {
        list.get()
            .and_then(Result::ok)
            .map(|l| l.into_iter().map(|s| s.name).collect::<Vec<_>>())
            .unwrap_or_default()
    });
    let unsupported = move || matches!(list.get(), Some(Err(ref e)) if not_available(e));
    view! {
        <div class="settings-section" data-testid="settings-mcp">
            <p class="muted">
                "MCP servers give the agent more tools. The agent server starts (or connects to) \
                 each one for its conversations."
            </p>
            <Suspense fallback=|| view! { <p class="loading" data-testid="mcp-loading">"Loading MCP servers…"</p> }>
                {rows}
            </Suspense>
            <div hidden=unsupported>
                <McpAddForm names=names on_added=Callback::new(move |_| reload.update(|r| *r += 1)) />
            </div>
            {move || removing.get().map(|n| view! {
                <RemoveDialog name=n removing=removing on_removed=Callback::new(move |_| reload.update(|r| *r += 1)) />
            })}
        </div>
    }
}

#[component]
fn McpRow(
    server: McpServer,
    removing: RwSignal<Option<String>>,
    on_changed: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let name = server.name.clone();
    let label = format!("Remove {}", server.name);
    let secrets = server
        .env_names
        .iter()
        .map(|n| format!("env {n}"))
        .chain(server.header_names.iter().map(|n| format!("header {n}")))
        .collect::<Vec<_>>()
        .join(", ");
    let enabled = server.enabled;
    let stdio = server.transport == Transport::Stdio;
    let editing = RwSignal::new(false);
    let edit = RwSignal::new(McpEdit::of(&server));
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let stored = StoredValue::new(server.clone());
    // One change at a time; the list is read again after it.
    let send = Action::new_local(move |patch: &serde_json::Value| {
        let patch = patch.clone();
        let (active, name) = (
            backends.active.get_untracked(),
            stored.with_value(|s| s.name.clone()),
        );
        async move {
            let r = svc::update_mcp_server(backends, &active, &name, &patch).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(()) => {
                    editing.set(false);
                    on_changed.run(());
                }
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        match stored.with_value(|s| edit.with_untracked(|e| e.patch(s))) {
            Ok(None) => editing.set(false),
            Ok(Some(patch)) => {
                error.set(None);
                busy.set(true);
                send.dispatch(patch);
            }
            Err(e) => error.set(Some(e.message())),
        }
    };
    let toggle = move |_| {
        if busy.get_untracked() {
            return;
        }
        error.set(None);
        busy.set(true);
        send.dispatch(enabled_patch(!enabled));
    };
    let field = move |f: fn(&mut McpEdit) -> &mut String, get: fn(&McpEdit) -> String| {
        (
            move || edit.with(get),
            move |ev: leptos::ev::Event| {
                let v = event_target_value(&ev);
                edit.update(|e| *f(e) = v);
            },
        )
    };
    let (command, set_command) = field(|e| &mut e.command, |e| e.command.clone());
    let (args, set_args) = field(|e| &mut e.args, |e| e.args.clone());
    let (url, set_url) = field(|e| &mut e.url, |e| e.url.clone());
    let (description, set_description) = field(|e| &mut e.description, |e| e.description.clone());
    let edit_form = move || {
        editing.get().then(|| {
            let target = if stdio {
                view! {
                    <label>"Command"
                        <input type="text" data-testid="mcp-edit-command" prop:value=command on:input=set_command />
                    </label>
                    <label>"Arguments (one per line)"
                        <textarea rows="3" data-testid="mcp-edit-args" prop:value=args on:input=set_args></textarea>
                    </label>
                }
                .into_any()
            } else {
                view! {
                    <label>"URL"
                        <input type="url" data-testid="mcp-edit-url" prop:value=url on:input=set_url />
                    </label>
                }
                .into_any()
            };
            view! {
                <form class="mcp-edit" data-testid="mcp-edit" on:submit=save>
                    {target}
                    <label>"Description"
                        <input type="text" data-testid="mcp-edit-description" prop:value=description
                            on:input=set_description />
                    </label>
                    <p class="muted">"Environment values and headers stay as stored (remove and add \
                        the server again to change them)."</p>
                    <div class="form-actions">
                        <button type="submit" class="btn primary" data-testid="mcp-edit-save"
                            disabled=move || busy.get()>{move || if busy.get() { "Saving…" } else { "Save" }}</button>
                        <button type="button" class="btn" on:click=move |_| {
                            editing.set(false);
                            error.set(None);
                        }>"Cancel"</button>
                    </div>
                </form>
            }
        })
    };
    view! {
        <li class="secret-row mcp-row" data-testid="mcp-row" data-name=server.name.clone()
            data-enabled=enabled.to_string()>
            <code class="secret-name">{server.name.clone()}</code>
            <span class="mcp-target">
                <span class="muted">{server.transport.label()}": "</span>
                <code data-testid="mcp-target">{server.target()}</code>
                {server.description.clone().map(|d| view! { <span class="muted" data-testid="mcp-description">" — "{d}</span> })}
                {(!enabled).then(|| view! { <span class="badge" data-testid="mcp-disabled">"off"</span> })}
            </span>
            <span class="muted" data-testid="mcp-secrets" title="Values are kept by the server and never shown">
                {secrets}
            </span>
            <button type="button" class="btn small" data-testid="toggle-mcp" disabled=move || busy.get()
                on:click=toggle>{if enabled { "Turn off" } else { "Turn on" }}</button>
            <button type="button" class="btn small" data-testid="edit-mcp" aria-expanded=move || editing.get().to_string()
                on:click=move |_| editing.update(|e| *e = !*e)>"Edit"</button>
            <button type="button" class="btn small danger" data-testid="remove-mcp" aria-label=label
                on:click=move |_| removing.set(Some(name.clone()))>"Remove"</button>
            {edit_form}
            {move || error.get().map(|e| view! { <p class="field-error" role="alert" data-testid="mcp-row-error">{e}</p> })}
        </li>
    }
}

#[component]
fn McpAddForm(names: Signal<Vec<String>>, on_added: Callback<()>) -> impl IntoView {
    let backends = use_backends();
    let form = RwSignal::new(McpForm::default());
    let error = RwSignal::new(None::<String>);
    let note = RwSignal::new(None::<(bool, String)>);
    let busy = RwSignal::new(None::<&'static str>);
    let test = Action::new_local(move |body: &serde_json::Value| {
        let body = body.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::test_mcp_server(backends, &active, &body).await;
            if busy.try_set(None).is_some() {
                return;
            }
            match r {
                Ok(t) => note.set(Some((matches!(t, McpTest::Tools(_)), t.message()))),
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
    let add = Action::new_local(move |(name, body): &(String, serde_json::Value)| {
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
                    note.set(Some((true, format!("Added {name}."))));
                    on_added.run(());
                }
                Err(e) => error.set(Some(e.user_message())),
            }
        }
    });
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
            Err(e) => error.set(Some(e.message())),
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
            Err(e) => error.set(Some(e.message())),
        }
    };
    let stdio = move || form.with(|f| f.transport == Transport::Stdio);
    let field = move |get: fn(&McpForm) -> &String| move || form.with(|f| get(f).clone());
    let options = Transport::ALL
        .iter()
        .map(|t| view! { <option value=t.token()>{t.label()}</option> })
        .collect_view();
    view! {
        <form class="form secret-form" data-testid="mcp-form" on:submit=submit>
            <h2>"Add an MCP server"</h2>
            <label class="field">
                <span>"Name"</span>
                <input type="text" data-testid="mcp-name" autocomplete="off" spellcheck="false" maxlength="64"
                    placeholder="fetch" prop:value=field(|f| &f.name)
                    on:input=move |ev| form.update(|f| f.name = event_target_value(&ev)) />
            </label>
            <label class="field">
                <span>"How the agent server reaches it"</span>
                <select data-testid="mcp-transport"
                    prop:value=move || form.with(|f| f.transport.token())
                    on:change=move |ev| {
                        let t = Transport::from_token(&event_target_value(&ev)).unwrap_or(Transport::Stdio);
                        form.update(|f| f.transport = t);
                    }>{options}</select>
            </label>
            <div class="mcp-stdio" hidden=move || !stdio()>
                <label class="field">
                    <span>"Command"</span>
                    <input type="text" data-testid="mcp-command" autocomplete="off" spellcheck="false"
                        placeholder="uvx" prop:value=field(|f| &f.command)
                        on:input=move |ev| form.update(|f| f.command = event_target_value(&ev)) />
                </label>
                <label class="field">
                    <span>"Arguments (one per line)"</span>
                    <textarea data-testid="mcp-args" rows="2" spellcheck="false" placeholder="mcp-server-fetch"
                        prop:value=field(|f| &f.args)
                        on:input=move |ev| form.update(|f| f.args = event_target_value(&ev))></textarea>
                </label>
                <label class="field">
                    <span>"Environment (NAME=value, one per line; values are never shown again)"</span>
                    <textarea data-testid="mcp-env" rows="2" spellcheck="false" autocomplete="off"
                        prop:value=field(|f| &f.env)
                        on:input=move |ev| form.update(|f| f.env = event_target_value(&ev))></textarea>
                </label>
            </div>
            <div class="mcp-remote" hidden=stdio>
                <label class="field">
                    <span>"URL"</span>
                    <input type="url" data-testid="mcp-url" autocomplete="off" spellcheck="false"
                        placeholder="https://mcp.example.com/mcp" prop:value=field(|f| &f.url)
                        on:input=move |ev| form.update(|f| f.url = event_target_value(&ev)) />
                </label>
                <label class="field">
                    <span>"Headers (Name: value, one per line; values are never shown again)"</span>
                    <textarea data-testid="mcp-headers" rows="2" spellcheck="false" autocomplete="off"
                        prop:value=field(|f| &f.headers)
                        on:input=move |ev| form.update(|f| f.headers = event_target_value(&ev))></textarea>
                </label>
            </div>
            <label class="field">
                <span>"Description (optional)"</span>
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
                    {move || if busy.get() == Some("test") { "Testing…" } else { "Test" }}
                </button>
                <button type="submit" class="btn primary" data-testid="mcp-add" disabled=move || busy.get().is_some()>
                    {move || if busy.get() == Some("add") { "Adding…" } else { "Add server" }}
                </button>
            </div>
        </form>
    }
}

#[component]
fn RemoveDialog(
    name: String,
    removing: RwSignal<Option<String>>,
    on_removed: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let text = format!("Remove the MCP server {name}? New conversations no longer get its tools.");
    view! {
        <ConfirmDialog title="Remove MCP server" testid="remove-mcp-dialog"
            confirm_testid="confirm-remove-mcp" text=text verb="Remove" busy_verb="Removing…"
            gone_is_done=true on_close=Callback::new(move |_| removing.set(None)) on_done=on_removed
            run=move || {
                let (n, active) = (name.clone(), backends.active.get_untracked());
                async move { svc::remove_mcp_server(backends, &active, &n).await }
            } />
    }
}
