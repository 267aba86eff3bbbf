//! `lazy-usm doctor`: what the README and `docs/cli.md` list as not verified on Intel hardware, checked on the
//! platform at hand (a real one, or the simulator, which it names), as a report to paste into
//! an issue: versions, the P2P matrix with its self-test, and, measured, whether peer
//! residency costs pinned host memory, per allocation, whether eviction gives it back at once,
//! whether the driver imports a peer's memory used without a residency call and what that
//! costs, and what the live probe reads of this process.

use lazy_usm::{
    Arg, Context, Device, Dims, Module, Policy, ResidencyConfig, ResidencyManager, Runtime,
};
use lazy_usm_tools::workload;
use serde_json::{Value, json};

/// What one check found: its name, the verdict, and the figures behind it.
struct Check {
    name: &'static str,
    verdict: String,
    figures: Value,
}

const SIZE: usize = 64 << 20;

/// Host pinned bytes (`None` where the kernel does not say) and device 1's GTT now.
fn observe(runtime: &Runtime, devices: &[Device]) -> Result<(Option<u64>, u64), String> {
    let (pinned, gtt) = workload::observe(runtime, devices).map_err(|error| error.to_string())?;
    Ok((pinned, gtt.get(1).copied().unwrap_or(0)))
}

/// What happened between two observations: pinned bytes (`None`: not measured) and GTT bytes.
fn grew(before: (Option<u64>, u64), after: (Option<u64>, u64)) -> (Option<u64>, u64) {
    let pinned = before
        .0
        .zip(after.0)
        .map(|(before, after)| after.saturating_sub(before));
    (pinned, after.1.saturating_sub(before.1))
}

/// A kernel on `device`: what makes a driver that defers the pinned backing of peer residency
/// pay it (compute-runtime backs deferred residency at the next submission that needs it). The
/// simulator's built-in fill over a scratch buffer; `Err` says why none could run (on real
/// hardware the declaration-only module does not build).
fn kernel_on(context: &Context, device: &Device) -> Result<(), String> {
    let error = |error: lazy_usm::Error| error.to_string();
    let spirv = lazy_usm::ze_sim::spirv::module_with_kernels(&[("lazy_usm_sim_fill_u32", 2)]);
    let fill = Module::from_spirv(context, device, &spirv, "")
        .and_then(|module| module.kernel("lazy_usm_sim_fill_u32"))
        .map_err(error)?;
    let list = context
        .immediate_list(&device.compute_engine().map_err(error)?)
        .map_err(error)?;
    let mut scratch = context.alloc_device(device, 64 * 4, 0).map_err(error)?;
    // SAFETY: the built-in fill writes 64 u32s (one per work item) through its first argument,
    // a buffer of 64 u32s; the immediate list has finished when launch returns.
    unsafe {
        list.launch(
            &fill,
            Dims::linear(64, 64).map_err(error)?,
            &mut [Arg::Write(&mut scratch), Arg::scalar(0u32)],
        )
    }
    .map_err(error)
}

/// The verdict for a cost of `pinned` bytes (`None`: not measured) and a GTT growth of `gtt`
/// bytes for `size`, measured after a kernel on the peer (`kernel`: why none ran, if none did).
fn cost(pinned: Option<u64>, gtt: u64, size: u64, kernel: &Result<(), String>) -> String {
    match (pinned, kernel) {
        (Some(pinned), _) if pinned >= size => "pinned host memory of the allocation's size".into(),
        (Some(_), Err(why)) => format!(
            "not measured: pinned backing may wait for a kernel on the peer, and none ran ({why})"
        ),
        (None, _) if gtt >= size => {
            "GTT of the allocation's size; pinned host memory not measured (no nr_gpu_active)"
                .into()
        }
        (None, _) => "not measured (no nr_gpu_active)".into(),
        (Some(_), Ok(())) if gtt >= size => {
            "registered only (GTT, no pinned host memory, after a kernel on the peer)".into()
        }
        (Some(_), Ok(())) => "none".into(),
    }
}

