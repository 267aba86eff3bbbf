//! The system-management interface (Sysman, `zes*`): starting it, its driver and devices, a
//! device's properties, PCI address, memory module and processes, as compute-runtime's Sysman
//! (`level_zero/sysman/source/`) answers on a discrete card without sub-devices on the xe
//! kernel driver. A composite, not one real machine's answer: the memory region's use and the
//! PCI link are read as root reads them (unprivileged, the kernel reports no memory used and
//! compute-runtime no link), while nothing of the card's telemetry or hwmon is modelled.
//!
//! Sysman device handles are the core device handles (compute-runtime hands out its own objects
//! from `zesDeviceGet` but takes core handles too, matched by UUID). Not modelled: power,
//! temperature and frequency domains (none are listed; compute-runtime lists none of the first
//! two when the kernel exposes no hwmon or telemetry, but always lists a GPU frequency domain),
//! engine groups, the engines a process used, shared memory, bandwidth and PCI counters, and
//! everything that sets something.

use super::device::device_uuid;
use super::{chain_link, fill_array, guard, out, write_c_string};
use crate::abi::registry;
use crate::engine::platform::{Inner, SysmanStart};
use level_zero_sys::*;
use std::sync::Arc;

/// compute-runtime's answer for fields no kernel interface of the card gives (`sysman_const.h`).
const UNKNOWN: &str = "unknown";
/// The hardware contexts Sysman reports (`sysman_global_operations_imp.cpp`; the core
/// properties' own figure differs).
const SYSMAN_HARDWARE_CONTEXTS: u32 = 65536;
/// Brand and vendor names for an Intel PCI vendor id (`sysman_const.h`).
const INTEL_NAME: &str = "Intel(R) Corporation";
/// The flags `zesInit` accepts: `ZES_INIT_FLAG_PLACEHOLDER` (the GPU-only bit) and Intel's
/// experimental no-GPUs bit (`sysman_driver.cpp`); anything else answers `UNINITIALIZED`.
const KNOWN_INIT_FLAGS: u32 = zes_init_flag_t::ZES_INIT_FLAG_PLACEHOLDER.0 | (1 << 16);

/// `zeInit` starts Sysman for core handles where the program set `ZES_ENABLE_SYSMAN=1`.
pub(crate) fn start_with_core_init(platform: &Inner) {
    if std::env::var("ZES_ENABLE_SYSMAN").is_ok_and(|value| value == "1") {
        let mut state = platform.lock();
        if state.sysman == SysmanStart::NotStarted {
            state.sysman = SysmanStart::WithCoreInit;
        }
    }
}

/// `zesInit`: idempotent.
pub(crate) fn init(platform: Option<Arc<Inner>>, flags: zes_init_flags_t) -> ze_result_t {
    guard(|| {
        let platform = platform.ok_or(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED)?;
        if flags & !KNOWN_INIT_FLAGS != 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED);
        }
        platform.lock().sysman = SysmanStart::Initialized;
        Ok(())
    })
}

/// `zesDriverGet`: the one driver, after `zesInit` only.
///
/// # Safety
/// Pointers as `zesDriverGet` takes them.
pub(crate) unsafe fn driver_get(
    platform: Option<Arc<Inner>>,
    count: *mut u32,
    drivers: *mut zes_driver_handle_t,
) -> ze_result_t {
    guard(|| {
        let platform = platform.ok_or(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED)?;
        if platform.lock().sysman != SysmanStart::Initialized {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED);
        }
        let handle = platform.driver as zes_driver_handle_t;
        // compute-runtime refuses a count without an array (`sysman_driver.cpp`).
        // SAFETY: the caller's count, read only when not null.
        if drivers.is_null() && unsafe { count.as_ref() }.is_some_and(|&count| count > 0) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, drivers, std::iter::once(handle)) }
    })
}

