//! `/automations`: the list, its rows and the delete confirmation.

use super::drafts::DraftList;
use super::form::AutomationForm;
use super::{actions, load_error, next_run_text, run_badge, Controls, Editing};
use crate::components::backends::dialog::Dialog;
use crate::components::page_header::page_header;
use crate::links::pinned;
use crate::services::automations as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::{say, Said};
use crate::state::i18n::{t, tn};
use canvas_core::automation::drafts::ServiceDraft;
use canvas_core::automation::find::{KindFilter, ListQuery, StateFilter, TagCount, PARAMS};
use canvas_core::automation::Automation;
use canvas_core::backends::selection::ActiveBackend;
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

#[component]
pub fn AutomationsPage() -> impl IntoView {
    let backends = use_backends();
    let reload = RwSignal::new(0u32);
    let editing = RwSignal::new(None::<Editing>);
    let deleting = RwSignal::new(None::<Automation>);
    let notice = RwSignal::new(None::<String>);
    let import_error = RwSignal::new(None::<String>);
    // The search and filters start from the URL and are written back to it (replacing the
    // history entry), so a reload or a shared link shows the same list.
    let query = use_query_map();
    let find = RwSignal::new(query.with_untracked(|q| {
        ListQuery::from_pairs(PARAMS.iter().filter_map(|k| q.get_str(k).map(|v| (*k, v))))
    }));
    // The URL is written at once with `history.replaceState` (the router's navigation is
    // asynchronous: a reload right after typing could find an older query). Nothing else reads
    // these keys; the router sees the URL again at the next navigation.
    let set_find = move |f: ListQuery| {
        let url = crate::links::current_with_pairs(&PARAMS, &f.to_pairs());
        find.set(f);
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    };
    let set_find = StoredValue::new_local(set_find);
    let change = move |edit: &dyn Fn(&mut ListQuery)| {
        let mut f = find.get_untracked();
        edit(&mut f);
        set_find.with_value(|s| s(f));
    };
    // Every automation (with the tag, which the service filters), keyed by the active backend:
    // a switch never shows another backend's automations. Search, trigger and state are
    // matched here.
    let tag = Memo::new(move |_| find.with(|f| f.tag.clone()));
    let page = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        let tag = tag.get();
        async move {
            let page = svc::list(backends, &active, tag.as_deref()).await;
            (active, page)
        }
    });
    // Webhooks, git sync, import, drafts and tags are the automation service's: a backend
    // whose automations are something else (Omnigent's scheduled tasks) is not offered them.
    let tools = move || svc::has_service(backends, &backends.active.get());
    let tags = LocalResource::new(move || {
        reload.track();
        let active = backends.active.get();
        async move { svc::tags(backends, &active).await }
    });
    let changed = Callback::new(move |msg: Option<String>| {
        notice.set(msg);
        reload.update(|n| *n = n.wrapping_add(1));
    });
    // The automations the search and filters let through. Rows are keyed by what they show,
    // so typing in the search keeps the rows that stay (and their last runs) instead of
    // building them again.
    let shown = Memo::new(move |_| {
        let f = find.get();
        page.with(|p| match p {
            Some((_, Ok(p))) => p
                .automations
                .iter()
                .filter(|a| f.matches(a))
                .cloned()
                .collect(),
            _ => Vec::<Automation>::new(),
        })
    });
    let body = move || {
        let Some((active, result)) = page.get() else {
            return view! { <p class="loading" data-testid="automations-loading">{t!("automations.loading")}</p> }
                .into_any();
        };
        let p = match result {
            Err(e) => return load_error(&e, move || reload.update(|n| *n = n.wrapping_add(1))),
            Ok(p) => p,
        };
        let read = p.automations.len() as u64;
        let capped = p.total > read;
        let count = move || shown.with(Vec::len);
        // Nothing, or only drafts' test automations (shown when asked for).
        let nothing = move || count() == 0 && !find.with(ListQuery::narrows);
        let grid = move || find.with(|f| f.grid);
        view! {
            {move || nothing().then(|| view! {
                <div class="empty" data-testid="automations-empty">
                    <p>{t!("automations.empty")}</p>
                </div>
            })}
            {move || (!nothing()).then(|| view! {
                <p class="muted automations-count" role="status" data-testid="automations-count"
                    data-shown=count().to_string()>
                    {tn!("automations.find.count", read, shown = count())}
                    {capped.then(|| view! { " " {t!("automations.find.capped", count = read)} })}
                </p>
            })}
            {move || (count() == 0 && find.with(ListQuery::narrows)).then(|| view! {
                <div class="empty" data-testid="automations-none-match">
                    <p>{t!("automations.find.none_match")}</p>
                </div>
            })}
            <ul class=move || if grid() { "automation-list grid" } else { "automation-list" }
                data-testid="automation-list" data-count=move || count().to_string()
                data-view=move || if grid() { "grid" } else { "list" } hidden=move || count() == 0>
                <For each=move || shown.get() key=|a| format!("{a:?}") let:a>
                    <AutomationRow a=a active=active.clone() editing=editing
                        deleting=deleting changed=changed />
                </For>
            </ul>
        }
        .into_any()
    };
    view! {
        <section class="page automations" data-testid="automations-page">
            {page_header(t!("automations.title"), "btn primary", "new-automation", t!("automations.new"),
                move |_| editing.set(Some(Editing::New)))}
            <p class="automations-links" hidden=move || !tools()>
                <leptos_router::components::A href=crate::links::href("/automations/webhooks") attr:data-testid="webhooks-link"
                    on:mouseenter=move |_| crate::lazy::prefetch(crate::pages::automations::preload_webhooks)>
                    {t!("automations.webhooks.link")}
                </leptos_router::components::A>
                <leptos_router::components::A href=crate::links::href("/automations/templates") attr:data-testid="templates-link"
                    on:mouseenter=move |_| crate::lazy::prefetch(crate::pages::automations::preload_templates)>
                    {t!("automations.templates.link")}
                </leptos_router::components::A>
                <leptos_router::components::A href=crate::links::href("/automations/git-sync") attr:data-testid="git-sync-link"
                    on:mouseenter=move |_| crate::lazy::prefetch(crate::pages::automations::preload_git_sync)>
                    {t!("automations.git_sync.link")}
                </leptos_router::components::A>
                {import_button(editing, import_error)}
            </p>
            <p class="field-error" role="alert" data-testid="automation-import-error" hidden=move || import_error.get().is_none()>
                {move || import_error.get().unwrap_or_default()}
            </p>
            {find_bar(find, tags, change, tools)}
            <p class="notice" role="status" data-testid="automations-notice" hidden=move || notice.get().is_none()>
                {move || notice.get().unwrap_or_default()}
            </p>
            <Show when=tools>
                <DraftList reload=reload editing=editing notice=notice />
            </Show>
            {body}
            {move || editing.get().map(|e| view! { <AutomationForm editing=e close=Callback::new(move |saved: Option<Automation>| {
                editing.set(None);
                if let Some(a) = saved {
                    changed.run(Some(t!("automations.saved_named", name = a.name)));
                }
            }) drafted=Callback::new(move |d: ServiceDraft| {
                editing.set(None);
                changed.run(Some(match d.name {
                    Some(name) => t!("automations.drafts.saved_named", name = name),
                    None => t!("automations.drafts.saved"),
                }));
            }) /> })}
            {move || deleting.get().map(|a| view! { <DeleteAutomation a=a close=Callback::new(move |deleted: bool| {
                deleting.set(None);
                if deleted {
                    changed.run(Some(t!("automations.deleted")));
                }
            }) /> })}
        </section>
    }
}

