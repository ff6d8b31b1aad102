//! `/hosts` (issue #39 §1): every host of the active backend — its owner, online or offline
//! (the server's 90 s rule), self-registered or a managed sandbox, the harnesses it offers
//! and whether each is ready (never a credential), and the sessions bound to it. Read again
//! every 10 s, so a host that stops shows offline within the server's window without a
//! reload. `/usage` (issue #39 §7): what the backend's sessions cost. One lazy chunk for both;
//! a backend without hosts or a usage report says so.

use crate::links::href;
use crate::services::hosts as svc;
use crate::state::backends::use_backends;
use crate::state::i18n::{say, t, Said};
use canvas_core::omnigent::hosts::HostCard;
use leptos::prelude::*;
use std::time::Duration;

const REFRESH: Duration = Duration::from_secs(10);

/// What the last setup action said: for (host, harness), done in words or why not.
type SetupSaid = (String, String, Result<String, String>);

/// Setting up a harness on a host (§1): which harnesses the server lets us install or give a
/// key, the one whose key form is open, the key typed there (never stored), and what the
/// last action said.
#[derive(Clone, Copy)]
struct Setup {
    installable: RwSignal<Vec<String>>,
    open: RwSignal<Option<(String, String)>>,
    secret: RwSignal<String>,
    busy: RwSignal<bool>,
    said: RwSignal<Option<SetupSaid>>,
    refetch: RwSignal<u32>,
    /// The hosts whose harness list is open.
    expanded: RwSignal<Vec<String>>,
}

#[component]
pub fn HostsPage() -> impl IntoView {
    let backends = use_backends();
    let tick = RwSignal::new(0u32);
    let setup = Setup {
        installable: RwSignal::new(Vec::new()),
        open: RwSignal::new(None),
        secret: RwSignal::new(String::new()),
        busy: RwSignal::new(false),
        said: RwSignal::new(None),
        refetch: RwSignal::new(0),
        expanded: RwSignal::new(Vec::new()),
    };
    // Not while a key is being typed or an action runs: the cards would be drawn anew.
    crate::platform::time::every(REFRESH, move || {
        if setup.open.get_untracked().is_none() && !setup.busy.get_untracked() {
            tick.update(|n| *n += 1);
        }
    });
    Effect::new(move |_| {
        let active = backends.active.get();
        leptos::task::spawn_local(async move {
            setup
                .installable
                .try_set(svc::harness_setup(backends, &active).await);
        });
    });
    let cards = LocalResource::new(move || {
        tick.track();
        setup.refetch.track();
        setup.installable.track();
        let active = backends.active.get();
        async move { svc::host_cards(backends, &active).await }
    });
    let body = move || {
        cards.get().map(|r| match r {
            Err(e) if e.is_unsupported() => view! {
                <p class="empty" data-testid="hosts-unsupported">{t!("hosts_page.unsupported")}</p>
            }
            .into_any(),
            Err(e) => view! { <p class="error" role="alert" data-testid="hosts-error">{e.said()}</p> }.into_any(),
            Ok(v) if v.is_empty() => view! {
                <p class="empty" data-testid="hosts-empty">{say(&canvas_core::i18n::Text::new(svc::NO_HOSTS_HINT))}</p>
            }
            .into_any(),
            Ok(v) => view! { <ul class="host-cards">{v.into_iter().map(|c| card(c, setup)).collect_view()}</ul> }.into_any(),
        })
    };
    view! {
        <section class="page hosts" data-testid="hosts-page">
            <header class="page-header"><h1>{t!("hosts_page.title")}</h1></header>
            <p class="muted">{t!("hosts_page.intro")}" "<a href=href("/")>{t!("hosts_page.start_here")}</a>
                " · "<a href=href("/usage") data-testid="usage-link">{t!("usage_page.title")}</a></p>
            <Transition fallback=|| view! { <p class="muted" role="status">{t!("hosts_page.loading")}</p> }>{body}</Transition>
        </section>
    }
}

