//! The library's integration tests, one binary: each file a module (`tests/common` their
//! shared helpers), on the simulated platform (the crate's dev-dependency on itself turns the
//! `simulator` feature on).

#[macro_use]
mod common;

mod concurrency;
mod core;
mod host;
mod kernels;
mod model;
mod pin_protocol;
mod pool;
mod pool_fences;
mod pool_threads;
mod probe;
mod registry;
mod residency;
mod soundness;

/// Every file of `tests/` is a module here: in one binary, a file left out would never run.
#[test]
fn every_test_file_is_a_module_of_this_binary() {
    let main = include_str!("main.rs");
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for entry in std::fs::read_dir(&folder).expect("the tests folder") {
        let path = entry.expect("an entry").path();
        let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|extension| extension == "rs") && stem != "main" {
            assert!(
                main.contains(&format!("mod {stem};")),
                "tests/{stem}.rs is not a module of tests/main.rs: it would never run"
            );
        }
    }
}
