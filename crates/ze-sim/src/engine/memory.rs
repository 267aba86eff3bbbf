//! A platform's memory: allocations, mappings and imports, what each device uses, and the host
//! memory pinned for peers, with their peaks.

use crate::model::backing::Backing;
use crate::model::counters::DeviceUsage;
use crate::model::memory_kind::MemKind;
use crate::objects::opencl::Program;
use crate::objects::virtual_mem::{PhysicalMemory, Reservation};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The platform's memory and what it costs.
pub(crate) struct MemoryState {
    pub usage: Vec<DeviceUsage>,
    pub host_pinned: u64,
    /// The highest value each field of `usage` has had, field by field.
    pub peak_usage: Vec<DeviceUsage>,
    /// The highest `host_pinned` has been.
    pub peak_host_pinned: u64,
    pub allocations: BTreeMap<usize, Allocation>,
    /// Freed while work was pending: kept alive until that work completes.
    pub zombies: FxHashMap<usize, Allocation>,
    /// Reserved virtual address ranges by base.
    pub reservations: BTreeMap<usize, Reservation>,
    /// Each mapping's physical memory and recorded access attribute, by the mapping's base.
    pub mapped_from: FxHashMap<
        usize,
        (
            Arc<PhysicalMemory>,
            level_zero_sys::ze_memory_access_attribute_t,
        ),
    >,
    /// `zex` imported host ranges: base -> size.
    pub imports: BTreeMap<usize, usize>,
    /// Modules' global variables handed out (`zeModuleGetGlobalPointer`): base -> size and
    /// module. They live in the OpenCL program's host storage, which commands reach as
    /// registered host memory, as a kernel argument too.
    pub module_globals: BTreeMap<usize, (usize, usize)>,
    /// The programs of destroyed modules whose globals were handed out: kept for the
    /// platform's life, so a command queued on a global's address never writes freed memory
    /// (a GPU would fault; the simulator's own memory stays safe).
    pub retired_programs: Vec<Arc<Program>>,
    /// Allocations with peer residencies whose pinned backing waits for a kernel.
    pub awaiting_backing: std::collections::BTreeSet<usize>,
    /// (memory file's device and inode, context) -> the address of its live opened mapping: a
    /// buffer opened again in one context is that mapping (one DRM buffer object, charged once:
    /// the kernel gives a dma-buf imported twice into one DRM file the same GEM handle, and
    /// compute-runtime's `DrmMemoryManager::createGraphicsAllocationFromSharedHandle`,
    /// `shared/source/os_interface/linux/drm_memory_manager.cpp`, reuses its buffer object
    /// through `findAndReferenceSharedBufferObject`).
    pub opened_buffers: FxHashMap<(u64, u64, usize), usize>,
    /// Exported allocations freed while this process still had them open (another context's
    /// mapping), by memory file, released at its last close.
    pub orphaned_exports: FxHashMap<(u64, u64), OrphanedExport>,
    pub next_allocation_id: u64,
}

impl MemoryState {
    pub(crate) fn new(device_count: usize) -> Self {
        Self {
            usage: vec![DeviceUsage::default(); device_count],
            host_pinned: 0,
            peak_usage: vec![DeviceUsage::default(); device_count],
            peak_host_pinned: 0,
            allocations: BTreeMap::new(),
            zombies: FxHashMap::default(),
            reservations: BTreeMap::new(),
            mapped_from: FxHashMap::default(),
            imports: BTreeMap::new(),
            module_globals: BTreeMap::new(),
            retired_programs: Vec::new(),
            awaiting_backing: std::collections::BTreeSet::new(),
            opened_buffers: FxHashMap::default(),
            orphaned_exports: FxHashMap::default(),
            next_allocation_id: 0,
        }
    }
}

impl MemoryState {
    /// Raises the peaks to the current figures; called after every increase.
    pub(crate) fn note_peaks(&mut self) {
        self.peak_host_pinned = self.peak_host_pinned.max(self.host_pinned);
        for (peak, now) in self.peak_usage.iter_mut().zip(&self.usage) {
            peak.vram_bytes = peak.vram_bytes.max(now.vram_bytes);
            peak.gtt_bytes = peak.gtt_bytes.max(now.gtt_bytes);
            peak.allocated_bytes = peak.allocated_bytes.max(now.allocated_bytes);
        }
    }
}