/// Sysman must have been started, one way or the other, before a device is asked anything.
fn started(platform: &Inner) -> Result<SysmanStart, ze_result_t> {
    match platform.lock().sysman {
        SysmanStart::NotStarted => Err(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED),
        start => Ok(start),
    }
}

/// A device handle's platform and index, once Sysman is started.
fn device(handle: zes_device_handle_t) -> Result<(Arc<Inner>, u32), ze_result_t> {
    let (platform, index) = registry::device(handle as usize)?;
    started(&platform)?;
    Ok((platform, index))
}

/// `zesDeviceGet`: every device, after `zesInit` only.
pub(crate) unsafe extern "C" fn device_get(
    driver: zes_driver_handle_t,
    count: *mut u32,
    devices: *mut zes_device_handle_t,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        if started(&platform)? != SysmanStart::Initialized {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNINITIALIZED);
        }
        // compute-runtime refuses a count without an array (`sysman_driver_handle_imp.cpp`).
        // SAFETY: the caller's count, read only when not null.
        if devices.is_null() && unsafe { count.as_ref() }.is_some_and(|&count| count > 0) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
        }
        let handles = platform
            .devices
            .iter()
            .map(|&handle| handle as zes_device_handle_t);
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, devices, handles) }
    })
}

/// `zesDeviceGetProperties`: of the core properties, those compute-runtime's Sysman fills
/// (`sysman_global_operations_imp.cpp`: not `subdeviceId`, `maxMemAllocSize` nor
/// `physicalEUSimdWidth`, and never reading `core.pNext`; flags are added to, not cleared), no
/// sub-devices, names, and a chained `zes_device_ext_properties_t` (type, UUID); other chained
/// structs are skipped.
pub(crate) unsafe extern "C" fn device_get_properties(
    device_handle: zes_device_handle_t,
    properties: *mut zes_device_properties_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = device(device_handle)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        let mut core = ze_device_properties_t {
            stype: properties.core.stype,
            ..Default::default()
        };
        // SAFETY: a whole struct of ours, with no chain.
        let result = unsafe { super::device::get_properties(device_handle, &mut core) };
        if result != ze_result_t::ZE_RESULT_SUCCESS {
            return Err(result);
        }
        let target = &mut properties.core;
        target.type_ = core.type_;
        target.vendorId = core.vendorId;
        target.deviceId = core.deviceId;
        target.flags |= core.flags;
        target.coreClockRate = core.coreClockRate;
        target.maxHardwareContexts = SYSMAN_HARDWARE_CONTEXTS;
        target.maxCommandQueuePriority = core.maxCommandQueuePriority;
        target.numThreadsPerEU = core.numThreadsPerEU;
        target.numEUsPerSubslice = core.numEUsPerSubslice;
        target.numSubslicesPerSlice = core.numSubslicesPerSlice;
        target.numSlices = core.numSlices;
        target.timerResolution = core.timerResolution;
        target.timestampValidBits = core.timestampValidBits;
        target.kernelTimestampValidBits = core.kernelTimestampValidBits;
        target.uuid = core.uuid;
        target.name = core.name;
        let config = &platform.config.devices[index as usize];
        let intel = config.vendor_id == 0x8086;
        properties.numSubdevices = 0;
        write_c_string(&mut properties.serialNumber, UNKNOWN);
        write_c_string(&mut properties.boardNumber, UNKNOWN);
        write_c_string(
            &mut properties.brandName,
            if intel { INTEL_NAME } else { UNKNOWN },
        );
        write_c_string(
            &mut properties.vendorName,
            if intel { INTEL_NAME } else { UNKNOWN },
        );
        write_c_string(&mut properties.modelName, &config.name);
        write_c_string(
            &mut properties.driverVersion,
            &platform.config.driver_version.to_string(),
        );
        let mut next = properties.pNext;
        while !next.is_null() {
            // SAFETY: every extension struct starts with stype and pNext (spec).
            let (stype, following) = unsafe { chain_link(next) };
            if stype.0 == zes_structure_type_t::ZES_STRUCTURE_TYPE_DEVICE_EXT_PROPERTIES.0 {
                // SAFETY: the stype says which struct this is.
                let extension = unsafe { &mut *(next as *mut zes_device_ext_properties_t) };
                extension.uuid.id = core.uuid.id;
                extension.type_ = zes_device_type_t::ZES_DEVICE_TYPE_GPU;
            }
            next = following;
        }
        Ok(())
    })
}

