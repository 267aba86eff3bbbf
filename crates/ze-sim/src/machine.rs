//! One simulated machine shared by every process of a job.
//!
//! A DDP or tensor-parallel job is one process per GPU, each with a context over every GPU, all
//! paying out of one host's RAM. `lazy-usm run` creates a machine: a small file of atomic
//! counters (under `/dev/shm`), named in the environment by [`MACHINE_ENV`], so that children
//! and grandchildren find it. Every process whose simulator attaches keeps its own figures in a
//! slot of its own and adds them to the machine's: per-device VRAM, GTT and allocated bytes, and
//! host pinned memory. Limits (host RAM, each device's memory) hold for the machine, checked and
//! charged in one compare-and-swap.
//!
//! A process's share goes when it ends, as the kernel releases a dead process's memory: at
//! `exit` (through the C library's `on_exit`, which also gives the exit status), or, for a
//! process that never ran its exit handlers (killed, crashed, `_exit`), when another process
//! of the machine finds it gone (its pid no longer running with the start time it attached
//! with). A process killed inside the few instructions between charging the machine and its own
//! slot leaves those bytes behind: the one window this design does not close.
//!
//! A child made by `fork` without `exec` inherits its parent's mapping and a copy of its
//! platform, but is no GPU client of its own: its simulator stops touching the machine.

use crate::config::SimConfig;
use serde::{Deserialize, Serialize};
use std::ffi::c_void;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// Environment variable naming the machine file the processes of one job share.
pub const MACHINE_ENV: &str = "ZE_SIM_MACHINE";

/// Devices a machine can hold (the configuration's own limit).
const MAX_DEVICES: usize = 64;
/// Processes that can attach to one machine over its life (slots are not reused, so that a
/// job's report names every process it had).
pub const MAX_PROCESSES: usize = 512;
const MAGIC: u64 = u64::from_le_bytes(*b"zesimmch");
const VERSION: u64 = 1;
/// Bytes of a process's command line kept for the report.
const COMMAND_WORDS: usize = 16;
/// Bytes of a failed call's name kept for the report.
const CALL_WORDS: usize = 8;

/// One of the machine's figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Figure {
    /// Host memory the driver pinned (`nr_gpu_active`).
    HostPinned,
    /// Device allocations resident on their owner.
    Vram(u32),
    /// Other devices' allocations resident here.
    Gtt(u32),
    /// Device allocations owned here, committed or not (what the device's memory limits).
    Allocated(u32),
}

#[repr(C)]
struct Figures {
    host_pinned: AtomicU64,
    vram: [AtomicU64; MAX_DEVICES],
    gtt: [AtomicU64; MAX_DEVICES],
    allocated: [AtomicU64; MAX_DEVICES],
}

impl Figures {
    fn get(&self, figure: Figure) -> &AtomicU64 {
        match figure {
            Figure::HostPinned => &self.host_pinned,
            Figure::Vram(device) => &self.vram[device as usize],
            Figure::Gtt(device) => &self.gtt[device as usize],
            Figure::Allocated(device) => &self.allocated[device as usize],
        }
    }

    fn all(devices: u32) -> impl Iterator<Item = Figure> {
        std::iter::once(Figure::HostPinned).chain((0..devices).flat_map(|device| {
            [
                Figure::Vram(device),
                Figure::Gtt(device),
                Figure::Allocated(device),
            ]
        }))
    }
}

/// Slot states.
const FREE: u32 = 0;
const LIVE: u32 = 1;
const EXITED: u32 = 2;
const VANISHED: u32 = 3;

#[repr(C)]
struct FailureRecord {
    /// Non-zero once written (the fields before it are then final).
    written: AtomicU32,
    result: AtomicU32,
    call: [AtomicU64; CALL_WORDS],
    requested: AtomicU64,
    machine_pinned: AtomicU64,
    limit: AtomicU64,
}

#[repr(C)]
struct Slot {
    state: AtomicU32,
    pid: AtomicU32,
    /// Start time of the process (`/proc/PID/stat` field 22), so a reused pid is not taken
    /// for the process that attached.
    start_time: AtomicU64,
    /// Exit status plus one; 0 while unknown.
    exit_status: AtomicU64,
    command: [AtomicU64; COMMAND_WORDS],
    now: Figures,
    peak: Figures,
    /// Counters published at exit: residency calls, implicit imports, refused uses.
    make_resident_calls: AtomicU64,
    implicit_imports: AtomicU64,
    residency_violations: AtomicU64,
    failure: FailureRecord,
}