/// "Import…": an export file (JSON) or an archive of code (a tarball, uploaded to the service
/// first) picked here opens the form, filled in, to be checked and named before it is created.
fn import_button(
    editing: RwSignal<Option<Editing>>,
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let backends = use_backends();
    let read = Action::new_local(move |file: &send_wrapper::SendWrapper<web_sys::File>| {
        let file = (**file).clone();
        let active = backends.active.get_untracked();
        async move {
            let json = file.name().to_ascii_lowercase().ends_with(".json")
                || file.type_() == "application/json";
            let read = if json {
                svc::read_export(&file).await
            } else {
                svc::upload_code(backends, &active, &file).await
            };
            match read {
                Ok(imported) => editing.set(Some(Editing::Import(imported))),
                Err(e) => error.set(Some(t!("automations.import.error", error = e))),
            }
        }
    });
    let on_change = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        error.set(None);
        if let Some(file) = input.files().and_then(|f| f.get(0)) {
            read.dispatch(send_wrapper::SendWrapper::new(file));
        }
        input.set_value("");
    };
    let busy = read.pending();
    view! {
        <label class="btn small attach-button" aria-disabled=move || busy.get().to_string()>
            {t!("automations.import.button")}
            <input type="file" class="attach-input" data-testid="automation-import"
                accept=".json,application/json,.tar,.tgz,.gz,application/x-tar,application/gzip"
                disabled=move || busy.get()
                aria-label=t!("automations.import.label") on:change=on_change />
        </label>
        <span class="muted" role="status" data-testid="automation-import-busy" hidden=move || !busy.get()>
            {t!("automations.import.uploading")}
        </span>
    }
}

