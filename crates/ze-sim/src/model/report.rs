//! The simulator's accounting as one value, for a report file written at process exit
//! (`ZE_SIM_REPORT`) and for `lazy-usm run`, which reads it back.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Environment variable naming the file the process-wide platform writes its [`Report`] to,
/// as JSON, when the process exits.
pub const REPORT_ENV: &str = "ZE_SIM_REPORT";

/// A figure now and at its highest since the platform was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figure {
    /// The value now.
    pub current: u64,
    /// The highest value it has had.
    pub peak: u64,
}

/// One device's memory figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceReport {
    /// Index in `zeDeviceGet` order.
    pub index: u32,
    /// The name `zeDeviceGetProperties` reports.
    pub name: String,
    /// Device allocations resident on their owner, in bytes.
    pub vram_bytes: Figure,
    /// Other devices' allocations made resident here (the peer mirror), in bytes.
    pub gtt_bytes: Figure,
    /// Device allocations owned here, committed or not, in bytes.
    pub allocated_bytes: Figure,
}

/// The accounting of one platform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    /// The preset's or configuration's name.
    pub platform: String,
    /// Host memory the driver pinned (host USM and pinned peer mirrors), in bytes.
    pub host_pinned_bytes: Figure,
    /// Per device, in `zeDeviceGet` order.
    pub devices: Vec<DeviceReport>,
    /// Every counter by name (see [`Counters::NAMES`]).
    pub counters: BTreeMap<String, u64>,
    /// Calls of Level Zero functions the simulator does not implement, by name, in this
    /// process (made through the loader stand-in).
    pub unsupported_calls: BTreeMap<String, u64>,
}

impl Report {
    /// The report as JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report always serialises")
    }

    /// A report read back from [`Report::to_json`]'s text.
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// let report = platform.report();
    /// assert_eq!(ze_sim::Report::from_json(&report.to_json()).unwrap(), report);
    /// ```
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}
