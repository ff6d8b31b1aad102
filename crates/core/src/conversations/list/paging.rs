//! The conversation list's paging as a pure state machine (issue #6, #31): the first page,
//! "Load more", the periodic refresh of what is shown, and starting over (backend switch, page
//! size). Every request carries a [`Ticket`] naming the list's generation; an answer whose
//! generation is no longer current (the list started over meanwhile) is dropped.
//!
//! The app holds one [`Paging`] per list and only performs its [`Effect`]s: send the request a
//! [`Effect::Fetch`] names and feed the answer back as [`Input::Answered`], and write the other
//! effects into the signals the views read.

use crate::client::unified::{ConversationSummary, ConversationSummaryPage};
use crate::conversations::list::refresh_limit;
use crate::error::ApiError;

/// Where the list stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ListState {
    /// The first page is on its way.
    Loading,
    /// Pages are shown.
    Ready,
    /// The first page failed: what to tell the user.
    Failed(String),
}

/// Which request a page answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// The first page after starting over (the app may use a page asked for at start).
    First,
    /// A reload of what is shown; a failure keeps the list.
    Refresh,
    /// The page after the last one shown.
    More,
}

/// Names a request: which list generation asked, and what for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket {
    generation: u64,
    /// What the request is for.
    pub ask: Ask,
}

/// What happens to the list.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// Start over with the first page (backend switch, page size, "Try again").
    Reset {
        /// Conversations per page.
        size: u32,
    },
    /// Reload what is shown (the timer, the tab became visible, the refresh button).
    Refresh {
        /// Conversations per page.
        size: u32,
        /// How many are shown now.
        loaded: usize,
    },
    /// "Load more" (the button, or the list scrolled near its end).
    LoadMore {
        /// Conversations per page.
        size: u32,
    },
    /// A request of [`Effect::Fetch`] answered.
    Answered {
        /// The request's ticket.
        ticket: Ticket,
        /// Its answer.
        answer: Result<ConversationSummaryPage, ApiError>,
    },
}

/// What the app does, in this order.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Ask for `limit` conversations after `cursor` (the first page without one) and feed the
    /// answer back with `ticket`.
    Fetch {
        /// Give it back with the answer.
        ticket: Ticket,
        /// Where the page starts.
        cursor: Option<String>,
        /// How many.
        limit: u32,
    },
    /// The list shows these conversations (replacing what it showed).
    SetItems(Vec<ConversationSummary>),
    /// These follow what is shown (ones already shown are skipped: `list::append_page`).
    AppendItems(Vec<ConversationSummary>),
    /// The next page's cursor ("Load more" shows only with one).
    SetNext(Option<String>),
    /// The list's state.
    SetState(ListState),
    /// Whether "Load more" is under way.
    SetLoadingMore(bool),
    /// The last "Load more" failure (shown under the list).
    SetMoreError(Option<String>),
    /// The last refresh failure (the list stays).
    SetRefreshError(Option<String>),
}

/// The paging machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Paging {
    generation: u64,
    state: ListState,
    next: Option<String>,
    loading_more: bool,
}

impl Default for Paging {
    fn default() -> Self {
        Paging::new()
    }
}

impl Paging {
    /// A list that has not asked for anything yet (it shows "loading" until reset).
    pub fn new() -> Paging {
        Paging {
            generation: 0,
            state: ListState::Loading,
            next: None,
            loading_more: false,
        }
    }

    /// Where the list stands.
    pub fn state(&self) -> &ListState {
        &self.state
    }

    /// The next page's cursor.
    pub fn next(&self) -> Option<&str> {
        self.next.as_deref()
    }

    /// Whether "Load more" is under way.
    pub fn loading_more(&self) -> bool {
        self.loading_more
    }

    fn ticket(&self, ask: Ask) -> Ticket {
        Ticket {
            generation: self.generation,
            ask,
        }
    }

    /// One step: the input changes the state and says what to do.
    pub fn step(&mut self, input: Input) -> Vec<Effect> {
        let mut effects = Vec::new();
        self.step_with(input, |e| effects.push(e));
        effects
    }