/// The search box, trigger / state / tag choices and list-or-grid; each change goes to the URL.
/// `autocomplete="off"`: Chromium otherwise restores the fields' last values after a reload,
/// without an input event, over what the URL says (seen in e2e: an empty box over a filtered
/// list, and the focus lost while typing).
fn find_bar(
    find: RwSignal<ListQuery>,
    tags: LocalResource<Vec<TagCount>>,
    change: impl Fn(&dyn Fn(&mut ListQuery)) + Copy + 'static,
    tools: impl Fn() -> bool + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let kind_value = move || match find.with(|f| f.kind) {
        None => "",
        Some(KindFilter::Cron) => "cron",
        Some(KindFilter::Event) => "event",
    };
    let state_value = move || match find.with(|f| f.state) {
        None => "",
        Some(StateFilter::Active) => "active",
        Some(StateFilter::Paused) => "paused",
        Some(StateFilter::Draft) => "draft",
    };
    // The URL's tag is offered even when the service does not list it (any more).
    let tag_options = move || {
        let current = find.with(|f| f.tag.clone());
        let mut list: Vec<(String, Option<u64>)> = tags
            .get()
            .unwrap_or_default()
            .into_iter()
            .map(|t| (t.tag, Some(t.count)))
            .collect();
        if let Some(c) = current
            .clone()
            .filter(|c| !list.iter().any(|(t, _)| t == c))
        {
            list.push((c, None));
        }
        list.into_iter()
            .map(|(tag, count)| {
                let selected = current.as_deref() == Some(tag.as_str());
                let label = match count {
                    Some(n) => t!("automations.find.tag_option", tag = tag.clone(), count = n),
                    None => tag.clone(),
                };
                view! { <option value=tag selected=selected>{label}</option> }
            })
            .collect_view()
    };
    let view_button = move |grid: bool, testid: &'static str, label: String| {
        view! {
            <button type="button" class="btn small filter-chip" data-testid=testid
                aria-pressed=move || (find.with(|f| f.grid) == grid).to_string()
                on:click=move |_| change(&|f| f.grid = grid)>{label}</button>
        }
    };
    view! {
        <div class="automation-filters" role="search" data-testid="automation-filters">
            <input type="search" class="automation-search" data-testid="automation-search" autocomplete="off"
                aria-label=t!("automations.find.search_label")
                placeholder=t!("automations.find.search_placeholder")
                prop:value=move || find.with(|f| f.q.clone())
                on:input=move |ev| {
                    let q = event_target_value(&ev);
                    change(&|f| f.q = q.clone());
                } />
            <select data-testid="automation-trigger-filter" autocomplete="off" aria-label=t!("automations.find.trigger_label")
                prop:value=kind_value
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    change(&|f| f.kind = ListQuery::from_pairs([("trigger", v.as_str())]).kind);
                }>
                <option value="" selected=move || kind_value().is_empty()>{t!("automations.find.trigger_any")}</option>
                <option value="cron" selected=move || kind_value() == "cron">{t!("automations.find.trigger_cron")}</option>
                <option value="event" selected=move || kind_value() == "event">{t!("automations.find.trigger_event")}</option>
            </select>
            <select data-testid="automation-state-filter" autocomplete="off" aria-label=t!("automations.find.state_label")
                prop:value=state_value
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    change(&|f| f.state = ListQuery::from_pairs([("state", v.as_str())]).state);
                }>
                <option value="" selected=move || state_value().is_empty()>{t!("automations.find.state_any")}</option>
                <option value="active" selected=move || state_value() == "active">{t!("automations.find.state_active")}</option>
                <option value="paused" selected=move || state_value() == "paused">{t!("automations.find.state_paused")}</option>
                <option value="draft" selected=move || state_value() == "draft">{t!("automations.find.state_draft")}</option>
            </select>
            <select data-testid="automation-tag-filter" autocomplete="off" aria-label=t!("automations.find.tag_label")
                hidden=move || !tools()
                prop:value=move || find.with(|f| f.tag.clone().unwrap_or_default())
                on:change=move |ev| {
                    let v = event_target_value(&ev);
                    change(&|f| f.tag = ListQuery::from_pairs([("tag", v.as_str())]).tag);
                }>
                <option value="">{t!("automations.find.tag_any")}</option>
                {tag_options}
            </select>
            <div class="automation-views" role="group" aria-label=t!("automations.find.view_label")>
                {view_button(false, "automation-view-list", t!("automations.find.view_list"))}
                {view_button(true, "automation-view-grid", t!("automations.find.view_grid"))}
            </div>
            <button type="button" class="btn small" data-testid="automation-filters-clear"
                hidden=move || !find.with(ListQuery::narrows)
                on:click=move |_| {
                    let grid = find.with_untracked(|f| f.grid);
                    change(&|f| *f = ListQuery { grid, ..ListQuery::default() });
                }>{t!("automations.find.clear")}</button>
        </div>
    }
}

