//! Queued work: each engine context's thread, jobs and modelled clock, each worker's and
//! fence's progress, and the waits and signals queued on events.

use crate::engine::commands::EngineContext;
use crate::engine::threads::EngineThread;
use rustc_hash::FxHashMap;

/// The platform's queued work.
pub(crate) struct WorkState {
    pub fences: FxHashMap<usize, bool>,
    /// Jobs submitted to a queue or immediate list (by worker id) and not yet completed.
    pub outstanding: FxHashMap<usize, u64>,
    /// Per engine worker that has run work: its device and job sequence numbers (for
    /// `zeDeviceSynchronize`, which waits for the jobs submitted before it).
    pub worker_jobs: FxHashMap<usize, WorkerJobs>,
    /// Modelled time (ns) at which each engine context is next free.
    pub engine_clock: FxHashMap<EngineContext, u64>,
    /// With `TimingModel::wall_clock`: when each engine context is next free on the wall clock.
    pub engine_wall: FxHashMap<EngineContext, std::time::Instant>,
    /// Modelled end of the last job of each worker, and of the job each fence tracks.
    pub worker_end: FxHashMap<usize, u64>,
    pub fence_end: FxHashMap<usize, u64>,
    /// Each engine context's thread, while a queue or immediate list uses it.
    pub engine_threads: FxHashMap<EngineContext, std::sync::Weak<EngineThread>>,
    /// Engine context -> jobs submitted to it, from any queue, not yet completed.
    pub engine_jobs: FxHashMap<EngineContext, u32>,
    /// (engine context, event) -> whether it was counted as a deadlock: the wait on the event
    /// that blocks the context's engine now.
    pub blocked_waits: FxHashMap<(EngineContext, usize), bool>,
    /// Engine context -> jobs running on their appending thread (`exec::submit`).
    pub inline_jobs: FxHashMap<EngineContext, u32>,
    /// (engine context, event) -> signals of the event queued there and not yet run.
    pub queued_signals: FxHashMap<(EngineContext, usize), u32>,
    /// Worker -> commands submitted to it that have not taken effect yet.
    pub worker_ops: FxHashMap<usize, u32>,
    /// Launches of kernels with code queued or running: a real kernel may reach any
    /// allocation through pointers the simulator cannot see (another context's too, as the
    /// driver allows), so while any is in flight, a free keeps the memory (a zombie) until
    /// they complete.
    pub real_launches: u32,
}

impl WorkState {
    pub(crate) fn new() -> Self {
        Self {
            fences: FxHashMap::default(),
            outstanding: FxHashMap::default(),
            worker_jobs: FxHashMap::default(),
            engine_clock: FxHashMap::default(),
            engine_wall: FxHashMap::default(),
            worker_end: FxHashMap::default(),
            fence_end: FxHashMap::default(),
            engine_threads: FxHashMap::default(),
            engine_jobs: FxHashMap::default(),
            blocked_waits: FxHashMap::default(),
            inline_jobs: FxHashMap::default(),
            queued_signals: FxHashMap::default(),
            worker_ops: FxHashMap::default(),
            real_launches: 0,
        }
    }
}

impl WorkState {
    /// A queue or immediate list is gone: its bookkeeping goes too.
    pub(crate) fn forget_worker(&mut self, worker: usize) {
        self.worker_end.remove(&worker);
        self.outstanding.remove(&worker);
        self.worker_jobs.remove(&worker);
    }
}

/// An engine worker's device and how many jobs it has been given and has finished.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct WorkerJobs {
    pub device: u32,
    pub submitted: u64,
    pub completed: u64,
}
