//! Devices: properties, memory, command-queue groups and engines, peer access.

use crate::error::{Error, Result};
use crate::ze::call::{ze_call, ze_name};
use crate::ze::driver::{Driver, c_name};
use crate::ze::handles::{DeviceHandle, enumerate};
use crate::ze::runtime::Runtime;
use level_zero_sys::*;
use std::ffi::{CStr, c_void};
use std::fmt;

/// A device of a [`Driver`].
///
/// ```
/// let runtime = lazy_usm::Runtime::simulated("b70x2")?;
/// let devices = runtime.devices()?;
/// let properties = devices[0].properties()?;
/// assert_eq!(properties.pci_address.unwrap().to_string(), "0000:0e:00.0");
/// assert!(devices[0].can_access_peer(&devices[1])?);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Clone)]
pub struct Device {
    driver: Driver,
    handle: DeviceHandle,
    index: u32,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device")
            .field("index", &self.index)
            .field("handle", &self.handle)
            .finish()
    }
}

impl PartialEq for Device {
    /// The same handle of the same driver (see [`Driver`]'s equality).
    fn eq(&self, other: &Self) -> bool {
        self.handle == other.handle && self.driver == other.driver
    }
}

impl Eq for Device {}

/// A PCI address, `DDDD:BB:DD.F`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PciAddress {
    /// PCI domain.
    pub domain: u32,
    /// Bus.
    pub bus: u32,
    /// Device (slot).
    pub device: u32,
    /// Function.
    pub function: u32,
}

impl fmt::Display for PciAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{:x}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

/// What `zeDeviceGetProperties` (and the PCI extension, where present) report.
///
/// ```
/// let devices = lazy_usm::Runtime::simulated("b60x4")?.devices()?;
/// let properties = devices[3].properties()?;
/// assert_eq!(properties.vendor_id, 0x8086);
/// assert_eq!(properties.pci_address.unwrap().bus, 0x63);
/// assert_eq!(devices[3].memory_properties()?[0].total_size, 24 << 30);
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceProperties {
    /// Device name.
    pub name: String,
    /// PCI vendor id (0x8086 for Intel).
    pub vendor_id: u32,
    /// PCI device id.
    pub device_id: u32,
    /// Device UUID.
    pub uuid: [u8; 16],
    /// PCI address, where the driver has the PCI properties extension.
    pub pci_address: Option<PciAddress>,
    /// Core clock in MHz.
    pub core_clock_mhz: u32,
    /// Largest single allocation in bytes.
    pub max_mem_alloc_size: u64,
    /// Kernel-timestamp ticks per second.
    pub timestamp_frequency: u64,
}

/// One entry of `zeDeviceGetMemoryProperties`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryProperties {
    /// Memory name (for example `GDDR6`).
    pub name: String,
    /// Size in bytes.
    pub total_size: u64,
}

bitflags::bitflags! {
    /// What a command-queue group's engines run (`ze_command_queue_group_property_flags_t`).
    ///
    /// ```
    /// use lazy_usm::QueueGroupFlags;
    /// assert!((QueueGroupFlags::COMPUTE | QueueGroupFlags::COPY).contains(QueueGroupFlags::COPY));
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct QueueGroupFlags: u32 {
        /// Compute work (kernels), and copies.
        const COMPUTE = ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE.0;
        /// Copies.
        const COPY = ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY.0;
        /// Cooperative kernels.
        const COOPERATIVE_KERNELS = ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS.0;
        /// Metric collection.
        const METRICS = ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_METRICS.0;
    }
}

bitflags::bitflags! {
    /// What a device may do with a peer's memory (`ze_device_p2p_property_flags_t`).
    ///
    /// ```
    /// assert_ne!(lazy_usm::PeerAccessFlags::ACCESS, lazy_usm::PeerAccessFlags::ATOMICS);
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct PeerAccessFlags: u32 {
        /// Read and write it.
        const ACCESS = ze_device_p2p_property_flag_t::ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS.0;
        /// Perform atomics on it.
        const ATOMICS = ze_device_p2p_property_flag_t::ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS.0;
    }
}