fn card(c: HostCard, setup: Setup) -> impl IntoView {
    let state = say(&c.state_text());
    let origin = say(&c.origin_text());
    let (online, host) = (c.online, c.host_id.clone());
    let (host_for_open, host_for_toggle) = (c.host_id.clone(), c.host_id.clone());
    let harnesses = c
        .harnesses
        .iter()
        .map(|(name, r)| {
            let ready = r.is_ready();
            let can_set_up = online
                && !ready
                && setup.installable.with_untracked(|l| l.contains(name));
            let missing = matches!(r, canvas_core::omnigent::HarnessReadiness::BinaryMissing);
            view! {
                <li data-testid="host-harness" data-harness=name.clone() data-ready=ready.to_string()>
                    <span class=if ready { "dot ok" } else { "dot warn" } aria-hidden="true"></span>
                    <code>{name.clone()}</code>" "<span class="muted">{say(&r.label_text())}</span>
                    {can_set_up.then(|| harness_setup(host.clone(), name.clone(), missing, setup))}
                </li>
            }
        })
        .collect_view();
    view! {
        <li class="host-card" data-testid="host-card" data-host-id=c.host_id.clone() data-online=c.online.to_string()>
            <h2><span class=if c.online { "dot ok" } else { "dot bad" } aria-hidden="true"></span>{c.name.clone()}</h2>
            <dl class="host-facts">
                <dt>{t!("hosts_page.state")}</dt><dd data-testid="host-card-state">{state}</dd>
                <dt>{t!("hosts_page.origin")}</dt><dd data-testid="host-card-origin">{origin}</dd>
                <dt>{t!("hosts_page.owner")}</dt><dd>{c.owner.clone().unwrap_or_else(|| "—".into())}</dd>
                <dt>{t!("hosts_page.sessions")}</dt>
                <dd data-testid="host-card-sessions">{crate::state::i18n::tn!("hosts_page.session_count", c.sessions, runners = c.runners)}</dd>
                <dt>{t!("hosts_page.id")}</dt><dd><code class="host-id">{c.host_id.clone()}</code></dd>
            </dl>
            // Open or not as the person left it: the cards are drawn anew every 10 s.
            <details class="host-harnesses" prop:open=setup.expanded.with_untracked(|e| e.contains(&host_for_open))
                on:toggle=move |ev| {
                    let open = event_target::<web_sys::HtmlDetailsElement>(&ev).open();
                    let id = host_for_toggle.clone();
                    setup.expanded.update(|e| {
                        e.retain(|h| *h != id);
                        if open {
                            e.push(id);
                        }
                    });
                }>
                <summary>{crate::state::i18n::tn!("hosts_page.harnesses", c.harnesses.len())}</summary>
                <ul>{harnesses}</ul>
            </details>
        </li>
    }
}

/// What a setup action did, with the harness's readiness as the host now reports it.
fn done_words(
    done: String,
    now: &canvas_core::client::service::HarnessMap,
    harness: &str,
) -> String {
    match now.get(harness) {
        Some(r) => format!("{done} {harness}: {}", say(&r.label_text())),
        None => done,
    }
}

/// Install a harness's program on the host, or give the harness its API key there (the key
/// goes to the host through the server and is never kept in this browser).
fn harness_setup(host: String, harness: String, missing: bool, setup: Setup) -> impl IntoView {
    let backends = use_backends();
    let this = (host.clone(), harness.clone());
    let (t1, t2, t3) = (this.clone(), this.clone(), this.clone());
    let is_open = Memo::new(move |_| setup.open.with(|o| o.as_ref() == Some(&t1)));
    let said = move || {
        setup.said.with(|s| {
            s.as_ref()
                .filter(|(h, n, _)| (h, n) == (&t2.0, &t2.1))
                .map(|(_, _, r)| r.clone())
        })
    };
    let finish = move |key: (String, String), r: Result<String, String>| {
        setup.busy.set(false);
        setup.said.set(Some((key.0, key.1, r)));
        setup.refetch.update(|n| *n += 1);
    };
    let (h_i, n_i) = (host.clone(), harness.clone());
    let install = move |_| {
        let (h, n) = (h_i.clone(), n_i.clone());
        let active = backends.active.get_untracked();
        setup.busy.set(true);
        setup.said.set(Some((
            h.clone(),
            n.clone(),
            Ok(t!("hosts_page.installing", harness = n.clone())),
        )));
        leptos::task::spawn_local(async move {
            let r = svc::install_harness(backends, &active, &h, &n).await;
            finish(
                (h, n.clone()),
                r.map(|now| done_words(t!("hosts_page.installed", harness = n.clone()), &now, &n))
                    .map_err(|e| e.said()),
            );
        });
    };
    let (h_s, n_s) = (host.clone(), harness.clone());
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (h, n) = (h_s.clone(), n_s.clone());
        let key = setup.secret.get_untracked();
        let active = backends.active.get_untracked();
        setup.busy.set(true);
        leptos::task::spawn_local(async move {
            let r = svc::store_harness_credential(backends, &active, &h, &n, &key).await;
            if r.is_ok() {
                setup.secret.set(String::new());
                setup.open.set(None);
            }
            finish(
                (h, n.clone()),
                r.map(|now| done_words(t!("hosts_page.key_saved", harness = n.clone()), &now, &n))
                    .map_err(|e| e.said()),
            );
        });
    };
    let field = format!("key-{host}-{harness}");
    let field2 = field.clone();
    view! {
        <span class="harness-setup">
            {missing.then(|| view! {
                <button type="button" class="btn small" data-testid="harness-install"
                    disabled=move || setup.busy.get() on:click=install>{t!("hosts_page.install")}</button>
            })}
            <button type="button" class="btn small" data-testid="harness-add-key"
                aria-expanded=move || is_open.get().to_string()
                disabled=move || setup.busy.get()
                on:click=move |_| setup.open.update(|o| *o = if o.as_ref() == Some(&t3) { None } else { Some(t3.clone()) })>
                {t!("hosts_page.add_key")}
            </button>
        </span>
        <Show when=move || is_open.get()>
            <form class="harness-key" data-testid="harness-key-form" on:submit=save.clone()>
                <label for=field.clone()>{t!("hosts_page.key_label", harness = harness.clone())}</label>
                <input id=field2.clone() type="password" autocomplete="off" data-testid="harness-key-input"
                    prop:value=move || setup.secret.get()
                    on:input=move |ev| setup.secret.set(event_target_value(&ev)) />
                <button type="submit" class="btn small primary" data-testid="harness-key-save"
                    disabled=move || setup.busy.get() || setup.secret.with(|s| s.trim().is_empty())>{t!("hosts_page.save_key")}</button>
                <p class="muted">{t!("hosts_page.key_note")}</p>
            </form>
        </Show>
        {move || said().map(|r| match r {
            Ok(m) => view! { <p class="muted" role="status" data-testid="harness-setup-said">{m}</p> }.into_any(),
            Err(e) => view! { <p class="error" role="alert" data-testid="harness-setup-said">{e}</p> }.into_any(),
        })}
    }
}

