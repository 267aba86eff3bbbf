//! One simulated platform: its devices, memory, residency accounting and counters.

use crate::engine::memory::{Allocation, MemoryState, OrphanedExport};
use crate::engine::uses::UseCounts;
use crate::engine::work::WorkState;
use crate::model::backing::Backing;
use crate::model::config::{LinkKind, MirrorMode, SimConfig};
use crate::model::counters::{Counters, DeviceUsage};
use crate::model::machine::{Figure, Membership};
use crate::model::memory_kind::MemKind;
use level_zero_sys::ze_result_t;
use parking_lot::{Condvar, Mutex, MutexGuard};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Where the modelled clock starts: a device that has been up a while, so no timestamp of
/// its work is zero (programs and conformance tests take a zero timestamp for none written).
pub(crate) const CLOCK_START_NS: u64 = 1_000_000;

impl State {
    /// Raises the peaks to the current figures; called after every increase.
    pub(crate) fn note_peaks(&mut self) {
        self.memory.note_peaks();
    }
}

/// How Sysman was started in this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SysmanStart {
    NotStarted,
    /// `zeInit` with `ZES_ENABLE_SYSMAN=1`: Sysman calls take core device handles, and
    /// `zesDriverGet` is not available.
    WithCoreInit,
    /// `zesInit`.
    Initialized,
}

pub(crate) struct State {
    pub initialized: bool,
    /// How the system-management interface (Sysman) was started, if it was.
    pub sysman: SysmanStart,
    pub lost: bool,
    pub counters: Counters,
    /// Memory, its residency and cost.
    pub memory: MemoryState,
    /// Queued work.
    pub work: WorkState,
    /// What is in use and may not go.
    pub uses: UseCounts,
}

/// Adds `delta` to the count under `key`, removing it when it reaches zero.
pub(crate) fn count_use<K: std::hash::Hash + Eq>(map: &mut FxHashMap<K, u32>, key: K, delta: i32) {
    use std::collections::hash_map::Entry;
    match map.entry(key) {
        Entry::Occupied(mut entry) => {
            let count = entry.get_mut();
            *count = count.saturating_add_signed(delta);
            if *count == 0 {
                entry.remove();
            }
        }
        Entry::Vacant(entry) => {
            if delta > 0 {
                entry.insert(delta.unsigned_abs());
            }
        }
    }
}

impl State {
    /// A queue or immediate list is gone: its bookkeeping goes too.
    pub(crate) fn forget_worker(&mut self, worker: usize) {
        self.work.forget_worker(worker);
    }
}

impl State {
    /// A new platform's state, for `device_count` devices.
    pub(crate) fn new(device_count: usize) -> Self {
        State {
            initialized: false,
            sysman: SysmanStart::NotStarted,
            lost: false,
            counters: Counters::default(),
            memory: MemoryState::new(device_count),
            work: WorkState::new(),
            uses: UseCounts::new(),
        }
    }
}

pub(crate) struct Inner {
    pub config: SimConfig,
    pub state: Mutex<State>,
    pub changed: Condvar,
    pub driver: usize,
    pub devices: Vec<usize>,
    /// Each device's fabric vertex handle.
    pub vertices: Vec<usize>,
    /// Each device's Sysman memory module handle.
    pub memory_modules: Vec<usize>,
    pub epoch: Instant,
    /// The in-process slot whose entry points drive it (none for the loader's platform).
    pub slot: Option<usize>,
    /// Releases its handles and slot when it ends (the ABI layer's, which gave them).
    pub _registration: Box<dyn Send + Sync>,
    /// The host's modelled clock (ns): advances when the host sees device work complete. An
    /// atomic, so host waits on events need no platform lock. Starts at `CLOCK_START_NS`.
    pub host_clock: AtomicU64,
    /// Host waits answered so far (for the `not_ready_waits` and `failed_waits` faults).
    pub host_waits: AtomicU64,
    /// The machine this process shares with the rest of its job, if it joined one.
    pub machine: Option<&'static Membership>,
    /// The machine's index of each device this process sees (`ZE_AFFINITY_MASK` may hide
    /// some): what IPC handles name a device by, across processes.
    pub machine_devices: Vec<u32>,
    /// How many devices the machine has (this process may see fewer).
    pub machine_device_total: u32,
}

