//! A sampler.

use level_zero_sys::{ze_sampler_address_mode_t, ze_sampler_filter_mode_t};
use std::sync::atomic::AtomicBool;

/// A sampler as its descriptor made it.
#[derive(Debug)]
pub(crate) struct Sampler {
    pub context: usize,
    pub address_mode: ze_sampler_address_mode_t,
    pub filter_mode: ze_sampler_filter_mode_t,
    pub normalized: bool,
    /// Set when it is destroyed: launches appended with it before then fail when they run.
    pub destroyed: AtomicBool,
}