/// `zesDriverGetDeviceByUuidExp`: the device whose UUID is `uuid` (after `zesInit` only).
pub(crate) unsafe extern "C" fn driver_get_device_by_uuid(
    driver: zes_driver_handle_t,
    uuid: zes_uuid_t,
    device_out: *mut zes_device_handle_t,
    on_subdevice: *mut ze_bool_t,
    subdevice_id: *mut u32,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        if started(&platform)? != SysmanStart::Initialized {
            return Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE);
        }
        let index = platform
            .config
            .devices
            .iter()
            .position(|config| {
                device_uuid(config.vendor_id, config.device_id, &config.pci_address) == uuid.id
            })
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT)?;
        // SAFETY: the caller's output pointers.
        let (device_out, on_subdevice, subdevice_id) =
            unsafe { (out(device_out)?, out(on_subdevice)?, out(subdevice_id)?) };
        *device_out = platform.devices[index] as zes_device_handle_t;
        *on_subdevice = 0;
        *subdevice_id = 0;
        Ok(())
    })
}

/// `zesDevicePciGetProperties`: the device's address and its link as the core PCI extension
/// reports it; no counters.
pub(crate) unsafe extern "C" fn device_pci_get_properties(
    device_handle: zes_device_handle_t,
    properties: *mut zes_pci_properties_t,
) -> ze_result_t {
    guard(|| {
        device(device_handle)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        // A chain must hold a link-speed downgrade struct, the only one compute-runtime takes;
        // the simulated links cannot be downgraded.
        let mut next = properties.pNext;
        let mut downgrade_found = next.is_null();
        while !next.is_null() {
            // SAFETY: every extension struct starts with stype and pNext (spec).
            let (stype, following) = unsafe { chain_link(next) };
            if stype.0
                == zes_structure_type_t::ZES_STRUCTURE_TYPE_PCI_LINK_SPEED_DOWNGRADE_EXT_PROPERTIES
                    .0
            {
                // SAFETY: the stype says which struct this is.
                let downgrade =
                    unsafe { &mut *(next as *mut zes_pci_link_speed_downgrade_ext_properties_t) };
                downgrade.pciLinkSpeedUpdateCapable = 0;
                downgrade.maxPciGenSupported = -1;
                downgrade_found = true;
            }
            next = following;
        }
        if !downgrade_found {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let mut core = ze_pci_ext_properties_t::default();
        // SAFETY: a whole struct of ours.
        let result = unsafe { super::device::pci_get_properties_ext(device_handle, &mut core) };
        if result != ze_result_t::ZE_RESULT_SUCCESS {
            return Err(result);
        }
        properties.address = zes_pci_address_t {
            domain: core.address.domain,
            bus: core.address.bus,
            device: core.address.device,
            function: core.address.function,
        };
        properties.maxSpeed = zes_pci_speed_t {
            gen_: core.maxSpeed.genVersion,
            width: core.maxSpeed.width,
            maxBandwidth: core.maxSpeed.maxBandwidth,
        };
        properties.haveBandwidthCounters = 0;
        properties.havePacketCounters = 0;
        properties.haveReplayCounters = 0;
        Ok(())
    })
}

/// `zesDeviceEnumMemoryModules`: one module, the device's memory.
pub(crate) unsafe extern "C" fn device_enum_memory_modules(
    device_handle: zes_device_handle_t,
    count: *mut u32,
    modules: *mut zes_mem_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = device(device_handle)?;
        let module = platform.memory_modules[index as usize] as zes_mem_handle_t;
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, modules, std::iter::once(module)) }
    })
}

