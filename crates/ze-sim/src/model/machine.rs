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
//! of the machine finds it gone. A process is alive while it holds its slot's lock: an
//! open-file-description lock on one byte of the machine file past the region, taken as it
//! joins, which the kernel drops when the process dies or replaces itself (`exec`: the file is
//! close-on-exec). Unlike a process id, no PID namespace changes it: ranks in containers that
//! share `/dev/shm`, each with its own namespace, tell each other apart. A process killed
//! inside the few instructions between charging the machine and its own slot leaves those bytes
//! behind: the one window this design does not close.
//!
//! A child made by `fork` without `exec` inherits its parent's mapping and a copy of its
//! platform, but is no GPU client of its own: its simulator stops touching the machine. It
//! shares its parent's open file description, so it also holds the parent's lock: a parent
//! killed before such a child exits, or one that forked a helper and then replaced itself, is
//! reaped once the child is gone. Open-file-description locks need Linux 3.15 or later; on an
//! older kernel a process cannot join a machine.

use crate::model::config::SimConfig;
use serde::{Deserialize, Serialize};
use std::ffi::c_void;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// Environment variable naming the machine file the processes of one job share.
pub const MACHINE_ENV: &str = "ZE_SIM_MACHINE";

/// Devices a machine can hold (the configuration's own limit).
const MAX_DEVICES: usize = 64;
/// Processes that can attach to one machine over its life (slots are not reused, so that a
/// job's report names every process it had).
pub const MAX_PROCESSES: usize = 512;
const MAGIC: u64 = u64::from_le_bytes(*b"zesimmch");
const VERSION: u64 = 5;
/// Exported allocations the machine follows at once (a full table reuses finished records).
const MAX_EXPORTS: usize = 1024;
/// Words of a record's bitmap of processes (one bit per slot).
const USER_WORDS: usize = MAX_PROCESSES / 64;
const EXPORT_LIVE: u32 = 1;
/// Its exporter let go (freed it, or ended) while other processes had it open: the record
/// holds the bytes for the machine until the last of them closes it.
const EXPORT_ORPHANED: u32 = 2;
const EXPORT_DONE: u32 = 3;
/// A finished record being made anew.
const EXPORT_CLAIMED: u32 = 4;
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
    /// Start time of the process (`/proc/PID/stat` field 22), for the report: in its own PID
    /// namespace, as its pid is (the slot's lock says whether it is alive).
    start_time: AtomicU64,
    /// Exit status plus one; 0 while unknown.
    exit_status: AtomicU64,
    command: [AtomicU64; COMMAND_WORDS],
    now: Figures,
    peak: Figures,
    /// Counters published at exit: residency calls, evictions, implicit imports, refused uses,
    /// kernel launches and those that did not execute.
    make_resident_calls: AtomicU64,
    evict_calls: AtomicU64,
    implicit_imports: AtomicU64,
    residency_violations: AtomicU64,
    launches: AtomicU64,
    kernels_not_executed: AtomicU64,
    ipc_handles_exported: AtomicU64,
    ipc_handles_opened: AtomicU64,
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
    /// Records handed out so far.
    next_export: AtomicU64,
    exports: [ExportRecord; MAX_EXPORTS],
}

/// An allocation a process exported through an IPC handle, named by its memory file: who has it
/// open, so that memory its exporter frees (or leaves behind, ending) while another process
/// still has it open stays allocated on the machine until its last user lets go, as a dma-buf
/// keeps its buffer object.
#[repr(C)]
struct ExportRecord {
    state: AtomicU32,
    /// The owning device, as the machine numbers it.
    owner: AtomicU32,
    /// The exporter's slot.
    exporter: AtomicU64,
    /// The memory file's device and inode.
    file: [AtomicU64; 2],
    /// Bytes allocated and committed (VRAM) on the owner: the exporter's while it holds them,
    /// the record's once orphaned.
    allocated: AtomicU64,
    vram: AtomicU64,
    /// The processes (by slot) other than the exporter that have it open.
    users: [AtomicU64; USER_WORDS],
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
        // Every discharge undoes a charge: more is a bookkeeping bug (release builds saturate).
        debug_assert!(now >= bytes, "a machine figure of {now} bytes less {bytes}");
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
    /// The open file, whose description holds this process's slot lock (if it joined).
    file: std::fs::File,
    /// The slot whose lock this description holds (`usize::MAX`: none).
    held: std::sync::atomic::AtomicUsize,
}

