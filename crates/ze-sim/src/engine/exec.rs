//! Command queues and lists, and the worker threads that execute them.
//!
//! A submission is checked and costed under the platform lock (residency, P2P, bounds), then
//! handed to the engine's worker thread, which waits on events, moves the bytes and signals
//! completion later: work really is asynchronous, as on hardware.

use crate::engine::commands::{Command, Engine, EngineContext, Recording, Submitter};
use crate::engine::kernels::{run_builtin, run_code};
use crate::engine::ops::{Job, Op};
use crate::engine::platform::{Inner, State, count_use};
use crate::engine::prepare::prepare;
use crate::engine::threads::EngineThread;
use crate::model::memory_kind::MemKind;
use crate::objects::event::{Event, EventState};
use level_zero_sys::ze_result_t;
use parking_lot::MutexGuard;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self};
use std::sync::{Arc, Mutex};

impl EngineThread {
    /// The thread, or `None` when the system cannot start one. The caller holds the platform
    /// lock (`state`), where the thread is counted.
    fn start(platform: &Arc<Inner>, state: &mut State) -> Option<Self> {
        // An engine thread may still be ending when the loader unloads the driver at the
        // program's exit (a thread is not joined from itself): its thread-local destructors
        // must find this library's code there (they faulted in `__nptl_deallocate_tsd`).
        static PINNED: std::sync::Once = std::sync::Once::new();
        PINNED.call_once(|| {
            if !crate::model::machine::pin_this_library() {
                eprintln!("ze-sim: cannot keep the simulator loaded while its threads run");
            }
        });
        let (sender, receiver) = mpsc::channel::<Job>();
        let platform = Arc::clone(platform);
        let thread = std::thread::Builder::new()
            .name("ze-sim-engine".into())
            .spawn(move || {
                for job in receiver {
                    // After a job of the same context that ran on its appending thread.
                    let state = platform.lock();
                    platform.wait_until(state, u64::MAX, |state| {
                        !state.work.inline_jobs.contains_key(&job.context)
                    });
                    run(&platform, job);
                }
                // Counted out by the thread itself, once its last queue is gone and its work
                // has run (joined by that queue's destroy).
                let mut state = platform.lock();
                state.counters.live_engine_threads =
                    state.counters.live_engine_threads.saturating_sub(1);
            })
            .ok()?;
        state.counters.live_engine_threads += 1;
        Some(Self {
            sender: Mutex::new(Some(sender)),
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Ends the thread once queued work has run, waiting for it if `join`.
    fn stop(&self, join: bool) {
        self.sender
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        // Never joined from its own thread (a job that dropped the last queue of its engine).
        if let Some(thread) = thread
            && join
            && thread.thread().id() != std::thread::current().id()
        {
            let _ = thread.join();
        }
    }

    /// Queues `job`; gives it back when the thread is ending.
    fn send(&self, job: Job) -> Result<(), mpsc::SendError<Job>> {
        match self
            .sender
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .as_ref()
        {
            Some(sender) => sender.send(job),
            None => Err(mpsc::SendError(job)),
        }
    }
}

static NEXT_WORKER: AtomicUsize = AtomicUsize::new(1);

/// One queue's (or immediate list's) stream of submissions: its own bookkeeping (what it has
/// outstanding, for its synchronize and destroy), run by its engine context's thread.
pub(crate) struct Worker {
    pub id: usize,
    pub context: EngineContext,
    engine: Mutex<Option<Arc<EngineThread>>>,
}

impl Worker {
    /// A stream on `context`'s thread, started if no stream has it; `None` when the system
    /// cannot start a thread.
    fn start(platform: &Arc<Inner>, context: EngineContext) -> Option<Self> {
        let mut state = platform.lock();
        let running = state
            .work
            .engine_threads
            .get(&context)
            .and_then(std::sync::Weak::upgrade);
        let engine = match running {
            Some(engine) => engine,
            None => {
                let engine = Arc::new(EngineThread::start(platform, &mut state)?);
                state
                    .work
                    .engine_threads
                    .insert(context, Arc::downgrade(&engine));
                engine
            }
        };
        Some(Self {
            id: NEXT_WORKER.fetch_add(1, Ordering::Relaxed),
            context,
            engine: Mutex::new(Some(engine)),
        })
    }

    fn engine(&self) -> Option<Arc<EngineThread>> {
        self.engine
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    /// Ends the stream once its queued work has run (the caller refused a busy stream's
    /// destruction, so this waits only for a job's last bookkeeping; on a lost device, not at
    /// all); the last stream of an engine context ends its thread.
    pub(crate) fn stop(&self, platform: &Inner) {
        let state = platform.lock();
        platform.wait_until(state, u64::MAX, |state| {
            state.lost || state.work.outstanding.get(&self.id).copied().unwrap_or(0) == 0
        });
        let engine = self
            .engine
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        // Under the platform lock, where a new stream would take the thread.
        let mut state = platform.lock();
        let last = engine.and_then(Arc::into_inner);
        if last.is_some() {
            state.work.engine_threads.remove(&self.context);
        }
        // On a lost device a queued wait may never end: a thread with work still queued is
        // left to end (and count itself out) on its own rather than joined.
        let join = !state.lost || !state.work.engine_jobs.contains_key(&self.context);
        drop(state);
        if let Some(engine) = last {
            engine.stop(join);
        }
    }
}

/// A command queue.
pub(crate) struct CommandQueue {
    pub context: usize,
    pub engine: Engine,
    pub synchronous: bool,
    pub worker: Worker,
}

impl CommandQueue {
    /// A queue on `engine`, in its low-priority context if `low_priority` and the engine is
    /// a compute engine (compute-runtime has no low-priority copy context without context
    /// groups); `OUT_OF_HOST_MEMORY` when no thread can be started for its engine.
    pub(crate) fn new(
        platform: &Arc<Inner>,
        context: usize,
        engine: Engine,
        synchronous: bool,
        low_priority: bool,
    ) -> Result<Self, ze_result_t> {
        let compute = crate::model::queue_groups::queue_groups(&platform.config.devices[engine.device as usize])
            .get(engine.ordinal as usize)
            .is_some_and(|group| {
                group.flags & level_zero_sys::ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE.0 != 0
            });
        let context_of_engine = if low_priority && compute {
            // One per device, whichever compute engine the descriptor names.
            EngineContext {
                engine: Engine { index: 0, ..engine },
                low_priority: true,
            }
        } else {
            EngineContext {
                engine,
                low_priority: false,
            }
        };
        let worker = Worker::start(platform, context_of_engine)
            .ok_or(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)?;
        Ok(Self {
            context,
            engine,
            synchronous,
            worker,
        })
    }
}

/// A command list: regular (recorded, executed on a queue) or immediate (runs as appended).
pub(crate) struct CommandList {
    pub context: usize,
    pub engine: Engine,
    /// Made with `ZE_COMMAND_LIST_FLAG_EXP_CLONEABLE`.
    pub cloneable: bool,
    pub recording: Mutex<Recording>,
    /// Present for immediate lists.
    pub immediate: Option<CommandQueue>,
    /// Appends to it in progress (see the `list_call_overlaps` counter).
    pub appends_in_progress: std::sync::atomic::AtomicU32,
}

/// A fill of `dst..dst + size` with `pattern` repeated (a fill, or a kernel timestamp written
/// when it runs), its destination checked like a copy's.
/// Writes `pattern` over `target` again and again (the last copy cut short), doubling what is
/// written with each copy rather than writing a byte at a time (a gigabyte's fill took seconds
/// in a debug build).
fn fill_with_pattern(target: &mut [u8], pattern: &[u8]) {
    let first = pattern.len().min(target.len());
    target[..first].copy_from_slice(&pattern[..first]);
    // What is written is whole patterns, so copying it on keeps the cycle.
    let mut written = first;
    while written > 0 && written < target.len() {
        let more = written.min(target.len() - written);
        target.copy_within(..more, written);
        written += more;
    }
}

/// What a kernel's submission returns when the pinned backing of the peer residencies it
/// makes resident finds no host memory.
const DEFERRED_BACKING_REFUSED: ze_result_t = ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;

/// Copies `size` bytes from `src` to `dst`, on several threads when the copy is large: one
/// thread's memcpy is slower than the modelled P2P link (28.6 GB/s) on most hosts, and with
/// `TimingModel::wall_clock` a copy lasts the longer of the two, so a benchmark timing copies
/// with a host clock measures the model only where the host keeps up.
///
/// # Safety
/// Both ranges are valid for `size` bytes and do not overlap.
unsafe fn copy_bytes(dst: usize, src: usize, size: usize) {
    const SPLIT_AT: usize = 8 << 20;
    const PER_THREAD: usize = 4 << 20;
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let host = *THREADS.get_or_init(|| {
        std::thread::available_parallelism().map_or(1, |threads| threads.get().min(8))
    });
    let threads = if size >= SPLIT_AT {
        host.min(size / PER_THREAD)
    } else {
        1
    };
    if threads <= 1 {
        // SAFETY: the caller's ranges.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, size) };
        return;
    }
    let chunk = size.div_ceil(threads);
    std::thread::scope(|scope| {
        for start in (0..size).step_by(chunk) {
            let length = chunk.min(size - start);
            // SAFETY: a part of the caller's ranges, disjoint from the others; the scope
            // ends before this function returns.
            let part = move || unsafe {
                std::ptr::copy_nonoverlapping(
                    (src + start) as *const u8,
                    (dst + start) as *mut u8,
                    length,
                )
            };
            // A thread the host cannot start: this one copies the part instead.
            if std::thread::Builder::new()
                .spawn_scoped(scope, part)
                .is_err()
            {
                part();
            }
        }
    });
}

/// Checks, costs and queues `commands` (recorded in the regular `lists`, if any) on `queue`,
/// signalling `fence` when they complete.
///
/// An immediate list's job runs at once on the appending thread when its engine is idle and
/// the job waits on no event (unless `command_delay_us` asks for slow asynchronous engines):
/// the order and modelled timing are those of the engine thread, without two thread hand-offs
/// per command, so host-side throughput measures the library rather than the simulator.
pub(crate) fn submit(
    platform: &Arc<Inner>,
    queue: &CommandQueue,
    commands: &[Command],
    lists: &[usize],
    fence: Option<usize>,
    submitter: Submitter,
) -> Result<(), ze_result_t> {
    let mut state = platform.lock();
    if state.lost {
        return Err(ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST);
    }
    state.counters.submissions += 1;
    if let Some(limit) = platform.config.faults.device_lost_after_submissions
        && state.counters.submissions > limit
    {
        state.lost = true;
        return Err(ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST);
    }
    // A kernel's submission binds what was made resident: peer residencies of the process
    // still waiting for their pinned backing get it now (`defer_peer_backing`; the process's,
    // not only the queue's context's: a simplification).
    if !state.memory.awaiting_backing.is_empty()
        && commands
            .iter()
            .any(|command| matches!(command, Command::Launch(_)))
        && let Err(needed) = platform.back_deferred(&mut state)
    {
        let refused = DEFERRED_BACKING_REFUSED;
        let call = match submitter {
            Submitter::Queue => "zeCommandQueueExecuteCommandLists (a kernel's list)",
            Submitter::ImmediateList => "zeCommandListAppendLaunchKernel (immediate list)",
        };
        platform.note_refusal(call, refused, needed);
        return Err(refused);
    }
    // A refused submission keeps its counters (they record what was attempted) and any owner
    // commits it made (the driver would have committed the memory too).
    let ops = prepare(platform, &mut state, queue.context, queue.engine, commands)?;
    // Idle: nothing queued on the engine context, from any queue that shares it.
    let engine_idle = !state.work.engine_jobs.contains_key(&queue.worker.context);
    // On the wall clock an engine takes the command's time: the appending thread must not.
    let inline = submitter == Submitter::ImmediateList
        && !platform.config.timing.wall_clock
        && engine_idle
        && platform.config.faults.command_delay_us.is_none()
        && !ops.iter().any(|op| matches!(op, Op::Wait(_)))
        // A real kernel runs on the engine's thread, as a GPU runs it beside the host.
        && !ops
            .iter()
            .any(|op| matches!(op, Op::Launch { run: Some(_), .. }));
    // What the job uses, counted before it is sent (the worker needs the lock this holds, so
    // it cannot start earlier) and released as each part completes.
    let device = queue.engine.device;
    let mut ops = ops;
    for op in &mut ops {
        match op {
            Op::Copy { touched, .. } | Op::Fill { touched, .. } => {
                for &base in touched.iter() {
                    if let Some(allocation) = state.memory.allocations.get_mut(&base) {
                        allocation.pending += 1;
                    }
                    count_use(&mut state.uses.device_uses, (base, device), 1);
                }
                // The event a timestamp query reads is in use until the query ran (destroying
                // or resetting it meanwhile is refused and counted, as for a wait).
                if let Op::Fill {
                    timestamp_of: Some(event),
                    ..
                } = op
                {
                    event.uses.fetch_add(1, Ordering::AcqRel);
                }
            }
            Op::Wait(events) => {
                for (event, arming) in events.iter_mut() {
                    // Before this job's own signals re-arm it (they come later in the job).
                    if event.counter_based {
                        *arming = event.armings.load(Ordering::Acquire);
                    }
                    event.uses.fetch_add(1, Ordering::AcqRel);
                }
            }
            Op::Signal(event, arming) => {
                // A counter-based event stands for its latest signalling append.
                *arming = event.rearm();
                event.uses.fetch_add(1, Ordering::AcqRel);
                if !event.counter_based {
                    let key = signal_key(queue.worker.context, event);
                    count_use(&mut state.work.queued_signals, key, 1);
                    // The engine already waits on the event this signal, queued behind, sets.
                    if let Some(counted) = state.work.blocked_waits.get_mut(&key)
                        && !*counted
                    {
                        *counted = true;
                        count_deadlock(&mut state, queue.worker.context);
                    }
                }
            }
            Op::Reset(event) => {
                event.uses.fetch_add(1, Ordering::AcqRel);
            }
            Op::Launch {
                kernel,
                touched,
                run,
                ..
            } => {
                count_use(&mut state.uses.kernel_uses, *kernel, 1);
                if run.is_some() {
                    Inner::count_real_launch(&mut state, true);
                }
                for &base in touched.iter() {
                    if let Some(allocation) = state.memory.allocations.get_mut(&base) {
                        allocation.pending += 1;
                    }
                    count_use(&mut state.uses.device_uses, (base, device), 1);
                }
            }
        }
    }
    for &list in lists {
        count_use(&mut state.uses.list_uses, list, 1);
    }
    count_use(
        &mut state.work.worker_ops,
        queue.worker.id,
        ops.len() as i32,
    );
    *state.work.outstanding.entry(queue.worker.id).or_default() += 1;
    count_use(&mut state.work.engine_jobs, queue.worker.context, 1);
    let jobs = state.work.worker_jobs.entry(queue.worker.id).or_default();
    jobs.device = queue.engine.device;
    jobs.submitted += 1;
    if let Some(fence) = fence {
        state.work.fences.insert(fence, false);
    }
    let job = Job {
        ops,
        worker: queue.worker.id,
        engine: queue.engine,
        context: queue.worker.context,
        inline,
        fence,
        lists: lists.to_vec(),
        submitted_at: platform.host_clock.load(Ordering::Acquire),
    };
    if inline {
        // Nothing else can submit to this list meanwhile (Level Zero's rule for immediate
        // lists), and its engine has nothing queued: running here keeps the order. What
        // another queue submits to the engine meanwhile waits for it (`inline_jobs`).
        count_use(&mut state.work.inline_jobs, queue.worker.context, 1);
        drop(state);
        let mut unwinding = InlineUnwind {
            platform,
            context: queue.worker.context,
            worker: queue.worker.id,
            armed: true,
        };
        run(platform, job);
        unwinding.armed = false;
        return Ok(());
    }
    let sent = match queue.worker.engine() {
        Some(engine) => engine.send(job),
        None => Err(mpsc::SendError(job)),
    };
    if let Err(mpsc::SendError(job)) = sent {
        // Never to run (the queue is being destroyed meanwhile): what the engine and the
        // stream count for it goes, and its real launches are not in flight (frees would be
        // held forever).
        count_use(&mut state.work.engine_jobs, job.context, -1);
        count_use(
            &mut state.work.worker_ops,
            job.worker,
            -(job.ops.len() as i32),
        );
        if let Some(jobs) = state.work.outstanding.get_mut(&job.worker) {
            *jobs = jobs.saturating_sub(1);
        }
        for op in &job.ops {
            match op {
                Op::Launch { run: Some(_), .. } => Inner::count_real_launch(&mut state, false),
                Op::Signal(event, _) if !event.counter_based => count_use(
                    &mut state.work.queued_signals,
                    signal_key(job.context, event),
                    -1,
                ),
                _ => {}
            }
        }
        platform.changed.notify_all();
        return Err(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED);
    }
    if queue.synchronous || !platform.config.async_execution {
        let worker = queue.worker.id;
        platform.wait_until(state, u64::MAX, |state| {
            let done = state.work.outstanding.get(&worker).copied().unwrap_or(0) == 0;
            if done {
                platform.observe_worker(state, worker);
            }
            done
        });
    }
    Ok(())
}

fn run(platform: &Inner, job: Job) {
    // Modelled time: a command starts once its engine is free, the host has submitted it, and
    // the events it waits on have signalled; it lasts what the timing model says. Real
    // execution speed never enters, so timestamps are the same on every machine.
    let mut ready_at = job.submitted_at;
    let mut last_interval = None;
    // The platform lock, kept across consecutive bookkeeping steps (a copy's completion, the
    // signal after it, the job's end) and released while bytes move or the engine waits.
    let mut held: Option<MutexGuard<'_, State>> = None;
    for op in job.ops {
        match op {
            Op::Wait(events) => {
                drop(held.take());
                // Each event under its own lock; the engine holds nothing else while it waits.
                // Destroying an awaited event is refused, so every event here is live.
                for (event, arming) in &events {
                    let done = |state: &EventState| {
                        state.signaled || (*arming > 0 && state.completed_arming >= *arming)
                    };
                    let blocked = !done(&event.state.lock());
                    if blocked {
                        note_blocked_wait(platform, job.context, event, || {
                            !done(&event.state.lock())
                        });
                    }
                    let mut state = event.state.lock();
                    while !done(&state) {
                        event.changed.wait(&mut state);
                    }
                    if state.signaled {
                        if let Some((_, end)) = state.timestamp {
                            ready_at = ready_at.max(end);
                        }
                    } else {
                        ready_at = ready_at.max(state.completed_end);
                    }
                    drop(state);
                    if blocked {
                        end_blocked_wait(platform, job.context, event);
                    }
                    event.uses.fetch_sub(1, Ordering::AcqRel);
                }
                let state = held.get_or_insert_with(|| platform.lock());
                count_use(&mut state.work.worker_ops, job.worker, -1);
            }
            Op::Signal(event, arming) => {
                let state = held.get_or_insert_with(|| platform.lock());
                if !event.counter_based {
                    count_use(
                        &mut state.work.queued_signals,
                        signal_key(job.context, &event),
                        -1,
                    );
                }
                event.signal_arming(last_interval.unwrap_or((ready_at, ready_at)), arming);
                count_use(&mut state.work.worker_ops, job.worker, -1);
                platform.changed.notify_all();
            }
            Op::Reset(event) => {
                let state = held.get_or_insert_with(|| platform.lock());
                event.reset(true);
                count_use(&mut state.work.worker_ops, job.worker, -1);
            }
            Op::Copy {
                dst,
                src,
                size,
                corrupt,
                nanos,
                touched,
            } => {
                drop(held.take());
                delay(platform);
                let (interval, until) =
                    start(platform, job.context, nanos, ready_at, &touched, true);
                last_interval = Some(interval);
                // SAFETY: both ranges were checked at submission to lie inside live simulator
                // allocations (kept alive while pending) or caller-owned host memory that the
                // Level Zero contract keeps valid until the command completes; overlapping
                // ranges were refused at append.
                unsafe {
                    if corrupt {
                        std::ptr::write_bytes(dst as *mut u8, 0xff, size);
                    } else {
                        copy_bytes(dst, src, size);
                    }
                }
                pace(until);
                held = Some(finish(platform, &touched, job.engine.device, job.worker));
            }
            Op::Launch {
                kernel,
                builtin,
                run,
                items,
                pointers,
                value,
                nanos,
                touched,
            } => {
                drop(held.take());
                delay(platform);
                let (interval, until) =
                    start(platform, job.context, nanos, ready_at, &touched, false);
                last_interval = Some(interval);
                if let Some(builtin) = builtin {
                    run_builtin(platform, job.engine, builtin, items, &pointers, value);
                } else if let Some(run) = &run {
                    run_code(platform, run);
                }
                pace(until);
                let mut state = finish(platform, &touched, job.engine.device, job.worker);
                count_use(&mut state.uses.kernel_uses, kernel, -1);
                if run.is_some() {
                    Inner::count_real_launch(&mut state, false);
                }
                held = Some(state);
            }
            Op::Fill {
                dst,
                mut pattern,
                size,
                nanos,
                touched,
                timestamp_of,
            } => {
                drop(held.take());
                delay(platform);
                let (interval, until) =
                    start(platform, job.context, nanos, ready_at, &touched, true);
                last_interval = Some(interval);
                if let Some(event) = &timestamp_of {
                    // Global and context timestamps alike: the simulated clock is one.
                    let (start, end) = event.state.lock().timestamp.unwrap_or((0, 0));
                    pattern = [start, end, start, end]
                        .iter()
                        .flat_map(|value| value.to_ne_bytes())
                        .collect();
                    event.uses.fetch_sub(1, Ordering::AcqRel);
                }
                // SAFETY: `dst..dst + size` was checked at submission as for copies.
                let target = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, size) };
                fill_with_pattern(target, &pattern);
                pace(until);
                held = Some(finish(platform, &touched, job.engine.device, job.worker));
            }
        }
    }
    let end = last_interval.map_or(ready_at, |(_, end)| end);
    let mut state = held.unwrap_or_else(|| platform.lock());
    if let Some(jobs) = state.work.outstanding.get_mut(&job.worker) {
        *jobs = jobs.saturating_sub(1);
    }
    count_use(&mut state.work.engine_jobs, job.context, -1);
    if job.inline {
        count_use(&mut state.work.inline_jobs, job.context, -1);
    }
    if let Some(jobs) = state.work.worker_jobs.get_mut(&job.worker) {
        jobs.completed += 1;
    }
    for &list in &job.lists {
        count_use(&mut state.uses.list_uses, list, -1);
    }
    let worker_end = state.work.worker_end.entry(job.worker).or_default();
    *worker_end = (*worker_end).max(end);
    if let Some(fence) = job.fence {
        state.work.fences.insert(fence, true);
        state.work.fence_end.insert(fence, end);
    }
    platform.changed.notify_all();
}

/// Undoes an inline job's engine counts when it unwinds before its own bookkeeping (a panic
/// that the entry point's guard catches), so its engine context does not stay busy forever.
struct InlineUnwind<'a> {
    platform: &'a Inner,
    context: EngineContext,
    /// The job's stream: its outstanding job and ops go too, or its list could never be
    /// destroyed.
    worker: usize,
    armed: bool,
}

impl Drop for InlineUnwind<'_> {
    fn drop(&mut self) {
        if self.armed {
            let mut state = self.platform.lock();
            count_use(&mut state.work.inline_jobs, self.context, -1);
            count_use(&mut state.work.engine_jobs, self.context, -1);
            state.work.worker_ops.remove(&self.worker);
            if let Some(jobs) = state.work.outstanding.get_mut(&self.worker) {
                *jobs = jobs.saturating_sub(1);
            }
            self.platform.changed.notify_all();
        }
    }
}

