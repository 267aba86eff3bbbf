//! Pins values a wrong binding would get wrong. Expected figures are the spec 1.17 headers'
//! (`ze_api.h`, `ze_ddi.h`) and the x86-64 System V layout clang gives them.

use level_zero_sys::*;
use std::mem::{offset_of, size_of};

#[test]
fn structure_types_match_the_headers() {
    type S = ze_structure_type_t;
    assert_eq!(S::ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES.0, 0x1);
    assert_eq!(S::ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES.0, 0x3);
    assert_eq!(S::ZE_STRUCTURE_TYPE_CONTEXT_DESC.0, 0xd);
    assert_eq!(S::ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC.0, 0xe);
    assert_eq!(S::ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC.0, 0x15);
    assert_eq!(S::ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC.0, 0x16);
    assert_eq!(S::ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES.0, 0x10008);
    assert_eq!(S::ZE_STRUCTURE_TYPE_MEMORY_FREE_EXT_DESC.0, 0x1000a);
    assert_eq!(S::ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2.0, 0x0002_0006);
    assert_eq!(
        S::ZE_STRUCTURE_TYPE_DEVICE_P2P_BANDWIDTH_EXP_PROPERTIES.0,
        0x0002_000a
    );
    assert_eq!(S::ZE_STRUCTURE_TYPE_INIT_DRIVER_TYPE_DESC.0, 0x0002_0021);
    assert_eq!(S::ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT.0, 0x0001_000f);
    assert_eq!(S::ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES.0, 0x8);
}

#[test]
fn result_codes_match_the_headers() {
    type R = ze_result_t;
    assert_eq!(R::ZE_RESULT_SUCCESS.0, 0);
    assert_eq!(R::ZE_RESULT_NOT_READY.0, 1);
    assert_eq!(R::ZE_RESULT_ERROR_DEVICE_LOST.0, 0x7000_0001);
    assert_eq!(R::ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY.0, 0x7000_0002);
    assert_eq!(R::ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY.0, 0x7000_0003);
    assert_eq!(R::ZE_RESULT_ERROR_UNINITIALIZED.0, 0x7800_0001);
    assert_eq!(R::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE.0, 0x7800_0003);
    assert_eq!(R::ZE_RESULT_ERROR_INVALID_ARGUMENT.0, 0x7800_0004);
    assert_eq!(R::ZE_RESULT_ERROR_OVERLAPPING_REGIONS.0, 0x7800_001a);
    assert_eq!(R::ZE_RESULT_ERROR_UNKNOWN.0, 0x7fff_fffe);
}

#[test]
fn every_result_code_has_its_name() {
    assert_eq!(
        ze_result_name(ze_result_t(0x7000_0003)),
        Some("ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY")
    );
    assert_eq!(
        ze_result_name(ze_result_t::ZE_RESULT_ERROR_OVERLAPPING_REGIONS),
        Some("ZE_RESULT_ERROR_OVERLAPPING_REGIONS")
    );
    assert_eq!(ze_result_name(ze_result_t(0x7000_00ff)), None);
}

#[test]
fn struct_sizes_match_the_headers() {
    assert_eq!(size_of::<ze_driver_properties_t>(), 40);
    assert_eq!(size_of::<ze_device_properties_t>(), 368);
    assert_eq!(offset_of!(ze_device_properties_t, maxMemAllocSize), 40);
    assert_eq!(offset_of!(ze_device_properties_t, uuid), 96);
    assert_eq!(offset_of!(ze_device_properties_t, name), 112);
    assert_eq!(size_of::<ze_device_memory_properties_t>(), 296);
    assert_eq!(size_of::<ze_command_queue_group_properties_t>(), 40);
    assert_eq!(size_of::<ze_device_p2p_properties_t>(), 24);
    assert_eq!(size_of::<ze_device_p2p_bandwidth_exp_properties_t>(), 40);
    assert_eq!(size_of::<ze_command_queue_desc_t>(), 40);
    assert_eq!(size_of::<ze_device_mem_alloc_desc_t>(), 24);
    assert_eq!(size_of::<ze_memory_allocation_properties_t>(), 40);
    assert_eq!(size_of::<ze_kernel_timestamp_result_t>(), 32);
    assert_eq!(size_of::<ze_device_dditable_t>(), 28 * 8);
    assert_eq!(size_of::<ze_command_list_dditable_t>(), 52 * 8);
    assert_eq!(size_of::<ze_init_driver_type_desc_t>(), 24);
    assert_eq!(size_of::<ze_device_memory_access_properties_t>(), 40);
    assert_eq!(size_of::<ze_device_ip_version_ext_t>(), 24);
}

#[test]
fn versions_compose_like_the_macro() {
    assert_eq!(
        ze_api_version_t::ZE_API_VERSION_1_4.0,
        ze_make_version(1, 4)
    );
    assert_eq!(
        ze_api_version_t::ZE_API_VERSION_CURRENT,
        ze_api_version_t::ZE_API_VERSION_1_17
    );
    assert_eq!(ze_minor_version(ze_make_version(1, 10)), 10);
}
