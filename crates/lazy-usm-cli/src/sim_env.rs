//! `sim-env` and `run`: the environment that makes an unmodified Level Zero program load the
//! simulator's loader stand-in instead of the system loader, and a program run inside it.

use crate::table::{Table, bytes_gib};
use lazy_usm::ze_sim::{
    MACHINE_ENV, Machine, MachineReport, ProcessState, REPORT_ENV, Report, SimConfig,
};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};

/// The stand-in's file name as cargo builds it.
const STAND_IN_FILE: &str = "libze_sim_loader.so";
/// Overrides where the stand-in is looked for.
pub const STAND_IN_ENV: &str = "LAZY_USM_SIM_LOADER";
/// The name programs load the loader by (the stand-in's soname): the first of the loader's names.
const LOADER_SONAME: &str = LOADER_NAMES[0];

/// The shim's file name as cargo builds it.
const SHIM_FILE: &str = "liblazy_usm_shim.so";

/// The stand-in library: `LAZY_USM_SIM_LOADER`, else next to this executable (cargo puts both
/// in the same target folder).
fn stand_in_library() -> Result<PathBuf, String> {
    built_library(STAND_IN_ENV, STAND_IN_FILE, "ze-sim-loader")
}

/// The loader shim: `LAZY_USM_SHIM`, else next to this executable.
fn shim_library() -> Result<PathBuf, String> {
    built_library("LAZY_USM_SHIM", SHIM_FILE, "lazy-usm-shim")
}

fn built_library(variable: &str, file: &str, package: &str) -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os(variable) {
        let path = PathBuf::from(path);
        return if path.is_file() {
            std::path::absolute(&path).map_err(|error| format!("{}: {error}", path.display()))
        } else {
            Err(format!("{variable}={} is not a file", path.display()))
        };
    }
    let executable = std::env::current_exe().map_err(|error| error.to_string())?;
    let folder = executable.parent().ok_or("this executable has no folder")?;
    let library = folder.join(file);
    if library.is_file() {
        Ok(library)
    } else {
        Err(format!(
            "{} not found (build it with `cargo build -p {package}`, or set {variable})",
            library.display()
        ))
    }
}

/// The names programs open the loader by: the runtime's soname, and the development name a
/// oneAPI installation also has (oneCCL opens that one, `libze_loader.so`, by itself).
const LOADER_NAMES: &[&str] = lazy_usm::sys::SYSTEM_LOADER_NAMES;

/// A folder holding `library` under each of the loader's names (links to the one file, so a
/// process that opens both names gets one simulator): beside the library, or, for an installed
/// Python package (which ships the folder with a copy under the soname, as a wheel holds no
/// links, and must not be written to), a private folder of this user's of links to that copy.
fn loader_folder(library: &Path, name: &str) -> Result<PathBuf, String> {
    let folder = library
        .parent()
        .ok_or("the library has no folder")?
        .join(name);
    std::fs::create_dir_all(&folder).map_err(|error| format!("{}: {error}", folder.display()))?;
    let shipped_copy = folder.join(LOADER_SONAME);
    let shipped = {
        match (
            std::fs::symlink_metadata(&shipped_copy),
            std::fs::metadata(library),
        ) {
            (Ok(copy), Ok(original)) => copy.file_type().is_file() && copy.len() == original.len(),
            _ => false,
        }
    };
    let (folder, target) = if shipped {
        // One folder per installed copy: two installs run side by side must not re-point each
        // other's links between `sim-env` and the program's `dlopen`.
        let copy = stable_hash(shipped_copy.as_os_str().as_encoded_bytes());
        (
            private_folder(&format!("{name}-{copy:016x}"))?,
            shipped_copy,
        )
    } else {
        (folder, library.to_path_buf())
    };
    for loader_name in LOADER_NAMES {
        link(&folder.join(loader_name), &target)?;
    }
    Ok(folder)
}