/// `/usage`: spend today, in the last 7 and 30 days, in all, per day and per session.
#[component]
pub fn UsagePage() -> impl IntoView {
    let backends = use_backends();
    let report = LocalResource::new(move || {
        let active = backends.active.get();
        async move { svc::usage(backends, &active).await }
    });
    let money = |v: f64| crate::platform::intl::money(v, 2);
    let body = move || {
        report.get().map(|r| match r {
            Err(e) if e.is_unsupported() => view! {
                <p class="empty" data-testid="usage-unsupported">{t!("usage_page.unsupported")}</p>
            }
            .into_any(),
            Err(e) => view! { <p class="error" role="alert" data-testid="usage-error">{e.said()}</p> }.into_any(),
            Ok(r) => {
                let sessions = r.by_cost();
                let days = r.spending_days();
                view! {
                    <dl class="usage-totals" data-testid="usage-totals">
                        <div><dt>{t!("usage_page.today")}</dt><dd>{money(r.cost_today)}</dd></div>
                        <div><dt>{t!("usage_page.week")}</dt><dd>{money(r.cost_last_7d)}</dd></div>
                        <div><dt>{t!("usage_page.month")}</dt><dd>{money(r.cost_last_30d)}</dd></div>
                        <div><dt>{t!("usage_page.total")}</dt><dd data-testid="usage-total">{money(r.total_cost_usd)}</dd></div>
                    </dl>
                    <p class="muted">{t!("usage_page.note")}</p>
                    {(!days.is_empty()).then(|| view! {
                        <h2>{t!("usage_page.by_day")}</h2>
                        <table class="usage-table"><tbody>
                            {days.into_iter().map(|d| view! {
                                <tr><th scope="row">{d.day.unwrap_or_default()}</th><td class="num">{money(d.cost_usd)}</td></tr>
                            }).collect_view()}
                        </tbody></table>
                    })}
                    <h2>{t!("usage_page.by_session")}</h2>
                    {if sessions.is_empty() {
                        view! { <p class="empty" data-testid="usage-no-sessions">{t!("usage_page.no_sessions")}</p> }.into_any()
                    } else {
                        view! {
                            <div class="table-scroll"><table class="usage-table" data-testid="usage-sessions">
                                <thead><tr>
                                    <th scope="col">{t!("usage_page.session")}</th><th scope="col">{t!("usage_page.agent")}</th>
                                    <th scope="col">{t!("usage_page.model")}</th><th scope="col">{t!("usage_page.cost")}</th>
                                </tr></thead>
                                <tbody>{sessions.into_iter().map(|s| {
                                    let id = s.id.unwrap_or_default();
                                    let title = s.title.filter(|t| !t.trim().is_empty()).unwrap_or_else(|| id.clone());
                                    view! {
                                        <tr data-testid="usage-session" data-session-id=id.clone()>
                                            <th scope="row"><a href=href(&crate::links::conversation_path(&id))>{title}</a></th>
                                            <td>{s.agent_name.unwrap_or_default()}</td>
                                            <td>{s.llm_model.unwrap_or_default()}</td>
                                            <td class="num">{money(s.cost_usd)}</td>
                                        </tr>
                                    }
                                }).collect_view()}</tbody>
                            </table></div>
                        }.into_any()
                    }}
                }
                .into_any()
            }
        })
    };
    view! {
        <section class="page usage" data-testid="usage-page">
            <p><a href=href("/hosts")>{t!("usage_page.back")}</a></p>
            <header class="page-header"><h1>{t!("usage_page.title")}</h1></header>
            <Transition fallback=|| view! { <p class="muted" role="status">{t!("usage_page.loading")}</p> }>{body}</Transition>
        </section>
    }
}

crate::lazy::lazy_view! {
    /// `/hosts`: the machines the active backend runs sessions on; `/usage` (`usage`): what
    /// its sessions cost. One entry point for both (each costs the first render's bytes).
    pub fn hosts_page(usage: bool) in hosts, preload preload_hosts {
        if usage {
            view! { <crate::pages::hosts::UsagePage /> }.into_any()
        } else {
            view! { <crate::pages::hosts::HostsPage /> }.into_any()
        }
    }
}
