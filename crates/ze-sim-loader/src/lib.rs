//! The simulated Level Zero platform as a stand-in for the Level Zero loader.
//!
//! Built as `libze_sim_loader.so` with the soname `libze_loader.so.1`. Placed in a folder under
//! the name `libze_loader.so.1` (which `lazy-usm sim-env` prepares), it is what an unmodified
//! Level Zero program loads instead of the system loader: Intel's SYCL runtime through
//! `ZEL_LIBRARY_PATH`, a program linked to the loader through `LD_LIBRARY_PATH`. It exports:
//! - every API function of the specification 1.17 headers by name (`ze*`, `zet*`, `zes*`,
//!   `zer*`, `zelTracer*`), generated: each calls the simulator's function of that name, or
//!   answers `ZE_RESULT_ERROR_UNSUPPORTED_FEATURE` (a null handle where the function returns one),
//!   counted by name in the simulator's report;
//! - every `*Get*ProcAddrTable` getter (the simulator's own fill the tables it implements);
//! - the loader's entry points that Intel's runtime calls on the library it loaded
//!   (`zeLoaderInit`, `zelLoaderGetVersionsInternal`, `zelLoaderTranslateHandleInternal`, ...);
//! - the simulator's accounting (`zesim_*`).
//!
//! The simulated platform is the process-wide one of `ze-sim`, configured by `ZE_SIM_CONFIG`.
//! `src/generated/api_exports.rs` is written by `scripts/generate-exports.py` (`cargo xtask
//! generated write` after the bindings change; CI checks it with `cargo xtask generated check`).

mod forward;
mod loader_entry;

mod generated;
