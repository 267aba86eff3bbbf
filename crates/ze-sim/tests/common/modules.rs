//! Modules, kernels and launches through the raw Level Zero API, for the tests that build and
//! run kernels.

use super::{Sim, ok};
use level_zero_sys::*;
use std::ffi::{CString, c_void};
use std::ptr::null_mut;

/// Builds a module from `bytes`; the result and the build log's text.
pub fn build(
    sim: &Sim,
    context: ze_context_handle_t,
    device: u32,
    format: ze_module_format_t,
    bytes: &[u8],
) -> (Result<ze_module_handle_t, ze_result_t>, String) {
    let desc = ze_module_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_MODULE_DESC,
        format,
        inputSize: bytes.len(),
        pInputModule: bytes.as_ptr(),
        ..Default::default()
    };
    build_with(sim, context, device, &desc)
}

/// Builds a module from `desc` (whose pointers the caller keeps valid); the result and the
/// build log's text.
pub fn build_with(
    sim: &Sim,
    context: ze_context_handle_t,
    device: u32,
    desc: &ze_module_desc_t,
) -> (Result<ze_module_handle_t, ze_result_t>, String) {
    let (mut module, mut log) = (null_mut(), null_mut());
    // SAFETY: the caller's valid descriptor; valid output pointers.
    let result = unsafe {
        (sim.api.module_create)(
            context,
            sim.devices[device as usize],
            desc,
            &mut module,
            &mut log,
        )
    };
    let mut size = 0;
    // SAFETY: a build log this call made; size query, then fill.
    let text = unsafe {
        ok((sim.api.module_build_log_get_string)(
            log,
            &mut size,
            null_mut(),
        ));
        let mut text = vec![0 as std::ffi::c_char; size];
        ok((sim.api.module_build_log_get_string)(
            log,
            &mut size,
            text.as_mut_ptr(),
        ));
        ok((sim.api.module_build_log_destroy)(log));
        std::ffi::CStr::from_ptr(text.as_ptr())
            .to_string_lossy()
            .into_owned()
    };
    let outcome = if result == ze_result_t::ZE_RESULT_SUCCESS {
        Ok(module)
    } else {
        Err(result)
    };
    (outcome, text)
}

pub fn kernel(
    sim: &Sim,
    module: ze_module_handle_t,
    name: &str,
) -> Result<ze_kernel_handle_t, ze_result_t> {
    let name = CString::new(name).unwrap();
    let desc = ze_kernel_desc_t {
        stype: ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_DESC,
        pKernelName: name.as_ptr(),
        ..Default::default()
    };
    let mut kernel = null_mut();
    // SAFETY: valid descriptor and output pointer.
    let result = unsafe { (sim.api.kernel_create)(module, &desc, &mut kernel) };
    if result == ze_result_t::ZE_RESULT_SUCCESS {
        Ok(kernel)
    } else {
        Err(result)
    }
}

pub fn set_argument<T>(
    sim: &Sim,
    kernel: ze_kernel_handle_t,
    index: u32,
    value: &T,
) -> ze_result_t {
    // SAFETY: `value` is `size_of::<T>()` readable bytes.
    unsafe {
        (sim.api.kernel_set_argument_value)(
            kernel,
            index,
            size_of::<T>(),
            value as *const T as *const c_void,
        )
    }
}

/// Launches `kernel` over `items` work items (groups of 4) on `list` and waits.
pub fn launch(
    sim: &Sim,
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    done: ze_event_handle_t,
    items: u32,
) -> ze_result_t {
    // SAFETY: a kernel and list of this test; group counts valid for the call.
    unsafe {
        ok((sim.api.kernel_set_group_size)(kernel, 4, 1, 1));
        let groups = ze_group_count_t {
            groupCountX: items / 4,
            groupCountY: 1,
            groupCountZ: 1,
        };
        let result =
            (sim.api.command_list_append_launch_kernel)(list, kernel, &groups, done, 0, null_mut());
        if result == ze_result_t::ZE_RESULT_SUCCESS {
            sim.wait(done);
            ok((sim.api.event_host_reset)(done));
        }
        result
    }
}

/// Reads `items` u32s of device memory back through a copy.
pub fn read_u32(
    sim: &Sim,
    list: ze_command_list_handle_t,
    done: ze_event_handle_t,
    from: *mut c_void,
    items: usize,
) -> Vec<u32> {
    let mut out = vec![0u32; items];
    ok(sim.copy(
        list,
        out.as_mut_ptr() as *mut c_void,
        from,
        items * 4,
        done,
        &mut [],
    ));
    sim.wait(done);
    // SAFETY: an event of this test.
    ok(unsafe { (sim.api.event_host_reset)(done) });
    out
}