#[repr(C)]
struct Region {
    magic: AtomicU64,
    version: AtomicU64,
    device_count: AtomicU32,
    /// Slots handed out so far.
    next_slot: AtomicU32,
    host_limit: AtomicU64,
    device_limits: [AtomicU64; MAX_DEVICES],
    name: [AtomicU64; CALL_WORDS],
    now: Figures,
    peak: Figures,
    slots: [Slot; MAX_PROCESSES],
}

fn store_text(words: &[AtomicU64], text: &str) {
    let mut bytes = vec![0u8; words.len() * 8];
    let length = text.len().min(bytes.len() - 1);
    bytes[..length].copy_from_slice(&text.as_bytes()[..length]);
    for (word, chunk) in words.iter().zip(bytes.chunks(8)) {
        let mut value = [0u8; 8];
        value.copy_from_slice(chunk);
        word.store(u64::from_le_bytes(value), Ordering::Relaxed);
    }
}

fn load_text(words: &[AtomicU64]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|word| word.load(Ordering::Relaxed).to_le_bytes())
        .collect();
    let end = bytes
        .iter()
        .position(|&byte| byte == 0)
        .unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Adds `bytes` to `counter` unless that passes `limit`; returns the value it had on refusal.
fn charge(counter: &AtomicU64, bytes: u64, limit: Option<u64>) -> Result<u64, u64> {
    counter
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
            let next = now.checked_add(bytes)?;
            limit.is_none_or(|limit| next <= limit).then_some(next)
        })
        .map(|before| before + bytes)
}

fn discharge(counter: &AtomicU64, bytes: u64) {
    let _ = counter.fetch_update(Ordering::AcqRel, Ordering::Acquire, |now| {
        Some(now.saturating_sub(bytes))
    });
}

/// The start time of a running process (`/proc/PID/stat` field 22); `None` if it is gone or a
/// zombie.
fn start_time(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command (field 2) is in parentheses and may hold spaces: fields after it follow the
    // last ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    // Field 3 was the state; field 22 is 19 further on.
    fields.nth(18)?.parse().ok()
}

/// A mapping of a machine file.
pub struct Machine {
    region: std::ptr::NonNull<Region>,
}

// SAFETY: the region is a shared mapping of atomics only, valid while the value lives.
unsafe impl Send for Machine {}
// SAFETY: as above; every access is atomic.
unsafe impl Sync for Machine {}

impl Drop for Machine {
    fn drop(&mut self) {
        // SAFETY: the mapping this value made, of exactly this size, used by nothing else now.
        unsafe {
            libc::munmap(
                self.region.as_ptr() as *mut c_void,
                std::mem::size_of::<Region>(),
            )
        };
    }
}

/// Why a machine could not be made or joined.
#[derive(Debug, thiserror::Error)]
pub enum MachineError {
    /// The file could not be made, sized, opened or mapped.
    #[error("machine file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is no machine, or one of another version.
    #[error("{0} is not a ze-sim machine file of this version")]
    NotAMachine(PathBuf),
    /// The process's configuration describes another machine.
    #[error("the machine in {path} is {machine}, but this process's configuration is {process}")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The machine's devices and host memory.
        machine: String,
        /// This process's.
        process: String,
    },
    /// Every process slot has been used.
    #[error("the machine in {0} has had {MAX_PROCESSES} processes already")]
    Full(PathBuf),
}

fn describe(devices: u32, host_limit: u64) -> String {
    format!("{devices} devices and {host_limit} bytes of host memory")
}

fn host_limit(config: &SimConfig) -> u64 {
    config
        .faults
        .host_memory_limit_bytes
        .map_or(config.host_memory_bytes, |fault| {
            fault.min(config.host_memory_bytes)
        })
}

fn device_limit(config: &SimConfig, device: usize) -> u64 {
    let limit = config.devices[device].memory_bytes;
    config
        .faults
        .device_memory_limit_bytes
        .map_or(limit, |fault| fault.min(limit))
}

