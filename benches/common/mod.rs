//! What the benchmarks share: timing work on several threads at once.

use std::time::Duration;

/// Aborts the process when dropped by a panicking thread: a bench thread that panics before
/// its barrier would leave the others waiting there for ever, a hang instead of a failure.
pub struct AbortOnPanic;

impl Drop for AbortOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("a bench thread panicked: the bench cannot go on");
            std::process::abort();
        }
    }
}

/// Runs `work(thread)` on `threads` threads at once and returns the longest time one reported
/// (each thread times its own loop, after whatever setup it does first). A panic on one of
/// them aborts the bench.
pub fn slowest_of(threads: usize, work: impl Fn(usize) -> Duration + Sync) -> Duration {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|thread| {
                let work = &work;
                scope.spawn(move || {
                    let _abort_on_panic = AbortOnPanic;
                    work(thread)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("worker"))
            .max()
            .unwrap_or_default()
    })
}