/// One command-queue group: a kind of engine and how many there are. Intel's driver reports
/// the main copy engine (BCS0) and the linked copy engines, where a device has them, as up to
/// two copy-only groups.
///
/// ```
/// use lazy_usm::QueueGroupFlags;
/// let devices = lazy_usm::Runtime::simulated("xelink")?.devices()?;
/// let groups = devices[0].queue_groups()?;
/// assert!(groups[0].flags.contains(QueueGroupFlags::COMPUTE) && !groups[0].is_copy_only());
/// assert!(groups[1].is_copy_only() && groups[2].is_copy_only());
/// assert_eq!((groups[1].queues, groups[2].queues), (1, 8));
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueueGroup {
    /// The group's ordinal, for queue and list descriptors.
    pub ordinal: u32,
    /// What its engines run.
    pub flags: QueueGroupFlags,
    /// Number of engines (queues) in the group.
    pub queues: u32,
    /// Largest pattern a fill takes, in bytes.
    pub max_fill_pattern_size: usize,
}

impl QueueGroup {
    /// A copy-only group: the blitter engines, preferred for copies.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let groups = devices[0].queue_groups()?;
    /// assert!(!groups[0].is_copy_only() && groups[1].is_copy_only());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_copy_only(&self) -> bool {
        self.flags.contains(QueueGroupFlags::COPY) && !self.is_compute()
    }

    /// Whether its engines run kernels.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(devices[0].queue_groups()?[0].is_compute());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn is_compute(&self) -> bool {
        self.flags.contains(QueueGroupFlags::COMPUTE)
    }
}

/// A hardware engine: device, queue-group ordinal, queue index.
///
/// ```
/// let devices = lazy_usm::Runtime::simulated("b70x2")?.devices()?;
/// let blitter = devices[0].engine(1, 0)?;
/// assert!(blitter.group.is_copy_only());
/// assert!(devices[0].engine(1, 1).is_err(), "the main copy group has one engine");
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Engine {
    /// The device the engine belongs to.
    pub device: Device,
    /// Its queue group.
    pub group: QueueGroup,
    /// Its index within the group.
    pub index: u32,
}

impl Engine {
    /// The descriptor of an asynchronous queue (or immediate list) on this engine.
    pub(crate) fn queue_desc(&self) -> ze_command_queue_desc_t {
        ze_command_queue_desc_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
            ordinal: self.group.ordinal,
            index: self.index,
            mode: ze_command_queue_mode_t::ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
            ..Default::default()
        }
    }
}

/// Peer-to-peer capabilities of a device pair, one direction.
///
/// ```
/// let devices = lazy_usm::Runtime::simulated("b70x2")?.devices()?;
/// let access = devices[1].peer_access(&devices[0])?;
/// assert!(access.flags.contains(lazy_usm::PeerAccessFlags::ACCESS | lazy_usm::PeerAccessFlags::ATOMICS));
/// assert_eq!(access.bandwidth.unwrap().gigabytes_per_second, 28.0); // modelled, seed 000
/// # Ok::<(), lazy_usm::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeerAccess {
    /// What the device may do with the peer's memory.
    pub flags: PeerAccessFlags,
    /// Bandwidth and latency from the bandwidth extension, where the driver has it.
    pub bandwidth: Option<PeerBandwidth>,
}

/// From `ze_device_p2p_bandwidth_exp_properties_t`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PeerBandwidth {
    /// Logical bandwidth in GB/s (1e9 bytes per second).
    pub gigabytes_per_second: f64,
    /// Logical latency in nanoseconds.
    pub latency_ns: f64,
}

impl Device {
    pub(crate) fn new(driver: Driver, handle: DeviceHandle, index: u32) -> Self {
        Self {
            driver,
            handle,
            index,
        }
    }

