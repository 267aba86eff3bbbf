//! Runs the same test bodies on the in-process simulator and, in a child process, on
//! `libze_sim.so` behind the system's Level Zero loader with its validation layer on. Both are
//! in the simulator's checking mode (`SimConfig::checking`): a peer's memory the library forgot
//! to make resident is refused and counted, where the driver would import it unseen.

#![allow(dead_code)]

use lazy_usm::{Runtime, Source};

pub struct Harness {
    pub runtime: Runtime,
    exports: Option<ze_sim::loader_test::DriverExports>,
}

impl Harness {
    pub fn simulated(preset: &str) -> Self {
        let config = ze_sim::SimConfig::preset(preset).expect("a preset");
        Self::with_config(config.checking())
    }

    /// `config` with the driver's implicit import off, as checking mode has it: a peer's
    /// memory the library forgot is refused (or, where a test turned `strict_residency` off,
    /// counted and run).
    pub fn with_config(mut config: ze_sim::SimConfig) -> Self {
        config.implicit_peer_import = false;
        Self {
            runtime: Runtime::simulated_with(config).expect("simulated runtime"),
            exports: None,
        }
    }

    /// In a child started by [`run_in_loader_child`]: the system loader.
    pub fn loader_child() -> Self {
        assert!(
            ze_sim::loader_test::is_child(),
            "this test runs only in a child process started by a loader test"
        );
        let runtime = Runtime::system().expect("system runtime");
        assert!(matches!(runtime.source(), Source::System { .. }));
        let exports = ze_sim::loader_test::DriverExports::open().expect("libze_sim.so");
        Self {
            runtime,
            exports: Some(exports),
        }
    }

    fn platform(&self) -> &ze_sim::Platform {
        self.runtime
            .simulator()
            .expect("an in-process simulated runtime")
    }

    /// A simulator counter, from the in-process platform or `libze_sim.so`'s export.
    pub fn counter(&self, name: &str) -> u64 {
        match &self.exports {
            None => self.platform().counter(name).unwrap_or(u64::MAX),
            Some(exports) => exports.counter(name),
        }
    }

    pub fn host_pinned(&self) -> u64 {
        match &self.exports {
            None => self.platform().host_pinned_bytes(),
            Some(exports) => exports.host_pinned_bytes(),
        }
    }

    /// GTT bytes of device `index` (the peer mirror), read with the library's fdinfo parser.
    pub fn gtt(&self, index: u32) -> u64 {
        let text = match &self.exports {
            None => self.platform().fdinfo(index).unwrap_or_default(),
            Some(exports) => exports.fdinfo(index),
        };
        lazy_usm_tools::parse_fdinfo(&text)
            .and_then(|client| client.resident_gtt)
            .unwrap_or(u64::MAX)
    }

    /// Everything made was released.
    #[track_caller]
    pub fn assert_clean(&self) {
        let live = ze_sim::Counters::NAMES
            .iter()
            .filter(|name| name.starts_with("live_"));
        for &name in live {
            assert_eq!(self.counter(name), 0, "{name} after the test");
        }
        assert_eq!(
            self.counter("free_hazards"),
            0,
            "memory freed under pending work"
        );
        assert_eq!(
            self.counter("destroy_hazards"),
            0,
            "events, lists or queues destroyed under queued work"
        );
        assert_eq!(
            self.counter("residency_violations"),
            0,
            "device memory used where it was not resident"
        );
        assert_eq!(self.host_pinned(), 0, "host pinned bytes after the test");
    }
}

/// The name the test harness gives test `name` beside the caller, from the caller's
/// `module_path!()` (whose first segment is the test binary's crate, which names leave out).
pub fn test_named(module_path: &str, name: &str) -> String {
    match module_path.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_string(),
    }
}

/// Runs the `#[ignore]`d test `name` in a child process behind the real loader, with its
/// validation layer on.
pub fn run_in_loader_child(name: &str, config: &str) {
    ze_sim::loader_test::run_in_loader_child_with(
        name,
        config,
        true,
        &[(ze_sim::CHECKING_ENV, "1")],
    );
}

/// Declares `in_process`, `child` and `loader` tests for a body taking `&Harness`.
#[macro_export]
macro_rules! on_both_paths {
    ($body:ident, $preset:literal) => {
        mod $body {
            #[test]
            fn in_process() {
                super::$body(&$crate::common::Harness::simulated($preset));
            }

            #[test]
            #[ignore = "runs in a child process started by the loader test"]
            fn child() {
                super::$body(&$crate::common::Harness::loader_child());
            }

            #[test]
            fn loader() {
                $crate::common::run_in_loader_child(
                    &$crate::common::test_named(module_path!(), "child"),
                    $preset,
                );
            }
        }
    };
}

/// A deterministic pseudo-random sequence (xorshift64*), so failures reproduce.
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `low..=high`.
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }

    /// Log-uniform in `low..=high`: small and large sizes alike.
    pub fn size(&mut self, low: usize, high: usize) -> usize {
        let bits = self.between(low.ilog2() as usize, high.ilog2() as usize);
        self.between(
            low.max(1 << bits >> 1),
            high.min((1 << bits) * 2 - 1).max(low),
        )
    }

    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(len + 8);
        while bytes.len() < len {
            bytes.extend_from_slice(&self.next().to_le_bytes());
        }
        bytes.truncate(len);
        bytes
    }
}

/// Runs `body` on its own thread and fails if it has not finished within `limit`: a deadlock
/// fails the test instead of hanging the suite.
#[track_caller]
pub fn run_with_timeout(limit: std::time::Duration, body: impl FnOnce() + Send + 'static) {
    let (done, finished) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        body();
        let _ = done.send(());
    });
    match finished.recv_timeout(limit) {
        Ok(()) => worker.join().expect("the test body panicked"),
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            std::panic::resume_unwind(worker.join().expect_err("the body ended without finishing"))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("did not finish within {limit:?}: deadlock")
        }
    }
}

/// Failing cases kept beside each test's source (`tests/NAME.proptest-regressions`, committed
/// and replayed first): proptest's default looks for the binary's root, which is `tests/main.rs`
/// now that the tests are one binary, and would keep them elsewhere.
pub fn regressions_beside_source() -> Option<Box<dyn proptest::test_runner::FailurePersistence>> {
    Some(Box::new(
        proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
    ))
}