impl Machine {
    fn map(file: &std::fs::File, path: &Path) -> Result<Self, MachineError> {
        let len = std::mem::size_of::<Region>();
        // SAFETY: a shared mapping of a file this function holds open, of the region's size
        // (the file has been sized to it); the kernel picks the address.
        let address = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if address == libc::MAP_FAILED {
            return Err(MachineError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::last_os_error(),
            });
        }
        let region = std::ptr::NonNull::new(address as *mut Region)
            .ok_or_else(|| MachineError::NotAMachine(path.to_path_buf()))?;
        Ok(Self { region })
    }

    fn region(&self) -> &Region {
        // SAFETY: a live mapping of a whole `Region`, whose fields are atomics (any bytes are a
        // valid value of them), shared with other processes only through atomic operations.
        unsafe { self.region.as_ref() }
    }

    /// Makes a new machine file at `path` (which must not exist) for `config`'s devices and
    /// host memory.
    ///
    /// ```
    /// let folder = std::env::temp_dir().join(format!("ze-sim-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&folder).unwrap();
    /// let path = folder.join("machine");
    /// let config = ze_sim::SimConfig::preset("b70x2").unwrap();
    /// let machine = ze_sim::Machine::create(&path, &config).unwrap();
    /// assert_eq!(machine.report().host_pinned_bytes.peak, 0);
    /// assert!(ze_sim::Machine::create(&path, &config).is_err(), "exists already");
    /// std::fs::remove_dir_all(&folder).unwrap();
    /// ```
    pub fn create(path: &Path, config: &SimConfig) -> Result<Self, MachineError> {
        config.validate().map_err(|error| MachineError::Mismatch {
            path: path.to_path_buf(),
            machine: "unmade".into(),
            process: error.to_string(),
        })?;
        let io = |source| MachineError::Io {
            path: path.to_path_buf(),
            source,
        };
        use std::os::unix::fs::OpenOptionsExt;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .map_err(io)?;
        // A sparse file of zeros: every counter starts at zero, every slot free.
        file.set_len(std::mem::size_of::<Region>() as u64)
            .map_err(io)?;
        let machine = Self::map(&file, path)?;
        let region = machine.region();
        region
            .device_count
            .store(config.devices.len() as u32, Ordering::Relaxed);
        region
            .host_limit
            .store(host_limit(config), Ordering::Relaxed);
        for device in 0..config.devices.len() {
            region.device_limits[device].store(device_limit(config, device), Ordering::Relaxed);
        }
        store_text(&region.name, &config.name);
        region.version.store(VERSION, Ordering::Relaxed);
        // Last: a process that sees the magic sees the header.
        region.magic.store(MAGIC, Ordering::Release);
        Ok(machine)
    }

    /// Opens an existing machine file.
    pub fn open(path: &Path) -> Result<Self, MachineError> {
        let io = |source| MachineError::Io {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io)?;
        if file.metadata().map_err(io)?.len() != std::mem::size_of::<Region>() as u64 {
            return Err(MachineError::NotAMachine(path.to_path_buf()));
        }
        let machine = Self::map(&file, path)?;
        let region = machine.region();
        if region.magic.load(Ordering::Acquire) != MAGIC
            || region.version.load(Ordering::Relaxed) != VERSION
        {
            return Err(MachineError::NotAMachine(path.to_path_buf()));
        }
        Ok(machine)
    }

    fn device_count(&self) -> u32 {
        self.region()
            .device_count
            .load(Ordering::Relaxed)
            .min(MAX_DEVICES as u32)
    }

    /// The machine's host pinned bytes now (its `nr_gpu_active`).
    pub fn host_pinned_bytes(&self) -> u64 {
        self.region().now.host_pinned.load(Ordering::Acquire)
    }

    /// Releases the share of every attached process that is no longer running and never ran
    /// its exit handlers. Returns how many it found.
    pub fn reap_vanished(&self) -> usize {
        let region = self.region();
        let used = (region.next_slot.load(Ordering::Acquire) as usize).min(MAX_PROCESSES);
        let mut reaped = 0;
        for slot in &region.slots[..used] {
            if slot.state.load(Ordering::Acquire) != LIVE {
                continue;
            }
            let pid = slot.pid.load(Ordering::Relaxed);
            if start_time(pid) == Some(slot.start_time.load(Ordering::Relaxed)) {
                continue;
            }
            if slot
                .state
                .compare_exchange(LIVE, VANISHED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                self.release_share(slot);
                reaped += 1;
            }
        }
        reaped
    }

    /// Takes a process's figures out of the machine's (it has ended).
    fn release_share(&self, slot: &Slot) {
        let region = self.region();
        for figure in Figures::all(self.device_count()) {
            discharge(
                region.now.get(figure),
                slot.now.get(figure).load(Ordering::Acquire),
            );
        }
    }

    /// The machine's figures and each process's, as `lazy-usm run` prints them.
    pub fn report(&self) -> MachineReport {
        let region = self.region();
        let devices = self.device_count();
        let figure = |figures: &Figures, peaks: &Figures, which| crate::report::Figure {
            current: figures.get(which).load(Ordering::Acquire),
            peak: peaks.get(which).load(Ordering::Acquire),
        };
        let device_figures = |now: &Figures, peak: &Figures| {
            (0..devices)
                .map(|device| MachineDevice {
                    index: device,
                    vram_bytes: figure(now, peak, Figure::Vram(device)),
                    gtt_bytes: figure(now, peak, Figure::Gtt(device)),
                    allocated_bytes: figure(now, peak, Figure::Allocated(device)),
                })
                .collect::<Vec<_>>()
        };
        let used = (region.next_slot.load(Ordering::Acquire) as usize).min(MAX_PROCESSES);
        let processes = region.slots[..used]
            .iter()
            .filter(|slot| slot.state.load(Ordering::Acquire) != FREE)
            .map(|slot| {
                let status = slot.exit_status.load(Ordering::Acquire);
                let state = match slot.state.load(Ordering::Acquire) {
                    LIVE => ProcessState::Running,
                    EXITED => ProcessState::Exited {
                        status: status.checked_sub(1).map(|code| code as i32),
                    },
                    _ => ProcessState::Vanished,
                };
                let failure = &slot.failure;
                let failure =
                    (failure.written.load(Ordering::Acquire) != 0).then(|| MachineFailure {
                        call: load_text(&failure.call),
                        result: failure.result.load(Ordering::Relaxed),
                        requested_bytes: failure.requested.load(Ordering::Relaxed),
                        machine_host_pinned_bytes: failure.machine_pinned.load(Ordering::Relaxed),
                        host_limit_bytes: failure.limit.load(Ordering::Relaxed),
                    });
                ProcessReport {
                    pid: slot.pid.load(Ordering::Relaxed),
                    command: load_text(&slot.command),
                    state,
                    host_pinned_bytes: figure(&slot.now, &slot.peak, Figure::HostPinned),
                    devices: device_figures(&slot.now, &slot.peak),
                    make_resident_calls: slot.make_resident_calls.load(Ordering::Relaxed),
                    implicit_imports: slot.implicit_imports.load(Ordering::Relaxed),
                    residency_violations: slot.residency_violations.load(Ordering::Relaxed),
                    failure,
                }
            })
            .collect();
        MachineReport {
            platform: load_text(&region.name),
            host_limit_bytes: region.host_limit.load(Ordering::Relaxed),
            host_pinned_bytes: figure(&region.now, &region.peak, Figure::HostPinned),
            devices: device_figures(&region.now, &region.peak),
            processes,
        }
    }
}