/// A memory module handle's platform and device, once Sysman is started.
fn memory_module(handle: zes_mem_handle_t) -> Result<(Arc<Inner>, u32), ze_result_t> {
    let (platform, index) = registry::memory_module(handle as usize)?;
    started(&platform)?;
    Ok((platform, index))
}

/// `zesMemoryGetProperties`: GDDR6 on the device, of the configured size; channels and bus
/// width unknown (-1), as compute-runtime reports when the card's telemetry does not say.
pub(crate) unsafe extern "C" fn memory_get_properties(
    module: zes_mem_handle_t,
    properties: *mut zes_mem_properties_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = memory_module(module)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        properties.type_ = zes_mem_type_t::ZES_MEM_TYPE_GDDR6;
        properties.onSubdevice = 0;
        properties.subdeviceId = 0;
        properties.location = zes_mem_loc_t::ZES_MEM_LOC_DEVICE;
        properties.physicalSize = platform.config.devices[index as usize].memory_bytes;
        properties.busWidth = -1;
        properties.numChannels = -1;
        Ok(())
    })
}

/// `zesMemoryGetState`: the region's usable size and what is free of it, every process's
/// allocations counted; health unknown.
pub(crate) unsafe extern "C" fn memory_get_state(
    module: zes_mem_handle_t,
    state: *mut zes_mem_state_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = memory_module(module)?;
        // SAFETY: the caller's output pointer.
        let state = unsafe { out(state) }?;
        let region = platform.memory_region_state(index);
        state.health = zes_mem_health_t::ZES_MEM_HEALTH_UNKNOWN;
        state.size = region.size;
        state.free = region.size - region.used;
        Ok(())
    })
}

/// `zesMemoryGetBandwidth`: no bandwidth counters (compute-runtime's default answer).
pub(crate) unsafe extern "C" fn memory_get_bandwidth(
    module: zes_mem_handle_t,
    _bandwidth: *mut zes_mem_bandwidth_t,
) -> ze_result_t {
    guard(|| {
        memory_module(module)?;
        Err(ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
    })
}

/// `zesDeviceProcessesGetState`: every running process of the machine and the device memory it
/// allocated on the device, by pid. Asked for fewer than there are, it fills what it was asked
/// for, says how many there are and answers `ZE_RESULT_ERROR_INVALID_SIZE` (compute-runtime's
/// protocol). Not modelled: the engines a process used and its shared (imported) memory, both
/// reported as none.
pub(crate) unsafe extern "C" fn device_processes_get_state(
    device_handle: zes_device_handle_t,
    count: *mut u32,
    processes: *mut zes_process_state_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = device(device_handle)?;
        // SAFETY: the caller's count.
        let count = unsafe { out(count) }?;
        let found = platform.device_processes(index);
        let total = u32::try_from(found.len()).unwrap_or(u32::MAX);
        let asked = *count;
        *count = total;
        if asked == 0 {
            return Ok(());
        }
        if !processes.is_null() {
            for (slot, process) in found.iter().take(asked.min(total) as usize).enumerate() {
                // SAFETY: `slot < asked`, within the caller's array; the caller's stype and
                // pNext are kept.
                unsafe {
                    let entry = processes.add(slot);
                    (*entry).processId = process.pid;
                    (*entry).memSize = process.memory;
                    (*entry).sharedSize = 0;
                    (*entry).engines = 0;
                }
            }
        }
        if asked < total {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE);
        }
        Ok(())
    })
}

/// The enumerations of what the simulator does not model (power, temperature, frequency):
/// none.
pub(crate) unsafe extern "C" fn device_enum_none<T>(
    device_handle: zes_device_handle_t,
    count: *mut u32,
    handles: *mut T,
) -> ze_result_t {
    guard(|| {
        device(device_handle)?;
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, handles, std::iter::empty()) }
    })
}
