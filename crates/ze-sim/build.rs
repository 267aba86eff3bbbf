// As a driver (libze_sim.so) its own calls bind to its own functions, whatever else in the
// process exports the same Level Zero names (a loader stand-in, another copy of the simulator).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    kernel_runtime();
}

/// Sets `no_kernel_runtime` where no OpenCL runtime is found (the tests that run kernels for
/// real are then ignored, saying why, instead of passing without running), except under CI,
/// where they must run and fail without one. The same places the simulator looks:
/// `OPENCL_DYLIB_PATH` (`;`-separated), else the system's `libOpenCL.so.1`.
fn kernel_runtime() {
    println!("cargo::rustc-check-cfg=cfg(no_kernel_runtime)");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=OPENCL_DYLIB_PATH");
    println!("cargo:rerun-if-env-changed=CI");
    let listed = std::env::var("OPENCL_DYLIB_PATH").unwrap_or_default();
    let system = [
        "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1",
        "/usr/lib64/libOpenCL.so.1",
        "/usr/lib/libOpenCL.so.1",
    ];
    let found = listed
        .split(';')
        .filter(|path| !path.is_empty())
        .chain(system)
        .any(|path| std::path::Path::new(path).is_file());
    if !found && std::env::var_os("CI").is_none() {
        println!("cargo:rustc-cfg=no_kernel_runtime");
    }
}