/// One device's machine-wide (or one process's) figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineDevice {
    /// Index in `zeDeviceGet` order.
    pub index: u32,
    /// Device allocations resident on their owner.
    pub vram_bytes: crate::report::Figure,
    /// Other devices' allocations resident here.
    pub gtt_bytes: crate::report::Figure,
    /// Device allocations owned here.
    pub allocated_bytes: crate::report::Figure,
}

/// How a process of the machine stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum ProcessState {
    /// Still running (or not yet found gone).
    Running,
    /// Ran its exit handlers; `status` is what it passed to `exit`, when known.
    Exited {
        /// The exit status.
        status: Option<i32>,
    },
    /// Ended without running its exit handlers: killed by a signal, crashed, or `_exit`.
    Vanished,
}

/// A call the simulator refused for lack of memory, as a process first met it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineFailure {
    /// The Level Zero call.
    pub call: String,
    /// The `ze_result_t` it returned.
    pub result: u32,
    /// Bytes it needed.
    pub requested_bytes: u64,
    /// The machine's host pinned bytes at that moment.
    pub machine_host_pinned_bytes: u64,
    /// The machine's host memory.
    pub host_limit_bytes: u64,
}

/// One process of the machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessReport {
    /// Its process id.
    pub pid: u32,
    /// Its command line (the start of it).
    pub command: String,
    /// Whether it is running, exited or vanished.
    #[serde(flatten)]
    pub state: ProcessState,
    /// Host memory its driver pinned: at its end (or now) and at its peak.
    pub host_pinned_bytes: crate::report::Figure,
    /// Its device figures.
    pub devices: Vec<MachineDevice>,
    /// `zeContextMakeMemoryResident` calls (published at exit).
    pub make_resident_calls: u64,
    /// The driver's imports on use (published at exit).
    pub implicit_imports: u64,
    /// Refused uses (published at exit).
    pub residency_violations: u64,
    /// The first call refused for lack of memory, if any.
    pub failure: Option<MachineFailure>,
}