#[component]
fn AutomationRow(
    a: Automation,
    active: ActiveBackend,
    editing: RwSignal<Option<Editing>>,
    deleting: RwSignal<Option<Automation>>,
    changed: Callback<Option<String>>,
) -> impl IntoView {
    let backends = use_backends();
    let id = a.id.clone();
    let link = pinned(&crate::links::automation_path(&id), &active);
    // The service cannot say the last run of several automations at once, so each row asks
    // for its own only once it comes near the screen: opening a long list costs the rows in
    // view, not one request per automation.
    let row = NodeRef::<leptos::html::Li>::new();
    let seen = RwSignal::new(false);
    let watch = StoredValue::new_local(None::<crate::platform::visible::Watch>);
    Effect::new(move |_| {
        if let Some(li) = row.get() {
            let w = crate::platform::visible::once_visible(&li, "200px", move || seen.set(true));
            watch.set_value(w);
        }
    });
    let last = {
        let id = id.clone();
        let active = active.clone();
        LocalResource::new(move || {
            let id = id.clone();
            let active = active.clone();
            let seen = seen.get();
            async move {
                if !seen {
                    return None;
                }
                Some(svc::last_run(backends, &active, &id).await)
            }
        })
    };
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let run_now = {
        let id = id.clone();
        let active = active.clone();
        Action::new_local(move |_: &()| {
            let (id, active) = (id.clone(), active.clone());
            async move {
                busy.set(true);
                let r = svc::dispatch(backends, &active, &id).await;
                if busy.try_set(false).is_some() {
                    return;
                }
                match r {
                    Ok(_) => changed.run(Some(t!("automations.run_started_follow"))),
                    Err(e) => error.set(Some(e.said())),
                }
            }
        })
    };
    let toggle = {
        let id = id.clone();
        let active = active.clone();
        let on = !a.is_active();
        Action::new_local(move |_: &()| {
            let (id, active) = (id.clone(), active.clone());
            async move {
                busy.set(true);
                let r = svc::set_active(backends, &active, &id, on).await;
                if busy.try_set(false).is_some() {
                    return;
                }
                match r {
                    Ok(a) => changed.run(Some(if a.is_active() {
                        t!("automations.now_active", name = a.name)
                    } else {
                        t!("automations.now_paused", name = a.name)
                    })),
                    Err(e) => error.set(Some(e.said())),
                }
            }
        })
    };
    let state = a.state.clone();
    let state_label = state.label().to_string();
    let state_shown = say(&state.label_text());
    let trigger = say(&a.trigger.describe_text());
    let next = next_run_text(&a);
    let name = a.name.clone();
    let tags = a
        .tags
        .iter()
        .map(|tag| view! { <span class="badge automation-tag" data-testid="automation-tag">{tag.clone()}</span> })
        .collect_view();
    let disabled_reason = a.disabled_reason.clone();
    let controls = Controls {
        busy,
        error,
        run: Callback::new(move |_| {
            run_now.dispatch(());
        }),
        toggle: Callback::new(move |_| {
            toggle.dispatch(());
        }),
    };
    view! {
        <li class="automation-row" data-testid="automation-row" data-automation-id=id.clone()
            data-state=state_label.clone() node_ref=row>
            <div class="automation-main">
                <a class="automation-name" href=link data-testid="automation-link">{name.clone()}</a>
                <span class=format!("badge automation-state state-{}", state_label) data-testid="automation-state">
                    {state_shown}
                </span>
                <span class="automation-trigger" data-testid="automation-trigger">{trigger}</span>
                {tags}
            </div>
            <div class="automation-meta muted">
                <span data-testid="automation-next">{t!("automations.next_run_named", next = next)}</span>
                <span data-testid="automation-last">
                    {move || match last.get().flatten() {
                        None => t!("automations.last_run.pending").into_any(),
                        Some(Ok(None)) => t!("automations.last_run.never").into_any(),
                        Some(Ok(Some(r))) => view! { {t!("automations.last_run.label")} " " {run_badge(&r)} }.into_any(),
                        Some(Err(_)) => t!("automations.last_run.unknown").into_any(),
                    }}
                </span>
                {disabled_reason.map(|d| view! { <span class="field-error">{t!("automations.disabled_by_service", reason = d)}</span> })}
            </div>
            {actions(&a, true, controls, editing, deleting)}
            <p class="field-error" role="alert" data-testid="automation-row-error" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
        </li>
    }
}

