//! `/automations/webhooks` (issue #38): where other systems send events. Create one (its URL,
//! its secret shown this once, a copyable `curl` that sends a correctly signed test event),
//! rename, rotate the secret (shown once again), delete. An automation that reacts to events
//! names a webhook's source.

use crate::components::confirm::ConfirmDialog;
use crate::links::href;
use crate::services::automations as svc;
use crate::services::skills::not_available;
use crate::state::backends::use_backends;
use crate::state::i18n::{say, t, Said};
use canvas_core::automation::webhooks::{create_body, sample_event, signed_curl, Webhook};
use leptos::prelude::*;
use leptos_router::components::A;

/// A secret on screen: the webhook it signs for, and the secret.
type Shown = (Webhook, String);

/// What is asked before it happens.
#[derive(Clone)]
enum Asking {
    Rotate(Webhook),
    Delete(Webhook),
}

#[component]
pub fn WebhooksPage() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let list = LocalResource::new(move || {
        let active = backends.active.get();
        reload.track();
        async move { svc::webhooks(backends, &active).await }
    });
    let shown = RwSignal::new(None::<Shown>);
    let asking = RwSignal::new(None::<Asking>);
    let refresh = move || reload.update(|r| *r = r.wrapping_add(1));
    let rows = move || {
        list.get().map(|r| match r {
            Err(e) if not_available(&e) => view! {
                <p class="muted" data-testid="webhooks-unavailable">{t!("automations.webhooks.unavailable")}</p>
            }
            .into_any(),
            Err(e) => view! { <p class="error" role="alert">{e.said()}</p> }.into_any(),
            Ok(l) if l.is_empty() => {
                view! { <p class="empty" data-testid="webhooks-empty">{t!("automations.webhooks.empty")}</p> }.into_any()
            }
            Ok(l) => view! {
                <ul class="automation-list" data-testid="webhook-list">
                    {l.into_iter().map(|w| view! { <WebhookRow w=w asking=asking changed=Callback::new(move |_| refresh()) /> }).collect_view()}
                </ul>
            }
            .into_any(),
        })
    };
    let confirm = move || {
        asking.get().map(|a| {
            let close = Callback::new(move |_| asking.set(None));
            match a {
                Asking::Rotate(w) => {
                    let for_run = w.clone();
                    view! {
                        <ConfirmDialog title=t!("automations.webhooks.rotate") testid="rotate-webhook-dialog"
                            confirm_testid="confirm-rotate-webhook"
                            text=t!("automations.webhooks.rotate_confirm", name = w.name)
                            verb=t!("automations.webhooks.rotate") busy_verb=t!("automations.webhooks.rotate")
                            on_close=close on_done=Callback::new(|_| {})
                            run=move || {
                                let w = for_run.clone();
                                let active = backends.active.get_untracked();
                                async move {
                                    let secret = svc::rotate_webhook_secret(backends, &active, &w.id).await?;
                                    shown.set(Some((w, secret)));
                                    Ok(())
                                }
                            } />
                    }
                    .into_any()
                }
                Asking::Delete(w) => {
                    let id = w.id.clone();
                    view! {
                        <ConfirmDialog title=t!("automations.webhooks.delete") testid="delete-webhook-dialog"
                            confirm_testid="confirm-delete-webhook"
                            text=t!("automations.webhooks.delete_confirm", name = w.name, source = w.source)
                            verb=t!("automations.webhooks.delete") busy_verb=t!("automations.webhooks.delete")
                            gone_is_done=true on_close=close on_done=Callback::new(move |_| refresh())
                            run=move || {
                                let id = id.clone();
                                let active = backends.active.get_untracked();
                                async move { svc::delete_webhook(backends, &active, &id).await }
                            } />
                    }
                    .into_any()
                }
            }
        })
    };
    view! {
        <section class="page automations" data-testid="webhooks-page">
            <header class="page-header">
                <h1>{t!("automations.webhooks.title")}</h1>
                <A href=href("/automations") attr:class="btn">{t!("nav.automations")}</A>
            </header>
            <p class="muted">{t!("automations.webhooks.intro")}</p>
            {move || shown.get().map(|s| secret_box(s, shown))}
            <NewWebhook shown=shown created=Callback::new(move |_| refresh()) />
            {rows}
            {confirm}
        </section>
    }
}