    /// [`Paging::step`] handing each effect to `perform` in order, as it is decided (the
    /// state is already updated). The app drives the list this way: no list of effects is
    /// built, which keeps the first page's code (the main wasm module) small.
    pub fn step_with(&mut self, input: Input, mut perform: impl FnMut(Effect)) {
        match input {
            Input::Reset { size } => {
                self.generation += 1;
                self.next = None;
                self.loading_more = false;
                self.state = ListState::Loading;
                perform(Effect::SetItems(Vec::new()));
                perform(Effect::SetNext(None));
                perform(Effect::SetMoreError(None));
                perform(Effect::SetRefreshError(None));
                perform(Effect::SetLoadingMore(false));
                perform(Effect::SetState(ListState::Loading));
                perform(Effect::Fetch {
                    ticket: self.ticket(Ask::First),
                    cursor: None,
                    limit: size,
                });
            }
            Input::Refresh { size, loaded } => {
                if self.loading_more || self.state == ListState::Loading {
                    return;
                }
                perform(Effect::Fetch {
                    ticket: self.ticket(Ask::Refresh),
                    cursor: None,
                    limit: refresh_limit(size, loaded),
                });
            }
            Input::LoadMore { size } => {
                let Some(cursor) = self.next.clone() else {
                    return;
                };
                if self.loading_more {
                    return;
                }
                self.loading_more = true;
                perform(Effect::SetLoadingMore(true));
                perform(Effect::SetMoreError(None));
                perform(Effect::Fetch {
                    ticket: self.ticket(Ask::More),
                    cursor: Some(cursor),
                    limit: size,
                });
            }
            Input::Answered { ticket, answer } => {
                if ticket.generation != self.generation {
                    return; // the list started over since it asked
                }
                self.answered(ticket.ask, answer, perform);
            }
        }
    }

