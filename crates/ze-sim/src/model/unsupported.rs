//! Calls of Level Zero functions the simulator does not implement, counted for the report.

/// Calls of Level Zero functions the simulator does not implement, by name, in this process.
static UNSUPPORTED_CALLS: std::sync::Mutex<std::collections::BTreeMap<&'static str, u64>> =
    std::sync::Mutex::new(std::collections::BTreeMap::new());

/// Counts a call of a Level Zero function the simulator does not implement (the loader
/// stand-in's exports answer such calls as unsupported); the report lists them.
///
/// ```
/// ze_sim::record_unsupported_call("zeImageCreate");
/// assert!(ze_sim::unsupported_calls().contains(&("zeImageCreate", 1)));
/// ```
pub fn record_unsupported_call(name: &'static str) {
    let mut calls = UNSUPPORTED_CALLS
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    *calls.entry(name).or_default() += 1;
}

/// The unsupported calls counted so far, by name (see [`record_unsupported_call`]).
///
/// ```
/// ze_sim::record_unsupported_call("zeSamplerCreate");
/// let calls = ze_sim::unsupported_calls();
/// assert!(calls.iter().any(|&(name, count)| name == "zeSamplerCreate" && count >= 1));
/// ```
pub fn unsupported_calls() -> Vec<(&'static str, u64)> {
    let calls = UNSUPPORTED_CALLS
        .lock()
        .unwrap_or_else(|poison| poison.into_inner());
    calls.iter().map(|(name, count)| (*name, *count)).collect()
}
