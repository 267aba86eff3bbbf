//! `cargo xtask generated write|check`: the workspace's generated files from one command (all
//! but ze-sim's DDI field counts, made from the Level Zero loader's release tags, which are not
//! committed: `crates/ze-sim/scripts/ddi_field_counts.py` says how).
//! `cargo xtask imports`: each crate's imports between its own files, and the loops they make.
//!
//! Each crate keeps its generated code in a `generated` module (level-zero-sys's bindings are
//! `src/generated.rs`) and its generator in its `scripts/` folder. `write` runs each generator
//! over the committed files; `check` runs each into a fresh folder and fails unless every file
//! comes out byte for byte as committed (CI runs it). A generator whose tools are missing is
//! SKIPPED, except under CI (`CI` set), where that fails.

mod imports;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// One generator: the program that writes `outputs` (paths from the workspace root), given
/// where to write them.
struct Generator {
    name: &'static str,
    /// Programs it needs on the PATH, and how to get them.
    tools: &'static [(&'static str, &'static str)],
    /// Files it writes, in the order its command line takes them; or one folder of files.
    outputs: Outputs,
    /// Its command line before the output paths.
    command: &'static [&'static str],
}

enum Outputs {
    Files(&'static [&'static str]),
    /// Every file with this extension in the folder.
    Folder(&'static str, &'static str),
}

