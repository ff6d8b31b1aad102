//! Helpers shared by the unit tests.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use crate::error::ApiError;
use crate::transport::plan::{RawResponse, RequestPlan, Transport};

/// Runs a future that needs no real I/O (fake transports are always ready).
pub(crate) fn block_on<F: Future>(f: F) -> F::Output {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
    }
}

/// A transport that answers from a script, in order, and records every request it was given;
/// past the script it answers a network error.
pub(crate) struct Scripted {
    answers: RefCell<VecDeque<Result<RawResponse, ApiError>>>,
    /// The requests sent so far, oldest first.
    pub(crate) sent: RefCell<Vec<RequestPlan>>,
}

impl Scripted {
    /// Answers `answers` in order.
    pub(crate) fn new(answers: Vec<Result<RawResponse, ApiError>>) -> Self {
        Scripted {
            answers: RefCell::new(answers.into()),
            sent: RefCell::new(Vec::new()),
        }
    }

    /// Answers each `(status, body)` in order.
    pub(crate) fn answering(answers: Vec<(u16, &str)>) -> Self {
        Self::new(
            answers
                .into_iter()
                .map(|(s, b)| Ok(RawResponse::new(s, b.to_string())))
                .collect(),
        )
    }
}

impl Transport for Scripted {
    async fn send(&self, plan: RequestPlan) -> Result<RawResponse, ApiError> {
        self.sent.borrow_mut().push(plan);
        self.answers
            .borrow_mut()
            .pop_front()
            .unwrap_or(Err(ApiError::Network("no more answers".into())))
    }
}