/// A wait on `event` blocks its engine context until it ends. If a submission queued behind
/// it on the same context signals the event (queued before the wait blocked, or while it
/// waits), that signal cannot run before the wait ends, as on hardware, where the engine's
/// ring stops at the semaphore: counted once (`engine_deadlocks`) and reported, and the wait
/// goes on (the host, or another engine, may still signal the event).
/// `still_blocked` is asked again under the platform lock (the event may have signalled
/// meanwhile); the platform lock is taken before the event's, as everywhere.
fn note_blocked_wait(
    platform: &Inner,
    context: EngineContext,
    event: &Arc<Event>,
    still_blocked: impl FnOnce() -> bool,
) {
    let mut state = platform.lock();
    let key = signal_key(context, event);
    let behind = state.work.queued_signals.contains_key(&key) && still_blocked();
    state.work.blocked_waits.insert(key, behind);
    if behind {
        count_deadlock(&mut state, context);
    }
}

/// The wait [`note_blocked_wait`] noted has ended.
fn end_blocked_wait(platform: &Inner, context: EngineContext, event: &Arc<Event>) {
    platform
        .lock()
        .work
        .blocked_waits
        .remove(&signal_key(context, event));
}

/// What `queued_signals` and `blocked_waits` know a signal or wait by: its engine context and
/// event.
fn signal_key(context: EngineContext, event: &Arc<Event>) -> (EngineContext, usize) {
    (context, Arc::as_ptr(event) as usize)
}