const GENERATORS: &[Generator] = &[
    Generator {
        name: "level-zero-sys bindings",
        tools: &[(
            "bindgen",
            "apt-get install -y libclang-dev; cargo install bindgen-cli --version 0.73.2 --locked",
        )],
        outputs: Outputs::Files(&["crates/level-zero-sys/src/generated.rs"]),
        command: &["bash", "crates/level-zero-sys/scripts/generate.sh"],
    },
    Generator {
        name: "ze-sim-loader exports",
        tools: &[("python3", "apt-get install -y python3")],
        outputs: Outputs::Files(&["crates/ze-sim-loader/src/generated/api_exports.rs"]),
        command: &[
            "python3",
            "crates/ze-sim-loader/scripts/generate-exports.py",
        ],
    },
    Generator {
        name: "lazy-usm-shim forwarders",
        tools: &[("python3", "apt-get install -y python3")],
        outputs: Outputs::Files(&[
            "crates/lazy-usm-shim/src/generated/forwarders.rs",
            "crates/lazy-usm-shim/src/generated/intercepted_tables.rs",
        ]),
        command: &[
            "python3",
            "crates/lazy-usm-shim/scripts/generate-forwarders.py",
        ],
    },
    Generator {
        name: "ze-sim entry points by name",
        tools: &[("python3", "apt-get install -y python3")],
        outputs: Outputs::Files(&["crates/ze-sim/src/abi/generated/by_name.rs"]),
        command: &["python3", "crates/ze-sim/scripts/generate-names.py"],
    },
    Generator {
        name: "ze-sim test kernels",
        tools: &[
            ("clang-15", "apt-get install -y clang-15"),
            ("llvm-spirv-15", "apt-get install -y llvm-spirv-15"),
            ("spirv-as", "apt-get install -y spirv-tools"),
        ],
        outputs: Outputs::Folder("crates/ze-sim/tests/kernels", "spv"),
        command: &["bash", "crates/ze-sim/scripts/build-kernels.sh"],
    },
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = root.canonicalize().unwrap_or(root);
    let outcome = match args.as_slice() {
        ["generated", "write"] => each(&root, write),
        ["generated", "check"] => each(&root, check),
        ["imports"] => {
            let _ = report_imports(&root, None);
            Ok(())
        }
        ["imports", "check"] => report_imports(&root, None),
        ["imports", "edges", name] => {
            let _ = report_imports(&root, Some(name));
            Ok(())
        }
        _ => Err(
            "usage: cargo xtask generated write   (every generator over the committed files)\n       \
             cargo xtask generated check   (every generator into a fresh folder, compared)\n       \
             cargo xtask imports           (each crate's imports between its files, loops, layers)\n       \
             cargo xtask imports check     (fails on a loop of more than 3 files or too many imports back up)\n       \
             cargo xtask imports edges CRATE (and every import of CRATE)"
                .to_string(),
        ),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("xtask: {why}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `task` for every generator whose tools are here; says SKIPPED for the others (a
/// failure under CI), and fails at the end if any failed.
fn each(root: &Path, task: fn(&Path, &Generator) -> Result<(), String>) -> Result<(), String> {
    let mut failures = Vec::new();
    for generator in GENERATORS {
        let missing: Vec<String> = generator
            .tools
            .iter()
            .filter(|(tool, _)| !on_path(tool))
            .map(|(tool, how)| format!("{tool} ({how})"))
            .collect();
        if !missing.is_empty() {
            let why = format!("{}: missing {}", generator.name, missing.join(", "));
            if std::env::var_os("CI").is_some() {
                failures.push(why);
            } else {
                println!("SKIPPED {why}");
            }
            continue;
        }
        if let Err(why) = task(root, generator) {
            failures.push(format!("{}: {why}", generator.name));
        }
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|folder| folder.join(tool).is_file()))
}

/// Runs `generator` with `outputs` as its output arguments.
fn run(root: &Path, generator: &Generator, outputs: &[PathBuf]) -> Result<(), String> {
    let (program, args) = generator
        .command
        .split_first()
        .ok_or("an empty command line")?;
    let status = Command::new(program)
        .args(args)
        .args(outputs)
        .current_dir(root)
        .status()
        .map_err(|error| format!("cannot run {program}: {error}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", generator.command.join(" ")))
    }
}

fn write(root: &Path, generator: &Generator) -> Result<(), String> {
    let outputs: Vec<PathBuf> = match &generator.outputs {
        Outputs::Files(files) => files.iter().map(|file| root.join(file)).collect(),
        Outputs::Folder(folder, _) => vec![root.join(folder)],
    };
    run(root, generator, &outputs)?;
    println!("{}: written", generator.name);
    Ok(())
}

fn check(root: &Path, generator: &Generator) -> Result<(), String> {
    let fresh = tempfile::tempdir().map_err(|error| format!("no temporary folder: {error}"))?;
    let pairs: Vec<(PathBuf, PathBuf)> = match &generator.outputs {
        Outputs::Files(files) => {
            let pairs: Vec<(PathBuf, PathBuf)> = files
                .iter()
                .map(|file| {
                    let name = Path::new(file).file_name().unwrap_or_default();
                    (root.join(file), fresh.path().join(name))
                })
                .collect();
            let outputs: Vec<PathBuf> = pairs.iter().map(|(_, fresh)| fresh.clone()).collect();
            run(root, generator, &outputs)?;
            pairs
        }
        Outputs::Folder(folder, extension) => {
            run(root, generator, &[fresh.path().to_path_buf()])?;
            let committed = files_with(&root.join(folder), extension)?;
            let made = files_with(fresh.path(), extension)?;
            let names = |files: &[PathBuf]| -> Vec<std::ffi::OsString> {
                files
                    .iter()
                    .filter_map(|file| file.file_name().map(Into::into))
                    .collect()
            };
            if names(&committed) != names(&made) {
                return Err(format!(
                    "{folder} holds {:?}, the generator makes {:?}",
                    names(&committed),
                    names(&made)
                ));
            }
            committed.into_iter().zip(made).collect()
        }
    };
    for (committed, made) in &pairs {
        let read = |path: &Path| {
            std::fs::read(path).map_err(|error| format!("cannot read {}: {error}", path.display()))
        };
        if read(committed)? != read(made)? {
            return Err(format!(
                "{} differs from what `{}` makes (run `cargo xtask generated write`)",
                committed.display(),
                generator.command.join(" ")
            ));
        }
    }
    println!("{}: reproduced byte for byte", generator.name);
    Ok(())
}

/// The files of `folder` with `extension`, sorted by name.
fn files_with(folder: &Path, extension: &str) -> Result<Vec<PathBuf>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|error| format!("cannot read {}: {error}", folder.display()))?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|found| found == extension))
        .collect();
    files.sort();
    Ok(files)
}

