//! What a command becomes once checked and costed: the operation an engine's worker performs.

use crate::engine::commands::{Engine, EngineContext};
use crate::objects::event::Event;
use crate::objects::module::{Builtin, Code};
use std::sync::Arc;

/// A launch of a kernel with code, as the worker runs it.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) code: Arc<Code>,
    pub(crate) arguments: Vec<crate::objects::opencl::Argument>,
    pub(crate) global: [usize; 3],
    pub(crate) local: [usize; 3],
    pub(crate) offset: [usize; 3],
    /// An indirect launch's group counts, read when it runs.
    pub(crate) groups_at: Option<usize>,
    /// One of several indirect launches: it runs only if its index is below the count at
    /// this address when it runs.
    pub(crate) launch_if: Option<(usize, u32)>,
}

/// A command after checking: what the worker does.
#[derive(Debug)]
pub(crate) enum Op {
    Copy {
        dst: usize,
        src: usize,
        size: usize,
        corrupt: bool,
        nanos: u64,
        touched: Vec<usize>,
    },
    Fill {
        dst: usize,
        pattern: Vec<u8>,
        size: usize,
        nanos: u64,
        touched: Vec<usize>,
        /// An event whose kernel timestamps are the pattern, read when the fill runs.
        timestamp_of: Option<Arc<Event>>,
    },
    /// The event, and for a counter-based one the arming it completes.
    Signal(Arc<Event>, u64),
    /// The events, and for a counter-based one the arming it waits for (the latest when the
    /// wait was submitted).
    Wait(Vec<(Arc<Event>, u64)>),
    Reset(Arc<Event>),
    Launch {
        kernel: usize,
        builtin: Option<Builtin>,
        run: Option<Run>,
        items: usize,
        pointers: Vec<usize>,
        value: u32,
        nanos: u64,
        touched: Vec<usize>,
    },
}

/// A submission as its engine's thread runs it.
pub(crate) struct Job {
    pub(crate) ops: Vec<Op>,
    pub(crate) worker: usize,
    pub(crate) engine: Engine,
    /// The engine context it runs on (`EngineContext`).
    pub(crate) context: EngineContext,
    /// Run on the appending thread (counted in `inline_jobs` until it ends).
    pub(crate) inline: bool,
    pub(crate) fence: Option<usize>,
    /// The regular lists it executes: they must outlive it.
    pub(crate) lists: Vec<usize>,
    /// The host's modelled clock when it submitted the job: no command starts earlier.
    pub(crate) submitted_at: u64,
}
