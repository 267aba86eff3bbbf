//! Platforms as the Level Zero ABI sees them: a platform's driver and device handles, and the
//! slot of an in-process one, taken when it is built and released when it ends; and the entry
//! points that drive it.

use crate::abi::generated::by_name;
use crate::abi::registry::{self, Object};
use crate::abi::slots;
use crate::engine::platform::{CLOCK_START_NS, Inner, Platform, State};
use crate::model::config::SimConfig;
use crate::model::error::SimError;
use crate::model::machine::Membership;
use parking_lot::{Condvar, Mutex};
use std::ffi::c_void;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Instant;

/// A platform's handles and slot; released when the platform ends.
struct Registration {
    driver: usize,
    devices: Vec<usize>,
    vertices: Vec<usize>,
    memory_modules: Vec<usize>,
    slot: Option<usize>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        registry::unregister(self.driver);
        for &handle in self
            .devices
            .iter()
            .chain(&self.vertices)
            .chain(&self.memory_modules)
        {
            registry::unregister(handle);
        }
        if let Some(slot) = self.slot {
            slots::release(slot);
        }
    }
}

impl Platform {
    /// A new, independent platform.
    ///
    /// ```
    /// let mut config = ze_sim::SimConfig::preset("b70x2").unwrap();
    /// config.devices.clear();
    /// assert!(ze_sim::Platform::new(config).is_err(), "no devices");
    /// ```
    pub fn new(config: SimConfig) -> Result<Self, SimError> {
        Self::build(config, true, None, None)
    }

    /// A new platform from a preset name (see [`crate::PRESET_NAMES`]).
    ///
    /// ```
    /// assert!(ze_sim::Platform::preset("b60x4").is_ok());
    /// assert!(ze_sim::Platform::preset("b61x9").is_err());
    /// ```
    pub fn preset(name: &str) -> Result<Self, SimError> {
        let config = SimConfig::preset(name).ok_or_else(|| SimError::UnknownPreset(name.into()))?;
        Self::new(config)
    }

    pub(crate) fn build(
        config: SimConfig,
        in_process: bool,
        machine: Option<&'static Membership>,
        machine_devices: Option<(Vec<u32>, u32)>,
    ) -> Result<Self, SimError> {
        config.validate()?;
        let device_count = config.devices.len();
        let (machine_devices, machine_device_total) = machine_devices
            .filter(|(indices, total)| {
                indices.len() == device_count && indices.iter().all(|index| index < total)
            })
            .unwrap_or_else(|| ((0..device_count as u32).collect(), device_count as u32));
        let slot = if in_process {
            Some(slots::acquire().ok_or(SimError::TooManyPlatforms(slots::SLOT_COUNT))?)
        } else {
            None
        };
        let state = State::new(device_count);
        let registration = Registration {
            driver: registry::reserve(),
            devices: (0..device_count).map(|_| registry::reserve()).collect(),
            vertices: (0..device_count).map(|_| registry::reserve()).collect(),
            memory_modules: (0..device_count).map(|_| registry::reserve()).collect(),
            slot,
        };
        let inner = Arc::new(Inner {
            config,
            state: Mutex::new(state),
            changed: Condvar::new(),
            driver: registration.driver,
            devices: registration.devices.clone(),
            vertices: registration.vertices.clone(),
            memory_modules: registration.memory_modules.clone(),
            epoch: Instant::now(),
            slot,
            _registration: Box::new(registration),
            host_clock: AtomicU64::new(CLOCK_START_NS),
            host_waits: AtomicU64::new(0),
            machine,
            machine_devices,
            machine_device_total,
        });
        registry::insert(inner.driver, &inner, Object::Driver);
        for (index, &device) in inner.devices.iter().enumerate() {
            registry::insert(device, &inner, Object::Device(index as u32));
        }
        for (index, &vertex) in inner.vertices.iter().enumerate() {
            registry::insert(vertex, &inner, Object::FabricVertex(index as u32));
        }
        for (index, &module) in inner.memory_modules.iter().enumerate() {
            registry::insert(module, &inner, Object::MemoryModule(index as u32));
        }
        if let Some(slot) = slot {
            slots::bind(slot, &inner);
        }
        Ok(Self { inner })
    }

    /// The address of the Level Zero entry point `name` driving this platform, or `None` for a
    /// function the simulator does not provide. Pass it to `ZeApi::from_resolver`.
    ///
    /// ```
    /// let platform = ze_sim::Platform::preset("b70x2").unwrap();
    /// assert!(platform.resolve("zeDriverGet").is_some());
    /// assert!(platform.resolve("zeModuleCreate").is_some());
    /// assert!(platform.resolve("zeImageCreate").is_none(), "not simulated");
    /// ```
    pub fn resolve(&self, name: &str) -> Option<*const c_void> {
        let slot = self.inner.slot?;
        slots::resolve(slot, name).or_else(|| by_name::resolve(name))
    }
}