/// One allocation, mapping or opened IPC handle of the platform.
pub(crate) struct Allocation {
    pub size: usize,
    pub kind: MemKind,
    pub context: usize,
    /// Devices this allocation is resident on (bit per device index).
    pub resident: u64,
    /// Of those, implicit imports that built no pinned host mirror, and residencies whose
    /// pinned backing waits for a kernel (`defer_peer_backing`).
    pub unpinned: u64,
    /// Of those, the residencies still waiting for their pinned backing.
    pub unbacked: u64,
    /// An opened IPC handle of a device this process cannot see: its import on the opening
    /// device (GTT, and pinned host memory if `true`), released when it is closed.
    pub foreign_import: Option<bool>,
    /// An opened IPC handle: how many opens of its buffer in its context it stands for, and
    /// the buffer (its memory file's device and inode); closed with the last. An exported
    /// allocation: its own memory file.
    pub opens: u32,
    pub buffer: Option<(u64, u64)>,
    /// The machine's record of the export (an exported allocation's, or the one an opened
    /// mapping of another process's export holds open).
    pub export: Option<u32>,
    /// Submitted commands that use it and have not completed.
    pub pending: u32,
    pub id: u64,
    /// Its atomic access attributes as set for each device (`zeMemSetAtomicAccessAttributeExp`).
    pub atomic_attributes: Vec<(u32, u32)>,
    /// Owns the bytes at the allocation's address; `None` for a mapping of physical memory,
    /// whose bytes its physical memory object owns (module `entry::virtual_mem`).
    owned_backing: Option<Backing>,
}

impl Allocation {
    /// A mapping of `size` bytes of physical memory of `kind`, in `context`.
    pub(crate) fn mapping(
        memory: &mut MemoryState,
        size: usize,
        kind: MemKind,
        context: usize,
    ) -> Self {
        memory.next_allocation_id += 1;
        Self {
            size,
            kind,
            context,
            resident: 0,
            unpinned: 0,
            unbacked: 0,
            foreign_import: None,
            opens: 0,
            buffer: None,
            export: None,
            pending: 0,
            id: memory.next_allocation_id,
            atomic_attributes: Vec::new(),
            owned_backing: None,
        }
    }

    /// An opened IPC handle's mapping of `size` bytes of `owner`'s memory, in `context`.
    pub(crate) fn opened(
        memory: &mut MemoryState,
        size: usize,
        owner: u32,
        context: usize,
        backing: Backing,
    ) -> Self {
        Self::owning(memory, size, MemKind::Device { owner }, context, backing)
    }

    /// An allocation of `size` bytes of `kind`, in `context`, whose bytes `backing` owns.
    pub(crate) fn owning(
        memory: &mut MemoryState,
        size: usize,
        kind: MemKind,
        context: usize,
        backing: Backing,
    ) -> Self {
        let mut allocation = Self::mapping(memory, size, kind, context);
        allocation.owned_backing = Some(backing);
        allocation
    }

    /// Whether it maps physical memory (freed by unmapping, not by `zeMemFree`).
    pub(crate) fn is_mapping(&self) -> bool {
        self.owned_backing.is_none()
    }

    /// Whether it is an opened IPC handle (closed with `zeMemCloseIpcHandle`).
    pub(crate) fn is_opened(&self) -> bool {
        matches!(self.owned_backing, Some(Backing::Opened { .. }))
    }

    /// Its own backing.
    pub(crate) fn backing(&self) -> Option<&Backing> {
        self.owned_backing.as_ref()
    }

    /// Its own backing, for device pages to be shared.
    pub(crate) fn backing_mut(&mut self) -> Option<&mut Backing> {
        self.owned_backing.as_mut()
    }
}

/// An exported allocation freed while still open here: its owner, size, committed bytes and
/// the machine's record of the export.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OrphanedExport {
    pub owner: u32,
    pub size: u64,
    pub vram: u64,
    pub export: Option<u32>,
}
