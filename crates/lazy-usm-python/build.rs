// With the `bundle` feature (the Python package's build, `pyproject.toml`), builds what the
// package carries beside this module and copies it into `python/lazy_usm/`: the `lazy-usm`
// command with the loader stand-in and the loader shim next to it (where the command looks for
// them), and `liblazy_usm.so` with PyTorch's allocator (the `xpu` feature, no simulator in it),
// against Intel's SYCL runtime of the interpreter building the package (its `intel-sycl-rt`
// build requirement). A cargo of its own, in a target folder of its own, so the build running
// this script keeps its lock.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_BUNDLE").is_some() {
        bundle::build();
    }
}

mod bundle {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    fn fail(message: String) -> ! {
        panic!("lazy-usm-python's bundle: {message}");
    }

    fn run(command: &mut Command) -> String {
        let output = command
            .output()
            .unwrap_or_else(|error| fail(format!("cannot run {command:?}: {error}")));
        if !output.status.success() {
            fail(format!(
                "{command:?} failed ({}):\n{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            ));
        }
        String::from_utf8_lossy(&output.stdout).trim().to_string()
    }

    /// Intel's SYCL runtime: LAZY_USM_SYCL_ROOT, else where pip put the `intel-sycl-rt`
    /// distribution the interpreter building the package sees (the build requirement, in pip's
    /// isolated build environment): the folder whose `lib/` holds its `libsycl.so`.
    fn sycl_root() -> PathBuf {
        if let Some(root) = std::env::var_os("LAZY_USM_SYCL_ROOT") {
            return PathBuf::from(root);
        }
        let python = std::env::var_os("PYO3_PYTHON").unwrap_or_else(|| "python3".into());
        let locate = "import importlib.metadata as m, pathlib\n\
            d = m.distribution('intel-sycl-rt')\n\
            paths = [pathlib.Path(d.locate_file(f)).resolve() for f in d.files]\n\
            print([p for p in paths if p.name.startswith('libsycl.so.') and p.parent.name == 'lib'\n\
                   and p.suffix not in ('.py', '.pyc')][0].parent.parent)";
        PathBuf::from(run(Command::new(python).args(["-c", locate])))
    }

    /// A folder holding `level_zero/ze_api.h`: LEVEL_ZERO_INCLUDE_DIR, else the headers the
    /// bindings are generated from, vendored in level-zero-sys.
    fn level_zero_include(workspace: &Path) -> PathBuf {
        std::env::var_os("LEVEL_ZERO_INCLUDE_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace.join("crates/level-zero-sys/include"))
    }

    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to.parent().expect("a file's folder"))
            .unwrap_or_else(|error| fail(format!("{}: {error}", to.display())));
        // Replaced, never written through: a running program may map the old file.
        let _ = std::fs::remove_file(to);
        std::fs::copy(from, to).unwrap_or_else(|error| {
            fail(format!("{} -> {}: {error}", from.display(), to.display()))
        });
    }

    pub fn build() {
        let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
        let workspace = manifest.join("../..");
        let target = workspace.join("target/python-bundle");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let sycl = sycl_root();
        let include = level_zero_include(&workspace);
        let cargo_build = |packages: &[&str], features: &[&str]| {
            let mut command = Command::new(&cargo);
            command
                .current_dir(&workspace)
                .args(["build", "--release", "--locked"])
                .env("CARGO_TARGET_DIR", &target)
                .env("LAZY_USM_SYCL_ROOT", &sycl)
                .env("LEVEL_ZERO_INCLUDE_DIR", &include)
                // liblazy_usm.so sits in <prefix>/lib/pythonX.Y/site-packages/lazy_usm/_lib in
                // the package, and intel-sycl-rt's libsycl in <prefix>/lib.
                .env("LAZY_USM_SYCL_RPATH", "$ORIGIN/../../../..")
                // The flags this build runs under are for this module, not for those.
                .env_remove("CARGO_ENCODED_RUSTFLAGS");
            for package in packages {
                command.args(["-p", package]);
            }
            command.args(features);
            run(&mut command);
        };
        cargo_build(&["lazy-usm-cli", "lazy-usm-shim", "ze-sim-loader"], &[]);
        let package = workspace.join("python/lazy_usm");
        let release = target.join("release");
        for file in ["lazy-usm", "libze_sim_loader.so", "liblazy_usm_shim.so"] {
            copy(&release.join(file), &package.join("_bin").join(file));
        }
        // The folders the command points programs at (each holds its library under the
        // loader's name), made here so the command never writes into an installed package
        // (a wheel holds no links: copies).
        for (file, folder) in [
            ("libze_sim_loader.so", "ze-sim-loader"),
            ("liblazy_usm_shim.so", "lazy-usm-shim"),
        ] {
            copy(
                &release.join(file),
                &package.join("_bin").join(folder).join("libze_loader.so.1"),
            );
        }
        cargo_build(
            &["lazy-usm-capi"],
            &["--no-default-features", "--features", "xpu"],
        );
        copy(
            &release.join("liblazy_usm.so"),
            &package.join("_lib/liblazy_usm.so"),
        );
        // Built again when an output went (a cleaned package folder would give a wheel
        // without them).
        for output in [
            "_bin/lazy-usm",
            "_bin/ze-sim-loader/libze_loader.so.1",
            "_bin/lazy-usm-shim/libze_loader.so.1",
            "_lib/liblazy_usm.so",
        ] {
            println!("cargo:rerun-if-changed={}", package.join(output).display());
        }
        for source in ["src", "crates", "Cargo.toml", "Cargo.lock"] {
            println!(
                "cargo:rerun-if-changed={}",
                workspace.join(source).display()
            );
        }
        println!("cargo:rerun-if-env-changed=LAZY_USM_SYCL_ROOT");
        println!("cargo:rerun-if-env-changed=LEVEL_ZERO_INCLUDE_DIR");
    }
}