/// The layers of the crates that have them, bottom up (`docs/ARCHITECTURE.md` draws them).
const LAYERS: &[imports::Layers] = &[
    imports::Layers {
        krate: "lazy-usm",
        layers: &[
            &["error.rs", "os.rs"],
            &["ze/call.rs", "ze/handles.rs", "ze/uses.rs"],
            &["ze/runtime.rs"],
            &["ze/driver.rs"],
            &["ze/device.rs"],
            &["ze/context.rs"],
            &["ze/memory.rs"],
            &["ze/event.rs", "ze/host.rs", "ze/module.rs"],
            &["ze/import_probe.rs", "ze/command.rs"],
            &["ze/queue.rs"],
            &["ze/launch.rs"],
            &["ze/"],
            &["residency/"],
            &["pool/", "transfer/"],
            &["lib.rs", "prelude.rs"],
        ],
        most_back_up: 0,
    },
    imports::Layers {
        krate: "ze-sim",
        layers: &[
            &["model/"],
            &["objects/"],
            &["engine/"],
            &["abi/"],
            &["lib.rs", "loader_test.rs"],
        ],
        most_back_up: 0,
    },
];

/// The largest loop any crate may have, in files.
const LARGEST_LOOP: usize = 3;

/// Every crate of the workspace, as (name, its `src` folder).
fn crates(root: &Path) -> Vec<(String, PathBuf)> {
    let mut crates = vec![("lazy-usm".to_string(), root.join("src"))];
    if let Ok(entries) = std::fs::read_dir(root.join("crates")) {
        let mut found: Vec<(String, PathBuf)> = entries
            .flatten()
            .map(|entry| {
                let path = entry.path();
                (
                    entry.file_name().to_string_lossy().into_owned(),
                    path.join("src"),
                )
            })
            .filter(|(_, src)| src.is_dir())
            .collect();
        found.sort();
        crates.extend(found);
    }
    crates
}

/// Prints each crate's imports between its own files, the loops they make and, where the crate
/// has layers, the imports that run back up; with `edges_of`, that crate's every import. Fails
/// (for `check`) when a loop spans more than [`LARGEST_LOOP`] files, more imports run back up
/// than a crate allows, or a file is in none of its crate's layers.
fn report_imports(root: &Path, edges_of: Option<&str>) -> Result<(), String> {
    let mut failures = Vec::new();
    for (name, src) in crates(root) {
        let figures = imports::figures(&name, &src);
        if edges_of == Some(name.as_str()) {
            for (from, to) in &figures.edges {
                println!("{from} -> {to}");
            }
        }
        let layers = LAYERS.iter().find(|layers| layers.krate == name);
        let back_up = layers.map(|layers| imports::back_up(&figures, layers));
        println!(
            "{}: {} files, {} imports between them, {} of them inside loops; {} loops{}{}",
            figures.name,
            figures.files,
            figures.imports,
            figures.imports_in_loops,
            figures.loops.len(),
            figures
                .loops
                .first()
                .map_or(String::new(), |largest| format!(
                    ", the largest of {} files",
                    largest.len()
                )),
            back_up.as_ref().map_or(String::new(), |back_up| format!(
                "; {} imports run back up",
                back_up.len()
            )),
        );
        for files in &figures.loops {
            println!("  loop: {}", files.join(", "));
        }
        for (from, to) in back_up.iter().flatten() {
            println!("  back up: {from} -> {to}");
        }
        failures.extend(imports::failures(&figures, layers, LARGEST_LOOP));
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("\n"))
    }
}