const FDINFO_KIB: u64 = 1024;

impl Inner {
    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock()
    }

    /// The host has seen work complete at `end`: its modelled clock moves past it.
    pub(crate) fn observe(&self, end: u64) {
        self.host_clock.fetch_max(end, Ordering::AcqRel);
    }

    /// The host has seen `worker`'s work complete.
    pub(crate) fn observe_worker(&self, state: &State, worker: usize) {
        self.observe(state.work.worker_end.get(&worker).copied().unwrap_or(0));
    }

    /// Waits on the platform's condition variable until `done` holds or `timeout_ns` passes
    /// (`u64::MAX` waits forever). Returns whether `done` held.
    pub(crate) fn wait_until(
        &self,
        mut state: MutexGuard<'_, State>,
        timeout_ns: u64,
        mut done: impl FnMut(&mut State) -> bool,
    ) -> bool {
        let deadline = (timeout_ns != u64::MAX)
            .then(|| Instant::now().checked_add(Duration::from_nanos(timeout_ns)))
            .flatten();
        loop {
            if done(&mut state) {
                return true;
            }
            match deadline {
                None => self.changed.wait(&mut state),
                Some(deadline) => {
                    if !wait_step(&self.changed, &mut state, deadline) {
                        return false;
                    }
                }
            }
        }
    }

    pub(crate) fn now_ns(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    pub(crate) fn device_count(&self) -> u32 {
        self.config.devices.len() as u32
    }

    pub(crate) fn host_limit(&self) -> u64 {
        let limit = self.config.host_memory_bytes;
        self.config
            .faults
            .host_memory_limit_bytes
            .map_or(limit, |fault| fault.min(limit))
    }

    pub(crate) fn device_limit(&self, device: u32) -> u64 {
        let limit = self.config.devices[device as usize].memory_bytes;
        self.config
            .faults
            .device_memory_limit_bytes
            .map_or(limit, |fault| fault.min(limit))
    }

    /// One of this process's figures.
    fn figure(state: &mut State, figure: Figure) -> &mut u64 {
        match figure {
            Figure::HostPinned => &mut state.memory.host_pinned,
            Figure::Vram(device) => &mut state.memory.usage[device as usize].vram_bytes,
            Figure::Gtt(device) => &mut state.memory.usage[device as usize].gtt_bytes,
            Figure::Allocated(device) => &mut state.memory.usage[device as usize].allocated_bytes,
        }
    }

    /// Adds `bytes` to a figure: this process's and, where it shares a machine, the machine's.
    /// With a `limit`, refuses when the figure would pass it (the machine's figure where there
    /// is one: host RAM and a device's memory are the machine's), returning the figure then.
    pub(crate) fn charge(
        &self,
        state: &mut State,
        figure: Figure,
        bytes: u64,
        limit: Option<u64>,
    ) -> Result<(), u64> {
        let shared = match self.machine {
            Some(machine) => machine.charge(figure, bytes, limit)?,
            None => false,
        };
        if !shared {
            let now = *Self::figure(state, figure);
            if limit.is_some_and(|limit| now.saturating_add(bytes) > limit) {
                return Err(now);
            }
        }
        let local = Self::figure(state, figure);
        *local = local.saturating_add(bytes);
        state.note_peaks();
        Ok(())
    }

    /// Takes `bytes` off a figure (see [`Inner::charge`]).
    pub(crate) fn discharge(&self, state: &mut State, figure: Figure, bytes: u64) {
        let local = Self::figure(state, figure);
        // Every discharge undoes a charge: more is a bookkeeping bug (release builds saturate).
        debug_assert!(*local >= bytes, "{figure:?}: {} less {bytes}", *local);
        *local = local.saturating_sub(bytes);
        if let Some(machine) = self.machine {
            machine.discharge(figure, bytes);
        }
    }

    /// Takes `bytes` off this process's own figure only (the machine keeps them: memory
    /// another process still has open).
    pub(crate) fn discharge_local(state: &mut State, figure: Figure, bytes: u64) {
        let local = Self::figure(state, figure);
        debug_assert!(*local >= bytes, "{figure:?}: {} less {bytes}", *local);
        *local = local.saturating_sub(bytes);
    }

    /// An exported allocation's memory leaves this process: `size` bytes allocated on `owner`,
    /// `vram` of them committed. Where other processes still have it open (the machine's
    /// `export` record says), it leaves this process's figures only and stays on the machine
    /// until the last of them closes it.
    pub(crate) fn release_exported(
        &self,
        state: &mut State,
        owner: u32,
        size: u64,
        vram: u64,
        export: Option<u32>,
    ) {
        let handed = match (self.machine, export) {
            (Some(machine), Some(index)) => machine.free_export(index, vram),
            _ => false,
        };
        if handed {
            Self::discharge_local(state, Figure::Vram(owner), vram);
            Self::discharge_local(state, Figure::Allocated(owner), size);
        } else {
            self.discharge(state, Figure::Vram(owner), vram);
            self.discharge(state, Figure::Allocated(owner), size);
        }
    }

    /// An exported allocation's bytes committed on its owner now, for the machine's record of
    /// the export.
    fn note_export_commitment(&self, export: Option<u32>, bytes: u64) {
        if let (Some(machine), Some(index)) = (self.machine, export) {
            machine.set_export_vram(index, bytes);
        }
    }

    /// Notes, for the machine's report, a call refused for lack of memory.
    pub(crate) fn note_refusal(&self, call: &str, result: ze_result_t, requested: u64) {
        if let Some(machine) = self.machine {
            machine.record_failure(call, result.0, requested);
        }
    }

    /// Host pinned memory as `nr_gpu_active` reports it: the machine's where this process
    /// shares one, else this platform's.
    pub(crate) fn machine_host_pinned(&self, state: &State) -> u64 {
        self.machine.map_or(state.memory.host_pinned, |machine| {
            // A process that vanished holds nothing any more, as the kernel's figure shows.
            machine.machine().reap_vanished();
            machine.machine().host_pinned_bytes()
        })
    }

    /// Creates an allocation and returns its address.
    pub(crate) fn allocate(
        &self,
        context: usize,
        kind: MemKind,
        size: usize,
        alignment: usize,
    ) -> Result<usize, ze_result_t> {
        if size == 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
        }
        // compute-runtime does not check that an alignment is a power of two (its
        // `allocDeviceMem` passes it on, and level-zero-tests allocate with alignment 12): the
        // simulator accepts it too, aligning to the next power of two (no more a multiple of 12
        // than the driver's page-aligned memory is); checking mode refuses what the spec calls
        // invalid.
        let alignment = if alignment == 0 || alignment.is_power_of_two() {
            alignment
        } else if !self.config.implicit_peer_import {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT);
        } else {
            alignment
                .checked_next_power_of_two()
                .ok_or(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)?
        };
        if size
            .checked_add(alignment)
            .is_none_or(|total| total > isize::MAX as usize)
        {
            return Err(if alignment > size {
                ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT
            } else {
                ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE
            });
        }
        let mut state = self.lock();
        if state.lost {
            return Err(ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST);
        }
        let size64 = size as u64;
        if let MemKind::Device { owner } = kind {
            let device = &self.config.devices[owner as usize];
            let max = device.max_mem_alloc_bytes.unwrap_or(device.memory_bytes);
            if size64 > max {
                return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_SIZE);
            }
        }
        // What the allocation costs: its device's memory, or (host USM is pinned system memory
        // the driver owns) the host's.
        let cost = match kind {
            MemKind::Device { owner } => Some((
                Figure::Allocated(owner),
                self.device_limit(owner),
                ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
                "zeMemAllocDevice",
            )),
            MemKind::Host => Some((
                Figure::HostPinned,
                self.host_limit(),
                ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY,
                "zeMemAllocHost",
            )),
            MemKind::Shared { .. } => None,
        };
        if let Some((figure, limit, refused, call)) = cost
            && self
                .charge(&mut state, figure, size64, Some(limit))
                .is_err()
        {
            self.note_refusal(call, refused, size64);
            return Err(refused);
        }
        let backing = match kind {
            MemKind::Device { .. } => Backing::pages(size, alignment),
            _ => Backing::heap(size, alignment),
        };
        let Some(backing) = backing else {
            if let Some((figure, ..)) = cost {
                self.discharge(&mut state, figure, size64);
            }
            return Err(ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
        };
        let address = backing.address();
        if self.config.faults.dirty_allocations {
            // SAFETY: the backing's `size` bytes at `address` are this fresh allocation's own.
            unsafe { std::ptr::write_bytes(address as *mut u8, 0xa5, size) };
        }
        let allocation = Allocation::owning(&mut state.memory, size, kind, context, backing);
        state.memory.allocations.insert(address, allocation);
        state.counters.live_allocations += 1;
        *state.uses.context_children.entry(context).or_default() += 1;
        Ok(address)
    }

    /// Frees an allocation by its base address. `wait` blocks until pending work completes
    /// (`ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE`); `defer` frees after it
    /// completes without counting a hazard (`..._DEFER_FREE`).
    pub(crate) fn free(
        &self,
        context: usize,
        address: usize,
        wait: bool,
        defer: bool,
    ) -> Result<(), ze_result_t> {
        let mut state = self.lock();
        match state.memory.allocations.get(&address) {
            Some(allocation)
                if allocation.context == context
                    && !allocation.is_mapping()
                    && !allocation.is_opened() => {}
            _ => return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT),
        }
        if wait {
            let ready = self.wait_until(state, u64::MAX, |state| {
                state
                    .memory
                    .allocations
                    .get(&address)
                    .is_none_or(|allocation| allocation.pending == 0)
            });
            debug_assert!(ready);
            state = self.lock();
        }
        let Some(mut allocation) = state.memory.allocations.remove(&address) else {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        };
        let size64 = allocation.size as u64;
        // An exported allocation's memory lives as long as someone has it open (a dma-buf
        // keeps its buffer object): its peers' residency goes now, its owner's commitment and
        // allocation with its last user (another context here, or another process).
        if let (Some(buffer), MemKind::Device { owner }) = (allocation.buffer, allocation.kind) {
            let vram = if allocation.resident & (1 << owner) != 0 {
                size64
            } else {
                0
            };
            allocation.resident &= !(1 << owner);
            self.release_all_residency(&mut state, &allocation);
            let open_here = state
                .memory
                .allocations
                .values()
                .any(|other| other.is_opened() && other.buffer == Some(buffer));
            if open_here {
                let orphan = OrphanedExport {
                    owner,
                    size: size64,
                    vram,
                    export: allocation.export,
                };
                state.memory.orphaned_exports.insert(buffer, orphan);
            } else {
                self.release_exported(&mut state, owner, size64, vram, allocation.export);
            }
        } else {
            self.release_all_residency(&mut state, &allocation);
        }
        match allocation.kind {
            MemKind::Device { .. } if allocation.buffer.is_some() => {}
            MemKind::Device { owner } => {
                self.discharge(&mut state, Figure::Allocated(owner), size64)
            }
            MemKind::Host => self.discharge(&mut state, Figure::HostPinned, size64),
            MemKind::Shared { .. } => {}
        }
        state.counters.live_allocations -= 1;
        if let Some(children) = state.uses.context_children.get_mut(&context) {
            *children = children.saturating_sub(1);
        }
        if allocation.pending > 0 {
            if !defer {
                state.counters.free_hazards += 1;
            }
            state.memory.zombies.insert(address, allocation);
        } else if state.work.real_launches > 0 {
            // Not known to be in use, but a running kernel may reach it: kept, no hazard.
            state.counters.frees_held_for_kernels += 1;
            state.memory.zombies.insert(address, allocation);
        }
        Ok(())
    }

    /// A launch of a kernel with code was queued (`started`) or completed (or never sent):
    /// once none is in flight, the zombies no work uses any more are freed.
    pub(crate) fn count_real_launch(state: &mut State, started: bool) {
        if started {
            state.work.real_launches += 1;
            return;
        }
        state.work.real_launches = state.work.real_launches.saturating_sub(1);
        if state.work.real_launches == 0 {
            state.memory.zombies.retain(|_, zombie| zombie.pending > 0);
        }
    }

    /// Undoes the accounting of every residency of `allocation` (freed or unmapped).
    pub(crate) fn release_all_residency(&self, state: &mut State, allocation: &Allocation) {
        for device in 0..self.device_count() {
            if allocation.resident & (1 << device) != 0 {
                let pinned = allocation.unpinned & (1 << device) == 0;
                self.release_residency(state, allocation.size, allocation.kind, device, pinned);
            }
        }
    }

    /// Undoes the accounting of one residency of an allocation of `size` bytes and `kind`
    /// (`pinned`: whether it built a pinned host mirror, where the mirror mode does).
    fn release_residency(
        &self,
        state: &mut State,
        size: usize,
        kind: MemKind,
        device: u32,
        pinned: bool,
    ) {
        let size = size as u64;
        match kind {
            MemKind::Device { owner } if owner == device => {
                self.discharge(state, Figure::Vram(device), size);
            }
            MemKind::Device { .. } => {
                if self.config.mirror != MirrorMode::None {
                    self.discharge(state, Figure::Gtt(device), size);
                }
                if self.config.mirror == MirrorMode::Pinned && pinned {
                    self.discharge(state, Figure::HostPinned, size);
                }
            }
            MemKind::Host | MemKind::Shared { .. } => {}
        }
    }

    /// Makes the allocation at `base` resident on `device` (no-op when it already is).
    pub(crate) fn make_resident(
        &self,
        state: &mut State,
        base: usize,
        device: u32,
    ) -> Result<(), ze_result_t> {
        self.make_resident_with(state, base, device, true)
    }

    /// The driver's own import of a peer's allocation that a command uses on `device`.
    pub(crate) fn import_on_use(
        &self,
        state: &mut State,
        base: usize,
        device: u32,
    ) -> Result<(), ze_result_t> {
        let pins = self.config.implicit_import_pins_host;
        self.make_resident_with(state, base, device, pins)?;
        state.counters.implicit_imports += 1;
        Ok(())
    }

    /// An opened IPC handle's import on `device`, another than its owner: a peer residency,
    /// pinning host memory as `ipc_import_pins_host` says.
    pub(crate) fn import_opened(
        &self,
        state: &mut State,
        base: usize,
        device: u32,
    ) -> Result<(), ze_result_t> {
        self.make_resident_with(state, base, device, self.config.ipc_import_pins_host)
    }

    /// The import of another process's memory, of a device this one cannot see, onto `device`:
    /// GTT there and, if `pins`, pinned host memory (refused when the host has none left).
    pub(crate) fn import_foreign(
        &self,
        state: &mut State,
        size: u64,
        device: u32,
        pins: bool,
    ) -> Result<(), ze_result_t> {
        if pins
            && self
                .charge(state, Figure::HostPinned, size, Some(self.host_limit()))
                .is_err()
        {
            self.note_refusal(
                "zeMemOpenIpcHandle",
                ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY,
                size,
            );
            return Err(ze_result_t::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
        }
        let _ = self.charge(state, Figure::Gtt(device), size, None);
        Ok(())
    }

    /// Undoes [`Inner::import_foreign`] for an opened allocation of `kind` (its owner is the
    /// device it was opened on).
    pub(crate) fn release_foreign(&self, state: &mut State, size: u64, kind: MemKind, pins: bool) {
        if let MemKind::Device { owner } = kind {
            self.discharge(state, Figure::Gtt(owner), size);
        }
        if pins {
            self.discharge(state, Figure::HostPinned, size);
        }
    }

    /// [`Inner::make_resident`], building the pinned host mirror only if `pins` (and the mirror
    /// mode is `Pinned`).
    fn make_resident_with(
        &self,
        state: &mut State,
        base: usize,
        device: u32,
        pins: bool,
    ) -> Result<(), ze_result_t> {
        let host_limit = self.host_limit();
        let mirror = self.config.mirror;
        let Some(allocation) = state.memory.allocations.get(&base) else {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        };
        let bit = 1u64 << device;
        if allocation.resident & bit != 0 {
            return Ok(());
        }
        let size = allocation.size as u64;
        let mut deferred = false;
        let mut pins = pins;
        // An export's commitment, which the machine's record hands over if the exporter ends.
        let export = allocation.export.filter(|_| !allocation.is_opened());
        match allocation.kind {
            MemKind::Device { owner } if owner == device => {
                let _ = self.charge(state, Figure::Vram(device), size, None);
                self.note_export_commitment(export, size);
            }
            MemKind::Device { owner } => {
                // Without P2PDMA, the peer reaches it only through pinned host memory.
                pins |= self.config.link(device, owner) == LinkKind::HostBacked;
                deferred = mirror == MirrorMode::Pinned && pins && self.config.defer_peer_backing;
                if mirror == MirrorMode::Pinned && pins && !deferred {
                    self.charge(state, Figure::HostPinned, size, Some(host_limit))
                        .map_err(|_| ze_result_t::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)?;
                }
                if mirror != MirrorMode::None {
                    let _ = self.charge(state, Figure::Gtt(device), size, None);
                }
            }
            MemKind::Host | MemKind::Shared { .. } => {}
        }
        if let Some(allocation) = state.memory.allocations.get_mut(&base) {
            allocation.resident |= bit;
            if !pins || deferred {
                allocation.unpinned |= bit;
            }
            if deferred {
                allocation.unbacked |= bit;
                state.memory.awaiting_backing.insert(base);
            }
        }
        Ok(())
    }

    /// Backs every peer residency of the process waiting for a kernel with pinned host memory
    /// (a kernel is being submitted). On running out of host memory, returns the bytes the refused backing
    /// needed; what was backed before stays backed.
    pub(crate) fn back_deferred(&self, state: &mut State) -> Result<(), u64> {
        let host_limit = self.host_limit();
        while let Some(base) = state.memory.awaiting_backing.pop_first() {
            let Some(allocation) = state.memory.allocations.get(&base) else {
                continue;
            };
            let (size, mut waiting) = (allocation.size as u64, allocation.unbacked);
            while waiting != 0 {
                let bit = 1u64 << waiting.trailing_zeros();
                if self
                    .charge(state, Figure::HostPinned, size, Some(host_limit))
                    .is_err()
                {
                    state.memory.awaiting_backing.insert(base);
                    return Err(size);
                }
                if let Some(allocation) = state.memory.allocations.get_mut(&base) {
                    allocation.unbacked &= !bit;
                    allocation.unpinned &= !bit;
                }
                waiting &= !bit;
            }
        }
        Ok(())
    }

    /// Evicts the allocation at `base` from `device` (no-op when it is not resident there).
    pub(crate) fn evict(
        &self,
        state: &mut State,
        base: usize,
        device: u32,
    ) -> Result<(), ze_result_t> {
        let Some(allocation) = state.memory.allocations.get(&base) else {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        };
        let bit = 1u64 << device;
        if allocation.resident & bit == 0 {
            return Ok(());
        }
        if state
            .uses
            .device_uses
            .get(&(base, device))
            .copied()
            .unwrap_or(0)
            > 0
        {
            // Work queued on that device still reads or writes it: the hardware would fault.
            state.counters.residency_violations += 1;
        }
        let Some(allocation) = state.memory.allocations.get(&base) else {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        };
        let (size, kind) = (allocation.size, allocation.kind);
        let pinned = allocation.unpinned & bit == 0;
        if kind == (MemKind::Device { owner: device }) && !allocation.is_opened() {
            self.note_export_commitment(allocation.export, 0);
        }
        self.release_residency(state, size, kind, device, pinned);
        if let Some(allocation) = state.memory.allocations.get_mut(&base) {
            allocation.resident &= !bit;
            allocation.unpinned &= !bit;
            allocation.unbacked &= !bit;
        }
        Ok(())
    }

    /// The allocation containing `[address, address + size)`: its base, or
    /// `Err(INVALID_ARGUMENT)` when the range starts inside one but runs past its end.
    pub(crate) fn find_allocation(
        state: &State,
        address: usize,
        size: usize,
    ) -> Result<Option<usize>, ze_result_t> {
        let Some((&base, allocation)) = state.memory.allocations.range(..=address).next_back()
        else {
            return Ok(None);
        };
        if address >= base + allocation.size {
            return Ok(None);
        }
        if address
            .checked_add(size)
            .is_none_or(|end| end > base + allocation.size)
        {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        Ok(Some(base))
    }

    /// Undoes one pending use of an allocation on `device`; frees a zombie whose work has all
    /// completed.
    pub(crate) fn complete_use(state: &mut State, base: usize, device: u32) {
        count_use(&mut state.uses.device_uses, (base, device), -1);
        if let Some(allocation) = state.memory.allocations.get_mut(&base) {
            allocation.pending = allocation.pending.saturating_sub(1);
        } else if let Some(zombie) = state.memory.zombies.get_mut(&base) {
            zombie.pending = zombie.pending.saturating_sub(1);
            if zombie.pending == 0 && state.work.real_launches == 0 {
                state.memory.zombies.remove(&base);
            }
        }
    }

    pub(crate) fn fdinfo(&self, device: u32) -> Option<String> {
        let config = self.config.devices.get(device as usize)?;
        let usage = self.lock().memory.usage[device as usize];
        let vram = usage.vram_bytes / FDINFO_KIB;
        let gtt = usage.gtt_bytes / FDINFO_KIB;
        Some(format!(
            "drm-driver:\txe\ndrm-pdev:\t{}\ndrm-client-id:\t{}\n\
             drm-total-vram0:\t{vram} KiB\ndrm-resident-vram0:\t{vram} KiB\n\
             drm-total-gtt:\t{gtt} KiB\ndrm-resident-gtt:\t{gtt} KiB\n",
            config.pci_address,
            device + 1
        ))
    }
}

/// A simulated multi-GPU Level Zero platform.
///
/// Each instance is independent: its own devices, memory and counters. [`Platform::resolve`]
/// hands out the Level Zero entry points that drive it, for `level_zero_sys::ZeApi`.
///
/// ```
/// let platform = ze_sim::Platform::preset("b70x2").unwrap();
/// assert_eq!(platform.config().devices.len(), 2);
/// assert_eq!(platform.host_pinned_bytes(), 0);
/// assert_eq!(platform.counter("live_allocations"), Some(0));
/// assert!(platform.resolve("zeMemAllocDevice").is_some());
/// ```
#[derive(Clone)]
pub struct Platform {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Platform")
            .field("name", &self.inner.config.name)
            .field("devices", &self.inner.config.devices.len())
            .finish_non_exhaustive()
    }
}