/// FNV-1a of `bytes`: the same folder name for the same installed copy across builds of
/// lazy-usm (the standard library's hasher may change between Rust releases).
fn stable_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `link` made a symbolic link to `target`, unless it is one already. Whatever else is there (a
/// stale link from another build folder) is replaced in one rename, so that runs starting side
/// by side never see the name missing. The link is made under a name of its own first (never
/// another process's, in this or another PID namespace), removed again if the rename fails.
fn link(link: &Path, target: &Path) -> Result<(), String> {
    if std::fs::read_link(link).ok().as_deref() == Some(target) {
        return Ok(());
    }
    let folder = link.parent().ok_or("a link needs a folder")?;
    let name = link.file_name().unwrap_or_default().to_string_lossy();
    let fresh = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .make_in(folder, |fresh| std::os::unix::fs::symlink(target, fresh))
        .map_err(|error| format!("{}: {error}", link.display()))?;
    // `persist` renames over `link`; a failure drops (removes) the fresh link.
    fresh
        .persist(link)
        .map(|_| ())
        .map_err(|error| format!("{}: {}", link.display(), error.error))
}

/// `XDG_RUNTIME_DIR`, where set to an absolute folder of this user's alone: the session's own
/// folder the login manager made, where no other user can put anything.
fn runtime_folder(user: u32) -> Option<PathBuf> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let folder = PathBuf::from(std::env::var_os("XDG_RUNTIME_DIR")?);
    let metadata = std::fs::symlink_metadata(&folder).ok()?;
    (folder.is_absolute()
        && metadata.is_dir()
        && metadata.uid() == user
        && metadata.permissions().mode() & 0o077 == 0)
        .then_some(folder)
}

/// `XDG_RUNTIME_DIR/lazy-usm/name`, or else `TMPDIR/lazy-usm-UID/name`: made here, its parent
/// this user's alone (mode 0700, checked, so that no other user can have put links there
/// first). The check goes by path, as the folder's path is what programs are pointed at: in a
/// temporary folder it holds only where no other user can rename what is there (sticky, as
/// /tmp is, or writable by its owner alone), which is checked too.
fn private_folder(name: &str) -> Result<PathBuf, String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
    let user = rustix::process::geteuid().as_raw();
    let parent = match runtime_folder(user) {
        Some(runtime) => runtime.join("lazy-usm"),
        None => {
            // Absolute, so that the variables pointing programs here hold wherever they run.
            let temporary = std::path::absolute(std::env::temp_dir())
                .map_err(|error| format!("the temporary folder: {error}"))?;
            let shared = std::fs::metadata(&temporary)
                .map_err(|error| format!("{}: {error}", temporary.display()))?;
            let mode = shared.permissions().mode();
            let guarded = (shared.uid() == 0 || shared.uid() == user)
                && (mode & 0o1000 != 0 || mode & 0o022 == 0);
            if !guarded {
                return Err(format!(
                    "{}: other users may rename what is in it (not sticky, not its owner's \
                     alone): set XDG_RUNTIME_DIR or TMPDIR to a folder of yours",
                    temporary.display()
                ));
            }
            temporary.join(format!("lazy-usm-{user}"))
        }
    };
    match std::fs::DirBuilder::new().mode(0o700).create(&parent) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(error) => return Err(format!("{}: {error}", parent.display())),
    }
    let owned = std::fs::symlink_metadata(&parent)
        .map_err(|error| format!("{}: {error}", parent.display()))?;
    if !owned.is_dir() || owned.uid() != user || owned.permissions().mode() & 0o077 != 0 {
        return Err(format!(
            "{} is not a folder of this user's alone (mode 0700): remove it, or set \
             XDG_RUNTIME_DIR or TMPDIR to a folder of yours",
            parent.display()
        ));
    }
    let folder = parent.join(name);
    std::fs::create_dir_all(&folder).map_err(|error| format!("{}: {error}", folder.display()))?;
    Ok(folder)
}

/// What `sim-env` and `run` point a program at.
#[derive(Debug, Clone)]
pub struct Target {
    /// A simulator preset or configuration file; `None` with the shim: the system's loader.
    pub platform: Option<String>,
    /// Through lazy-usm's loader shim (lazy peer residency for unmodified programs).
    pub shim: bool,
}