/// A machine's figures and its processes'.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineReport {
    /// The preset's or configuration's name.
    pub platform: String,
    /// The machine's host memory.
    pub host_limit_bytes: u64,
    /// Host pinned memory of the whole machine.
    pub host_pinned_bytes: crate::report::Figure,
    /// Each device, machine-wide.
    pub devices: Vec<MachineDevice>,
    /// Every process that attached, in the order they did.
    pub processes: Vec<ProcessReport>,
}

/// Set in a child made by `fork`: its inherited membership is its parent's.
static FORKED: AtomicBool = AtomicBool::new(false);

extern "C" fn forked_child() {
    FORKED.store(true, Ordering::SeqCst);
}

unsafe extern "C" {
    /// glibc's `on_exit`: like `atexit`, with the status passed to `exit`.
    fn on_exit(
        function: extern "C" fn(status: std::ffi::c_int, argument: *mut c_void),
        argument: *mut c_void,
    ) -> std::ffi::c_int;
}

/// This process's place in a machine.
pub(crate) struct Membership {
    machine: Machine,
    slot: usize,
    /// Set once this process's share has been released (at exit): later calls (the runtime's
    /// own teardown frees memory after that) touch only the process's own figures.
    left: AtomicBool,
}

impl Membership {
    /// Joins the machine at `path` as this process, for `config` (which must describe the
    /// same devices and host memory).
    pub(crate) fn join(path: &Path, config: &SimConfig) -> Result<Self, MachineError> {
        let machine = Machine::open(path)?;
        let region = machine.region();
        let devices = region.device_count.load(Ordering::Relaxed);
        let limit = region.host_limit.load(Ordering::Relaxed);
        if devices as usize != config.devices.len() || limit != host_limit(config) {
            return Err(MachineError::Mismatch {
                path: path.to_path_buf(),
                machine: describe(devices, limit),
                process: describe(config.devices.len() as u32, host_limit(config)),
            });
        }
        let slot = region.next_slot.fetch_add(1, Ordering::AcqRel) as usize;
        if slot >= MAX_PROCESSES {
            return Err(MachineError::Full(path.to_path_buf()));
        }
        let pid = std::process::id();
        let entry = &region.slots[slot];
        entry.pid.store(pid, Ordering::Relaxed);
        entry
            .start_time
            .store(start_time(pid).unwrap_or(0), Ordering::Relaxed);
        let command = std::fs::read("/proc/self/cmdline")
            .map(|bytes| {
                String::from_utf8_lossy(&bytes)
                    .trim_end_matches('\0')
                    .replace('\0', " ")
            })
            .unwrap_or_default();
        store_text(&entry.command, &command);
        entry.state.store(LIVE, Ordering::Release);
        // Whoever went before without exiting leaves no figure behind.
        machine.reap_vanished();
        Ok(Self {
            machine,
            slot,
            left: AtomicBool::new(false),
        })
    }

    /// Registers the exit handler and the fork handler; `membership` lives for the process.
    pub(crate) fn install(membership: &'static Self) {
        // `on_exit` handlers are not tied to the library that registers them: this library
        // must stay loaded until exit, even when the program closes it (a loader unloads its
        // driver when the last user is done). A failure to pin it skips the handler: the
        // process then leaves the machine as a vanished one does.
        if !pin_this_library() {
            eprintln!("ze-sim: cannot keep the simulator loaded until exit; its share of the machine is released when it is found gone");
            return;
        }
        // SAFETY: a plain function of the signature `on_exit` takes, in a library that stays
        // loaded, and an argument that lives for the process; `pthread_atfork` with only a
        // child handler.
        unsafe {
            if on_exit(left_at_exit, membership as *const Self as *mut c_void) != 0 {
                eprintln!("ze-sim: cannot register the machine's exit handler");
            }
            libc::pthread_atfork(None, None, Some(forked_child));
        }
    }

    fn slot(&self) -> &Slot {
        &self.machine.region().slots[self.slot]
    }

    fn active(&self) -> bool {
        !self.left.load(Ordering::Acquire) && !FORKED.load(Ordering::Relaxed)
    }

    /// The machine, for readers of its figures.
    pub(crate) fn machine(&self) -> &Machine {
        &self.machine
    }