impl Platform {
    /// The configuration this platform was built from.
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// assert_eq!(platform.config().name, "b70x2");
    /// ```
    pub fn config(&self) -> &SimConfig {
        &self.inner.config
    }

    /// Memory use of device `index`.
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// assert_eq!(platform.device_usage(1).unwrap().vram_bytes, 0);
    /// assert!(platform.device_usage(2).is_none());
    /// ```
    pub fn device_usage(&self, index: u32) -> Option<DeviceUsage> {
        self.inner.lock().memory.usage.get(index as usize).copied()
    }

    /// Host memory pinned by the driver (the `nr_gpu_active` analogue), in bytes.
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// assert_eq!(platform.host_pinned_bytes(), 0);
    /// ```
    pub fn host_pinned_bytes(&self) -> u64 {
        self.inner.lock().memory.host_pinned
    }

    /// Device `index`'s usage in Linux DRM fdinfo format (`drm-total-vram0: N KiB`, ...).
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// let text = platform.fdinfo(1).unwrap();
    /// assert!(text.contains("drm-pdev:\t0000:12:00.0"));
    /// assert!(text.contains("drm-resident-gtt:\t0 KiB"));
    /// ```
    pub fn fdinfo(&self, index: u32) -> Option<String> {
        self.inner.fdinfo(index)
    }