    fn answered(
        &mut self,
        ask: Ask,
        answer: Result<ConversationSummaryPage, ApiError>,
        mut perform: impl FnMut(Effect),
    ) {
        match (ask, answer) {
            (Ask::First | Ask::Refresh, Ok(page)) => {
                self.next = page.next_page_id.filter(|p| !p.is_empty());
                self.state = ListState::Ready;
                perform(Effect::SetItems(page.items));
                perform(Effect::SetNext(self.next.clone()));
                perform(Effect::SetRefreshError(None));
                perform(Effect::SetState(ListState::Ready));
            }
            (Ask::First, Err(e)) => {
                self.state = ListState::Failed(e.user_message());
                perform(Effect::SetState(self.state.clone()));
            }
            (Ask::Refresh, Err(e)) => perform(Effect::SetRefreshError(Some(e.user_message()))),
            (Ask::More, answer) => {
                self.loading_more = false;
                perform(Effect::SetLoadingMore(false));
                match answer {
                    Ok(page) => {
                        self.next = page.next_page_id.filter(|p| !p.is_empty());
                        perform(Effect::AppendItems(page.items));
                        perform(Effect::SetNext(self.next.clone()));
                    }
                    Err(e) => perform(Effect::SetMoreError(Some(e.user_message()))),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(id: &str) -> ConversationSummary {
        ConversationSummary {
            id: id.into(),
            ..ConversationSummary::default()
        }
    }

    fn page(ids: &[&str], next: Option<&str>) -> ConversationSummaryPage {
        ConversationSummaryPage {
            items: ids.iter().map(|i| conv(i)).collect(),
            next_page_id: next.map(str::to_string),
        }
    }

    /// The ticket of the last `Fetch` among `effects`.
    fn fetched(effects: &[Effect]) -> Ticket {
        effects
            .iter()
            .rev()
            .find_map(|e| match e {
                Effect::Fetch { ticket, .. } => Some(*ticket),
                _ => None,
            })
            .expect("a fetch")
    }

    fn fetch(ticket: Ticket, cursor: Option<&str>, limit: u32) -> Effect {
        Effect::Fetch {
            ticket,
            cursor: cursor.map(str::to_string),
            limit,
        }
    }

    fn ready_with_next(next: Option<&str>) -> (Paging, Ticket) {
        let mut p = Paging::new();
        let first = fetched(&p.step(Input::Reset { size: 20 }));
        p.step(Input::Answered {
            ticket: first,
            answer: Ok(page(&["a", "b"], next)),
        });
        (p, first)
    }

    #[test]
    fn reset_clears_everything_and_asks_for_the_first_page() {
        let mut p = Paging::new();
        let effects = p.step(Input::Reset { size: 20 });
        let t = fetched(&effects);
        assert_eq!(t.ask, Ask::First);
        assert_eq!(
            effects,
            vec![
                Effect::SetItems(vec![]),
                Effect::SetNext(None),
                Effect::SetMoreError(None),
                Effect::SetRefreshError(None),
                Effect::SetLoadingMore(false),
                Effect::SetState(ListState::Loading),
                fetch(t, None, 20),
            ]
        );
        assert_eq!(p.state(), &ListState::Loading);
    }

    #[test]
    fn first_page_answers() {
        type Case = (
            Result<ConversationSummaryPage, ApiError>,
            Vec<Effect>,
            ListState,
            Option<&'static str>,
        );
        let cases: Vec<Case> = vec![
            (
                Ok(page(&["a", "b"], Some("c2"))),
                vec![
                    Effect::SetItems(vec![conv("a"), conv("b")]),
                    Effect::SetNext(Some("c2".into())),
                    Effect::SetRefreshError(None),
                    Effect::SetState(ListState::Ready),
                ],
                ListState::Ready,
                Some("c2"),
            ),
            (
                // An empty cursor means "no more".
                Ok(page(&["a"], Some(""))),
                vec![
                    Effect::SetItems(vec![conv("a")]),
                    Effect::SetNext(None),
                    Effect::SetRefreshError(None),
                    Effect::SetState(ListState::Ready),
                ],
                ListState::Ready,
                None,
            ),
            (
                Err(ApiError::Timeout),
                vec![Effect::SetState(ListState::Failed(
                    ApiError::Timeout.user_message(),
                ))],
                ListState::Failed(ApiError::Timeout.user_message()),
                None,
            ),
        ];
        for (answer, want, state, next) in cases {
            let mut p = Paging::new();
            let t = fetched(&p.step(Input::Reset { size: 20 }));
            let got = p.step(Input::Answered { ticket: t, answer });
            assert_eq!(got, want);
            assert_eq!(p.state(), &state);
            assert_eq!(p.next(), next);
        }
    }

    #[test]
    fn load_more_asks_after_the_cursor_once_at_a_time() {
        let (mut p, _) = ready_with_next(Some("c2"));
        let effects = p.step(Input::LoadMore { size: 20 });
        let t = fetched(&effects);
        assert_eq!(t.ask, Ask::More);
        assert_eq!(
            effects,
            vec![
                Effect::SetLoadingMore(true),
                Effect::SetMoreError(None),
                fetch(t, Some("c2"), 20),
            ]
        );
        assert!(p.loading_more());
        assert_eq!(
            p.step(Input::LoadMore { size: 20 }),
            vec![],
            "already loading"
        );
        assert_eq!(
            p.step(Input::Refresh {
                size: 20,
                loaded: 2
            }),
            vec![],
            "no refresh while loading more"
        );
        assert_eq!(
            p.step(Input::Answered {
                ticket: t,
                answer: Ok(page(&["c", "d"], None)),
            }),
            vec![
                Effect::SetLoadingMore(false),
                Effect::AppendItems(vec![conv("c"), conv("d")]),
                Effect::SetNext(None),
            ]
        );
        assert_eq!(
            p.step(Input::LoadMore { size: 20 }),
            vec![],
            "no more pages"
        );
    }

    #[test]
    fn a_failed_load_more_keeps_the_cursor() {
        let (mut p, _) = ready_with_next(Some("c2"));
        let t = fetched(&p.step(Input::LoadMore { size: 20 }));
        assert_eq!(
            p.step(Input::Answered {
                ticket: t,
                answer: Err(ApiError::NotFound),
            }),
            vec![
                Effect::SetLoadingMore(false),
                Effect::SetMoreError(Some(ApiError::NotFound.user_message())),
            ]
        );
        assert!(!p.loading_more());
        let again = p.step(Input::LoadMore { size: 20 });
        assert_eq!(again[2], fetch(fetched(&again), Some("c2"), 20));
    }

    #[test]
    fn nothing_to_load_more_without_a_cursor() {
        let mut p = Paging::new();
        assert_eq!(p.step(Input::LoadMore { size: 20 }), vec![]);
        let (mut p, _) = ready_with_next(None);
        assert_eq!(p.step(Input::LoadMore { size: 20 }), vec![]);
    }

    #[test]
    fn refresh_reloads_what_is_shown() {
        // (page size, shown) → limit asked
        for (size, loaded, limit) in [(20, 2, 20), (20, 45, 45), (20, 500, 100), (50, 0, 50)] {
            let (mut p, _) = ready_with_next(Some("c2"));
            let effects = p.step(Input::Refresh { size, loaded });
            let t = fetched(&effects);
            assert_eq!(t.ask, Ask::Refresh);
            assert_eq!(effects, vec![fetch(t, None, limit)], "{size} {loaded}");
        }
    }

    #[test]
    fn refresh_answers() {
        let (mut p, _) = ready_with_next(Some("c2"));
        let t = fetched(&p.step(Input::Refresh {
            size: 20,
            loaded: 2,
        }));
        assert_eq!(
            p.step(Input::Answered {
                ticket: t,
                answer: Err(ApiError::Timeout),
            }),
            vec![Effect::SetRefreshError(Some(
                ApiError::Timeout.user_message()
            ))],
            "a failed refresh keeps the list"
        );
        assert_eq!(p.state(), &ListState::Ready);
        assert_eq!(p.next(), Some("c2"));
        let t = fetched(&p.step(Input::Refresh {
            size: 20,
            loaded: 2,
        }));
        assert_eq!(
            p.step(Input::Answered {
                ticket: t,
                answer: Ok(page(&["z", "a"], Some("c3"))),
            }),
            vec![
                Effect::SetItems(vec![conv("z"), conv("a")]),
                Effect::SetNext(Some("c3".into())),
                Effect::SetRefreshError(None),
                Effect::SetState(ListState::Ready),
            ]
        );
    }

    #[test]
    fn no_refresh_before_the_first_page() {
        let mut p = Paging::new();
        let r = Input::Refresh {
            size: 20,
            loaded: 0,
        };
        assert_eq!(p.step(r.clone()), vec![], "never reset");
        p.step(Input::Reset { size: 20 });
        assert_eq!(p.step(r), vec![], "first page on its way");
    }

    #[test]
    fn a_failed_first_page_can_be_refreshed() {
        let mut p = Paging::new();
        let t = fetched(&p.step(Input::Reset { size: 20 }));
        p.step(Input::Answered {
            ticket: t,
            answer: Err(ApiError::Timeout),
        });
        let effects = p.step(Input::Refresh {
            size: 20,
            loaded: 0,
        });
        let t = fetched(&effects);
        let got = p.step(Input::Answered {
            ticket: t,
            answer: Ok(page(&["a"], None)),
        });
        assert_eq!(got.last(), Some(&Effect::SetState(ListState::Ready)));
        assert_eq!(p.state(), &ListState::Ready);
    }

    #[test]
    fn answers_of_a_list_that_started_over_are_dropped() {
        // Every kind of request, answered after a reset: nothing changes.
        for ask in [Ask::First, Ask::Refresh, Ask::More] {
            let (mut p, first) = ready_with_next(Some("c2"));
            let old = match ask {
                Ask::First => first,
                Ask::Refresh => fetched(&p.step(Input::Refresh {
                    size: 20,
                    loaded: 2,
                })),
                Ask::More => fetched(&p.step(Input::LoadMore { size: 20 })),
            };
            let new = fetched(&p.step(Input::Reset { size: 50 }));
            assert_ne!(old, new);
            assert!(!p.loading_more(), "a reset ends a load more");
            for answer in [Ok(page(&["late"], Some("x"))), Err(ApiError::Timeout)] {
                assert_eq!(
                    p.step(Input::Answered {
                        ticket: old,
                        answer,
                    }),
                    vec![],
                    "{ask:?}"
                );
            }
            assert_eq!(p.state(), &ListState::Loading);
            assert_eq!(p.next(), None);
            assert_eq!(
                p.step(Input::Answered {
                    ticket: new,
                    answer: Ok(page(&["a"], None)),
                })[0],
                Effect::SetItems(vec![conv("a")])
            );
        }
    }

    #[test]
    fn a_reset_during_a_reset_keeps_only_the_newest() {
        let mut p = Paging::new();
        let a = fetched(&p.step(Input::Reset { size: 20 }));
        let b = fetched(&p.step(Input::Reset { size: 20 }));
        assert_eq!(
            p.step(Input::Answered {
                ticket: a,
                answer: Ok(page(&["old"], None)),
            }),
            vec![]
        );
        assert_eq!(
            p.step(Input::Answered {
                ticket: b,
                answer: Err(ApiError::Timeout),
            }),
            vec![Effect::SetState(ListState::Failed(
                ApiError::Timeout.user_message()
            ))]
        );
    }
}