    /// Position in the driver's enumeration.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(devices.iter().map(Device::index).collect::<Vec<_>>(), [0, 1]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The raw handle.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_ne!(devices[0].handle(), devices[1].handle());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn handle(&self) -> DeviceHandle {
        self.handle
    }

    /// The driver.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(devices[0].driver(), devices[1].driver());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn driver(&self) -> &Driver {
        &self.driver
    }

    fn api(&self) -> &ZeApi {
        self.driver.api()
    }

    /// Name, ids, UUID, PCI address and limits.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let properties = devices[1].properties()?;
    /// assert_eq!((properties.vendor_id, properties.device_id), (0x8086, 0xe223));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn properties(&self) -> Result<DeviceProperties> {
        let mut properties = ze_device_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2,
            ..Default::default()
        };
        // SAFETY: a live device handle and a valid output struct.
        unsafe {
            ze_call!(
                self.api(),
                device_get_properties(self.handle.0, &mut properties)
            )
        }?;
        let pci_address = self.api().device_pci_get_properties_ext.and_then(|get| {
            let mut pci = ze_pci_ext_properties_t {
                stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES,
                ..Default::default()
            };
            // SAFETY: a live device handle and a valid output struct.
            let result = unsafe { get(self.handle.0, &mut pci) };
            (result == ze_result_t::ZE_RESULT_SUCCESS).then_some(PciAddress {
                domain: pci.address.domain,
                bus: pci.address.bus,
                device: pci.address.device,
                function: pci.address.function,
            })
        });
        Ok(DeviceProperties {
            name: c_name(&properties.name),
            vendor_id: properties.vendorId,
            device_id: properties.deviceId,
            uuid: properties.uuid.id,
            pci_address,
            core_clock_mhz: properties.coreClockRate,
            max_mem_alloc_size: properties.maxMemAllocSize,
            // With the 1.2 struct, timerResolution is in cycles per second.
            timestamp_frequency: properties.timerResolution,
        })
    }

    /// The device's memories.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(devices[0].memory_properties()?[0].total_size, 32 << 30);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn memory_properties(&self) -> Result<Vec<MemoryProperties>> {
        let blank = ze_device_memory_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES,
            ..Default::default()
        };
        let items = enumerate(
            ze_name!(device_get_memory_properties),
            blank,
            |count, array| {
                // SAFETY: the count/fill pattern with pointers `enumerate` provides.
                unsafe { (self.api().device_get_memory_properties)(self.handle.0, count, array) }
            },
        )?;
        Ok(items
            .iter()
            .map(|item| MemoryProperties {
                name: c_name(&item.name),
                total_size: item.totalSize,
            })
            .collect())
    }

    /// The command-queue groups, by ordinal.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(devices[0].queue_groups()?.len(), 2);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn queue_groups(&self) -> Result<Vec<QueueGroup>> {
        let blank = ze_command_queue_group_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES,
            ..Default::default()
        };
        let items = enumerate(
            ze_name!(device_get_command_queue_group_properties),
            blank,
            |count, array| {
                // SAFETY: the count/fill pattern with pointers `enumerate` provides.
                unsafe {
                    (self.api().device_get_command_queue_group_properties)(
                        self.handle.0,
                        count,
                        array,
                    )
                }
            },
        )?;
        Ok(items
            .iter()
            .enumerate()
            .map(|(ordinal, item)| QueueGroup {
                ordinal: ordinal as u32,
                flags: QueueGroupFlags::from_bits_truncate(item.flags),
                queues: item.numQueues,
                max_fill_pattern_size: item.maxMemoryFillPatternSize,
            })
            .collect())
    }

    /// Engine `index` of queue group `ordinal`, checked to exist.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(devices[0].engine(1, 0)?.group.ordinal, 1);
    /// assert!(devices[0].engine(2, 0).is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn engine(&self, ordinal: u32, index: u32) -> Result<Engine> {
        let groups = self.queue_groups()?;
        let group = *groups.get(ordinal as usize).ok_or_else(|| {
            Error::invalid(format!(
                "device {} has {} queue groups; ordinal {ordinal} does not exist",
                self.index,
                groups.len()
            ))
        })?;
        if index >= group.queues {
            return Err(Error::invalid(format!(
                "queue group {ordinal} of device {} has {} engines; index {index} does not exist",
                self.index, group.queues
            )));
        }
        Ok(Engine {
            device: self.clone(),
            group,
            index,
        })
    }

    /// The first engine of the first copy-only group (the main blitter, BCS0, on Intel's
    /// driver), if the device has one.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(devices[0].copy_engine()?.unwrap().group.is_copy_only());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn copy_engine(&self) -> Result<Option<Engine>> {
        let group = self
            .queue_groups()?
            .into_iter()
            .find(|group| group.is_copy_only() && group.queues > 0);
        Ok(group.map(|group| Engine {
            device: self.clone(),
            group,
            index: 0,
        }))
    }

    /// The first engine of a compute group.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(devices[0].compute_engine()?.group.is_compute());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn compute_engine(&self) -> Result<Engine> {
        let group = self
            .queue_groups()?
            .into_iter()
            .find(|group| group.is_compute() && group.queues > 0)
            .ok_or_else(|| {
                Error::NoDevice(format!("device {} has no compute engine", self.index))
            })?;
        Ok(Engine {
            device: self.clone(),
            group,
            index: 0,
        })
    }

    /// The engine copies should use: a copy-only one when there is one, else a compute one.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(devices[0].preferred_copy_engine()?.group.ordinal, 1);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn preferred_copy_engine(&self) -> Result<Engine> {
        match self.copy_engine()? {
            Some(engine) => Ok(engine),
            None => self.compute_engine(),
        }
    }

    /// Whether this device can access `peer`'s memory, and how (this direction only).
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert!(devices[0].peer_access(&devices[1])?.flags.contains(PeerAccessFlags::ATOMICS));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn peer_access(&self, peer: &Device) -> Result<PeerAccess> {
        let mut bandwidth = ze_device_p2p_bandwidth_exp_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_P2P_BANDWIDTH_EXP_PROPERTIES,
            ..Default::default()
        };
        let bandwidth_name = CStr::from_bytes_with_nul(ZE_BANDWIDTH_PROPERTIES_EXP_NAME)
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let has_bandwidth = self
            .driver
            .extensions()?
            .iter()
            .any(|(name, _)| *name == bandwidth_name);
        let mut properties = ze_device_p2p_properties_t {
            stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_P2P_PROPERTIES,
            pNext: if has_bandwidth {
                &mut bandwidth as *mut _ as *mut c_void
            } else {
                std::ptr::null_mut()
            },
            ..Default::default()
        };
        // SAFETY: live device handles and a valid output chain.
        unsafe {
            ze_call!(
                self.api(),
                device_get_p2p_properties(self.handle.0, peer.handle.0, &mut properties)
            )
        }?;
        let per_nanosecond =
            bandwidth.bandwidthUnit == ze_bandwidth_unit_t::ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC;
        let latency_ns = bandwidth.latencyUnit == ze_latency_unit_t::ZE_LATENCY_UNIT_NANOSEC;
        Ok(PeerAccess {
            flags: PeerAccessFlags::from_bits_truncate(properties.flags),
            bandwidth: (has_bandwidth && per_nanosecond).then_some(PeerBandwidth {
                // One byte per nanosecond is one GB/s.
                gigabytes_per_second: f64::from(bandwidth.logicalBandwidth),
                latency_ns: if latency_ns {
                    f64::from(bandwidth.logicalLatency)
                } else {
                    f64::NAN
                },
            }),
        })
    }

    /// `zeDeviceCanAccessPeer`: whether this device can access `peer`'s memory.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// let b60 = Runtime::simulated("b60x4-refused")?.devices()?;
    /// assert!(!b60[0].can_access_peer(&b60[1])?);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn can_access_peer(&self, peer: &Device) -> Result<bool> {
        let mut value: ze_bool_t = 0;
        // SAFETY: live device handles and a valid output pointer.
        unsafe {
            ze_call!(
                self.api(),
                device_can_access_peer(self.handle.0, peer.handle.0, &mut value)
            )
        }?;
        Ok(value != 0)
    }
}