/// A lock request on slot `slot`'s byte of the machine file, of `kind` (`F_WRLCK`, ...).
fn slot_lock(slot: usize, kind: libc::c_int) -> libc::flock {
    // SAFETY: `flock` is plain data, for which all zeros is a valid value (and `l_pid` must be
    // 0 for the open-file-description commands).
    let mut lock: libc::flock = unsafe { std::mem::zeroed() };
    lock.l_type = kind as libc::c_short;
    lock.l_whence = libc::SEEK_SET as libc::c_short;
    lock.l_start = (std::mem::size_of::<Region>() + slot) as libc::off_t;
    lock.l_len = 1;
    lock
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
    /// The configuration to make a machine of is invalid.
    #[error(transparent)]
    Config(#[from] crate::model::config::ConfigError),
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
    /// Takes slot `slot`'s lock for this open file description: held until the description is
    /// closed (this value dropped, the process's `exec` or its end).
    fn hold(&self, slot: usize) -> std::io::Result<()> {
        let lock = slot_lock(slot, libc::F_WRLCK);
        // SAFETY: fcntl on the descriptor this value owns, with a lock request it owns.
        if unsafe { libc::fcntl(self.file.as_raw_fd(), libc::F_OFD_SETLK, &lock) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        self.held.store(slot, Ordering::Release);
        Ok(())
    }

    /// Whether slot `slot`'s process is alive: its lock is held by this value or by another
    /// open file description (an answer the kernel cannot give counts as alive: never reap a
    /// live process).
    fn alive(&self, slot: usize) -> bool {
        if self.held.load(Ordering::Acquire) == slot {
            return true;
        }
        let mut lock = slot_lock(slot, libc::F_WRLCK);
        // SAFETY: fcntl on the descriptor this value owns; it writes into `lock`, which it
        // owns.
        if unsafe { libc::fcntl(self.file.as_raw_fd(), libc::F_OFD_GETLK, &mut lock) } != 0 {
            return true;
        }
        lock.l_type != libc::F_UNLCK as libc::c_short
    }

    fn map(file: std::fs::File, path: &Path) -> Result<Self, MachineError> {
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
        Ok(Self {
            region,
            file,
            held: std::sync::atomic::AtomicUsize::new(usize::MAX),
        })
    }

    fn region(&self) -> &Region {
        // SAFETY: a live mapping of a whole `Region`, whose fields are atomics (any bytes are a
        // valid value of them), shared with other processes only through atomic operations.
        // (A process that truncates the file under the others makes their accesses fault: the
        // file is private to the job's user, mode 0600.)
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
        config.validate().map_err(MachineError::Config)?;
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
        // A file of zeros: every counter starts at zero, every slot free. Allocated now, so a
        // full /dev/shm fails here rather than as a fault at a later write.
        file.set_len(std::mem::size_of::<Region>() as u64)
            .map_err(io)?;
        // SAFETY: a descriptor this function holds; the range is the file's own.
        let allocated = unsafe {
            libc::posix_fallocate(
                file.as_raw_fd(),
                0,
                std::mem::size_of::<Region>() as libc::off_t,
            )
        };
        if allocated != 0 {
            let _ = std::fs::remove_file(path);
            return Err(io(std::io::Error::from_raw_os_error(allocated)));
        }
        let machine = Self::map(file, path)?;
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
        let machine = Self::map(file, path)?;
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

    /// How many attached processes are running (attached, and neither exited nor vanished).
    pub fn running_processes(&self) -> usize {
        let region = self.region();
        let used = (region.next_slot.load(Ordering::Acquire) as usize).min(MAX_PROCESSES);
        region.slots[..used]
            .iter()
            .filter(|slot| slot.state.load(Ordering::Acquire) == LIVE)
            .count()
    }

    /// The machine's host pinned bytes now (its `nr_gpu_active`).
    pub fn host_pinned_bytes(&self) -> u64 {
        self.region().now.host_pinned.load(Ordering::Acquire)
    }

    /// Device `device`'s allocations, every process's, now (as the machine numbers devices).
    pub(crate) fn allocated_bytes(&self, device: u32) -> u64 {
        self.region()
            .now
            .get(Figure::Allocated(device))
            .load(Ordering::Acquire)
    }

    /// Each running process's pid and its allocations on device `device` now (as the machine
    /// numbers devices), in slot order.
    pub(crate) fn running_allocations(&self, device: u32) -> Vec<(u32, u64)> {
        let region = self.region();
        let used = (region.next_slot.load(Ordering::Acquire) as usize).min(MAX_PROCESSES);
        region.slots[..used]
            .iter()
            .filter(|slot| slot.state.load(Ordering::Acquire) == LIVE)
            .map(|slot| {
                let allocated = slot.now.get(Figure::Allocated(device));
                (
                    slot.pid.load(Ordering::Relaxed),
                    allocated.load(Ordering::Acquire),
                )
            })
            .collect()
    }

    /// Releases the share of every attached process that is no longer running and never ran
    /// its exit handlers. Returns how many it found.
    pub fn reap_vanished(&self) -> usize {
        let region = self.region();
        let used = (region.next_slot.load(Ordering::Acquire) as usize).min(MAX_PROCESSES);
        let mut reaped = 0;
        for (index, slot) in region.slots[..used].iter().enumerate() {
            if slot.state.load(Ordering::Acquire) != LIVE || self.alive(index) {
                continue;
            }
            if slot
                .state
                .compare_exchange(LIVE, VANISHED, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                self.release_share(index);
                reaped += 1;
            }
        }
        reaped
    }

    /// An orphaned export nobody has open any more: its bytes leave the machine, once.
    fn settle_export(&self, record: &ExportRecord) {
        // SeqCst, against a user clearing its bit while the exporter orphans the record: one
        // of the two sees the other's write.
        let open = record
            .users
            .iter()
            .any(|word| word.load(Ordering::SeqCst) != 0);
        if !open
            && record
                .state
                .compare_exchange(
                    EXPORT_ORPHANED,
                    EXPORT_DONE,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                )
                .is_ok()
        {
            let owner = record.owner.load(Ordering::Acquire);
            let region = self.region();
            discharge(
                region.now.get(Figure::Allocated(owner)),
                record.allocated.load(Ordering::Acquire),
            );
            discharge(
                region.now.get(Figure::Vram(owner)),
                record.vram.load(Ordering::Acquire),
            );
        }
    }

    /// A process ends: its opens of other processes' exports end with it, and its own exports
    /// that others still have open are handed to their records (taken out of its slot, so its
    /// share's release leaves them on the machine).
    fn end_exports(&self, index: usize, slot: &Slot) {
        let region = self.region();
        let used = (region.next_export.load(Ordering::Acquire) as usize).min(MAX_EXPORTS);
        let (word, bit) = (index / 64, 1u64 << (index % 64));
        for record in &region.exports[..used] {
            if record.users[word].fetch_and(!bit, Ordering::SeqCst) & bit != 0 {
                self.settle_export(record);
            }
            // The state first: a record being made has no exporter yet until it is LIVE.
            if record.state.load(Ordering::Acquire) == EXPORT_LIVE
                && record.exporter.load(Ordering::Acquire) == index as u64
            {
                let owner = record.owner.load(Ordering::Acquire);
                discharge(
                    slot.now.get(Figure::Allocated(owner)),
                    record.allocated.load(Ordering::Acquire),
                );
                discharge(
                    slot.now.get(Figure::Vram(owner)),
                    record.vram.load(Ordering::Acquire),
                );
                record.state.store(EXPORT_ORPHANED, Ordering::SeqCst);
                self.settle_export(record);
            }
        }
    }

    /// Takes a process's figures out of the machine's (it has ended).
    fn release_share(&self, index: usize) {
        let region = self.region();
        let Some(slot) = region.slots.get(index) else {
            return;
        };
        self.end_exports(index, slot);
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
        let figure = |figures: &Figures, peaks: &Figures, which| crate::model::report::Figure {
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
                    (failure.written.load(Ordering::Acquire) == 1).then(|| MachineFailure {
                        call: load_text(&failure.call),
                        result: failure.result.load(Ordering::Relaxed),
                        result_name: level_zero_sys::ze_result_name(level_zero_sys::ze_result_t(
                            failure.result.load(Ordering::Relaxed),
                        ))
                        .unwrap_or("an unknown result")
                        .to_string(),
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
                    evict_calls: slot.evict_calls.load(Ordering::Relaxed),
                    implicit_imports: slot.implicit_imports.load(Ordering::Relaxed),
                    residency_violations: slot.residency_violations.load(Ordering::Relaxed),
                    launches: slot.launches.load(Ordering::Relaxed),
                    kernels_not_executed: slot.kernels_not_executed.load(Ordering::Relaxed),
                    ipc_handles_exported: slot.ipc_handles_exported.load(Ordering::Relaxed),
                    ipc_handles_opened: slot.ipc_handles_opened.load(Ordering::Relaxed),
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
    pub vram_bytes: crate::model::report::Figure,
    /// Other devices' allocations resident here.
    pub gtt_bytes: crate::model::report::Figure,
    /// Device allocations owned here.
    pub allocated_bytes: crate::model::report::Figure,
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
    /// Its name, as the headers spell it.
    pub result_name: String,
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
    pub host_pinned_bytes: crate::model::report::Figure,
    /// Its device figures.
    pub devices: Vec<MachineDevice>,
    /// `zeContextMakeMemoryResident` calls (published at exit).
    pub make_resident_calls: u64,
    /// `zeContextEvictMemory` calls, refused ones included (published at exit).
    pub evict_calls: u64,
    /// The driver's imports on use (published at exit).
    pub implicit_imports: u64,
    /// Refused uses (published at exit).
    pub residency_violations: u64,
    /// Kernel launches (published at exit).
    #[serde(default)]
    pub launches: u64,
    /// Launches whose kernel did not execute: no OpenCL runtime to run it, a launch condition
    /// not met, or a failure (published at exit).
    #[serde(default)]
    pub kernels_not_executed: u64,
    /// IPC handles it handed out (`zeMemGetIpcHandle`, published at exit).
    #[serde(default)]
    pub ipc_handles_exported: u64,
    /// IPC handles it opened (`zeMemOpenIpcHandle`, published at exit).
    #[serde(default)]
    pub ipc_handles_opened: u64,
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
    pub host_pinned_bytes: crate::model::report::Figure,
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
    /// The machine's host pinned bytes at the last refused charge (for the failure record).
    refused_at: AtomicU64,
    /// The machine's index of each device this process sees (`ZE_AFFINITY_MASK` may hide some).
    machine_devices: Vec<u32>,
}

impl Membership {
    /// Joins the machine at `path` as this process, for `config` (which must describe the
    /// same devices and host memory).
    pub(crate) fn join(
        path: &Path,
        config: &SimConfig,
        machine_devices: Vec<u32>,
    ) -> Result<Self, MachineError> {
        let machine = Machine::open(path)?;
        let region = machine.region();
        let devices = region.device_count.load(Ordering::Relaxed);
        let limit = region.host_limit.load(Ordering::Relaxed);
        let same_devices = (0..config.devices.len().min(MAX_DEVICES)).all(|device| {
            region.device_limits[device].load(Ordering::Relaxed) == device_limit(config, device)
        });
        if devices as usize != config.devices.len() || limit != host_limit(config) || !same_devices
        {
            return Err(MachineError::Mismatch {
                path: path.to_path_buf(),
                machine: describe(devices, limit),
                process: describe(config.devices.len() as u32, host_limit(config)),
            });
        }
        let pid = std::process::id();
        // For the report only: liveness is the slot's lock.
        let started = start_time(pid).unwrap_or(0);
        let slot = region.next_slot.fetch_add(1, Ordering::AcqRel) as usize;
        if slot >= MAX_PROCESSES {
            return Err(MachineError::Full(path.to_path_buf()));
        }
        // Held before the slot is live, so whoever sees it live finds it held.
        machine.hold(slot).map_err(|source| MachineError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let entry = &region.slots[slot];
        entry.pid.store(pid, Ordering::Relaxed);
        entry.start_time.store(started, Ordering::Relaxed);
        let command = std::fs::read("/proc/self/cmdline")
            .map(|bytes| {
                String::from_utf8_lossy(&bytes)
                    .trim_end_matches('\0')
                    .replace('\0', " ")
            })
            .unwrap_or_default();
        store_text(&entry.command, &command);
        entry.state.store(LIVE, Ordering::Release);
        // Whoever went before without exiting leaves no figure behind (a program that joined
        // and then replaced itself, `exec`, among them: its old image's lock went at the exec).
        machine.reap_vanished();
        Ok(Self {
            machine,
            slot,
            left: AtomicBool::new(false),
            refused_at: AtomicU64::new(0),
            machine_devices,
        })
    }

    /// Registers the exit handler and the fork handler; `membership` lives for the process. At
    /// exit the handler calls `leave`, which must end with [`Membership::leave`].
    pub(crate) fn install(membership: &'static Self, leave: fn(&Self, std::ffi::c_int)) {
        let _ = LEAVE_AT_EXIT.set(leave);
        // SAFETY: `pthread_atfork` with only a child handler, a plain function of this library
        // (fork handlers of a library are dropped when it is unloaded).
        unsafe { libc::pthread_atfork(None, None, Some(forked_child)) };
        // `on_exit` handlers are not tied to the library that registers them: this library
        // must stay loaded until exit, even when the program closes it (a loader unloads its
        // driver when the last user is done). A failure to pin it skips the handler: the
        // process then leaves the machine as a vanished one does.
        if !pin_this_library() {
            eprintln!(
                "ze-sim: cannot keep the simulator loaded until exit; its share of the machine is released when it is found gone"
            );
            return;
        }
        // SAFETY: a plain function of the signature `on_exit` takes, in a library that stays
        // loaded, and an argument that lives for the process.
        if unsafe { on_exit(left_at_exit, membership as *const Self as *mut c_void) } != 0 {
            eprintln!("ze-sim: cannot register the machine's exit handler");
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

    /// Registers (or finds) this process's export of the allocation of `size` bytes, `vram` of
    /// them committed, on its device `owner`, whose memory file is `file`: the record's index,
    /// for the handle; `None` when the machine's table is full or this process takes no part.
    pub(crate) fn export(&self, file: (u64, u64), owner: u32, size: u64, vram: u64) -> Option<u32> {
        if !self.active() {
            return None;
        }
        let region = self.machine.region();
        let used = (region.next_export.load(Ordering::Acquire) as usize).min(MAX_EXPORTS);
        let mine = |record: &ExportRecord| {
            record.state.load(Ordering::Acquire) == EXPORT_LIVE
                && record.exporter.load(Ordering::Relaxed) == self.slot as u64
                && record.file[0].load(Ordering::Relaxed) == file.0
                && record.file[1].load(Ordering::Relaxed) == file.1
        };
        if let Some(index) = region.exports[..used].iter().position(mine) {
            region.exports[index].vram.store(vram, Ordering::Release);
            return u32::try_from(index).ok();
        }
        let fresh = region.next_export.fetch_add(1, Ordering::AcqRel) as usize;
        // A full table reuses a finished record (a handle naming it is checked against the
        // memory file, so an old handle does not reach the new export).
        let index = if fresh < MAX_EXPORTS {
            fresh
        } else {
            region
                .next_export
                .store(MAX_EXPORTS as u64, Ordering::Relaxed);
            region.exports.iter().position(|record| {
                record
                    .state
                    .compare_exchange(
                        EXPORT_DONE,
                        EXPORT_CLAIMED,
                        Ordering::AcqRel,
                        Ordering::Relaxed,
                    )
                    .is_ok()
            })?
        };
        let record = &region.exports[index];
        for word in &record.users {
            word.store(0, Ordering::Relaxed);
        }
        let Figure::Vram(owner) = self.on_machine(Figure::Vram(owner)) else {
            return None;
        };
        record.owner.store(owner, Ordering::Relaxed);
        record.exporter.store(self.slot as u64, Ordering::Relaxed);
        record.file[0].store(file.0, Ordering::Relaxed);
        record.file[1].store(file.1, Ordering::Relaxed);
        record.allocated.store(size, Ordering::Relaxed);
        record.vram.store(vram, Ordering::Relaxed);
        record.state.store(EXPORT_LIVE, Ordering::Release);
        u32::try_from(index).ok()
    }

    /// The live export of memory file `file`, as a handle that carries only a descriptor is
    /// resolved (a dma-buf's importer learns its buffer object from the kernel, not from the
    /// handle): its index, owning device (as the machine numbers it) and allocation's size.
    pub(crate) fn find_export(&self, file: (u64, u64)) -> Option<(u32, u32, u64)> {
        if !self.active() {
            return None;
        }
        let region = self.machine.region();
        let used = (region.next_export.load(Ordering::Acquire) as usize).min(MAX_EXPORTS);
        let holds = |record: &ExportRecord| {
            matches!(
                record.state.load(Ordering::Acquire),
                EXPORT_LIVE | EXPORT_ORPHANED
            ) && record.file[0].load(Ordering::Acquire) == file.0
                && record.file[1].load(Ordering::Acquire) == file.1
        };
        region.exports[..used]
            .iter()
            .enumerate()
            .filter(|(_, record)| holds(record))
            .find_map(|(index, record)| {
                let found = (
                    u32::try_from(index).ok()?,
                    record.owner.load(Ordering::Acquire),
                    record.allocated.load(Ordering::Acquire),
                );
                // Read again after the fields: a record finished and made anew meanwhile (a
                // full table reuses records) would pair this file with another's owner; the
                // search then goes on (the file may be exported again further on).
                holds(record).then_some(found)
            })
    }

    /// Export `index`'s allocation has `bytes` committed on its owner now.
    pub(crate) fn set_export_vram(&self, index: u32, bytes: u64) {
        if !self.active() {
            return;
        }
        if let Some(record) = self.machine.region().exports.get(index as usize)
            && record.state.load(Ordering::Acquire) == EXPORT_LIVE
            && record.exporter.load(Ordering::Relaxed) == self.slot as u64
        {
            record.vram.store(bytes, Ordering::Release);
        }
    }

    /// This process opened export `index`, of memory file `file`: `false` when the machine has
    /// no such export still held.
    pub(crate) fn open_export(&self, index: u32, file: (u64, u64)) -> bool {
        if !self.active() {
            return false;
        }
        let Some(record) = self.machine.region().exports.get(index as usize) else {
            return false;
        };
        if record.file[0].load(Ordering::Acquire) != file.0
            || record.file[1].load(Ordering::Acquire) != file.1
        {
            return false;
        }
        // The bit first, then the state (SeqCst both, as the exporter's free stores the state
        // and then reads the bits): an exporter freeing it meanwhile sees this user, or this
        // user sees it done and takes part no further.
        let (word, bit) = (self.slot / 64, 1u64 << (self.slot % 64));
        record.users[word].fetch_or(bit, Ordering::SeqCst);
        // And the file again: a finished record may have been made anew meanwhile.
        if !matches!(
            record.state.load(Ordering::SeqCst),
            EXPORT_LIVE | EXPORT_ORPHANED
        ) || record.file[0].load(Ordering::Acquire) != file.0
            || record.file[1].load(Ordering::Acquire) != file.1
        {
            record.users[word].fetch_and(!bit, Ordering::SeqCst);
            self.machine.settle_export(record);
            return false;
        }
        true
    }

    /// This process closed its last mapping of export `index`.
    pub(crate) fn close_export(&self, index: u32) {
        if !self.active() {
            return;
        }
        if let Some(record) = self.machine.region().exports.get(index as usize) {
            record.users[self.slot / 64].fetch_and(!(1 << (self.slot % 64)), Ordering::SeqCst);
            self.machine.settle_export(record);
        }
    }

    /// This process, the exporter, frees export `index`'s allocation, `vram` bytes of it
    /// committed. `true` when other processes still have it open: its bytes then leave this
    /// process's slot but stay on the machine, held by the record until the last of them
    /// closes it, and the caller takes them off its own figures only.
    pub(crate) fn free_export(&self, index: u32, vram: u64) -> bool {
        if !self.active() {
            return false;
        }
        let Some(record) = self.machine.region().exports.get(index as usize) else {
            return false;
        };
        if record.exporter.load(Ordering::Relaxed) != self.slot as u64
            || record.state.load(Ordering::Acquire) != EXPORT_LIVE
        {
            return false;
        }
        record.vram.store(vram, Ordering::Release);
        let unused = || {
            record
                .users
                .iter()
                .all(|word| word.load(Ordering::SeqCst) == 0)
        };
        if unused() {
            record.state.store(EXPORT_DONE, Ordering::SeqCst);
            // A user that opened it meanwhile either saw it done and left, or is seen here:
            // then it is handed over as below.
            if unused() {
                return false;
            }
            record.state.store(EXPORT_LIVE, Ordering::SeqCst);
        }
        let owner = record.owner.load(Ordering::Acquire);
        let slot = self.slot();
        discharge(
            slot.now.get(Figure::Allocated(owner)),
            record.allocated.load(Ordering::Acquire),
        );
        discharge(slot.now.get(Figure::Vram(owner)), vram);
        record.state.store(EXPORT_ORPHANED, Ordering::SeqCst);
        self.machine.settle_export(record);
        true
    }

    /// Adds `bytes` to `figure`, machine-wide and in this process's slot; with a `limit`,
    /// refuses (returning the machine's figure) when the machine would pass it. A refusal
    /// first releases the shares of processes that vanished, then tries once more.
    /// Returns `Ok(false)` when this process no longer takes part (it has left, or is a forked
    /// child): the caller then checks its own figure.
    pub(crate) fn charge(
        &self,
        figure: Figure,
        bytes: u64,
        limit: Option<u64>,
    ) -> Result<bool, u64> {
        if !self.active() {
            return Ok(false);
        }
        let figure = self.on_machine(figure);
        let region = self.machine.region();
        let counter = region.now.get(figure);
        let now = match charge(counter, bytes, limit) {
            Ok(now) => now,
            Err(_) if self.machine.reap_vanished() > 0 => {
                charge(counter, bytes, limit).inspect_err(|&before| self.refused(figure, before))?
            }
            Err(before) => {
                self.refused(figure, before);
                return Err(before);
            }
        };
        region.peak.get(figure).fetch_max(now, Ordering::AcqRel);
        let slot = self.slot();
        let mine = slot.now.get(figure).fetch_add(bytes, Ordering::AcqRel) + bytes;
        slot.peak.get(figure).fetch_max(mine, Ordering::AcqRel);
        Ok(true)
    }

    fn refused(&self, figure: Figure, before: u64) {
        if figure == Figure::HostPinned {
            self.refused_at.store(before, Ordering::Relaxed);
        }
    }

    /// The machine's figure for one of this process's (its devices may be a subset).
    fn on_machine(&self, figure: Figure) -> Figure {
        let map = |device: u32| {
            self.machine_devices
                .get(device as usize)
                .copied()
                .unwrap_or(device)
        };
        match figure {
            Figure::HostPinned => Figure::HostPinned,
            Figure::Vram(device) => Figure::Vram(map(device)),
            Figure::Gtt(device) => Figure::Gtt(map(device)),
            Figure::Allocated(device) => Figure::Allocated(map(device)),
        }
    }

    /// Takes `bytes` off `figure`.
    pub(crate) fn discharge(&self, figure: Figure, bytes: u64) {
        if !self.active() {
            return;
        }
        let figure = self.on_machine(figure);
        discharge(self.slot().now.get(figure), bytes);
        discharge(self.machine.region().now.get(figure), bytes);
    }

    /// Records the first call refused for lack of memory.
    pub(crate) fn record_failure(&self, call: &str, result: u32, requested: u64) {
        if !self.active() {
            return;
        }
        let failure = &self.slot().failure;
        // 0: none yet; 2: being written; 1: written.
        if failure
            .written
            .compare_exchange(0, 2, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
        }
        let region = self.machine.region();
        store_text(&failure.call, call);
        failure.result.store(result, Ordering::Relaxed);
        failure.requested.store(requested, Ordering::Relaxed);
        // The figure the refusal saw, if it was the host's; else the figure now.
        let refused_at = self.refused_at.swap(0, Ordering::Relaxed);
        let pinned = if refused_at != 0 {
            refused_at
        } else {
            region.now.host_pinned.load(Ordering::Acquire)
        };
        failure.machine_pinned.store(pinned, Ordering::Relaxed);
        failure
            .limit
            .store(region.host_limit.load(Ordering::Relaxed), Ordering::Relaxed);
        failure.written.store(1, Ordering::Release);
    }

    /// Publishes the counters the report shows per process.
    pub(crate) fn publish_counters(&self, counters: &crate::model::counters::Counters) {
        if !self.active() {
            return;
        }
        let slot = self.slot();
        slot.make_resident_calls
            .store(counters.make_resident_calls, Ordering::Relaxed);
        slot.evict_calls
            .store(counters.evict_calls, Ordering::Relaxed);
        slot.implicit_imports
            .store(counters.implicit_imports, Ordering::Relaxed);
        slot.residency_violations
            .store(counters.residency_violations, Ordering::Relaxed);
        slot.launches.store(counters.launches, Ordering::Relaxed);
        slot.kernels_not_executed
            .store(counters.kernels_not_executed, Ordering::Relaxed);
        slot.ipc_handles_exported
            .store(counters.ipc_handles_exported, Ordering::Relaxed);
        slot.ipc_handles_opened
            .store(counters.ipc_handles_opened, Ordering::Relaxed);
    }

    /// This process ends: its share leaves the machine, with its exit status.
    pub(crate) fn leave(&self, status: i32) {
        if !self.active() {
            return;
        }
        // First: a thread still running (the runtime's own teardown) then changes only its
        // process's figures, not the share being released.
        self.left.store(true, Ordering::Release);
        let slot = self.slot();
        if slot
            .state
            .compare_exchange(LIVE, EXITED, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            slot.exit_status
                .store(u64::from(status as u32) + 1, Ordering::Release);
            self.machine.release_share(self.slot);
        }
    }
}

/// Keeps the library holding this code loaded for the life of the process (`RTLD_NODELETE`):
/// once it has started threads or registered exit handlers, unloading it would leave them
/// running code (a thread's exit runs its thread-local destructors) that is gone.
pub(crate) fn pin_this_library() -> bool {
    // SAFETY: `dladdr` fills `info` for an address of this library's code; `dlopen` of the
    // path it names with RTLD_NOLOAD only adds a reference to a library already loaded; the
    // name `dladdr` gave is a NUL-terminated string of the loader, copied out at once.
    let name = unsafe {
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
        if !handle.is_null() {
            return true;
        }
        std::ffi::CStr::from_ptr(info.dli_fname).to_bytes().to_vec()
    };
    // A program linked with the simulator statically has nothing to pin: the code lies in the
    // executable itself (named, or unnamed, by `dladdr`).
    let in_executable = |executable: std::path::PathBuf| {
        let name = std::fs::canonicalize(std::ffi::OsStr::from_bytes(&name));
        matches!((name, std::fs::canonicalize(executable)), (Ok(a), Ok(b)) if a == b)
    };
    name.is_empty() || std::env::current_exe().is_ok_and(in_executable)
}

/// What leaving at exit does beyond [`Membership::leave`] (publishing the platform's counters
/// first), given by the layer that owns the platform.
static LEAVE_AT_EXIT: OnceLock<fn(&Membership, std::ffi::c_int)> = OnceLock::new();

extern "C" fn left_at_exit(status: std::ffi::c_int, argument: *mut c_void) {
    // SAFETY: the `&'static Membership` `install` registered.
    let membership = unsafe { &*(argument as *const Membership) };
    let publish =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match LEAVE_AT_EXIT.get() {
            Some(leave) => leave(membership, status),
            None => membership.leave(status),
        }));
    if publish.is_err() {
        eprintln!("ze-sim: the machine's exit handler failed");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    fn machine(name: &str) -> (tempfile::TempDir, PathBuf, SimConfig) {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join(name);
        let config = SimConfig::preset("b60x4").unwrap();
        Machine::create(&path, &config).unwrap();
        (folder, path, config)
    }

    /// A process id that was running and is no more.
    fn dead_pid() -> u32 {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        pid
    }

    #[test]
    fn limits_hold_for_the_machine_and_a_share_leaves_at_exit() {
        let (_folder, path, config) = machine("m");
        let member = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
        let limit = Some(60 * GIB);
        assert_eq!(member.charge(Figure::HostPinned, 40 * GIB, limit), Ok(true));
        assert_eq!(
            member.charge(Figure::HostPinned, 30 * GIB, limit),
            Err(40 * GIB)
        );
        assert_eq!(member.charge(Figure::Gtt(2), GIB, None), Ok(true));
        member.discharge(Figure::HostPinned, 10 * GIB);
        let reader = Machine::open(&path).unwrap();
        assert_eq!(reader.host_pinned_bytes(), 30 * GIB);
        let report = reader.report();
        assert_eq!(report.host_pinned_bytes.peak, 40 * GIB);
        assert_eq!(report.devices[2].gtt_bytes.current, GIB);
        assert_eq!(report.processes[0].state, ProcessState::Running);
        member.record_failure("zeMemAllocHost", 0x7000_0002, 30 * GIB);
        member.record_failure("zeSecondCall", 1, 1);
        member.leave(3);
        let report = reader.report();
        assert_eq!(report.host_pinned_bytes.current, 0);
        assert_eq!(report.devices[2].gtt_bytes.current, 0);
        let process = &report.processes[0];
        assert_eq!(process.state, ProcessState::Exited { status: Some(3) });
        assert_eq!(
            process.host_pinned_bytes.current,
            30 * GIB,
            "its figure at exit"
        );
        let failure = process.failure.as_ref().unwrap();
        assert_eq!(
            (failure.call.as_str(), failure.requested_bytes),
            ("zeMemAllocHost", 30 * GIB)
        );
        assert_eq!(
            failure.machine_host_pinned_bytes,
            40 * GIB,
            "as the refusal saw it"
        );
        // Gone from the machine: later calls (the runtime's teardown) change nothing there.
        assert_eq!(member.charge(Figure::HostPinned, GIB, limit), Ok(false));
        member.discharge(Figure::HostPinned, 30 * GIB);
        assert_eq!(reader.host_pinned_bytes(), 0);
    }

    /// The charge is one compare-and-swap: threads charging and discharging at once never take
    /// the machine past its limit, and every byte charged is given back.
    #[test]
    fn threads_charging_at_once_never_pass_the_limit() {
        let (_folder, path, config) = machine("m");
        let member = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
        let limit = Some(10 * GIB);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..2_000 {
                        match member.charge(Figure::HostPinned, 3 * GIB, limit) {
                            Ok(true) => member.discharge(Figure::HostPinned, 3 * GIB),
                            Ok(false) => panic!("the process left"),
                            Err(before) => {
                                assert!(before + 3 * GIB > 10 * GIB, "refused at {before}");
                            }
                        }
                    }
                });
            }
        });
        let report = Machine::open(&path).unwrap().report();
        assert!(
            report.host_pinned_bytes.peak <= 10 * GIB,
            "{:?}",
            report.host_pinned_bytes
        );
        assert_eq!(report.host_pinned_bytes.current, 0);
        assert_eq!(report.processes[0].host_pinned_bytes.current, 0);
        assert!(report.processes[0].host_pinned_bytes.peak <= 10 * GIB);
    }

    #[test]
    fn a_vanished_process_is_reaped_and_a_live_one_is_not() {
        let (_folder, path, config) = machine("m");
        let member = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
        member.charge(Figure::HostPinned, 5 * GIB, None).unwrap();
        let reader = Machine::open(&path).unwrap();
        // A second process that attached, charged 7 GiB and was killed.
        let region = reader.region();
        let slot = region.next_slot.fetch_add(1, Ordering::AcqRel) as usize;
        let ghost = &region.slots[slot];
        ghost.pid.store(dead_pid(), Ordering::Relaxed);
        ghost.start_time.store(1, Ordering::Relaxed);
        ghost.now.host_pinned.store(7 * GIB, Ordering::Relaxed);
        ghost.state.store(LIVE, Ordering::Release);
        region.now.host_pinned.fetch_add(7 * GIB, Ordering::AcqRel);
        assert_eq!(reader.host_pinned_bytes(), 12 * GIB);
        assert_eq!(reader.reap_vanished(), 1);
        assert_eq!(reader.reap_vanished(), 0, "once");
        assert_eq!(
            reader.host_pinned_bytes(),
            5 * GIB,
            "the live one's share stays"
        );
        let states: Vec<_> = reader.report().processes.iter().map(|p| p.state).collect();
        assert_eq!(states, [ProcessState::Running, ProcessState::Vanished]);
        // A refusal reaps first: 55 GiB fit only once the ghost's share is gone.
        let ghost = &region.slots[slot];
        assert_eq!(ghost.state.load(Ordering::Acquire), VANISHED);
        assert!(
            member
                .charge(Figure::HostPinned, 55 * GIB, Some(60 * GIB))
                .is_ok()
        );
    }

    #[test]
    fn a_process_that_joins_again_after_exec_releases_its_old_share() {
        let (_folder, path, config) = machine("m");
        let before = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
        before
            .charge(Figure::Allocated(0), 3 * GIB, Some(24 * GIB))
            .unwrap();
        // An exec closes the machine file (close-on-exec), and with it the old image's lock;
        // the new image joins again.
        drop(before);
        let after = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
        let reader = Machine::open(&path).unwrap();
        // A child another test of this process forks meanwhile shares the old image's open
        // file description until it execs, keeping its lock a moment: reaped again until then.
        for _ in 0..500 {
            if reader.report().processes[0].state == ProcessState::Vanished {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            reader.reap_vanished();
        }
        let report = reader.report();
        assert_eq!(report.devices[0].allocated_bytes.current, 0);
        assert_eq!(report.processes[0].state, ProcessState::Vanished);
        assert_eq!(report.processes[1].state, ProcessState::Running);
        drop(after);
    }

    /// Linked into the executable (as this test binary links it), there is nothing to pin and
    /// nothing to warn about: it once answered false and every program using the simulator
    /// in-process printed that it could not keep it loaded.
    #[test]
    fn the_simulator_linked_into_the_executable_counts_as_pinned() {
        assert!(pin_this_library());
    }

    /// A rank in another PID namespace (a container sharing `/dev/shm`): the pid its slot
    /// records names, here, another live process with another start time, or none. While the
    /// rank lives it holds its slot's lock, and nobody reaps it; once it is gone, its share goes.
    #[test]
    fn a_live_rank_whose_pid_means_another_process_here_is_not_reaped() {
        let (_folder, path, config) = machine("m");
        let member = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
        let mut stranger = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        for recorded_pid in [stranger.id(), dead_pid()] {
            // The rank: its own open of the machine file, holding its slot's lock.
            let rank = Machine::open(&path).unwrap();
            let region = rank.region();
            let slot = region.next_slot.fetch_add(1, Ordering::AcqRel) as usize;
            rank.hold(slot).unwrap();
            let entry = &region.slots[slot];
            entry.pid.store(recorded_pid, Ordering::Relaxed);
            entry.start_time.store(1, Ordering::Relaxed);
            entry.now.host_pinned.store(7 * GIB, Ordering::Relaxed);
            entry.state.store(LIVE, Ordering::Release);
            region.now.host_pinned.fetch_add(7 * GIB, Ordering::AcqRel);
            let reader = Machine::open(&path).unwrap();
            assert_eq!(reader.reap_vanished(), 0, "its lock is held");
            assert_eq!(member.machine.reap_vanished(), 0, "from a member too");
            assert_eq!(reader.host_pinned_bytes(), 7 * GIB);
            // The rank dies: the kernel drops its lock with its open file description. A child
            // another test of this process forks meanwhile shares that description until it
            // execs (the file is close-on-exec), so the lock may outlive the drop briefly.
            drop(rank);
            let reaped = (0..500)
                .map(|_| {
                    let reaped = reader.reap_vanished();
                    if reaped == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                    reaped
                })
                .find(|&reaped| reaped != 0)
                .unwrap_or(0);
            assert_eq!(reaped, 1);
            assert_eq!(reader.host_pinned_bytes(), 0);
        }
        stranger.kill().unwrap();
        stranger.wait().unwrap();
        assert_eq!(
            Machine::open(&path).unwrap().reap_vanished(),
            0,
            "the member lives"
        );
    }

    #[test]
    fn a_process_seeing_some_devices_charges_them_by_their_machine_index() {
        let (_folder, path, config) = machine("m");
        // ZE_AFFINITY_MASK=2: the process's device 0 is the machine's device 2.
        let member = Membership::join(&path, &config, vec![2]).unwrap();
        member.charge(Figure::Vram(0), GIB, None).unwrap();
        member
            .charge(Figure::Allocated(0), GIB, Some(24 * GIB))
            .unwrap();
        let report = Machine::open(&path).unwrap().report();
        assert_eq!(report.devices[2].vram_bytes.current, GIB);
        assert_eq!(report.devices[0].vram_bytes.current, 0);
        assert_eq!(report.processes[0].devices[2].allocated_bytes.current, GIB);
        member.discharge(Figure::Vram(0), GIB);
        assert_eq!(
            Machine::open(&path).unwrap().report().devices[2]
                .vram_bytes
                .current,
            0
        );
    }

    #[test]
    fn another_machine_or_no_machine_is_refused() {
        let (folder, path, config) = machine("m");
        let mut other = config.clone();
        other.host_memory_bytes /= 2;
        assert!(matches!(
            Membership::join(&path, &other, vec![0, 1, 2, 3]),
            Err(MachineError::Mismatch { .. })
        ));
        let mut smaller = config.clone();
        smaller.devices[1].memory_bytes /= 2;
        assert!(matches!(
            Membership::join(&path, &smaller, vec![0, 1, 2, 3]),
            Err(MachineError::Mismatch { .. })
        ));
        let junk = folder.path().join("junk");
        std::fs::write(&junk, b"not a machine").unwrap();
        assert!(matches!(
            Machine::open(&junk),
            Err(MachineError::NotAMachine(_))
        ));
        std::fs::write(&junk, vec![0u8; std::mem::size_of::<Region>()]).unwrap();
        assert!(matches!(
            Machine::open(&junk),
            Err(MachineError::NotAMachine(_))
        ));
        assert!(matches!(
            Machine::open(&folder.path().join("absent")),
            Err(MachineError::Io { .. })
        ));
        let mut invalid = config;
        invalid.devices.clear();
        assert!(matches!(
            Machine::create(&folder.path().join("new"), &invalid),
            Err(MachineError::Config(_))
        ));
    }

    /// Memory one process exported and another opened: freed by its exporter, or left when
    /// the exporter ends, it stays allocated and committed on the machine until its last user
    /// closes it or ends; the exporter's own figures drop at once.
    #[test]
    fn exported_memory_stays_on_the_machine_until_its_last_user_lets_go() {
        let (_folder, path, config) = machine("m");
        let report = || Machine::open(&path).unwrap().report();
        for ending in ["close", "importer ends", "exporter ends"] {
            let exporter = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
            let importer = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
            exporter.charge(Figure::Allocated(1), GIB, None).unwrap();
            exporter.charge(Figure::Vram(1), GIB, None).unwrap();
            let file = (7, 42);
            // Exported before its first use: committed after (device memory is lazy).
            let index = exporter.export(file, 1, GIB, 0).unwrap();
            exporter.set_export_vram(index, GIB);
            assert!(
                !importer.open_export(index, (7, 43)),
                "another file's handle"
            );
            assert!(importer.open_export(index, file));
            let machine_vram = || report().devices[1].vram_bytes.current;
            if ending == "exporter ends" {
                exporter.leave(0);
            } else {
                assert!(
                    exporter.free_export(index, GIB),
                    "open elsewhere: handed over"
                );
            }
            assert_eq!(machine_vram(), GIB, "{ending}: the importer still uses it");
            assert_eq!(report().devices[1].allocated_bytes.current, GIB);
            match ending {
                "importer ends" => drop(importer),
                _ => importer.close_export(index),
            }
            Machine::open(&path).unwrap().reap_vanished();
            assert_eq!(machine_vram(), 0, "{ending}: gone with its last user");
            assert_eq!(report().devices[1].allocated_bytes.current, 0);
            drop(exporter);
            Machine::open(&path).unwrap().reap_vanished();
        }
        // Freed with nobody else holding it: the exporter's normal release.
        let exporter = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
        let index = exporter.export((7, 44), 1, GIB, 0).unwrap();
        assert!(!exporter.free_export(index, 0));
    }

    /// What Sysman lists of a device: each running process with what it allocated there (as
    /// the machine numbers devices); one that left is gone from the list.
    #[test]
    fn the_running_processes_and_their_allocations_on_a_device() {
        let (_folder, path, config) = machine("m");
        let first = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
        // This one sees the machine's devices 2 and 3 as its 0 and 1.
        let second = Membership::join(&path, &config, vec![2, 3]).unwrap();
        first.charge(Figure::Allocated(2), GIB, None).unwrap();
        second.charge(Figure::Allocated(0), 3 * GIB, None).unwrap();
        let pid = std::process::id();
        let on_two = first.machine().running_allocations(2);
        assert_eq!(on_two, [(pid, GIB), (pid, 3 * GIB)]);
        assert_eq!(first.machine().allocated_bytes(2), 4 * GIB);
        assert_eq!(first.machine().running_allocations(0), [(pid, 0), (pid, 0)]);
        second.leave(0);
        assert_eq!(first.machine().running_allocations(2), [(pid, GIB)]);
        assert_eq!(first.machine().allocated_bytes(2), GIB);
    }

    /// A handle that carries only a memory file is resolved by the file: the live export's
    /// index, its owner as the machine numbers it and its size; nothing for another file or
    /// for an export its exporter freed with no user left.
    #[test]
    fn an_export_is_found_by_its_memory_file() {
        let (_folder, path, config) = machine("m");
        // This process sees the machine's devices 2 and 3 as its 0 and 1.
        let exporter = Membership::join(&path, &config, vec![2, 3]).unwrap();
        let other = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
        exporter.charge(Figure::Allocated(1), GIB, None).unwrap();
        let index = exporter.export((9, 1), 1, GIB, 0).unwrap();
        assert_eq!(other.find_export((9, 1)), Some((index, 3, GIB)));
        assert_eq!(other.find_export((9, 2)), None, "another file");
        assert!(!exporter.free_export(index, 0), "nobody else had it open");
        assert_eq!(other.find_export((9, 1)), None, "freed");
    }

    /// Export records under concurrent opens and closes by three other processes while the
    /// exporter frees, round after round: whatever the interleaving, the bytes leave the
    /// machine exactly once (none left, no underflow), and nothing deadlocks.
    #[test]
    fn export_records_hold_under_concurrent_opens_closes_and_the_exporters_free() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let (_folder, path, config) = machine("m");
            let exporter = Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap();
            let importers: Vec<Membership> = (0..3)
                .map(|_| Membership::join(&path, &config, vec![0, 1, 2, 3]).unwrap())
                .collect();
            let reader = Machine::open(&path).unwrap();
            for round in 0..200u64 {
                exporter.charge(Figure::Allocated(1), GIB, None).unwrap();
                exporter.charge(Figure::Vram(1), GIB, None).unwrap();
                let file = (9, round);
                let index = exporter.export(file, 1, GIB, GIB).unwrap();
                std::thread::scope(|scope| {
                    for importer in &importers {
                        scope.spawn(move || {
                            for _ in 0..20 {
                                if importer.open_export(index, file) {
                                    importer.close_export(index);
                                }
                            }
                        });
                    }
                    if !exporter.free_export(index, GIB) {
                        // Nobody had it open: the exporter's own release, as the platform's.
                        exporter.discharge(Figure::Allocated(1), GIB);
                        exporter.discharge(Figure::Vram(1), GIB);
                    }
                });
                let report = reader.report();
                assert_eq!(
                    report.devices[1].allocated_bytes.current, 0,
                    "round {round}"
                );
                assert_eq!(report.devices[1].vram_bytes.current, 0, "round {round}");
            }
            let _ = done.send(());
        });
        finished
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("finished within a minute (a panic or a deadlock otherwise)");
    }
}
