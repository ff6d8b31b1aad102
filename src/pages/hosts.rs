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

#[component]
pub fn HostsPage() -> impl IntoView {
    let backends = use_backends();
    let tick = RwSignal::new(0u32);
    crate::platform::time::every(REFRESH, move || tick.update(|n| *n += 1));
    let cards = LocalResource::new(move || {
        tick.track();
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
            Ok(v) => view! { <ul class="host-cards">{v.into_iter().map(card).collect_view()}</ul> }.into_any(),
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

fn card(c: HostCard) -> impl IntoView {
    let state = say(&c.state_text());
    let origin = say(&c.origin_text());
    let harnesses = c
        .harnesses
        .iter()
        .map(|(name, r)| {
            let ready = r.is_ready();
            view! {
                <li data-testid="host-harness" data-harness=name.clone() data-ready=ready.to_string()>
                    <span class=if ready { "dot ok" } else { "dot warn" } aria-hidden="true"></span>
                    <code>{name.clone()}</code>" "<span class="muted">{say(&r.label_text())}</span>
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
            <details class="host-harnesses">
                <summary>{crate::state::i18n::tn!("hosts_page.harnesses", c.harnesses.len())}</summary>
                <ul>{harnesses}</ul>
            </details>
        </li>
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
