//! The thread of one engine context (its work runs in `exec`).

use crate::engine::ops::Job;
use std::sync::Mutex;
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;

/// The thread that executes one engine context's submissions in order, shared by every
/// queue and immediate list on that context; it ends once the last of them is gone and its
/// queued work has run.
pub(crate) struct EngineThread {
    pub(crate) sender: Mutex<Option<Sender<Job>>>,
    pub(crate) thread: Mutex<Option<JoinHandle<()>>>,
}
