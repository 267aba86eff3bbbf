//! The safe Level Zero layer: one file per object (runtime, driver, device, context, memory,
//! command lists and queues, events, modules and kernels, launches), owning their handles in
//! `Arc` chains so nothing outlives what it needs. Every other layer reaches Level Zero through
//! this one.

pub(crate) mod call;
pub(crate) mod command;
pub(crate) mod context;
pub(crate) mod device;
pub(crate) mod driver;
pub(crate) mod event;
pub(crate) mod handles;
pub(crate) mod host;
pub(crate) mod import_probe;
pub(crate) mod launch;
pub(crate) mod memory;
pub(crate) mod module;
pub(crate) mod queue;
pub(crate) mod runtime;
pub(crate) mod uses;

pub use command::{CommandList, Completion, Deferrable, PendingCopy};
pub use context::Context;
pub use device::{
    Device, DeviceProperties, Engine, MemoryProperties, PciAddress, PeerAccess, PeerAccessFlags,
    PeerBandwidth, QueueGroup, QueueGroupFlags,
};
pub use driver::{Driver, DriverProperties};
pub use event::{Event, EventPool, KernelTimestamp};
pub use handles::{
    CommandListHandle, ContextHandle, DeviceHandle, DriverHandle, EventHandle, EventPoolHandle,
};
pub use host::{
    HostMemory, HostPath, IMPORT_ALIGNMENT, PageAlignedBytes, PinnedHostBuffer, Registration,
    host_path,
};
pub use import_probe::{ImportRules, NestedImport, probe_import_rules};
pub use launch::{Arg, Dims, ListArg};
pub use memory::{
    DeviceBuffer, FreePolicy, HostBuffer, MAX_ALIGNMENT, Memory, MemoryKind, PointerInfo,
    SharedBuffer, Unmanaged,
};
pub use module::{Kernel, KernelIndirectAccess, KernelProperties, Module};
pub use queue::{CommandQueue, Held, RecordedList, Submission, Unsubmitted};
pub use runtime::{Choice, LoaderComponent, Runtime, Source};
