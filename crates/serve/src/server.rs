//! The accept loop: hyper's HTTP/1 server with a header-read timeout, an idle timeout and a
//! connection cap, so slow or silent clients cannot hold the server.
//!
//! - **Header-read timeout** (hyper's): a client must send a complete request head within it. hyper
//!   starts the timer whenever it waits for a request head, so a fresh connection that sends
//!   nothing, a trickled header and an idle keep-alive connection are all closed after it.
//! - **Idle timeout**: a connection on which no bytes moved in either direction for this long while
//!   no request handler runs (a stalled answer, a client that stopped reading) is closed. A handler
//!   waiting on an upstream is not idle; upgraded connections (websockets) leave this loop.
//! - **Connection cap**: beyond `max_connections` open connections (websockets included) a new
//!   one gets `503` and is closed at once, without being read.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// Connection limits (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub header_read_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
}

/// What a connection over the cap reads before it is closed.
const OVER_CAPACITY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; \
charset=utf-8\r\ncontent-length: 26\r\nconnection: close\r\n\r\nToo many open connections\n";

/// Accepts until `stop` fires (or its sender is dropped), then lets open connections finish.
pub(crate) async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop: oneshot::Receiver<()>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let (closing_tx, closing_rx) = watch::channel(false);
    // Dropping this set (the task is aborted) aborts every connection task.
    let mut conns = JoinSet::new();
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
            accepted = listener.accept() => {
                let Ok((stream, _peer)) = accepted else {
                    // EMFILE and the like: back off a little instead of spinning.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let Ok(slot) = slots.clone().try_acquire_owned() else {
                    let _ = stream.try_write(OVER_CAPACITY);
                    continue;
                };
                let router = router.clone();
                let closing = closing_rx.clone();
                conns.spawn(serve_connection(stream, slot, router, limits, closing));
            }
        }
    }
    drop(listener);
    let _ = closing_tx.send(true);
    while conns.join_next().await.is_some() {}
}

/// Per-connection activity, for the idle timeout.
struct Activity {
    start: Instant,
    /// Milliseconds since `start` of the last read or write that moved bytes.
    last_io_ms: AtomicU64,
    /// Request handlers running (not yet answered with a response head).
    handlers: AtomicUsize,
}

impl Activity {
    fn new() -> Self {
        Activity {
            start: Instant::now(),
            last_io_ms: AtomicU64::new(0),
            handlers: AtomicUsize::new(0),
        }
    }

    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_io_ms.store(ms, Ordering::Relaxed);
    }

    fn last_io(&self) -> Instant {
        self.start + Duration::from_millis(self.last_io_ms.load(Ordering::Relaxed))
    }

    /// Resolves once nothing moved for `idle` while no handler ran.
    async fn idle_for(&self, idle: Duration) {
        loop {
            let deadline = self.last_io() + idle;
            if Instant::now() < deadline {
                tokio::time::sleep_until(deadline).await;
            } else if self.handlers.load(Ordering::Relaxed) > 0 {
                tokio::time::sleep(idle).await;
            } else {
                return;
            }
        }
    }
}

/// Counts a running handler until dropped.
struct HandlerGuard(Arc<Activity>);

impl HandlerGuard {
    fn new(activity: &Arc<Activity>) -> Self {
        activity.handlers.fetch_add(1, Ordering::Relaxed);
        HandlerGuard(activity.clone())
    }
}

impl Drop for HandlerGuard {
    fn drop(&mut self) {
        self.0.handlers.fetch_sub(1, Ordering::Relaxed);
        self.0.touch();
    }
}

/// The TCP stream plus its connection slot (held as long as the stream lives, so an upgraded
/// websocket keeps counting) and activity tracking.
struct Tracked {
    stream: TcpStream,
    activity: Arc<Activity>,
    _slot: OwnedSemaphorePermit,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let res = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(res, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        res
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let res = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(res, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        res
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let res = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        if matches!(res, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        res
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

async fn serve_connection(
    stream: TcpStream,
    slot: OwnedSemaphorePermit,
    router: Router,
    limits: Limits,
    mut closing: watch::Receiver<bool>,
) {
    let activity = Arc::new(Activity::new());
    let io = TokioIo::new(Tracked {
        stream,
        activity: activity.clone(),
        _slot: slot,
    });
    let service_activity = activity.clone();
    let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
        let guard = HandlerGuard::new(&service_activity);
        let mut router = router.clone();
        async move {
            let resp = tower_service::Service::call(&mut router, req).await;
            drop(guard);
            resp
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true)
        .serve_connection(io, service)
        .with_upgrades();
    tokio::pin!(conn);
    let mut draining = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = closing.wait_for(|c| *c), if !draining => {
                // Shutting down: finish the request in progress, then close.
                conn.as_mut().graceful_shutdown();
                draining = true;
            }
            _ = activity.idle_for(limits.idle_timeout) => return,
        }
    }
}