/// The variables, in the order `sim-env` prints them.
pub fn environment(target: &Target) -> Result<Vec<(String, String)>, String> {
    let mut variables = Vec::new();
    let mut loader_dir = None;
    if let Some(platform) = &target.platform {
        // Refuse an unknown preset or unreadable file here, not in the program's first call.
        // A preset name wins over a file of that name, as the simulator itself decides.
        SimConfig::from_name_or_path(platform).map_err(|error| error.to_string())?;
        let config = if SimConfig::preset(platform).is_some() {
            platform.to_string()
        } else {
            // A file: the program may run in another folder.
            std::path::absolute(platform)
                .map_err(|error| format!("{platform}: {error}"))?
                .display()
                .to_string()
        };
        let library = stand_in_library()?;
        let folder = loader_folder(&library, "ze-sim-loader")?;
        let simulator = folder.join(LOADER_SONAME).display().to_string();
        if target.shim {
            // The shim forwards to the stand-in, by path.
            variables.push(("LAZY_USM_REAL_LOADER".into(), simulator.clone()));
        } else {
            loader_dir = Some(folder);
        }
        variables.push(("ZE_SIM_CONFIG".into(), config));
        variables.push(("ZE_SIM_LIBRARY".into(), simulator));
    }
    if target.shim {
        loader_dir = Some(loader_folder(&shim_library()?, "lazy-usm-shim")?);
        variables.push(("LAZY_USM_REPORT".into(), "1".into()));
    }
    let Some(folder) = loader_dir else {
        return Err("nothing to point at: give a preset, or --shim for the system's loader".into());
    };
    let folder_text = folder.display().to_string();
    let library_path = match std::env::var("LD_LIBRARY_PATH") {
        Ok(existing) if !existing.is_empty() => format!("{folder_text}:{existing}"),
        _ => folder_text.clone(),
    };
    let mut all = vec![
        // Intel's runtime (the loader's static front end) opens the loader from here.
        ("ZEL_LIBRARY_PATH".into(), folder_text),
        // Programs linked to libze_loader.so.1 find it here.
        ("LD_LIBRARY_PATH".into(), library_path),
        ("ONEAPI_DEVICE_SELECTOR".into(), "level_zero:*".into()),
    ];
    all.extend(variables);
    Ok(all)
}

/// `value` quoted for a POSIX shell.
fn shell_quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// `lazy-usm sim-env`: `export NAME=value` lines.
pub fn print_environment(target: &Target) -> Result<(), String> {
    for (name, value) in environment(target)? {
        println!("export {name}={}", shell_quote(&value));
    }
    Ok(())
}

/// Where a run's simulator writes its report: a file in a private folder (mode 0700, so no
/// other user can plant or read it), gone with this value.
pub struct ReportFile {
    folder: tempfile::TempDir,
}

impl ReportFile {
    pub fn new(prefix: &str) -> Result<Self, String> {
        let folder = tempfile::Builder::new()
            .prefix(prefix)
            .tempdir()
            .map_err(|error| format!("cannot make a temporary folder: {error}"))?;
        Ok(Self { folder })
    }

    /// The file, for `ZE_SIM_REPORT`.
    pub fn path(&self) -> PathBuf {
        self.folder.path().join("report.json")
    }

    /// The report the run wrote.
    pub fn read(&self) -> Result<Report, String> {
        match std::fs::read_to_string(self.path()) {
            Ok(text) => Report::from_json(&text).map_err(|error| error.to_string()),
            Err(_) => Err(
                "it made no Level Zero call, or exited without running its exit \
                           handlers (a signal, or _exit)"
                    .to_string(),
            ),
        }
    }
}

/// A finished program's exit code: its own, or 128 plus the signal's number.
pub fn exit_code(status: &std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|signal| 128 + signal))
        .unwrap_or(128)
}

/// A machine shared by every process of a run (`ZE_SIM_MACHINE`), in a private folder under
/// `/dev/shm` (or the temporary folder), gone with this value.
pub struct MachineFile {
    folder: tempfile::TempDir,
    machine: Machine,
}

