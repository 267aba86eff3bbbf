// Writes the C header for the exported functions and types into OUT_DIR; the committed
// include/lazy_usm.h must equal it (tests/c_abi.rs checks).
fn main() {
    #[cfg(feature = "xpu")]
    xpu::build();
    let crate_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let out_dir = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    println!("cargo:rerun-if-changed=src");
    // Its own calls bind to its own functions: with the simulator feature it carries a copy of
    // the simulator, whose exported Level Zero names another library in the process (the loader
    // stand-in) also exports.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    let config = cbindgen::Config::from_file(format!("{crate_dir}/cbindgen.toml"))
        .expect("cbindgen.toml is readable");
    cbindgen::Builder::new()
        .with_crate(&crate_dir)
        .with_config(config)
        .generate()
        .expect("the C header generates")
        .write_to_file(format!("{out_dir}/lazy_usm.h"));
}

/// The SYCL side of the `xpu` feature: `src/xpu/native.cpp` against LAZY_USM_SYCL_ROOT.
#[cfg(feature = "xpu")]
mod xpu {
    use std::path::{Path, PathBuf};

    fn fail(message: String) -> ! {
        panic!("lazy-usm-capi's xpu feature: {message}");
    }

    /// A folder holding `level_zero/ze_api.h`, which the SYCL headers include.
    fn level_zero_include(root: &Path) -> PathBuf {
        let has = |folder: &Path| folder.join("level_zero/ze_api.h").is_file();
        if let Some(folder) = std::env::var_os("LEVEL_ZERO_INCLUDE_DIR").map(PathBuf::from) {
            if has(&folder) {
                return folder;
            }
            fail(format!(
                "LEVEL_ZERO_INCLUDE_DIR={} has no level_zero/ze_api.h",
                folder.display()
            ));
        }
        // The headers the bindings are generated from, vendored in level-zero-sys.
        let vendored = Path::new(env!("CARGO_MANIFEST_DIR")).join("../level-zero-sys/include");
        [root.join("include"), vendored]
            .into_iter()
            .find(|folder| has(folder))
            .unwrap_or_else(|| fail("no Level Zero headers: set LEVEL_ZERO_INCLUDE_DIR".into()))
    }

    pub fn build() {
        println!("cargo:rerun-if-env-changed=LAZY_USM_SYCL_ROOT");
        println!("cargo:rerun-if-env-changed=LEVEL_ZERO_INCLUDE_DIR");
        println!("cargo:rerun-if-changed=src/xpu/native.cpp");
        let root = std::env::var_os("LAZY_USM_SYCL_ROOT").map(PathBuf::from).unwrap_or_else(|| {
            fail("set LAZY_USM_SYCL_ROOT to a folder with include/sycl/ and lib/libsycl.so*, such \
                  as a virtual environment where intel-sycl-rt is installed"
                .into())
        });
        if !root.join("include/sycl/sycl.hpp").is_file() {
            fail(format!("{} has no include/sycl/sycl.hpp", root.display()));
        }
        if !root.join("lib/libsycl.so").exists() {
            fail(format!("{} has no lib/libsycl.so", root.display()));
        }
        cc::Build::new()
            .cpp(true)
            .std("c++17")
            .file("src/xpu/native.cpp")
            .include(root.join("include"))
            .include(level_zero_include(&root))
            .define("SYCL_DISABLE_FSYCL_SYCLHPP_WARNING", None)
            .warnings(false)
            .compile("lazy_usm_sycl");
        let lib = root.join("lib");
        println!("cargo:rustc-link-search=native={}", lib.display());
        println!("cargo:rustc-link-lib=dylib=sycl");
        // Found at run time where it was found at build time, unless the process has it already
        // (Python with dpctl or PyTorch has), or where LAZY_USM_SYCL_RPATH says (the Python
        // package: the environment's lib/, where intel-sycl-rt installs it).
        println!("cargo:rerun-if-env-changed=LAZY_USM_SYCL_RPATH");
        let rpath =
            std::env::var("LAZY_USM_SYCL_RPATH").unwrap_or_else(|_| lib.display().to_string());
        println!("cargo:rustc-cdylib-link-arg=-Wl,-rpath,{rpath}");
    }
}
