//! Devices: enumeration, properties, queue groups, P2P.

use super::{chain_link, fill_array, guard, out, write_c_string};
use crate::abi::registry;
use crate::model::config::LinkKind;
use level_zero_sys::*;

pub(crate) unsafe extern "C" fn get(
    driver: ze_driver_handle_t,
    count: *mut u32,
    devices: *mut ze_device_handle_t,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        let handles = platform
            .devices
            .iter()
            .map(|&handle| handle as ze_device_handle_t);
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, devices, handles) }
    })
}

pub(crate) unsafe extern "C" fn get_sub_devices(
    device: ze_device_handle_t,
    count: *mut u32,
    sub_devices: *mut ze_device_handle_t,
) -> ze_result_t {
    guard(|| {
        registry::device(device as usize)?;
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, sub_devices, std::iter::empty()) }
    })
}

pub(crate) unsafe extern "C" fn get_properties(
    device: ze_device_handle_t,
    properties: *mut ze_device_properties_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::device(device as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        let config = &platform.config.devices[index as usize];
        properties.type_ = ze_device_type_t::ZE_DEVICE_TYPE_GPU;
        properties.vendorId = config.vendor_id;
        properties.deviceId = config.device_id;
        properties.flags = 0;
        properties.subdeviceId = 0;
        properties.coreClockRate = config.core_clock_mhz;
        properties.maxMemAllocSize = config.max_mem_alloc_bytes.unwrap_or(config.memory_bytes);
        // The execution-unit figures below are plausible placeholders: nothing in lazy-usm reads
        // them, and no seed measured them.
        properties.maxHardwareContexts = 4096;
        properties.maxCommandQueuePriority = 0;
        let [slices, subslices, eus, threads] = EXECUTION_UNITS;
        properties.numThreadsPerEU = threads;
        properties.physicalEUSimdWidth = SIMD_WIDTH;
        properties.numEUsPerSubslice = eus;
        properties.numSubslicesPerSlice = subslices;
        properties.numSlices = slices;
        // One tick is one nanosecond; the 1.2 struct reports cycles per second instead.
        properties.timerResolution =
            if properties.stype == ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 {
                1_000_000_000
            } else {
                1
            };
        properties.timestampValidBits = 64;
        properties.kernelTimestampValidBits = 64;
        properties.uuid.id = device_uuid(config.vendor_id, config.device_id, &config.pci_address);
        write_c_string(&mut properties.name, &config.name);
        let mut next = properties.pNext;
        while !next.is_null() {
            // SAFETY: every extension struct starts with stype and pNext (spec); read by value,
            // so no reference overlaps the one made below.
            let (stype, following) = unsafe { chain_link(next) };
            if stype == ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT {
                // SAFETY: the stype says which struct this is.
                let ip = unsafe { &mut *(next as *mut ze_device_ip_version_ext_t) };
                ip.ipVersion = config.ip_version;
            }
            if stype == ze_structure_type_t::ZE_STRUCTURE_TYPE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_PROPERTIES
            {
                // SAFETY: the stype says which struct this is.
                let query =
                    unsafe { &mut *(next as *mut ze_event_query_kernel_timestamps_ext_properties_t) };
                type Flag = ze_event_query_kernel_timestamps_ext_flag_t;
                query.flags = Flag::ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_KERNEL.0
                    | Flag::ZE_EVENT_QUERY_KERNEL_TIMESTAMPS_EXT_FLAG_SYNCHRONIZED.0;
            }
            next = following;
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_memory_access_properties(
    device: ze_device_handle_t,
    properties: *mut ze_device_memory_access_properties_t,
) -> ze_result_t {
    guard(|| {
        registry::device(device as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        type Cap = ze_memory_access_cap_flag_t;
        let full = Cap::ZE_MEMORY_ACCESS_CAP_FLAG_RW.0
            | Cap::ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC.0
            | Cap::ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT.0
            | Cap::ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT_ATOMIC.0;
        // A discrete GPU: device, host and single-device shared USM with every capability;
        // shared memory across devices and system allocations without atomics (the simulator
        // serves them, as the real driver does, but does not model atomics across the link).
        let plain =
            Cap::ZE_MEMORY_ACCESS_CAP_FLAG_RW.0 | Cap::ZE_MEMORY_ACCESS_CAP_FLAG_CONCURRENT.0;
        properties.hostAllocCapabilities = full;
        properties.deviceAllocCapabilities = full;
        properties.sharedSingleDeviceAllocCapabilities = full;
        properties.sharedCrossDeviceAllocCapabilities = plain;
        properties.sharedSystemAllocCapabilities = 0;
        Ok(())
    })
}

/// Slices, subslices per slice, EUs per subslice and hardware threads per EU, as
/// `zeDeviceGetProperties` reports them: plausible placeholders (nothing in lazy-usm reads them,
/// and no seed measured them).
pub(crate) const EXECUTION_UNITS: [u32; 4] = [8, 4, 8, 8];
/// The EUs' SIMD width.
pub(crate) const SIMD_WIDTH: u32 = 16;

pub(crate) unsafe extern "C" fn get_module_properties(
    device: ze_device_handle_t,
    properties: *mut ze_device_module_properties_t,
) -> ze_result_t {
    guard(|| {
        registry::device(device as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        // The SPIR-V the simulator's module reader accepts; the rest are plausible limits of
        // the kind a Xe2 GPU reports (no seed measured them).
        properties.spirvVersionSupported = ze_make_version(1, 4);
        // DP4A as compute-runtime sets it for every device (`Device::getKernelProperties`).
        properties.flags = ze_device_module_flag_t::ZE_DEVICE_MODULE_FLAG_FP16.0
            | ze_device_module_flag_t::ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS.0
            | ze_device_module_flag_t::ZE_DEVICE_MODULE_FLAG_DP4A.0;
        let fp = ze_device_fp_flag_t::ZE_DEVICE_FP_FLAG_DENORM.0
            | ze_device_fp_flag_t::ZE_DEVICE_FP_FLAG_INF_NAN.0
            | ze_device_fp_flag_t::ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST.0
            | ze_device_fp_flag_t::ZE_DEVICE_FP_FLAG_FMA.0;
        properties.fp16flags = fp;
        properties.fp32flags = fp;
        properties.fp64flags = 0;
        properties.maxArgumentsSize = 2048;
        properties.printfBufferSize = 4 << 20;
        properties.nativeKernelSupported.id = [0; 16];
        // Float atomics as compute-runtime reports them (`CompilerProductHelper::
        // getKernelFp32AtomicCapabilities` and `...Fp64...`: load/store, add, min/max, global
        // and local; `CompilerReleaseHelper::getKernelFp16AtomicCapabilities`: load/store and
        // min/max, no release-specific extras assumed).
        type Fp = ze_device_fp_atomic_ext_flag_t;
        let load_store = Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_LOAD_STORE.0
            | Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_LOAD_STORE.0;
        let add = Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_ADD.0
            | Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_ADD.0;
        let min_max = Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_GLOBAL_MIN_MAX.0
            | Fp::ZE_DEVICE_FP_ATOMIC_EXT_FLAG_LOCAL_MIN_MAX.0;
        let mut next = properties.pNext;
        while !next.is_null() {
            // SAFETY: every extension struct starts with stype and pNext (spec).
            let (stype, following) = unsafe { super::chain_link(next) };
            if stype == ze_structure_type_t::ZE_STRUCTURE_TYPE_FLOAT_ATOMIC_EXT_PROPERTIES {
                // SAFETY: the caller's chained struct of the type its stype names.
                let atomics = unsafe { &mut *(next as *mut ze_float_atomic_ext_properties_t) };
                atomics.fp16Flags = load_store | min_max;
                atomics.fp32Flags = load_store | add | min_max;
                atomics.fp64Flags = load_store | add | min_max;
            }
            next = following;
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_cache_properties(
    device: ze_device_handle_t,
    count: *mut u32,
    properties: *mut ze_device_cache_properties_t,
) -> ze_result_t {
    guard(|| {
        registry::device(device as usize)?;
        // SAFETY: the caller's count pointer.
        let requested = unsafe { out(count) }?;
        if *requested == 0 || properties.is_null() {
            *requested = 1;
            return Ok(());
        }
        // SAFETY: the caller provides at least one element.
        let properties = unsafe { out(properties) }?;
        // One last-level cache; its size is a placeholder (not read off a B70).
        properties.flags = 0;
        properties.cacheSize = 16 << 20;
        *requested = 1;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_image_properties(
    device: ze_device_handle_t,
    properties: *mut ze_device_image_properties_t,
) -> ze_result_t {
    guard(|| {
        registry::device(device as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        // The simulator implements no images: it reports none, as a device without image
        // support does (all limits zero, samplers' too: programs and level-zero-tests read
        // any non-zero limit as image support, though samplers can be made and passed to
        // kernels here).
        properties.maxImageDims1D = 0;
        properties.maxImageDims2D = 0;
        properties.maxImageDims3D = 0;
        properties.maxImageBufferSize = 0;
        properties.maxImageArraySlices = 0;
        properties.maxSamplers = 0;
        properties.maxReadImageArgs = 0;
        properties.maxWriteImageArgs = 0;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_external_memory_properties(
    device: ze_device_handle_t,
    properties: *mut ze_device_external_memory_properties_t,
) -> ze_result_t {
    guard(|| {
        registry::device(device as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        // No import or export of external memory is simulated.
        properties.memoryAllocationImportTypes = 0;
        properties.memoryAllocationExportTypes = 0;
        properties.imageImportTypes = 0;
        properties.imageExportTypes = 0;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_status(device: ze_device_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::device(device as usize)?;
        if platform.lock().lost {
            Err(ze_result_t::ZE_RESULT_ERROR_DEVICE_LOST)
        } else {
            Ok(())
        }
    })
}

pub(crate) unsafe extern "C" fn get_root_device(
    device: ze_device_handle_t,
    root: *mut ze_device_handle_t,
) -> ze_result_t {
    guard(|| {
        registry::device(device as usize)?;
        // Every simulated device is a root device: it has none above it.
        // SAFETY: the caller's output pointer.
        *unsafe { out(root) }? = std::ptr::null_mut();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn synchronize(device: ze_device_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::device(device as usize)?;
        let state = platform.lock();
        // The jobs given to this device's engines before the call; later ones are not waited
        // for, so a thread that keeps submitting cannot hold this call up forever.
        let targets: Vec<(usize, u64)> = state
            .work
            .worker_jobs
            .iter()
            .filter(|(_, jobs)| jobs.device == index)
            .map(|(&worker, jobs)| (worker, jobs.submitted))
            .collect();
        platform.wait_until(state, u64::MAX, |state| {
            // A worker that is gone was idle when it went (its owner refuses to be destroyed
            // while busy).
            let done = targets.iter().all(|(worker, submitted)| {
                state
                    .work
                    .worker_jobs
                    .get(worker)
                    .is_none_or(|jobs| jobs.completed >= *submitted)
            });
            if done {
                for (worker, _) in &targets {
                    platform.observe_worker(state, *worker);
                }
            }
            done
        });
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_compute_properties(
    device: ze_device_handle_t,
    properties: *mut ze_device_compute_properties_t,
) -> ze_result_t {
    guard(|| {
        registry::device(device as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        // Plausible limits (a Xe2 GPU's are of this kind; no seed measured them): kernels'
        // group sizes are checked against them.
        let [x, y, z] = super::module::MAX_GROUP_SIZE;
        properties.maxTotalGroupSize = super::module::MAX_TOTAL_GROUP_SIZE;
        properties.maxGroupSizeX = x;
        properties.maxGroupSizeY = y;
        properties.maxGroupSizeZ = z;
        properties.maxGroupCountX = u32::MAX;
        properties.maxGroupCountY = u32::MAX;
        properties.maxGroupCountZ = u32::MAX;
        properties.maxSharedLocalMemory = crate::model::config::MAX_SHARED_LOCAL_MEMORY;
        properties.numSubGroupSizes = 3;
        properties.subGroupSizes = [8, 16, 32, 0, 0, 0, 0, 0];
        Ok(())
    })
}

/// A stable UUID: vendor and device id, then the PCI address bytes.
pub(crate) fn device_uuid(vendor: u32, device: u32, pci_address: &str) -> [u8; 16] {
    let mut uuid = [0u8; 16];
    uuid[0..2].copy_from_slice(&(vendor as u16).to_le_bytes());
    uuid[2..4].copy_from_slice(&(device as u16).to_le_bytes());
    if let Some((domain, bus, slot, function)) =
        crate::model::config::parse_pci_address(pci_address)
    {
        uuid[4..6].copy_from_slice(&(domain as u16).to_le_bytes());
        uuid[6] = bus as u8;
        uuid[7] = slot as u8;
        uuid[8] = function as u8;
    }
    uuid
}

pub(crate) unsafe extern "C" fn get_memory_properties(
    device: ze_device_handle_t,
    count: *mut u32,
    properties: *mut ze_device_memory_properties_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::device(device as usize)?;
        let config = &platform.config.devices[index as usize];
        // SAFETY: the caller's count pointer.
        let requested = unsafe { out(count) }?;
        if *requested == 0 || properties.is_null() {
            *requested = 1;
            return Ok(());
        }
        // SAFETY: the caller provides at least one element (count > 0 and non-null).
        let properties = unsafe { out(properties) }?;
        properties.flags = 0;
        // Placeholders: lazy-usm reads only the size.
        properties.maxClockRate = 2_400;
        properties.maxBusWidth = 256;
        properties.totalSize = config.memory_bytes;
        write_c_string(&mut properties.name, "GDDR6");
        *requested = 1;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_command_queue_group_properties(
    device: ze_device_handle_t,
    count: *mut u32,
    properties: *mut ze_command_queue_group_properties_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::device(device as usize)?;
        let groups =
            crate::model::queue_groups::queue_groups(&platform.config.devices[index as usize]);
        // SAFETY: the caller's count pointer.
        let requested = unsafe { out(count) }?;
        if *requested == 0 || properties.is_null() {
            *requested = groups.len() as u32;
            return Ok(());
        }
        let written = (*requested as usize).min(groups.len());
        for (slot, group) in groups.iter().take(written).enumerate() {
            // SAFETY: `slot < *count`; the caller's array keeps its stype/pNext, which this
            // leaves alone.
            let property = unsafe { &mut *properties.add(slot) };
            property.flags = group.flags;
            property.maxMemoryFillPatternSize = group.max_fill_pattern_size;
            property.numQueues = group.queues;
        }
        *requested = written as u32;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_p2p_properties(
    device: ze_device_handle_t,
    peer: ze_device_handle_t,
    properties: *mut ze_device_p2p_properties_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::device(device as usize)?;
        let (peer_platform, peer_index) = registry::device(peer as usize)?;
        if !std::sync::Arc::ptr_eq(&platform, &peer_platform) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        let link = if index == peer_index {
            LinkKind::Atomics
        } else {
            platform.config.link(index, peer_index)
        };
        let access = ze_device_p2p_property_flag_t::ZE_DEVICE_P2P_PROPERTY_FLAG_ACCESS.0;
        let atomics = ze_device_p2p_property_flag_t::ZE_DEVICE_P2P_PROPERTY_FLAG_ATOMICS.0;
        properties.flags = match link {
            _ if index != peer_index && !platform.config.peer_access_reported => 0,
            LinkKind::Atomics => access | atomics,
            LinkKind::Access | LinkKind::Corrupt | LinkKind::HostBacked => access,
            LinkKind::Refused => 0,
        };
        // Walk the extension chain for the bandwidth properties.
        let mut next = properties.pNext;
        while !next.is_null() {
            // SAFETY: every extension struct starts with stype and pNext (spec).
            let (stype, following) = unsafe { chain_link(next) };
            if stype == ze_structure_type_t::ZE_STRUCTURE_TYPE_DEVICE_P2P_BANDWIDTH_EXP_PROPERTIES {
                // SAFETY: the stype says which struct this is.
                let bandwidth =
                    unsafe { &mut *(next as *mut ze_device_p2p_bandwidth_exp_properties_t) };
                let timing = &platform.config.timing;
                let (rate, latency) = match link {
                    LinkKind::Refused => (0.0, 0),
                    _ if index == peer_index => (timing.same_device_gbps, timing.latency_ns),
                    // Through host memory: the staged rate.
                    LinkKind::HostBacked => (timing.staged_gbps, timing.latency_ns),
                    _ => (timing.p2p_gbps, timing.latency_ns),
                };
                // GB/s is bytes per nanosecond.
                bandwidth.logicalBandwidth = rate as u32;
                bandwidth.physicalBandwidth = rate as u32;
                bandwidth.bandwidthUnit = ze_bandwidth_unit_t::ZE_BANDWIDTH_UNIT_BYTES_PER_NANOSEC;
                bandwidth.logicalLatency = latency as u32;
                bandwidth.physicalLatency = latency as u32;
                bandwidth.latencyUnit = ze_latency_unit_t::ZE_LATENCY_UNIT_NANOSEC;
            }
            next = following;
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn can_access_peer(
    device: ze_device_handle_t,
    peer: ze_device_handle_t,
    value: *mut ze_bool_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::device(device as usize)?;
        let (peer_platform, peer_index) = registry::device(peer as usize)?;
        if !std::sync::Arc::ptr_eq(&platform, &peer_platform) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let allowed = index == peer_index
            || (platform.config.peer_access_reported
                && platform.config.link(index, peer_index) != LinkKind::Refused);
        // SAFETY: the caller's output pointer.
        *unsafe { out(value) }? = u8::from(allowed);
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn get_global_timestamps(
    device: ze_device_handle_t,
    host_timestamp: *mut u64,
    device_timestamp: *mut u64,
) -> ze_result_t {
    guard(|| {
        let (platform, _) = registry::device(device as usize)?;
        let now = platform.now_ns();
        // SAFETY: the caller's output pointers.
        *unsafe { out(host_timestamp) }? = now;
        // SAFETY: as above.
        *unsafe { out(device_timestamp) }? = now;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn pci_get_properties_ext(
    device: ze_device_handle_t,
    properties: *mut ze_pci_ext_properties_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::device(device as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        let config = &platform.config.devices[index as usize];
        let (domain, bus, slot, function) =
            crate::model::config::parse_pci_address(&config.pci_address)
                .ok_or(ze_result_t::ZE_RESULT_ERROR_UNKNOWN)?;
        properties.address = ze_pci_address_ext_t {
            domain,
            bus,
            device: slot,
            function,
        };
        // PCIe 5.0 x16: about 63 GB/s, the link generation and width's nominal rate.
        properties.maxSpeed = ze_pci_speed_ext_t {
            genVersion: 5,
            width: 16,
            maxBandwidth: 63_000_000_000,
        };
        Ok(())
    })
}
