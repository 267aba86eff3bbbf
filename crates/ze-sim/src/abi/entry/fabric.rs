//! Fabric topology (`ZE_experimental_fabric`), as compute-runtime builds it
//! (`level_zero/core/source/fabric/fabric.cpp`, `FabricVertex::createFromDevice`): each device is
//! a vertex with the device's UUID, type `DEVICE`, not remote, and its PCI address; a device with
//! no sub-devices has no sub-vertices. Edges come only from Xe Link (IAF) or a multi-tile device's
//! MDFI links, neither of which the simulated devices have: every pair of vertices has no edge, as
//! a PCIe-only machine reports, and no edge handle exists.

use super::device::device_uuid;
use super::{fill_array, guard, out};
use crate::abi::registry;
use level_zero_sys::*;

/// `zeDeviceGetFabricVertexExp`: the device's vertex.
pub(crate) unsafe extern "C" fn device_get_fabric_vertex(
    device: ze_device_handle_t,
    vertex: *mut ze_fabric_vertex_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::device(device as usize)?;
        // SAFETY: the caller's output pointer.
        let vertex = unsafe { out(vertex) }?;
        *vertex = platform.vertices[index as usize] as ze_fabric_vertex_handle_t;
        Ok(())
    })
}

/// `zeFabricVertexGetExp`: one vertex per device, in the devices' order.
pub(crate) unsafe extern "C" fn vertex_get(
    driver: ze_driver_handle_t,
    count: *mut u32,
    vertices: *mut ze_fabric_vertex_handle_t,
) -> ze_result_t {
    guard(|| {
        let platform = registry::driver(driver as usize)?;
        let handles = platform
            .vertices
            .iter()
            .map(|&handle| handle as ze_fabric_vertex_handle_t);
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, vertices, handles) }
    })
}

/// `zeFabricVertexGetSubVerticesExp`: none (no device has sub-devices).
pub(crate) unsafe extern "C" fn vertex_get_sub_vertices(
    vertex: ze_fabric_vertex_handle_t,
    count: *mut u32,
    sub_vertices: *mut ze_fabric_vertex_handle_t,
) -> ze_result_t {
    guard(|| {
        registry::fabric_vertex(vertex as usize)?;
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, sub_vertices, std::iter::empty()) }
    })
}

/// `zeFabricVertexGetPropertiesExp`: the device's UUID and PCI address.
pub(crate) unsafe extern "C" fn vertex_get_properties(
    vertex: ze_fabric_vertex_handle_t,
    properties: *mut ze_fabric_vertex_exp_properties_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::fabric_vertex(vertex as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        let config = &platform.config.devices[index as usize];
        let (domain, bus, slot, function) =
            crate::model::config::parse_pci_address(&config.pci_address)
                .ok_or(ze_result_t::ZE_RESULT_ERROR_UNKNOWN)?;
        properties.uuid.id = device_uuid(config.vendor_id, config.device_id, &config.pci_address);
        properties.type_ = ze_fabric_vertex_exp_type_t::ZE_FABRIC_VERTEX_EXP_TYPE_DEVICE;
        properties.remote = 0;
        properties.address = ze_fabric_vertex_pci_exp_address_t {
            domain,
            bus,
            device: slot,
            function,
        };
        Ok(())
    })
}

/// `zeFabricVertexGetDeviceExp`: the vertex's device.
pub(crate) unsafe extern "C" fn vertex_get_device(
    vertex: ze_fabric_vertex_handle_t,
    device: *mut ze_device_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = registry::fabric_vertex(vertex as usize)?;
        // SAFETY: the caller's output pointer.
        let device = unsafe { out(device) }?;
        *device = platform.devices[index as usize] as ze_device_handle_t;
        Ok(())
    })
}

/// `zeFabricEdgeGetExp`: no edge between any two vertices.
pub(crate) unsafe extern "C" fn edge_get(
    vertex_a: ze_fabric_vertex_handle_t,
    vertex_b: ze_fabric_vertex_handle_t,
    count: *mut u32,
    edges: *mut ze_fabric_edge_handle_t,
) -> ze_result_t {
    guard(|| {
        registry::fabric_vertex(vertex_a as usize)?;
        registry::fabric_vertex(vertex_b as usize)?;
        // SAFETY: the caller's pointers.
        unsafe { fill_array(count, edges, std::iter::empty()) }
    })
}

/// `zeFabricEdgeGetVerticesExp`: there is no edge, so no handle is one.
pub(crate) unsafe extern "C" fn edge_get_vertices(
    edge: ze_fabric_edge_handle_t,
    _vertex_a: *mut ze_fabric_vertex_handle_t,
    _vertex_b: *mut ze_fabric_vertex_handle_t,
) -> ze_result_t {
    no_edge(edge)
}

/// `zeFabricEdgeGetPropertiesExp`: there is no edge, so no handle is one.
pub(crate) unsafe extern "C" fn edge_get_properties(
    edge: ze_fabric_edge_handle_t,
    _properties: *mut ze_fabric_edge_exp_properties_t,
) -> ze_result_t {
    no_edge(edge)
}

fn no_edge(edge: ze_fabric_edge_handle_t) -> ze_result_t {
    if edge.is_null() {
        ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_HANDLE
    } else {
        ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT
    }
}