/// Peer residency measured: its cost, per allocation, and whether eviction releases it. Each
/// cost is read after a kernel on the peer, which is when a driver that defers the pinned
/// backing pays it.
fn residency_checks(runtime: &Runtime, devices: &[Device]) -> Result<Vec<Check>, String> {
    let error = |error: lazy_usm::Error| error.to_string();
    let context = Context::new(devices).map_err(error)?;
    let manager = ResidencyManager::new(context.clone(), ResidencyConfig::new(Policy::Manual))
        .map_err(error)?;
    let first = manager.allocate(&devices[0], SIZE).map_err(error)?;
    let second = manager.allocate(&devices[0], SIZE).map_err(error)?;
    // Whatever was waiting is paid before the baseline.
    let kernel = kernel_on(&context, &devices[1]);
    let before = observe(runtime, devices)?;
    manager
        .ensure_resident_on(&first, &devices[1])
        .map_err(error)?;
    let at_call = observe(runtime, devices)?;
    let kernel = kernel.and(kernel_on(&context, &devices[1]));
    let one = observe(runtime, devices)?;
    manager
        .ensure_resident_on(&second, &devices[1])
        .map_err(error)?;
    let kernel = kernel.and(kernel_on(&context, &devices[1]));
    let two = observe(runtime, devices)?;
    // A driver may refuse to evict a peer's import (compute-runtime before bfefe31a92 finds
    // no allocation of the peer's to evict): a verdict, not a failure of the check.
    let eviction = manager.evict_from(&first, &devices[1]);
    let evicted = observe(runtime, devices)?;
    let size = SIZE as u64;
    let first_cost = grew(before, one);
    let second_cost = grew(one, two);
    let released = grew(evicted, two);
    let paid_at_call = grew(before, at_call).0;
    let measured = kernel.is_ok() && first_cost.0.is_some();
    let nothing = first_cost == (Some(0), 0);
    Ok(vec![
        Check {
            name: "peer residency costs",
            verdict: cost(first_cost.0, first_cost.1, size, &kernel),
            figures: json!({"bytes": size, "pinned": first_cost.0, "gtt": first_cost.1,
                            "pinned_at_the_call": paid_at_call, "kernel_on_peer": kernel.is_ok()}),
        },
        Check {
            name: "peer residency is per allocation",
            verdict: if !measured {
                "not measured".into()
            } else if nothing {
                "nothing to tell (no cost)".into()
            } else if second_cost == first_cost {
                "yes: a second allocation costs the same again".into()
            } else {
                format!("no: a second allocation cost {second_cost:?}")
            },
            figures: json!({"pinned": second_cost.0, "gtt": second_cost.1}),
        },
        Check {
            name: "eviction releases it at once",
            verdict: if let Err(error) = &eviction {
                if error.is_refused_eviction() {
                    format!(
                        "no: the driver refused the eviction ({error}); peer residency stays \
                         until the memory is freed"
                    )
                } else {
                    format!("not measured: the eviction failed ({error})")
                }
            } else if !measured {
                "not measured".into()
            } else if nothing {
                "nothing to release".into()
            } else if released == first_cost {
                "yes".into()
            } else {
                format!(
                    "no: {} pinned and {} GTT bytes of {} and {} came back",
                    released.0.unwrap_or(0),
                    released.1,
                    first_cost.0.unwrap_or(0),
                    first_cost.1
                )
            },
            figures: json!({"pinned": released.0, "gtt": released.1,
                            "refused": eviction.as_ref().err().map(ToString::to_string)}),
        },
    ])
}

/// A copy on device 1 of device 0's memory with no residency call: refused, or imported by the
/// driver, and what the import costs (after a kernel on device 1, as residency's cost).
fn import_check(runtime: &Runtime, devices: &[Device]) -> Result<Check, String> {
    let error = |error: lazy_usm::Error| error.to_string();
    let context = Context::new(devices).map_err(error)?;
    let source = context.alloc_device(&devices[0], SIZE, 0).map_err(error)?;
    let mut target = context.alloc_device(&devices[1], SIZE, 0).map_err(error)?;
    let list = context
        .immediate_list(&devices[1].preferred_copy_engine().map_err(error)?)
        .map_err(error)?;
    let kernel = kernel_on(&context, &devices[1]);
    let before = observe(runtime, devices)?;
    let copied = list.copy(&mut target, 0, &source, 0, SIZE);
    let kernel = kernel.and(kernel_on(&context, &devices[1]));
    let (pinned, gtt) = grew(before, observe(runtime, devices)?);
    let verdict = match &copied {
        Err(why) => format!("refused ({why}): hardware without the import would fault"),
        Ok(()) => format!(
            "imported by the driver; the import costs {}",
            cost(pinned, gtt, SIZE as u64, &kernel)
        ),
    };
    Ok(Check {
        name: "a peer's memory used without a residency call",
        verdict,
        figures: json!({"copied": copied.is_ok(), "pinned": pinned, "gtt": gtt}),
    })
}

