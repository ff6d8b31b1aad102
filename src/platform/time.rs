//! Timers for code that takes time as a parameter (core's probe retries, backoff).

/// Sleeps `ms` milliseconds on the browser's timer.
pub async fn sleep_ms(ms: u32) {
    gloo_timers::future::sleep(std::time::Duration::from_millis(u64::from(ms))).await;
}