    /// Adds `bytes` to `figure`, machine-wide and in this process's slot; with a `limit`,
    /// refuses (returning the machine's figure) when the machine would pass it. A refusal
    /// first releases the shares of processes that vanished, then tries once more.
    pub(crate) fn charge(&self, figure: Figure, bytes: u64, limit: Option<u64>) -> Result<(), u64> {
        if !self.active() {
            return Ok(());
        }
        let region = self.machine.region();
        let counter = region.now.get(figure);
        let now = match charge(counter, bytes, limit) {
            Ok(now) => now,
            Err(_) if self.machine.reap_vanished() > 0 => charge(counter, bytes, limit)?,
            Err(before) => return Err(before),
        };
        region.peak.get(figure).fetch_max(now, Ordering::AcqRel);
        let slot = self.slot();
        let mine = slot.now.get(figure).fetch_add(bytes, Ordering::AcqRel) + bytes;
        slot.peak.get(figure).fetch_max(mine, Ordering::AcqRel);
        Ok(())
    }

    /// Takes `bytes` off `figure`.
    pub(crate) fn discharge(&self, figure: Figure, bytes: u64) {
        if !self.active() {
            return;
        }
        discharge(self.slot().now.get(figure), bytes);
        discharge(self.machine.region().now.get(figure), bytes);
    }

    /// Records the first call refused for lack of memory.
    pub(crate) fn record_failure(&self, call: &str, result: u32, requested: u64) {
        if !self.active() {
            return;
        }
        let failure = &self.slot().failure;
        if failure.written.load(Ordering::Acquire) != 0 {
            return;
        }
        let region = self.machine.region();
        store_text(&failure.call, call);
        failure.result.store(result, Ordering::Relaxed);
        failure.requested.store(requested, Ordering::Relaxed);
        failure.machine_pinned.store(
            region.now.host_pinned.load(Ordering::Acquire),
            Ordering::Relaxed,
        );
        failure
            .limit
            .store(region.host_limit.load(Ordering::Relaxed), Ordering::Relaxed);
        failure.written.store(1, Ordering::Release);
    }

    /// Publishes the counters the report shows per process.
    pub(crate) fn publish_counters(&self, counters: &crate::platform::Counters) {
        if !self.active() {
            return;
        }
        let slot = self.slot();
        slot.make_resident_calls
            .store(counters.make_resident_calls, Ordering::Relaxed);
        slot.implicit_imports
            .store(counters.implicit_imports, Ordering::Relaxed);
        slot.residency_violations
            .store(counters.residency_violations, Ordering::Relaxed);
    }

    /// This process ends: its share leaves the machine, with its exit status.
    fn leave(&self, status: i32) {
        if !self.active() {
            return;
        }
        let slot = self.slot();
        if slot
            .state
            .compare_exchange(LIVE, EXITED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            slot.exit_status
                .store(u64::from(status as u32) + 1, Ordering::Release);
            self.machine.release_share(slot);
        }
        self.left.store(true, Ordering::Release);
    }
}

/// Keeps the library holding this code loaded for the life of the process (`RTLD_NODELETE`).
fn pin_this_library() -> bool {
    // SAFETY: `dladdr` fills `info` for an address of this library's code; `dlopen` of the
    // path it names with RTLD_NOLOAD only adds a reference to a library already loaded.
    unsafe {
        let mut info: libc::Dl_info = std::mem::zeroed();
        if libc::dladdr(pin_this_library as *const c_void, &mut info) == 0
            || info.dli_fname.is_null()
        {
            return false;
        }
        let handle = libc::dlopen(
            info.dli_fname,
            libc::RTLD_NOW | libc::RTLD_NOLOAD | libc::RTLD_NODELETE,
        );
        // A program linked with the simulator statically has nothing to pin.
        !handle.is_null() || std::ffi::CStr::from_ptr(info.dli_fname).to_bytes().is_empty()
    }
}

extern "C" fn left_at_exit(status: std::ffi::c_int, argument: *mut c_void) {
    // SAFETY: the `&'static Membership` `install` registered.
    let membership = unsafe { &*(argument as *const Membership) };
    let publish = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if let Ok(platform) = crate::global_platform()
            && let Some(state) = platform
                .inner
                .state
                .try_lock_for(std::time::Duration::from_millis(200))
        {
            membership.publish_counters(&state.counters);
        }
        membership.leave(status);
    }));
    if publish.is_err() {
        eprintln!("ze-sim: the machine's exit handler failed");
    }
}