/// The create form: a name and a source, checked as the service would before it is asked.
#[component]
fn NewWebhook(shown: RwSignal<Option<Shown>>, created: Callback<()>) -> impl IntoView {
    let backends = use_backends();
    let name = RwSignal::new(String::new());
    let source = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<(&'static str, String)>);
    let create = Action::new_local(move |body: &serde_json::Value| {
        let body = body.clone();
        let active = backends.active.get_untracked();
        async move {
            match svc::create_webhook(backends, &active, body).await {
                Ok(c) => {
                    name.set(String::new());
                    source.set(String::new());
                    if let Some(secret) = c.secret {
                        shown.set(Some((c.webhook, secret)));
                    }
                    created.run(());
                }
                Err(e) => {
                    problem.try_set(Some(("form", e.said())));
                }
            }
        }
    });
    let at = move |field: &'static str| {
        move || {
            problem.with(|p| {
                p.as_ref()
                    .filter(|(f, _)| *f == field)
                    .map(|(_, m)| m.clone())
            })
        }
    };
    let submit = move |ev: web_sys::SubmitEvent| {
        ev.prevent_default();
        match create_body(&name.get_untracked(), &source.get_untracked()) {
            Ok(body) => {
                problem.set(None);
                create.dispatch(body);
            }
            Err(e) => problem.set(Some((e.field(), say(&e.text())))),
        }
    };
    view! {
        <form class="form secret-form" data-testid="new-webhook" novalidate on:submit=submit>
            <h2>{t!("automations.webhooks.new")}</h2>
            <label class="field">
                <span>{t!("automations.webhooks.name")}</span>
                <input type="text" data-testid="webhook-name" prop:value=move || name.get()
                    aria-invalid=move || at("name")().is_some().to_string()
                    on:input=move |ev| name.set(event_target_value(&ev)) />
                <span class="field-error" role="alert" data-testid="webhook-name-error">{at("name")}</span>
            </label>
            <label class="field">
                <span>{t!("automations.webhooks.source")}</span>
                <input type="text" data-testid="webhook-source" placeholder="orders" spellcheck="false"
                    prop:value=move || source.get()
                    aria-invalid=move || at("source")().is_some().to_string()
                    on:input=move |ev| source.set(event_target_value(&ev)) />
                <span class="field-error" role="alert" data-testid="webhook-source-error">{at("source")}</span>
            </label>
            {move || at("form")().map(|e| view! { <p class="error" role="alert" data-testid="webhook-error">{e}</p> })}
            <div class="form-actions">
                <button type="submit" class="btn primary" data-testid="create-webhook" disabled=move || create.pending().get()>
                    {move || if create.pending().get() { t!("automations.webhooks.creating") } else { t!("automations.webhooks.create") }}
                </button>
            </div>
        </form>
    }
}

