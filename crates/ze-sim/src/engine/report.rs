//! A platform's figures now as one [`Report`].

use crate::engine::platform::{Platform, State};
use crate::model::counters::Counters;
use crate::model::report::{DeviceReport, Figure, Report};
use crate::model::unsupported::unsupported_calls;

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

    fn report_of(&self, state: &State) -> Report {
        let config = self.config();
        let figure = |current, peak| Figure { current, peak };
        let devices = state
            .memory
            .usage
            .iter()
            .zip(&state.memory.peak_usage)
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
        let unsupported_calls = unsupported_calls()
            .into_iter()
            .map(|(name, count)| (name.to_string(), count))
            .collect();
        Report {
            platform: config.name.clone(),
            host_pinned_bytes: figure(state.memory.host_pinned, state.memory.peak_host_pinned),
            devices,
            counters,
            unsupported_calls,
        }
    }
}
