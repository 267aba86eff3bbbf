//! What queues and lists record: commands as appended, before they are checked, and which
//! engine they run on.

use crate::objects::event::Event;
use crate::objects::module::{Builtin, Code};
use crate::objects::sampler::Sampler;
use level_zero_sys::ze_result_t;
use std::sync::Arc;

/// Which hardware queue a queue or list runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Engine {
    pub device: u32,
    pub ordinal: u32,
    pub index: u32,
}

/// A command as recorded, before it is checked against the platform's memory.
#[derive(Debug, Clone)]
pub(crate) enum Command {
    Copy {
        dst: usize,
        src: usize,
        size: usize,
        /// The source's context when it is not the list's (`zeCommandListAppendMemoryCopyFromContext`).
        src_context: Option<usize>,
    },
    Fill {
        dst: usize,
        pattern: Vec<u8>,
        size: usize,
    },
    /// The kernel timestamps of `event` as a `ze_kernel_timestamp_result_t` at `dst`, read when
    /// the command runs (`zeCommandListAppendQueryKernelTimestamps`); zeros if it has none.
    KernelTimestamp {
        dst: usize,
        event: Arc<Event>,
    },
    Barrier,
    Signal(Arc<Event>),
    Wait(Vec<Arc<Event>>),
    Reset(Arc<Event>),
    /// A kernel launch, with the arguments and group size the kernel had when appended.
    Launch(Launch),
}

/// A launch as appended.
#[derive(Debug, Clone)]
pub(crate) struct Launch {
    pub kernel: usize,
    /// The kernel's destroyed flag (`Kernel::destroyed`).
    pub kernel_destroyed: Arc<std::sync::atomic::AtomicBool>,
    /// Each sampler argument's sampler, by argument index, as its handle resolved when the
    /// launch was appended (or why it did not).
    pub samplers: Vec<(usize, Result<Arc<Sampler>, ze_result_t>)>,
    pub builtin: Option<Builtin>,
    /// The kernel's code when it runs for real.
    pub code: Option<Arc<Code>>,
    /// The first work item's global id (`zeKernelSetGlobalOffsetExp`).
    pub global_offset: [u32; 3],
    /// Where the group counts are read when the launch runs, for an indirect launch
    /// (`zeCommandListAppendLaunchKernelIndirect`); `groups` is then unused.
    pub groups_at: Option<usize>,
    /// For one of several launches of `zeCommandListAppendLaunchMultipleKernelsIndirect`: the
    /// address of the count of those that run, and this one's index.
    pub launch_if: Option<(usize, u32)>,
    pub group_size: [u32; 3],
    pub groups: [u32; 3],
    pub arguments: Vec<Option<Vec<u8>>>,
}

/// What a regular list has recorded.
#[derive(Default)]
pub(crate) struct Recording {
    pub commands: Vec<Command>,
    pub closed: bool,
}

/// How a submission reaches its engine.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Submitter {
    /// `zeCommandQueueExecuteCommandLists`: any thread may submit to the queue at once.
    Queue,
    /// An append to an immediate list, which Level Zero lets only one thread use at a time.
    ImmediateList,
}

/// The hardware context a queue's submissions run on. compute-runtime gives every queue and
/// immediate list of one (ordinal, index) that engine's one command stream receiver
/// (`DeviceImp::getCsrForOrdinalAndIndex`), so their submissions run one after another in
/// submission order, whichever queue made them: a wait blocks what was submitted after it
/// there. Only products with context groups (`GfxCoreHelper::getContextGroupContextsCount`
/// above 1, Xe3P on) give queues secondary contexts; the modelled B60 and B70 (Xe2) have none.
/// A low-priority compute queue gets the device's one low-priority context
/// (`getCsrForLowPriority`), which runs beside the regular one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct EngineContext {
    pub engine: Engine,
    pub low_priority: bool,
}
