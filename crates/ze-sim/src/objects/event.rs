//! Events, their pools, and fences: what work signals and the host waits for.

/// An event's state: signalled or not, and the interval of the work that signalled it.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct EventState {
    pub signaled: bool,
    pub timestamp: Option<(u64, u64)>,
    /// Of a counter-based event: the latest arming whose work completed, and when it ended.
    /// A re-arming leaves it: work that waits on the event waits for the arming before its own
    /// submission, not for a later one.
    pub completed_arming: u64,
    pub completed_end: u64,
}

/// An event pool: its size and whether its events record timestamps.
#[derive(Debug)]
pub(crate) struct EventPool {
    pub context: usize,
    pub count: u32,
    /// Counter-based (`ze_event_pool_counter_based_exp_desc_t`): its events are re-armed by
    /// each append that signals them, never reset (Intel's v2 adapter uses them).
    pub counter_based: bool,
    /// Created shareable (`ZE_EVENT_POOL_FLAG_IPC`): it hands out an IPC handle.
    pub ipc: bool,
}

/// An event: its pool and index, and its state under a lock of its own, so that host waits and
/// queries on one event contend with nothing else.
#[derive(Debug)]
pub(crate) struct Event {
    pub pool: usize,
    pub index: u32,
    pub state: parking_lot::Mutex<EventState>,
    pub changed: parking_lot::Condvar,
    /// Queued commands that wait on it or will signal or reset it (it cannot be destroyed then).
    pub uses: std::sync::atomic::AtomicU32,
    /// Of a counter-based pool: unsignaled again from the moment work that signals it is
    /// submitted, until that work completes.
    pub counter_based: bool,
    /// How many times a counter-based event was armed: only the latest arming's work signals
    /// it (an earlier append that completes later does not).
    pub armings: std::sync::atomic::AtomicU64,
    /// The context of a counter-based event made without a pool (`zeEventCounterBasedCreate`),
    /// whose child it is.
    pub context: Option<usize>,
}

impl Event {
    pub(crate) fn new(pool: usize, index: u32, counter_based: bool) -> Self {
        Self {
            pool,
            index,
            counter_based,
            armings: Default::default(),
            state: Default::default(),
            changed: Default::default(),
            uses: Default::default(),
            context: None,
        }
    }

    /// Signals it with the interval of the work before it: from queued work (`by_device`, which
    /// ends that use of it, under its lock, so a host that sees the signal sees the use gone),
    /// or from the host (which keeps an earlier interval).
    pub(crate) fn signal(&self, interval: (u64, u64), by_device: bool) {
        let mut state = self.state.lock();
        state.signaled = true;
        if by_device {
            state.timestamp = Some(interval);
            self.uses.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        } else {
            state.timestamp.get_or_insert(interval);
        }
        self.changed.notify_all();
    }

    /// A counter-based event's re-arming, when work that will signal it is submitted; the
    /// arming that work completes (0 for a regular event).
    pub(crate) fn rearm(&self) -> u64 {
        if !self.counter_based {
            return 0;
        }
        let mut state = self.state.lock();
        state.signaled = false;
        state.timestamp = None;
        self.armings
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel)
            .wrapping_add(1)
    }

    /// Queued work's signal: a counter-based event is signalled only by the work of its latest
    /// arming; the work's use of the event ends either way.
    pub(crate) fn signal_arming(&self, interval: (u64, u64), arming: u64) {
        if self.counter_based {
            let mut state = self.state.lock();
            if arming > state.completed_arming {
                state.completed_arming = arming;
                state.completed_end = interval.1;
            }
            let latest = self.armings.load(std::sync::atomic::Ordering::Acquire);
            if arming != latest {
                self.uses.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
                // Work waiting on this arming may go on.
                self.changed.notify_all();
                return;
            }
        }
        self.signal(interval, true);
    }

    /// Resets it; likewise for a queued reset.
    pub(crate) fn reset(&self, ends_use: bool) {
        let mut state = self.state.lock();
        // What completed stays: work waiting on an earlier arming still sees it.
        state.signaled = false;
        state.timestamp = None;
        if ends_use {
            self.uses.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
        }
    }
}

/// A fence on a command queue.
#[derive(Debug)]
pub(crate) struct Fence {
    pub queue: usize,
}