#[component]
pub(super) fn DeleteAutomation(a: Automation, close: Callback<bool>) -> impl IntoView {
    let backends = use_backends();
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let id = a.id.clone();
    let remove = Action::new_local(move |_: &()| {
        let id = id.clone();
        let active = backends.active.get_untracked();
        async move {
            let r = svc::delete(backends, &active, &id).await;
            if busy.try_set(false).is_some() {
                return;
            }
            match r {
                Ok(()) => close.run(true),
                Err(e) => error.set(Some(e.said())),
            }
        }
    });
    view! {
        <Dialog title=t!("automations.delete_title") testid="delete-automation-dialog"
            on_close=Callback::new(move |_| if !busy.get_untracked() { close.run(false) })>
            <p>{t!("automations.delete_text", name = a.name)}</p>
            <p class="field-error" role="alert" hidden=move || error.get().is_none()>
                {move || error.get().unwrap_or_default()}
            </p>
            <div class="form-actions">
                <button type="button" class="btn" disabled=move || busy.get()
                    on:click=move |_| close.run(false)>{t!("automations.cancel")}</button>
                <button type="button" class="btn danger" data-testid="confirm-delete-automation"
                    disabled=move || busy.get()
                    on:click=move |_| { busy.set(true); error.set(None); remove.dispatch(()); }>
                    {move || if busy.get() { t!("automations.deleting") } else { t!("automations.delete") }}
                </button>
            </div>
        </Dialog>
    }
}