/// One webhook: its name, source and address; rename in place, rotate, delete.
#[component]
fn WebhookRow(
    w: Webhook,
    asking: RwSignal<Option<Asking>>,
    changed: Callback<()>,
) -> impl IntoView {
    let backends = use_backends();
    let renaming = RwSignal::new(false);
    let new_name = RwSignal::new(w.name.clone());
    let error = RwSignal::new(None::<String>);
    let id = w.id.clone();
    let rename = Action::new_local(move |n: &String| {
        let (n, id) = (n.clone(), id.clone());
        let active = backends.active.get_untracked();
        async move {
            match svc::rename_webhook(backends, &active, &id, &n).await {
                Ok(_) => changed.run(()),
                Err(e) => {
                    error.try_set(Some(e.said()));
                }
            }
        }
    });
    let (for_rotate, for_delete) = (w.clone(), w.clone());
    view! {
        <li class="automation-row" data-testid="webhook-row" data-source=w.source.clone()>
            <div class="automation-main">
                {move || if renaming.get() {
                    view! {
                        <form class="inline-form" on:submit=move |ev: web_sys::SubmitEvent| {
                            ev.prevent_default();
                            rename.dispatch(new_name.get_untracked());
                        }>
                            <input type="text" data-testid="webhook-new-name" aria-label=t!("automations.webhooks.name")
                                prop:value=move || new_name.get() on:input=move |ev| new_name.set(event_target_value(&ev)) />
                            <button type="submit" class="btn small primary" data-testid="save-webhook-name">{t!("automations.webhooks.save_name")}</button>
                            <button type="button" class="btn small" on:click=move |_| renaming.set(false)>{t!("automations.webhooks.cancel")}</button>
                        </form>
                    }
                    .into_any()
                } else {
                    view! { <span class="automation-name" data-testid="webhook-title">{w.name.clone()}</span> }.into_any()
                }}
                <span class="badge mono">{w.source.clone()}</span>
                {(!w.enabled).then(|| view! { <span class="badge">{t!("automations.webhooks.disabled")}</span> })}
            </div>
            <p class="muted automation-meta"><span>{t!("automations.webhooks.url")}" "</span><code class="mono wrap-anywhere">{w.webhook_url.clone()}</code></p>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
            <div class="automation-actions">
                <button type="button" class="btn small" data-testid="rename-webhook"
                    on:click=move |_| renaming.set(true)>{t!("automations.webhooks.rename")}</button>
                <button type="button" class="btn small" data-testid="rotate-webhook"
                    on:click=move |_| asking.set(Some(Asking::Rotate(for_rotate.clone())))>{t!("automations.webhooks.rotate")}</button>
                <button type="button" class="btn small danger" data-testid="delete-webhook"
                    on:click=move |_| asking.set(Some(Asking::Delete(for_delete.clone())))>{t!("automations.webhooks.delete")}</button>
            </div>
        </li>
    }
}

/// The secret, shown this once, with the address and a `curl` that sends a signed test event.
fn secret_box((w, secret): Shown, shown: RwSignal<Option<Shown>>) -> impl IntoView {
    let curl = signed_curl(&w, &secret, &sample_event("test.event"));
    view! {
        <div class="notice webhook-secret" role="status" data-testid="webhook-secret-box" data-source=w.source.clone()>
            <div>
                <p><strong>{w.name.clone()}</strong>" — "{t!("automations.webhooks.url")}" "<code class="mono wrap-anywhere" data-testid="webhook-url">{w.webhook_url.clone()}</code></p>
                <p>{t!("automations.webhooks.secret_once")}</p>
                <p><code class="mono wrap-anywhere" data-testid="webhook-secret">{secret.clone()}</code>" "{copy_button(secret)}</p>
                <p>{t!("automations.webhooks.curl")}</p>
                <pre class="mono webhook-curl" data-testid="webhook-curl">{curl.clone()}</pre>
                <p>{copy_button(curl)}" "
                    <button type="button" class="btn small" data-testid="hide-webhook-secret"
                        on:click=move |_| shown.set(None)>{t!("automations.webhooks.hide_secret")}</button>
                </p>
            </div>
        </div>
    }
}

fn copy_button(text: String) -> impl IntoView {
    let copied = RwSignal::new(false);
    let copy = Action::new_local(move |_: &()| {
        let text = text.clone();
        async move {
            if crate::platform::clipboard::copy(&text).await.is_ok() {
                copied.try_set(true);
            }
        }
    });
    view! {
        <button type="button" class="btn small" on:click=move |_| { copy.dispatch(()); }>
            {move || if copied.get() { t!("automations.webhooks.copied") } else { t!("automations.webhooks.copy") }}
        </button>
    }
}