impl Driver {
    /// The devices of this driver, in enumeration order.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(runtime.drivers()?[0].devices()?, devices);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn devices(&self) -> Result<Vec<Device>> {
        let api = self.api();
        let handles = enumerate(
            ze_name!(device_get),
            std::ptr::null_mut(),
            |count, array| {
                // SAFETY: the count/fill pattern with pointers `enumerate` provides.
                unsafe { (api.device_get)(self.handle().0, count, array) }
            },
        )?;
        Ok(handles
            .into_iter()
            .enumerate()
            .map(|(index, handle)| Device::new(self.clone(), DeviceHandle(handle), index as u32))
            .collect())
    }
}

impl Runtime {
    /// Every device of the first driver that has any.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// # let runtime = Runtime::simulated("b70x2")?;
    /// # let devices = runtime.devices()?;
    /// assert_eq!(devices[1].index(), 1);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn devices(&self) -> Result<Vec<Device>> {
        for driver in self.drivers()? {
            let devices = driver.devices()?;
            if !devices.is_empty() {
                return Ok(devices);
            }
        }
        Ok(Vec::new())
    }

    /// The device behind a raw Level Zero device handle (from SYCL's `get_native`, say), among
    /// this runtime's drivers; [`Error::ForeignObject`](Error::ForeignObject) if none has it.
    ///
    /// ```
    /// # use lazy_usm::*;
    /// let runtime = Runtime::simulated("b70x2")?;
    /// let devices = runtime.devices()?;
    /// assert_eq!(runtime.device_by_handle(devices[1].handle())?, devices[1]);
    /// assert!(runtime.device_by_handle(DeviceHandle(std::ptr::null_mut())).is_err());
    /// # Ok::<(), Error>(())
    /// ```
    pub fn device_by_handle(&self, handle: DeviceHandle) -> Result<Device> {
        self.devices()?
            .into_iter()
            .find(|device| device.handle() == handle)
            .ok_or_else(|| Error::ForeignObject {
                what: "device",
                detail: format!("{:?} is no device of this runtime's drivers", handle.0),
            })
    }
}