impl MachineFile {
    pub fn new(platform: &str) -> Result<Self, String> {
        let config = SimConfig::from_name_or_path(platform)
            .map_err(|error| error.to_string())?
            // The processes read the driver's debug keys from the environment they inherit.
            .with_driver_debug_keys(|name| std::env::var(name).ok());
        let shm = Path::new("/dev/shm");
        let builder = || {
            let mut builder = tempfile::Builder::new();
            builder.prefix("lazy-usm-machine-");
            builder
        };
        let folder = if shm.is_dir() {
            builder().tempdir_in(shm)
        } else {
            builder().tempdir()
        }
        .map_err(|error| format!("cannot make the machine's folder: {error}"))?;
        let machine = Machine::create(&folder.path().join("machine"), &config)
            .map_err(|error| error.to_string())?;
        Ok(Self { folder, machine })
    }

    pub fn path(&self) -> PathBuf {
        self.folder.path().join("machine")
    }
}

/// How a job ended: its first process's status and output (when captured), the report of its
/// last process to exit, and, on a simulated platform, the whole machine's figures.
pub struct JobEnd {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    /// Its standard error, when captured.
    pub stderr: Vec<u8>,
    pub report: Result<Report, String>,
    pub machine: Option<MachineReport>,
}

/// What a reader thread collects of a child's pipe.
pub struct Collected {
    bytes: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    reader: std::thread::JoinHandle<()>,
}

/// How much of a teed pipe is kept: its end, for a failure's last lines.
const TEED_TAIL: usize = 64 << 10;

impl Collected {
    /// Collects all of `pipe`.
    pub fn start(pipe: impl Read + Send + 'static) -> Self {
        Self::reading(pipe, false)
    }

    /// Passes `pipe` on to this process's standard error as it comes, and keeps its end.
    pub fn tee_to_stderr(pipe: impl Read + Send + 'static) -> Self {
        Self::reading(pipe, true)
    }

    fn reading(mut pipe: impl Read + Send + 'static, tee: bool) -> Self {
        let bytes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = std::sync::Arc::clone(&bytes);
        let reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 1 << 16];
            while let Ok(read @ 1..) = pipe.read(&mut chunk) {
                if tee {
                    let _ = std::io::Write::write_all(&mut std::io::stderr(), &chunk[..read]);
                }
                let mut kept = kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
                kept.extend_from_slice(&chunk[..read]);
                if tee && kept.len() > 2 * TEED_TAIL {
                    let excess = kept.len() - TEED_TAIL;
                    kept.drain(..excess);
                }
            }
        });
        Self { bytes, reader }
    }

    /// What was read, once the pipe ended or `deadline` passed (a process left running may
    /// keep the pipe open).
    pub fn take(self, deadline: std::time::Instant) -> Vec<u8> {
        while !self.reader.is_finished() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        std::mem::take(
            &mut *self
                .bytes
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }
}

/// Runs a job: `command`, with a report file and, on `platform`, a machine every process it
/// starts shares (so limits and figures are machine-wide); waits for its process and then for
/// every process it left running (this process adopts them, as their child subreaper), and
/// only then reads the figures, so none is lost. `capture`: its standard output is kept (standard
/// input is then none) and its standard error passed on as it comes and its end kept, else both
/// are the terminal's.
pub fn run_job(
    mut command: Command,
    platform: Option<&str>,
    capture: bool,
) -> Result<JobEnd, String> {
    let name = command.get_program().to_string_lossy().into_owned();
    let report_file = ReportFile::new("lazy-usm-job-")?;
    let machine = platform.map(MachineFile::new).transpose()?;
    command.env(REPORT_ENV, report_file.path());
    if let Some(machine) = &machine {
        command.env(MACHINE_ENV, machine.path());
    }
    // Orphans of the job become this process's children, so it can wait for them.
    rustix::process::set_child_subreaper(Some(rustix::process::getpid())).map_err(|error| {
        format!("cannot adopt the job's orphans (PR_SET_CHILD_SUBREAPER): {error}")
    })?;
    if capture {
        command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
    }
    let mut child = command
        .spawn()
        .map_err(|error| format!("cannot start {name}: {error}"))?;
    // Read beside the wait, so a full pipe never stalls the job; a process left running may
    // keep a pipe open, so what was read is taken, not the end waited for.
    let stdout = child.stdout.take().map(Collected::start);
    let stderr = child.stderr.take().map(Collected::tee_to_stderr);
    let status = child
        .wait()
        .map_err(|error| format!("waiting for {name}: {error}"))?;
    wait_for_orphans(&name, machine.as_ref().map(|file| &file.machine));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
    let stdout = stdout.map_or_else(Vec::new, |collected| collected.take(deadline));
    let stderr = stderr.map_or_else(Vec::new, |collected| collected.take(deadline));
    let machine = machine.as_ref().map(|file| {
        file.machine.reap_vanished();
        file.machine.report()
    });
    Ok(JobEnd {
        status,
        stdout,
        stderr,
        report: report_file.read(),
        machine,
    })
}