/// The variable Intel's runtime 2026.2 added to restrict peer residency to pairs with peer
/// access enabled; an adapter that reads it names it in its binary.
const RESTRICT_VARIABLE: &[u8] = b"SYCL_UR_L0_RESTRICT_USM_RESIDENCY_TO_P2P";

/// The variable the Python package's `lazy-usm` sets to its interpreter's `sys.prefix`: the
/// environment pip installed it (and Intel's SYCL runtime, `intel-sycl-rt`) into.
pub const PYTHON_PREFIX_ENV: &str = "LAZY_USM_PYTHON_PREFIX";

/// The `lib` folder of the Python environment a command installed by pip runs from
/// (`<prefix>/lib/pythonX.Y/site-packages/lazy_usm/_bin/lazy-usm`), where `intel-sycl-rt` puts
/// its libraries.
fn installed_environment_lib(executable: &std::path::Path) -> Option<std::path::PathBuf> {
    let bin = executable.parent()?;
    let package = bin.parent()?;
    let site_packages = package.parent()?;
    let python = site_packages.parent()?;
    let lib = python.parent()?;
    let laid_out = bin.file_name()? == "_bin"
        && matches!(
            site_packages.file_name()?.to_str(),
            Some("site-packages" | "dist-packages")
        )
        && python.file_name()?.to_string_lossy().starts_with("python")
        && lib.file_name()? == "lib";
    laid_out.then(|| lib.to_path_buf())
}

/// Folders a SYCL runtime's libraries may be in, in the order a program's loader would take
/// them: `LAZY_USM_SYCL_ROOT`'s `lib` (named on purpose), `LD_LIBRARY_PATH`'s entries (before
/// any library's own search path); then the Python environment the command belongs to (the
/// environment around the command's own file, `LAZY_USM_PYTHON_PREFIX`'s `lib`, an activated
/// virtual or conda environment's); then where oneAPI installs them.
fn sycl_folders() -> Vec<std::path::PathBuf> {
    let mut folders = Vec::new();
    if let Some(root) = std::env::var_os("LAZY_USM_SYCL_ROOT") {
        folders.push(std::path::PathBuf::from(root).join("lib"));
    }
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        folders.extend(std::env::split_paths(&paths));
    }
    if let Some(lib) = std::env::current_exe()
        .ok()
        .and_then(|executable| installed_environment_lib(&executable))
    {
        folders.push(lib);
    }
    if let Some(prefix) = std::env::var_os(PYTHON_PREFIX_ENV) {
        folders.push(std::path::PathBuf::from(prefix).join("lib"));
    }
    for variable in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(prefix) = std::env::var_os(variable) {
            folders.push(std::path::PathBuf::from(prefix).join("lib"));
        }
    }
    folders.extend(
        [
            "/opt/intel/oneapi/redist/lib",
            "/opt/intel/oneapi/compiler/latest/lib",
        ]
        .iter()
        .map(std::path::PathBuf::from),
    );
    folders
}

/// The first real file (not a link) called `stem.so.VERSION` in `folders`: its path and version.
fn versioned(folders: &[std::path::PathBuf], stem: &str) -> Option<(std::path::PathBuf, String)> {
    let prefix = format!("{stem}.so.");
    folders.iter().find_map(|folder| {
        let mut found: Vec<_> = std::fs::read_dir(folder)
            .ok()?
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
            .filter_map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let version = name.strip_prefix(&prefix)?.to_string();
                (!version.is_empty() && version.chars().all(|c| c.is_ascii_digit() || c == '.'))
                    .then(|| (entry.path(), version))
            })
            .collect();
        found.sort();
        found.pop()
    })
}

