//! The simulator's accounting as one value, for a report file written at process exit
//! (`ZE_SIM_REPORT`) and for `lazy-usm run`, which reads it back.

use crate::engine::platform::{Counters, Platform};
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

impl Platform {
    /// This platform's accounting now, with its peaks.
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// let report = platform.report();
    /// assert_eq!(report.devices.len(), 2);
    /// assert_eq!(report.host_pinned_bytes.peak, 0);
    /// assert_eq!(report.counters["live_contexts"], 0);
    /// ```
    pub fn report(&self) -> Report {
        self.report_of(&self.inner.lock())
    }

    /// As [`Platform::report`], or `None` if the platform's lock is not free within `timeout`
    /// (for the exit report, which must not hang on a lock a vanished thread held).
    pub fn report_within(&self, timeout: std::time::Duration) -> Option<Report> {
        let state = self.inner.state.try_lock_for(timeout)?;
        Some(self.report_of(&state))
    }

    fn report_of(&self, state: &crate::engine::platform::State) -> Report {
        let config = self.config();
        let figure = |current, peak| Figure { current, peak };
        let devices = state
            .usage
            .iter()
            .zip(&state.peak_usage)
            .zip(&config.devices)
            .enumerate()
            .map(|(index, ((now, peak), device))| DeviceReport {
                index: index as u32,
                name: device.name.clone(),
                vram_bytes: figure(now.vram_bytes, peak.vram_bytes),
                gtt_bytes: figure(now.gtt_bytes, peak.gtt_bytes),
                allocated_bytes: figure(now.allocated_bytes, peak.allocated_bytes),
            })
            .collect();
        let counters = Counters::NAMES
            .iter()
            .map(|name| (name.to_string(), state.counters.get(name).unwrap_or(0)))
            .collect();
        let unsupported_calls = crate::unsupported_calls()
            .into_iter()
            .map(|(name, count)| (name.to_string(), count))
            .collect();
        Report {
            platform: config.name.clone(),
            host_pinned_bytes: figure(state.host_pinned, state.peak_host_pinned),
            devices,
            counters,
            unsupported_calls,
        }
    }
}
