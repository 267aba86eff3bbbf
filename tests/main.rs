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
mod registry;
mod residency;
mod soundness;

/// Every crate that builds its integration tests as one binary (`autotests = false`, with
/// `tests/main.rs`) declares each file of its `tests/` as a module of it: a file left out would
/// never run. One test for the whole workspace, here.
#[test]
fn every_test_file_is_a_module_of_its_crates_test_binary() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let crates = std::fs::read_dir(root.join("crates"))
        .expect("the crates folder")
        .map(|entry| entry.expect("an entry").path())
        .chain([root.to_path_buf()]);
    let mut checked = 0;
    for folder in crates {
        let (Ok(manifest), Ok(main)) = (
            std::fs::read_to_string(folder.join("Cargo.toml")),
            std::fs::read_to_string(folder.join("tests/main.rs")),
        ) else {
            continue;
        };
        if !manifest.contains("autotests = false") {
            continue;
        }
        checked += 1;
        for entry in std::fs::read_dir(folder.join("tests")).expect("a tests folder") {
            let path = entry.expect("an entry").path();
            let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) else {
                continue;
            };
            if path.extension().is_some_and(|extension| extension == "rs") && stem != "main" {
                assert!(
                    main.contains(&format!("mod {stem};")),
                    "{}/tests/{stem}.rs is not a module of its tests/main.rs: it would never run",
                    folder.display()
                );
            }
        }
    }
    assert_eq!(
        checked, 5,
        "the five crates whose tests are one binary each"
    );
}

/// The README's Rust quick start is `examples/quick_start.rs`'s body, so that CI compiles it as
/// a program of its own (`clippy --all-targets -D warnings`) and runs it (whitespace aside).
#[test]
fn the_readmes_rust_quick_start_is_the_quick_start_example() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("the README");
    let example =
        std::fs::read_to_string(root.join("examples/quick_start.rs")).expect("the example");
    let block = readme
        .split("```rust\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a Rust block in the README");
    // Compared as words (a line rustfmt wraps is the same words; a space inside a string is
    // still a difference).
    let words = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let shown = words(
        &block
            .lines()
            .filter(|line| !line.starts_with("# "))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let program = words(
        &example
            .lines()
            .filter(|line| !line.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let program = program
        .replacen("fn main() -> Result<(), Error> { ", "", 1)
        .strip_suffix(" Ok(()) }")
        .unwrap_or_else(|| panic!("the example is main and ends with Ok(()): {program}"))
        .to_string();
    assert_eq!(shown, program);
}
