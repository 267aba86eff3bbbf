//! What the benchmarks share: timing work on several threads at once.

use std::time::Duration;

/// Runs `work(thread)` on `threads` threads at once and returns the longest time one reported
/// (each thread times its own loop, after whatever setup it does first). A panic on one of
/// them aborts the bench.
pub fn slowest_of(threads: usize, work: impl Fn(usize) -> Duration + Sync) -> Duration {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|thread| {
                let work = &work;
                scope.spawn(move || {
                    // A worker that panics before its barrier would leave the others waiting
                    // there for ever: the bench would hang instead of failing.
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(thread)))
                        .unwrap_or_else(|_| {
                            eprintln!("a bench thread panicked: the others would wait for it");
                            std::process::abort()
                        })
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