fn count_deadlock(state: &mut State, context: EngineContext) {
    state.counters.engine_deadlocks += 1;
    eprintln!(
        "ze-sim: an engine waits on an event that a later submission on the same engine \
         signals (device {}, group {}, queue {}): it hangs unless the host or another engine \
         signals it",
        context.engine.device, context.engine.ordinal, context.engine.index
    );
}

/// A command starts: residency is checked again (memory evicted since it was appended would
/// fault on hardware: a violation), and its modelled start and end are set, after its engine's
/// previous command and not before `ready_at`; with `TimingModel::wall_clock`, also when it may
/// finish on the wall clock.
fn start(
    platform: &Inner,
    context: EngineContext,
    nanos: u64,
    ready_at: u64,
    touched: &[usize],
    copy: bool,
) -> ((u64, u64), Option<std::time::Instant>) {
    let engine = context.engine;
    let mut state = platform.lock();
    // Without peer access reported, a copy engine stages a peer's memory through the host.
    let staged = copy && !platform.config.peer_access_reported;
    let lost =
        touched
            .iter()
            .filter(|_| !staged)
            .filter(|base| {
                state.memory.allocations.get(base).is_some_and(|allocation| {
                matches!(allocation.kind, MemKind::Device { owner } if owner != engine.device)
                    && allocation.resident & (1 << engine.device) == 0
            })
            })
            .count();
    state.counters.residency_violations += lost as u64;
    // Per engine context: the hardware preempts a low-priority context for the regular one, so
    // low-priority work never delays the regular context's modelled time. Modelled as a
    // second engine, the low-priority context is not slowed by the regular one either (its
    // share of the engine is not modelled).
    let clock = state.work.engine_clock.entry(context).or_default();
    let start = (*clock).max(ready_at);
    let end = start.saturating_add(nanos);
    *clock = end;
    // On the wall clock too, one command of an engine after another, whichever queue sent it.
    let until = platform.config.timing.wall_clock.then(|| {
        let now = std::time::Instant::now();
        let free = state.work.engine_wall.entry(context).or_insert(now);
        *free = (*free).max(now) + std::time::Duration::from_nanos(nanos);
        *free
    });
    ((start, end), until)
}

