//! One MCP server of the list: what it runs or where it is, off/on, edit, remove.

use crate::services::settings as svc;
use crate::state::backends::{use_backends, BackendsCtx};
use crate::state::i18n::Said;
use crate::state::i18n::{self, t};
use canvas_core::settings::mcp::{enabled_patch, McpEdit, McpServer, Transport};
use leptos::prelude::*;

#[component]
pub(super) fn McpRow(
    server: McpServer,
    removing: RwSignal<Option<String>>,
    on_changed: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let name = server.name.clone();
    let label = t!("settings.mcp.remove_label", name = server.name);
    let secrets = server
        .env_names
        .iter()
        .map(|n| t!("settings.mcp.env_name", name = n))
        .chain(
            server
                .header_names
                .iter()
                .map(|n| t!("settings.mcp.header_name", name = n)),
        )
        .collect::<Vec<_>>()
        .join(", ");
    let (target, masked) = server.shown_target();
    let enabled = server.enabled;
    let stdio = server.transport == Transport::Stdio;
    let editing = RwSignal::new(false);
    let edit = RwSignal::new(McpEdit::of(&server));
    let error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let stored = StoredValue::new(server.clone());
    // One change at a time; the list is read again after it.
    let send = send_action(backends, stored, busy, editing, error, on_changed);
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
            Err(e) => error.set(Some(e.said())),
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
    let edit_form = move || {
        editing
            .get()
            .then(|| edit_form(stdio, edit, busy, editing, error, save))
    };
    view! {
        <li class="secret-row mcp-row" data-testid="mcp-row" data-name=server.name.clone()
            data-enabled=enabled.to_string()>
            <code class="secret-name">{server.name.clone()}</code>
            <span class="mcp-target">
                <span class="muted">{i18n::say(&server.transport.label_text())}": "</span>
                <code data-testid="mcp-target">{target}</code>
                {server.description.clone().map(|d| view! { <span class="muted" data-testid="mcp-description">" — "{d}</span> })}
                {(!enabled).then(|| view! { <span class="badge" data-testid="mcp-disabled">{t!("settings.mcp.off")}</span> })}
            </span>
            {masked.then(|| view! {
                <p class="muted mcp-masked" data-testid="mcp-masked">{t!("settings.mcp.masked")}</p>
            })}
            <span class="muted" data-testid="mcp-secrets" title=t!("settings.mcp.secrets_title")>
                {secrets}
            </span>
            <button type="button" class="btn small" data-testid="toggle-mcp" disabled=move || busy.get()
                on:click=toggle>{if enabled { t!("settings.mcp.turn_off") } else { t!("settings.mcp.turn_on") }}</button>
            <button type="button" class="btn small" data-testid="edit-mcp" aria-expanded=move || editing.get().to_string()
                on:click=move |_| editing.update(|e| *e = !*e)>{t!("settings.common.edit")}</button>
            <button type="button" class="btn small danger" data-testid="remove-mcp" aria-label=label
                on:click=move |_| removing.set(Some(name.clone()))>{t!("settings.mcp.remove")}</button>
            {edit_form}
            {move || error.get().map(|e| view! { <p class="field-error" role="alert" data-testid="mcp-row-error">{e}</p> })}
        </li>
    }
}

/// Sends one change (a patch) to the server; the list is read again after it.
fn send_action(
    backends: BackendsCtx,
    stored: StoredValue<McpServer>,
    busy: RwSignal<bool>,
    editing: RwSignal<bool>,
    error: RwSignal<Option<String>>,
    on_changed: Callback<()>,
) -> Action<serde_json::Value, ()> {
    Action::new_local(move |patch: &serde_json::Value| {
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
                Err(e) => error.set(Some(e.said())),
            }
        }
    })
}

/// The edit form: what the server runs or where it is, and its description.
fn edit_form(
    stdio: bool,
    edit: RwSignal<McpEdit>,
    busy: RwSignal<bool>,
    editing: RwSignal<bool>,
    error: RwSignal<Option<String>>,
    save: impl FnMut(leptos::ev::SubmitEvent) + 'static,
) -> impl IntoView {
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
    let target = if stdio {
        view! {
            <label>{t!("settings.mcp.command")}
                <input type="text" data-testid="mcp-edit-command" prop:value=command on:input=set_command />
            </label>
            <label>{t!("settings.mcp.args")}
                <textarea rows="3" data-testid="mcp-edit-args" prop:value=args on:input=set_args></textarea>
            </label>
        }
        .into_any()
    } else {
        view! {
            <label>{t!("settings.mcp.url")}
                <input type="url" data-testid="mcp-edit-url" prop:value=url on:input=set_url />
            </label>
        }
        .into_any()
    };
    view! {
        <form class="mcp-edit" data-testid="mcp-edit" on:submit=save>
            {target}
            <label>{t!("settings.mcp.description")}
                <input type="text" data-testid="mcp-edit-description" prop:value=description
                    on:input=set_description />
            </label>
            <p class="muted">{t!("settings.mcp.edit_note")}</p>
            <div class="form-actions">
                <button type="submit" class="btn primary" data-testid="mcp-edit-save"
                    disabled=move || busy.get()>{move || if busy.get() { t!("settings.common.saving") } else { t!("settings.common.save") }}</button>
                <button type="button" class="btn" on:click=move |_| {
                    editing.set(false);
                    error.set(None);
                }>{t!("settings.common.cancel")}</button>
            </div>
        </form>
    }
}