/// Intel's SYCL runtime as installed where this process would find it: libsycl's version, each
/// Level Zero adapter's, and whether each knows the restrict variable.
fn sycl_runtime_check() -> Check {
    let folders = sycl_folders();
    let Some((sycl, version)) = versioned(&folders, "libsycl") else {
        return Check {
            name: "SYCL runtime",
            verdict: format!(
                "not found in {} (set LAZY_USM_SYCL_ROOT to its folder, or LD_LIBRARY_PATH; pip install intel-sycl-rt puts it in the environment's lib)",
                folders
                    .iter()
                    .map(|folder| folder.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            figures: Value::Null,
        };
    };
    let mut adapters = Vec::new();
    let mut figures = serde_json::Map::new();
    figures.insert(
        "libsycl".into(),
        json!({"path": sycl.display().to_string(), "version": version}),
    );
    for (adapter, stem) in [
        ("v1", "libur_adapter_level_zero"),
        ("v2", "libur_adapter_level_zero_v2"),
    ] {
        let Some((path, version)) = versioned(&folders, stem) else {
            continue;
        };
        let knows = std::fs::read(&path).is_ok_and(|bytes| {
            bytes
                .windows(RESTRICT_VARIABLE.len())
                .any(|window| window == RESTRICT_VARIABLE)
        });
        adapters.push(format!(
            "{adapter} adapter {version} ({} {})",
            if knows { "reads" } else { "does not read" },
            String::from_utf8_lossy(RESTRICT_VARIABLE)
        ));
        figures.insert(
            adapter.into(),
            json!({"version": version, "restrict_variable": knows}),
        );
    }
    Check {
        name: "SYCL runtime",
        verdict: format!(
            "libsycl {version} in {}; {}",
            sycl.parent()
                .map_or(String::new(), |folder| folder.display().to_string()),
            if adapters.is_empty() {
                "no Level Zero adapter beside it".to_string()
            } else {
                adapters.join(", ")
            }
        ),
        figures: Value::Object(figures),
    }
}

/// The host-pointer import's rules below a page and between imports, probed.
fn import_rules_check(driver: &lazy_usm::Driver) -> Check {
    use lazy_usm::NestedImport;
    let name = "host-pointer import below a page";
    let Some(rules) = lazy_usm::probe_import_rules(driver) else {
        return Check {
            name,
            verdict: "not probed: the driver has no zexDriverImportExternalPointer".into(),
            figures: Value::Null,
        };
    };
    let answer = |result: &Result<(), lazy_usm::ZeResult>| match result {
        Ok(()) => "imported".to_string(),
        Err(refused) => format!("refused ({refused})"),
    };
    let not_probed = "not probed (the range around it was refused)".to_string();
    let shared = rules
        .shared_page
        .as_ref()
        .map_or(not_probed.clone(), answer);
    let nested = match rules.nested {
        None => not_probed.clone(),
        Some(NestedImport::Refused(refused)) => format!("refused ({refused})"),
        Some(NestedImport::OwnImport) => "imported as a range of its own".into(),
        Some(NestedImport::NoImportOfItsOwn {
            release_releases_outer: true,
        }) => {
            "success with no import of its own, and releasing it released the outer import".into()
        }
        Some(NestedImport::NoImportOfItsOwn {
            release_releases_outer: false,
        }) => "success with no import of its own; releasing it left the outer import".into(),
        Some(NestedImport::Unknown) => "success (whether it made an import of its own is \
            unknown: no zexDriverGetHostPointerBaseAddress)"
            .into(),
    };
    let interior = match rules.interior_release {
        None => not_probed,
        Some(true) => "released it".into(),
        Some(false) => "was refused".into(),
    };
    Check {
        name,
        verdict: format!(
            "a range from 64 bytes into a page: {}; a second range on its page: {shared}; a page \
             inside a live import: {nested}; a release 100 bytes into an import {interior}",
            answer(&rules.sub_page_range),
        ),
        figures: json!({
            "sub_page_range": rules.sub_page_range.is_ok(),
            "shared_page": rules.shared_page.map(|result| result.is_ok()),
            "nested": rules.nested.map(|nested| format!("{nested:?}")),
            "interior_release": rules.interior_release,
        }),
    }
}

/// Runs every check on `runtime` (`note` says which platform it is) and prints the report.
pub fn doctor(runtime: &Runtime, note: &str, json_output: bool) -> Result<(), String> {
    let error = |error: lazy_usm::Error| error.to_string();
    let mut checks = Vec::new();
    let drivers = runtime.drivers().map_err(error)?;
    let driver = drivers.first().ok_or("no Level Zero driver")?;
    let (major, minor) = driver.api_version().map_err(error)?;
    let properties = driver.properties().map_err(error)?;
    checks.push(Check {
        name: "driver",
        verdict: format!(
            "version {:#x}, Level Zero API {major}.{minor}",
            properties.driver_version
        ),
        figures: json!({"driver_version": properties.driver_version, "api": [major, minor]}),
    });
    checks.push(match runtime.loader_versions() {
        Ok(Some(components)) => Check {
            name: "loader",
            verdict: components
                .iter()
                .map(|component| {
                    let (major, minor, patch) = component.version;
                    let (spec_major, spec_minor) = component.spec;
                    format!("{} {major}.{minor}.{patch} (API {spec_major}.{spec_minor})", component.name)
                })
                .collect::<Vec<_>>()
                .join(", "),
            figures: json!(components
                .iter()
                .map(|component| json!({
                    "component": component.name,
                    "version": [component.version.0, component.version.1, component.version.2],
                    "api": [component.spec.0, component.spec.1],
                }))
                .collect::<Vec<_>>()),
        },
        Ok(None) => Check {
            name: "loader",
            verdict: "none: the platform is not behind a Level Zero loader (the in-process simulator), or its loader has no zelLoaderGetVersions".into(),
            figures: Value::Null,
        },
        Err(why) => Check {
            name: "loader",
            verdict: format!("unreadable: {why}"),
            figures: Value::Null,
        },
    });
    checks.push(sycl_runtime_check());
    let devices = runtime.devices().map_err(error)?;
    let names: Vec<String> = devices
        .iter()
        .map(|device| device.properties().map(|p| p.name).unwrap_or_default())
        .collect();
    checks.push(Check {
        name: "devices",
        verdict: format!("{}: {}", devices.len(), names.join(", ")),
        figures: json!(names),
    });
    if devices.len() >= 2 {
        let context = Context::new(&devices).map_err(error)?;
        let manager =
            ResidencyManager::new(context, ResidencyConfig::new(Policy::Lazy)).map_err(error)?;
        let matrix = crate::p2p_matrix(&manager, &devices).map_err(error)?;
        checks.push(Check {
            name: "P2P, after the self-test (row: the reading device)",
            verdict: matrix
                .iter()
                .map(|row| row.join(" "))
                .collect::<Vec<_>>()
                .join(" / "),
            figures: json!(matrix),
        });
        checks.extend(residency_checks(runtime, &devices)?);
        checks.push(import_check(runtime, &devices)?);
    } else {
        checks.push(Check {
            name: "peer residency",
            verdict: "not checked: fewer than two devices".into(),
            figures: Value::Null,
        });
    }
    // Registered host memory: a page-aligned 1 MiB buffer through Intel's host-pointer import.
    let mut pages = lazy_usm::PageAlignedBytes::new(1 << 20);
    let registration = lazy_usm::HostMemory::register(driver, pages.as_mut_slice());
    checks.push(Check {
        name: "registered host memory (page-aligned, 1 MiB)",
        verdict: match &registration {
            Ok(host) => match host.registration() {
                lazy_usm::Registration::Registered => "imported: copies to and from it are direct".into(),
                lazy_usm::Registration::Unregistered(why) => format!("not imported: {why}"),
            },
            Err(why) => format!("refused: {why}"),
        },
        figures: json!({"registered": registration.as_ref().is_ok_and(|host| host.is_registered())}),
    });
    drop(registration);
    checks.push(import_rules_check(driver));
    let probe = lazy_usm_tools::probe_process(None);
    checks.push(Check {
        name: "the live probe of this process",
        verdict: match &probe {
            Ok(memory) => format!(
                "{} DRM device(s) in fdinfo, nr_gpu_active {}",
                memory.devices.len(),
                memory
                    .gpu_active_bytes
                    .map_or("not reported".into(), |bytes| format!("{bytes} bytes"))
            ),
            Err(why) => format!("unreadable: {why}"),
        },
        figures: json!({"readable": probe.is_ok()}),
    });
    if json_output {
        let rows: Vec<Value> = checks
            .iter()
            .map(|check| json!({"check": check.name, "verdict": check.verdict, "figures": check.figures}))
            .collect();
        println!("{}", json!({"platform": note, "checks": rows}));
        return Ok(());
    }
    println!("lazy-usm doctor on {note}");
    for check in &checks {
        println!("- {}: {}", check.name, check.verdict);
    }
    Ok(())
}
