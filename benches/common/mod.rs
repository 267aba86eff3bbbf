//! What the benchmarks share: timing work on several threads at once.

use std::time::Duration;

/// Runs `work(thread)` on `threads` threads at once and returns the longest time one reported
/// (each thread times its own loop, after whatever setup it does first).
pub fn slowest_of(threads: usize, work: impl Fn(usize) -> Duration + Sync) -> Duration {
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|thread| {
                let work = &work;
                scope.spawn(move || work(thread))
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().expect("worker"))
            .max()
            .unwrap_or_default()
    })
}