/// A command's uses end; returns the lock for the bookkeeping that follows.
fn finish<'a>(
    platform: &'a Inner,
    touched: &[usize],
    device: u32,
    worker: usize,
) -> MutexGuard<'a, State> {
    let mut state = platform.lock();
    for &base in touched {
        Inner::complete_use(&mut state, base, device);
    }
    count_use(&mut state.work.worker_ops, worker, -1);
    platform.changed.notify_all();
    state
}

/// With `TimingModel::wall_clock`, waits until `until` (sleeping while more than a
/// millisecond is left, then spinning, for a close finish).
fn pace(until: Option<std::time::Instant>) {
    let Some(until) = until else {
        return;
    };
    loop {
        let now = std::time::Instant::now();
        let Some(left) = until.checked_duration_since(now) else {
            return;
        };
        if left > std::time::Duration::from_millis(1) {
            std::thread::sleep(left - std::time::Duration::from_micros(500));
        } else {
            std::hint::spin_loop();
        }
    }
}

/// The `command_delay_us` fault: the command takes real time, so host threads can race it.
fn delay(platform: &Inner) {
    if let Some(micros) = platform.config.faults.command_delay_us {
        std::thread::sleep(std::time::Duration::from_micros(micros));
    }
}

#[cfg(test)]
mod tests {
    use super::fill_with_pattern;

    /// The doubling fill writes what the pattern cycled byte by byte writes, for every pattern
    /// size against targets shorter, equal and longer (not a multiple) than it.
    #[test]
    fn a_fill_writes_its_pattern_cycled_to_the_last_byte() {
        for pattern_size in [0usize, 1, 2, 3, 4, 16, 128] {
            let pattern: Vec<u8> = (1..=pattern_size as u8).collect();
            for size in [0usize, 1, 2, 5, 127, 128, 1000, 4099] {
                let mut target = vec![0u8; size];
                fill_with_pattern(&mut target, &pattern);
                let expected: Vec<u8> = if pattern.is_empty() {
                    vec![0; size]
                } else {
                    pattern.iter().copied().cycle().take(size).collect()
                };
                assert_eq!(target, expected, "pattern {pattern_size}, size {size}");
            }
        }
    }
}