    /// A counter by name (see [`Counters::NAMES`]).
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// assert_eq!(platform.counter("live_contexts"), Some(0));
    /// ```
    pub fn counter(&self, name: &str) -> Option<u64> {
        self.inner.lock().counters.get(name)
    }

    /// All counters at once.
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// assert_eq!(platform.counters().submissions, 0);
    /// ```
    pub fn counters(&self) -> Counters {
        self.inner.lock().counters
    }

    /// The driver handle of this platform, as `zeDriverGet` returns it.
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// assert_ne!(platform.driver_handle(), 0);
    /// ```
    pub fn driver_handle(&self) -> usize {
        self.inner.driver
    }

    /// Whether every submitted command has taken effect (a copy has moved its bytes, a signal
    /// has signalled): no device work can touch memory any more.
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// assert!(platform.is_idle());
    /// ```
    pub fn is_idle(&self) -> bool {
        self.inner.lock().work.worker_ops.is_empty()
    }
}

/// One step of a wait on `changed` that ends at `deadline`; false once the deadline has passed.
/// A condition variable wakes late by up to a scheduler slice on a busy host, and a short
/// sleep by its timer slack: a wait sleeps on `changed` until shortly before the deadline, then
/// in short sleeps, and polls the last stretch (with `state` unlocked) as compute-runtime's
/// waits poll, so a wait that times out lasts its timeout closely (level-zero-tests allow 2%
/// of 1 ms).
pub(crate) fn wait_step<T>(
    changed: &Condvar,
    state: &mut MutexGuard<'_, T>,
    deadline: Instant,
) -> bool {
    const MARGIN: Duration = Duration::from_millis(2);
    const STEP: Duration = Duration::from_micros(50);
    const POLLED: Duration = Duration::from_micros(250);
    let now = Instant::now();
    if now >= deadline {
        return false;
    }
    let left = deadline - now;
    if left > MARGIN {
        changed.wait_until(state, deadline - MARGIN);
    } else if left > POLLED {
        MutexGuard::unlocked_fair(state, || std::thread::sleep(STEP.min(left - POLLED)));
    } else {
        // Fair: a worker waiting for the lock (to signal what this waits for) gets it before
        // this waiter takes it again.
        MutexGuard::unlocked_fair(state, std::thread::yield_now);
    }
    true
}
