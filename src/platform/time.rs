//! Timers: sleeping for code that takes time as a parameter (core's probe retries, backoff),
//! work repeated every period while its owner lives ([`every`]), and the clock the probe
//! schedule runs on ([`Clock`]): the browser's, or one a test moves by hand ([`ManualClock`]).

use leptos::prelude::*;
use std::rc::Rc;
use std::time::Duration;

/// Sleeps `ms` milliseconds on the browser's timer.
pub async fn sleep_ms(ms: u32) {
    gloo_timers::future::sleep(std::time::Duration::from_millis(u64::from(ms))).await;
}

/// Runs `f` every `period` on the browser's timer until the current owner is cleaned up.
pub fn every(period: Duration, f: impl Fn() + 'static) {
    if let Ok(h) = set_interval_with_handle(f, period) {
        on_cleanup(move || h.clear());
    }
}

/// The clock a schedule runs on: a [`ManualClock`] provided as context (tests), else the
/// browser's.
#[derive(Clone, Copy)]
pub enum Clock {
    Browser,
    Manual(ManualClock),
}

impl Clock {
    /// The clock in context: a test's manual clock, else the browser's.
    pub fn current() -> Self {
        use_context::<ManualClock>().map_or(Clock::Browser, Clock::Manual)
    }

    /// Epoch milliseconds.
    pub fn now_ms(self) -> f64 {
        match self {
            Clock::Browser => js_sys::Date::now(),
            Clock::Manual(m) => m.now_ms(),
        }
    }

    /// Runs `f` every `period` on this clock until the current owner is cleaned up.
    pub fn every(self, period: Duration, f: impl Fn() + 'static) {
        match self {
            Clock::Browser => every(period, f),
            Clock::Manual(m) => {
                let id = m.add(period, Rc::new(f));
                on_cleanup(move || m.remove(id));
            }
        }
    }
}

struct Timer {
    id: u64,
    period: f64,
    due: f64,
    run: Rc<dyn Fn()>,
}

#[derive(Default)]
struct Timers {
    now: f64,
    next_id: u64,
    list: Vec<Timer>,
}

/// A clock that only moves when [`ManualClock::advance`] is called; provide it as context before
/// the schedules start (the periodic probe, BR-7).
#[derive(Clone, Copy)]
pub struct ManualClock(StoredValue<Timers, LocalStorage>);

impl ManualClock {
    pub fn new(now_ms: f64) -> Self {
        Self(StoredValue::new_local(Timers {
            now: now_ms,
            ..Timers::default()
        }))
    }

    pub fn now_ms(&self) -> f64 {
        self.0.with_value(|t| t.now)
    }

    /// How many schedules run on this clock.
    pub fn schedules(&self) -> usize {
        self.0.with_value(|t| t.list.len())
    }

    fn add(&self, period: Duration, run: Rc<dyn Fn()>) -> u64 {
        self.0
            .try_update_value(|t| {
                let id = t.next_id;
                t.next_id += 1;
                let period = period.as_millis() as f64;
                t.list.push(Timer {
                    id,
                    period,
                    due: t.now + period,
                    run,
                });
                id
            })
            .unwrap_or(u64::MAX)
    }

    fn remove(&self, id: u64) {
        self.0.try_update_value(|t| t.list.retain(|x| x.id != id));
    }

    /// Moves the clock `ms` forward, running every schedule each time it falls due, earliest
    /// first (the clock reads that moment while it runs).
    pub fn advance(&self, ms: f64) {
        let end = self.now_ms() + ms;
        loop {
            let next = self.0.try_update_value(|t| {
                let timer = t
                    .list
                    .iter_mut()
                    .filter(|x| x.due <= end)
                    .min_by(|a, b| a.due.total_cmp(&b.due))?;
                let at = timer.due;
                timer.due += timer.period;
                let run = timer.run.clone();
                t.now = at;
                Some(run)
            });
            match next.flatten() {
                Some(run) => run(),
                None => break,
            }
        }
        self.0.update_value(|t| t.now = end);
    }
}
