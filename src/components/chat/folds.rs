//! Grouped actions in the timeline (issue #36): consecutive tool actions fold into one group
//! (`canvas_core::conversations::live::groups`). The group's first row carries its header
//! ("5 actions — 4 done, 1 running", a button that opens or closes it); while it is closed its
//! other rows are hidden and do not count toward the timeline's window of rows. A group with a
//! failure or an action still running (one waiting for a confirmation among them) is open, and
//! so is the newest while the agent works, until the reader says otherwise.

use crate::components::icon::{icons, Icon};
use crate::state::events::Row;
use crate::state::i18n::tn;
use canvas_core::conversations::live::groups::{action_groups, ActionGroup};
use leptos::prelude::*;
use std::collections::{HashMap, HashSet};

/// The timeline's groups and what the reader chose (a context of the timeline).
#[derive(Clone, Copy)]
pub struct Folds {
    /// The groups, in order.
    pub groups: Memo<Vec<ActionGroup>>,
    /// Each grouped row's group (by the group's key) and whether it is the group's first.
    pub member: Memo<HashMap<String, (String, bool)>>,
    /// Groups the reader opened (`true`) or closed.
    pub chosen: RwSignal<Vec<(String, bool)>>,
    /// The closed groups' keys.
    pub closed: Memo<HashSet<String>>,
}

impl Folds {
    /// The groups of `rows`; `busy`: the agent works (the newest group stays open).
    pub fn new(rows: RwSignal<Vec<Row>>, busy: Signal<bool>) -> Self {
        let groups = Memo::new(move |_| {
            rows.with(|rows| {
                action_groups(rows.iter().map(|r| (r.item.key.as_str(), &r.item.kind)))
            })
        });
        let member = Memo::new(move |_| {
            groups.with(|gs| {
                rows.with(|rows| {
                    let mut m = HashMap::new();
                    for g in gs {
                        for (i, r) in rows.iter().enumerate().take(g.end).skip(g.start) {
                            m.insert(r.item.key.clone(), (g.key.clone(), i == g.start));
                        }
                    }
                    m
                })
            })
        });
        let chosen = RwSignal::new(Vec::<(String, bool)>::new());
        let closed = Memo::new(move |_| {
            let busy = busy.get();
            groups.with(|g| {
                let newest = g.len().saturating_sub(1);
                chosen.with(|c| {
                    g.iter()
                        .enumerate()
                        .filter(|(i, x)| {
                            !c.iter()
                                .find(|(k, _)| *k == x.key)
                                .map(|(_, o)| *o)
                                .unwrap_or_else(|| x.open_by_default(*i == newest, busy))
                        })
                        .map(|(_, x)| x.key.clone())
                        .collect::<HashSet<String>>()
                })
            })
        });
        Folds {
            groups,
            member,
            chosen,
            closed,
        }
    }

    /// Whether the group `key` is open.
    pub fn is_open(&self, key: &str) -> bool {
        !self.closed.with(|c| c.contains(key))
    }

    /// Opens a closed group, closes an open one.
    pub fn toggle(&self, key: &str) {
        let now = !self.is_open(key);
        self.chosen.update(|c| {
            c.retain(|(k, _)| k != key);
            c.push((key.to_string(), now));
        });
    }

    /// Whether the row `key` is shown: not a later row of a closed group.
    pub fn shown(&self, key: &str) -> bool {
        self.member.with(|m| match m.get(key) {
            Some((g, false)) => self.is_open(g),
            _ => true,
        })
    }
}

/// A row's place in a group (`None`: in none), tracked.
pub fn membership(folds: Folds, key: String) -> Memo<Option<(String, bool)>> {
    Memo::new(move |_| folds.member.with(|m| m.get(&key).cloned()))
}

/// A group's header: what its actions did, and the button that opens or closes it.
pub fn group_header(folds: Folds, key: String) -> impl IntoView {
    let group = {
        let key = key.clone();
        Memo::new(move |_| {
            folds
                .groups
                .with(|g| g.iter().find(|x| x.key == key).cloned())
        })
    };
    let open = {
        let key = key.clone();
        move || folds.is_open(&key)
    };
    let words = move || {
        group.get().map(|g| {
            let mut parts = vec![tn!("chat.group.done", u64::from(g.done))];
            if g.running > 0 {
                parts.push(tn!("chat.group.running", u64::from(g.running)));
            }
            if g.failed > 0 {
                parts.push(tn!("chat.group.failed", u64::from(g.failed)));
            }
            format!(
                "{} — {}",
                tn!("chat.group.actions", u64::from(g.actions)),
                parts.join(", ")
            )
        })
    };
    let counts = move |f: fn(&ActionGroup) -> u32| {
        group.with(|g| g.as_ref().map(f).unwrap_or(0).to_string())
    };
    let open_attr = open.clone();
    let toggle_key = key.clone();
    view! {
        <div class="action-group" data-testid="action-group" data-group=key.clone()
            data-actions=move || counts(|g| g.actions) data-failed=move || counts(|g| g.failed)
            data-running=move || counts(|g| g.running) data-open=move || open_attr().to_string()>
            <button type="button" class="action-group-toggle" data-testid="action-group-toggle"
                aria-expanded=move || open().to_string()
                on:click=move |_| folds.toggle(&toggle_key)>
                <Icon icon=icons::COLLAPSED />
                " "{words}
            </button>
        </div>
    }
}