/// How long `run` goes on waiting for processes the job left running once none of the job's
/// processes is using the simulated machine: one that starts using it within this is counted;
/// after it, the rest are taken for daemons that hold no figures (a compiler cache's server, a
/// `sleep infinity`), named, and not waited for.
const IDLE_ORPHAN_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The process ids of this process's children now.
fn children() -> Vec<String> {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Waits for the processes the job's first process left running, which this process adopted:
/// all of them, but, on a simulated machine, only while one of the job's processes uses it or
/// for [`IDLE_ORPHAN_WAIT`] after the last one did.
fn wait_for_orphans(name: &str, machine: Option<&Machine>) {
    use rustix::io::Errno;
    use rustix::process::{WaitOptions, wait};
    let mut told = false;
    let mut idle_since: Option<std::time::Instant> = None;
    loop {
        match wait(WaitOptions::NOHANG) {
            Ok(Some(_)) | Err(Errno::INTR) => continue,
            Ok(None) => {}
            // No child left (ECHILD).
            Err(_) => return,
        }
        if !told {
            eprintln!("lazy-usm: {name} exited; waiting for the processes it left running");
            told = true;
        }
        let Some(machine) = machine else {
            // Nothing tells a GPU process from a daemon: wait for all.
            match wait(WaitOptions::empty()) {
                Ok(_) | Err(Errno::INTR) => continue,
                Err(_) => return,
            }
        };
        machine.reap_vanished();
        if machine.running_processes() > 0 {
            idle_since = None;
        } else if idle_since
            .get_or_insert_with(std::time::Instant::now)
            .elapsed()
            >= IDLE_ORPHAN_WAIT
        {
            eprintln!(
                "lazy-usm: not waiting for processes {name} left running that use no simulated \
                 GPU (pids {}): they hold no figures",
                children().join(" ")
            );
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// `lazy-usm run`: runs `program` on the simulated platform and prints its accounting to
/// stderr when it exits (the program's own output stays as it was), as a table or, with `json`,
/// as one line of JSON (`{"machine": ..., "report": ...}`); `save` also writes the last
/// process's report to a file, and `save_machine` the machine's. Every process the program
/// starts (children, grandchildren) shares one simulated machine: when more than one used it,
/// the summary gives the machine-wide peaks and each process's own figures and end. Returns the
/// program's exit code (128 plus the signal's number if a signal ended it).
pub fn run(
    target: &Target,
    program: &[String],
    json: bool,
    save: Option<&Path>,
    save_machine: Option<&Path>,
) -> Result<i32, String> {
    let (name, args) = program
        .split_first()
        .ok_or("no program given (lazy-usm run --preset NAME -- PROGRAM [ARGS])")?;
    let environment = environment(target)?;
    let mut command = Command::new(name);
    command.args(args).envs(environment);
    let JobEnd {
        status,
        report,
        machine: machine_report,
        ..
    } = run_job(command, target.platform.as_deref(), false)?;
    let code = exit_code(&status);
    if let (Some(save), Some(report)) = (save_machine, &machine_report) {
        let text = serde_json::to_string_pretty(report).map_err(|error| error.to_string())?;
        std::fs::write(save, text)
            .map_err(|error| format!("cannot write {}: {error}", save.display()))?;
    }
    if let (Some(save), Ok(report)) = (save, &report) {
        std::fs::write(save, report.to_json())
            .map_err(|error| format!("cannot write {}: {error}", save.display()))?;
    }
    if json {
        let value = serde_json::json!({
            "machine": machine_report,
            "report": report.as_ref().ok(),
        });
        eprintln!("{value}");
        return Ok(code);
    }
    // The machine's figures when several processes used it, or when the one that did left no
    // report (killed by a signal): the machine kept its figures.
    let many = machine_report.as_ref().is_some_and(|machine| {
        machine.processes.len() > 1 || (report.is_err() && !machine.processes.is_empty())
    });
    if let Some(machine) = machine_report.as_ref().filter(|_| many) {
        eprint!("{}", machine_summary(machine, name, &status));
        return Ok(code);
    }
    match report {
        Ok(report) => eprint!("{}", summary(&report, name, &status)),
        Err(_) if target.platform.is_none() => {
            // The system's loader through the shim: the shim's own report (stderr) says it.
            eprintln!("lazy-usm: {name} exited ({status}) through the shim on the system's loader");
        }
        Err(why) => eprintln!("lazy-usm: no accounting from {name} ({status}): {why}"),
    }
    if let Some(machine) = &machine_report {
        eprint!("{}", failures(machine));
    }
    Ok(code)
}

/// A process's command line for a table: each word that is a path by its file name, at most
/// `limit` characters.
fn short_command(command: &str, limit: usize) -> String {
    let words: Vec<&str> = command
        .split(' ')
        .map(|word| word.rsplit('/').next().unwrap_or(word))
        .collect();
    let mut text = words.join(" ");
    if text.chars().count() > limit {
        text = text
            .chars()
            .take(limit.saturating_sub(3))
            .collect::<String>()
            + "...";
    }
    text
}

/// A line per process that a call was refused for lack of memory.
pub fn failures(machine: &MachineReport) -> String {
    let mut text = String::new();
    for process in &machine.processes {
        if let Some(failure) = &process.failure {
            text += &format!(
                "  process {} ({}) was refused {} by {}, needing {} GiB, with {} GiB of the \
                 machine's {} GiB host memory pinned\n",
                process.pid,
                short_command(&process.command, 48),
                failure.call,
                failure.result_name,
                bytes_gib(failure.requested_bytes),
                bytes_gib(failure.machine_host_pinned_bytes),
                bytes_gib(failure.host_limit_bytes),
            );
        }
    }
    text
}

/// How a process of the machine ended, for the table.
fn process_end(state: &ProcessState) -> String {
    match state {
        ProcessState::Running => "still running".into(),
        ProcessState::Exited {
            status: Some(status),
        } => format!("exit {status}"),
        ProcessState::Exited { status: None } => "exited".into(),
        ProcessState::Vanished => "vanished (signal, crash or _exit)".into(),
    }
}

/// How the job's first process ended, in words: "exited (exit status: 1)", "was killed
/// (signal: 11 (SIGSEGV))".
fn ended(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if status.signal().is_some() {
        format!("was killed ({status})")
    } else {
        format!("exited ({status})")
    }
}

/// A loud line when launches did not execute: their results were never computed.
fn unexecuted_kernels(launches: u64, not_executed: u64) -> String {
    if not_executed == 0 {
        return String::new();
    }
    let why = match lazy_usm::ze_sim::kernel_runtime() {
        Err(why) => format!(
            "no kernel ran, their results were not computed: {why}. Install Intel's OpenCL CPU \
             runtime (python3 -m venv VENV && VENV/bin/pip install -r \
             tests/opencl-requirements.txt) and set OPENCL_DYLIB_PATH=VENV/lib/libintelocl.so"
        ),
        Ok(runtime) => format!(
            "their results were not computed (launch conditions not met, or kernels that failed \
             on {runtime})"
        ),
    };
    format!("  WARNING: {not_executed} of {launches} kernel launches did not execute: {why}\n")
}

fn machine_summary(machine: &MachineReport, name: &str, status: &ExitStatus) -> String {
    let processes = match machine.processes.len() {
        1 => "1 process".to_string(),
        count => format!("{count} processes"),
    };
    let mut text = format!(
        "{name} {} on the simulated machine `{}` (figures are modelled), {processes} used it:\n",
        ended(status),
        machine.platform,
    );
    text += &format!(
        "  machine host pinned: peak {} GiB of {} GiB, at the end {} GiB\n",
        bytes_gib(machine.host_pinned_bytes.peak),
        bytes_gib(machine.host_limit_bytes),
        bytes_gib(machine.host_pinned_bytes.current)
    );
    let mut devices = Table::new(vec![
        "device".into(),
        "peak VRAM GiB".into(),
        "peak GTT GiB".into(),
        "GTT at the end GiB".into(),
    ]);
    for device in &machine.devices {
        devices.row(vec![
            device.index.to_string(),
            bytes_gib(device.vram_bytes.peak),
            bytes_gib(device.gtt_bytes.peak),
            bytes_gib(device.gtt_bytes.current),
        ]);
    }
    text += &devices.render();
    let mut processes = Table::new(vec![
        "pid".into(),
        "end".into(),
        "peak pinned GiB".into(),
        "peak VRAM GiB".into(),
        "peak GTT GiB".into(),
        "residency calls".into(),
        "IPC out/in".into(),
        "command".into(),
    ]);
    for process in &machine.processes {
        let sum = |figure: fn(&lazy_usm::ze_sim::MachineDevice) -> u64| {
            process.devices.iter().map(figure).sum::<u64>()
        };
        let command = short_command(&process.command, 48);
        // Counters are published at exit: a process that vanished published none.
        let (calls, ipc) = match process.state {
            ProcessState::Vanished => ("n/a".to_string(), "n/a".to_string()),
            _ => (
                process.make_resident_calls.to_string(),
                format!(
                    "{}/{}",
                    process.ipc_handles_exported, process.ipc_handles_opened
                ),
            ),
        };
        processes.row(vec![
            process.pid.to_string(),
            process_end(&process.state),
            bytes_gib(process.host_pinned_bytes.peak),
            bytes_gib(sum(|device| device.vram_bytes.peak)),
            bytes_gib(sum(|device| device.gtt_bytes.peak)),
            calls,
            ipc,
            command,
        ]);
    }
    text += &processes.render();
    text += &failures(machine);
    let launches = machine.processes.iter().map(|p| p.launches).sum();
    let not_executed = machine
        .processes
        .iter()
        .map(|p| p.kernels_not_executed)
        .sum();
    text += &unexecuted_kernels(launches, not_executed);
    text
}

fn summary(report: &Report, name: &str, status: &ExitStatus) -> String {
    let mut text = format!(
        "{name} {} on the simulated platform `{}` (figures are modelled):\n",
        ended(status),
        report.platform
    );
    text += &format!(
        "  host pinned: peak {} GiB, at exit {} GiB\n",
        bytes_gib(report.host_pinned_bytes.peak),
        bytes_gib(report.host_pinned_bytes.current)
    );
    let mut table = Table::new(vec![
        "device".into(),
        "peak VRAM GiB".into(),
        "peak GTT GiB".into(),
        "GTT at exit GiB".into(),
    ]);
    for device in &report.devices {
        table.row(vec![
            device.index.to_string(),
            bytes_gib(device.vram_bytes.peak),
            bytes_gib(device.gtt_bytes.peak),
            bytes_gib(device.gtt_bytes.current),
        ]);
    }
    text += &table.render();
    let counter = |name: &str| report.counters.get(name).copied().unwrap_or(0);
    text += &format!(
        "  residency calls: {} zeContextMakeMemoryResident, {} zeContextEvictMemory, {} implicit \
         peer imports, {} refused uses (residency violations)\n",
        counter("make_resident_calls"),
        counter("evict_calls"),
        counter("implicit_imports"),
        counter("residency_violations"),
    );
    if counter("ipc_handles_exported") + counter("ipc_handles_opened") > 0 {
        text += &format!(
            "  IPC handles: {} exported, {} opened\n",
            counter("ipc_handles_exported"),
            counter("ipc_handles_opened")
        );
    }
    text += &unexecuted_kernels(counter("launches"), counter("kernels_not_executed"));
    if !report.unsupported_calls.is_empty() {
        let calls: Vec<String> = report
            .unsupported_calls
            .iter()
            .map(|(name, count)| format!("{name} x{count}"))
            .collect();
        text += &format!("  answered as unsupported: {}\n", calls.join(", "));
    }
    text
}
