//! What the simulator counts: each device's memory use, and event and live-object counts.

/// Memory use of one simulated device, as the DRM fdinfo of a real one would report it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct DeviceUsage {
    /// VRAM committed: device allocations resident on this device, their owner.
    pub vram_bytes: u64,
    /// GTT: other devices' allocations made resident on this device (the peer mirror).
    pub gtt_bytes: u64,
    /// Bytes of device allocations owned by this device, committed or not.
    pub allocated_bytes: u64,
}

macro_rules! counters {
    ($($(#[doc = $doc:literal])* $name:ident,)*) => {
        /// Event counts and live-object counts of one platform.
        #[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
        pub struct Counters {
            $($(#[doc = $doc])* pub $name: u64,)*
        }

        impl Counters {
            /// Every counter's name, as `zesim_counter` and `Platform::counter` accept it.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// A counter by name.
            ///
            /// ```
            /// let counters = ze_sim::Counters::default();
            /// assert_eq!(counters.get("free_hazards"), Some(0));
            /// assert_eq!(counters.get("no_such_counter"), None);
            /// ```
            pub fn get(&self, name: &str) -> Option<u64> {
                match name {
                    $(stringify!($name) => Some(self.$name),)*
                    _ => None,
                }
            }
        }
    };
}

counters! {
    /// `zeContextMakeMemoryResident` calls.
    make_resident_calls,
    /// `zeContextEvictMemory` calls.
    evict_calls,
    /// Commands that touched device memory not resident on the executing device, checked when
    /// appended and again when they run, and evictions of memory that in-flight work on that
    /// device uses.
    residency_violations,
    /// Allocations freed while submitted work still used them.
    free_hazards,
    /// `zeCommandListHostSynchronize` on an immediate list while an append to it is in
    /// progress: compute-runtime's answer recycles the list's temporary and fill-pattern
    /// allocations unguarded against the append (`level_zero/core/source/cmdlist/
    /// cmdlist_hw_immediate.inl`, `hostSynchronize`).
    list_call_overlaps,
    /// Events, command lists and queues whose destruction was refused because queued work
    /// still used them (Level Zero forbids destroying them then).
    destroy_hazards,
    /// Live device, host and shared allocations.
    live_allocations,
    /// Live contexts.
    live_contexts,
    /// Live command queues.
    live_command_queues,
    /// Live command lists, regular and immediate.
    live_command_lists,
    /// Live engine threads: one per engine context that a live queue or immediate list uses.
    live_engine_threads,
    /// Live event pools.
    live_event_pools,
    /// Live events.
    live_events,
    /// Live fences.
    live_fences,
    /// Live `zex` host-pointer imports.
    live_imports,
    /// `zex` imports of a range inside a live import: answered success with no new import, as
    /// compute-runtime answers them (releasing either pointer releases the one import).
    nested_imports,
    /// Command-list executions and immediate appends.
    submissions,
    /// Copies that crossed a device pair's P2P link.
    p2p_copies,
    /// P2P copies that went over a corrupting link.
    corrupt_copies,
    /// Copies refused because the pair has no P2P.
    refused_copies,
    /// Copies within one device's memory.
    device_copies,
    /// Copies to or from host USM or registered host memory (direct DMA).
    host_direct_copies,
    /// Copies to or from pageable host memory (staged by the driver).
    host_staged_copies,
    /// Memory fills.
    fills,
    /// Peer allocations the driver imported by itself on use (`implicit_peer_import`).
    implicit_imports,
    /// Commands that used another context's memory or kernel (refused in checking mode).
    cross_context_uses,
    /// Appends (calls, of one command or several) to a closed regular list: answered success
    /// and never run, as compute-runtime does (refused in checking mode).
    appends_after_close,
    /// Frees whose memory was kept until the real kernels in flight completed (they may reach
    /// it through pointers the simulator cannot see).
    frees_held_for_kernels,
    /// Kernel launches.
    launches,
    /// Launches whose work items ran: a built-in, or a module's kernel through OpenCL.
    kernels_executed,
    /// Launches that ran as no-ops: a kernel of a module of declarations only, of a native
    /// binary, or of any module while no OpenCL runtime is present (or `execute_kernels` is
    /// off), and launches refused to run for a pointer argument outside every allocation.
    kernels_not_executed,
    /// Launches OpenCL failed to run (a GPU would fault).
    kernel_failures,
    /// Modules with code the OpenCL runtime could not build (their kernels run as no-ops; the
    /// build log says why).
    modules_not_built,
    /// Native binaries of GPU machine code only (Intel's zebin without SPIR-V), refused: the
    /// simulator cannot run a GPU's instructions.
    native_binaries_refused,
    /// Live modules.
    live_modules,
    /// Live kernels.
    live_kernels,
    /// Live module build logs.
    live_build_logs,
    /// Live samplers.
    live_samplers,
    /// Live physical memory objects (`zePhysicalMemCreate`).
    live_physical_memory,
    /// Live virtual address reservations (`zeVirtualMemReserve`).
    live_virtual_reservations,
    /// Live mappings of physical memory into reserved ranges (`zeVirtualMemMap`).
    live_virtual_mappings,
    /// Waits that blocked their engine on an event a submission queued behind them on the same
    /// engine signals: a hang on hardware, where one engine runs its submissions in order
    /// (the wait goes on until the host signals the event).
    engine_deadlocks,
    /// IPC handles handed out (`zeMemGetIpcHandle`).
    ipc_handles_exported,
    /// Live opened IPC handles (`zeMemOpenIpcHandle`, until `zeMemCloseIpcHandle`).
    live_opened_ipc_handles,
    /// IPC handles opened (`zeMemOpenIpcHandle` calls that succeeded).
    ipc_handles_opened,
}
