//! Modules, build logs, kernels and kernel launches.
//!
//! A SPIR-V module is checked and its entry points read, so a kernel exists exactly when the
//! module declares it. A native binary is the simulator's own (its SPIR-V again), Intel's zebin
//! (built from the SPIR-V it carries; refused when it holds machine code only: see
//! `zebin_source`), or else opaque (any kernel name, any argument index). Kernels
//! named like the simulator's built-ins run as the simulator's own (see `exec::Builtin`); a
//! module with code is built by OpenCL when a runtime is present (`opencl`), failing as the
//! driver's build fails, and its kernels run for real; others run as no-ops that still check
//! their pointer arguments' residency.

use super::{fill_array, guard, input, native_binary, out};
use crate::abi::registry::{self, Object};
use crate::engine::commands::{Command, Launch};
use crate::engine::platform::Inner;
use crate::objects::module::{ArgumentForm, BuildLog, Builtin, Code, Kernel, KernelState, Module};
use crate::objects::opencl::{self, KernelInfo};
use crate::objects::sampler::Sampler;
use crate::objects::spirv;
use crate::objects::zebin;
use level_zero_sys::*;
use std::ffi::{CStr, CString, c_char, c_void};
use std::sync::{Arc, Mutex};

/// The most bytes a null-valued argument is made of (OpenCL's largest parameter size on Intel's
/// GPUs is 2 KiB; a driver refuses more).
const MAX_ARGUMENT_BYTES: usize = 2048;

/// Most arguments an opaque (native) kernel may be given.
const NATIVE_ARGUMENTS: u32 = 64;

/// The device limits kernels are checked against (`zeDeviceGetComputeProperties`).
pub(crate) const MAX_GROUP_SIZE: [u32; 3] = [1024, 1024, 64];
pub(crate) const MAX_TOTAL_GROUP_SIZE: u32 = 1024;

fn adopt(platform: &Arc<Inner>, context: usize, object: Object) -> usize {
    let mut state = platform.lock();
    match object {
        Object::Module(_) => state.counters.live_modules += 1,
        Object::Kernel(_) => state.counters.live_kernels += 1,
        _ => state.counters.live_build_logs += 1,
    }
    *state.uses.context_children.entry(context).or_default() += 1;
    drop(state);
    registry::register(platform, object)
}

fn release(platform: &Inner, context: usize, object: &Object) {
    let mut state = platform.lock();
    match object {
        Object::Module(_) => state.counters.live_modules -= 1,
        Object::Kernel(_) => state.counters.live_kernels -= 1,
        _ => state.counters.live_build_logs -= 1,
    }
    if let Some(children) = state.uses.context_children.get_mut(&context) {
        *children = children.saturating_sub(1);
    }
}

pub(crate) unsafe extern "C" fn module_create(
    context: ze_context_handle_t,
    device: ze_device_handle_t,
    desc: *const ze_module_desc_t,
    module: *mut ze_module_handle_t,
    build_log: *mut ze_module_build_log_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, index) = super::context::context_device(context, device)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        // SAFETY: the caller's output pointer.
        let module = unsafe { out(module) }?;
        if desc.pInputModule.is_null() || desc.inputSize == 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // SAFETY: the caller's module of `inputSize` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(desc.pInputModule, desc.inputSize) };
        // What builds the module: SPIR-V with the descriptor's flags and constants, or a
        // native binary the simulator wrote; `None` for an opaque native binary.
        let source = match desc.format {
            // SAFETY: the caller's descriptor's optional flags and constants.
            ze_module_format_t::ZE_MODULE_FORMAT_IL_SPIRV => {
                Some(unsafe { source_of(bytes, desc) })
            }
            ze_module_format_t::ZE_MODULE_FORMAT_NATIVE => match native_binary::decode(bytes) {
                Some(source) => Some(Ok(source)),
                // The simulator's own form, damaged (a cache cut short): no module.
                None if native_binary::is_ours(bytes) => {
                    Some(Err("a damaged native binary of the simulator".to_string()))
                }
                None => match zebin::read(bytes) {
                    Ok(zebin) => zebin.map(|zebin| zebin_source(&platform, zebin)),
                    Err(why) => Some(Err(why)),
                },
            },
            _ => return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION),
        };
        let (kernels, log) = match &source {
            Some(Ok(source)) => match spirv::entry_points(&source.spirv) {
                Ok(entries) => (Ok(Some(entries)), String::new()),
                Err(error) => (Err(()), format!("error: invalid SPIR-V module: {error}\n")),
            },
            Some(Err(why)) => (Err(()), format!("error: {why}\n")),
            None => (Ok(None), String::new()),
        };
        let source = source.and_then(Result::ok);
        let contents = source
            .as_ref()
            .and_then(|source| lazy_usm_spirv::contents(&source.spirv).ok());
        let has_code = contents.as_ref().is_some_and(|contents| contents.has_code);
        let has_imports = contents
            .as_ref()
            .is_some_and(|contents| contents.has_imports);
        let attributes = source
            .as_ref()
            .and_then(|source| lazy_usm_spirv::source_attributes(&source.spirv).ok())
            .unwrap_or_default();
        let binary = source
            .as_ref()
            .map_or_else(|| bytes.to_vec(), native_binary::encode);
        let (kernels, log, program) = match (kernels, &source) {
            (Ok(Some(entries)), Some(source)) if platform.config.execute_kernels => {
                match build_with_opencl(source) {
                    Ok(Ok(program)) => (Ok(Some(entries)), log, program),
                    Ok(Err(opencl_log)) => {
                        // The CPU runtime could not build what a GPU driver may (Intel's
                        // GPU-only SPIR-V extensions): the module stays, its kernels run as
                        // no-ops, and the log says so.
                        platform.lock().counters.modules_not_built += 1;
                        let warning = format!(
                            "warning: the simulator's OpenCL CPU runtime could not build this \
                             module, so its kernels run as no-ops:\n{opencl_log}\n"
                        );
                        (Ok(Some(entries)), warning, None)
                    }
                    Err(why) => (Err(()), format!("error: {why}\n"), None),
                }
            }
            (other, _) => (other, log, None),
        };
        if !build_log.is_null() {
            let object = Object::BuildLog(Arc::new(BuildLog {
                context: context as usize,
                text: CString::new(log).unwrap_or_default(),
            }));
            let handle = adopt(&platform, context as usize, object);
            // SAFETY: the caller's optional output pointer, not null here.
            unsafe { build_log.write(handle as ze_module_build_log_handle_t) };
        }
        let kernels = kernels.map_err(|()| ze_result_t::ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)?;
        let names = kernels
            .iter()
            .flatten()
            .filter_map(|entry| CString::new(entry.name.clone()).ok())
            .collect();
        let object = Object::Module(Arc::new(Module {
            context: context as usize,
            device: index,
            kernels,
            names,
            program,
            has_code,
            binary,
            attributes,
            has_imports,
        }));
        *module = adopt(&platform, context as usize, object) as ze_module_handle_t;
        Ok(())
    })
}

/// What builds a module from Intel's native binary: the SPIR-V it carries, with the options it
/// was built with, as compute-runtime rebuilds one from its intermediate representation (the
/// simulator runs that even where the driver would run the machine code: the same program).
/// One of machine code only is refused: no CPU runs a GPU's instructions, and a module whose
/// kernels silently did nothing would give its client wrong results, where a refused one lets
/// the client take another way (oneMKL's generated kernels fall back to its SPIR-V ones).
fn zebin_source(platform: &Inner, zebin: zebin::Zebin) -> Result<native_binary::Source, String> {
    match zebin.spirv {
        Some(spirv) => {
            // Its constants, each at its size in the module (compute-runtime hands the
            // compiler 64-bit values).
            let contents = lazy_usm_spirv::contents(&spirv).map_err(|error| error.to_string())?;
            let mut constants = Vec::with_capacity(zebin.constants.len());
            for (id, value) in zebin.constants {
                let size = constant_size(&contents, id)?;
                let bytes = value.to_le_bytes();
                constants.push((id, bytes[..size.min(bytes.len())].to_vec()));
            }
            Ok(native_binary::Source {
                spirv,
                flags: zebin.build_options,
                constants,
            })
        }
        None => {
            platform.lock().counters.native_binaries_refused += 1;
            Err(format!(
                "the simulator cannot run this native binary: it holds only GPU machine code \
                 (kernels {}) and no SPIR-V to run instead",
                zebin.kernels.join(", ")
            ))
        }
    }
}

/// The size of the module's specialization constant `id`; why not, when it has none.
fn constant_size(contents: &lazy_usm_spirv::Contents, id: u32) -> Result<usize, String> {
    contents
        .specialization_constants
        .iter()
        .find(|&&(spec_id, _)| spec_id == id)
        .map(|&(_, size)| size)
        .ok_or_else(|| format!("the module has no specialization constant {id}"))
}

/// Builds a SPIR-V module with code through OpenCL: `None` when it has none (a module of
/// declarations, as tests write) or no runtime is present, so its kernels run as no-ops;
/// OpenCL's log when its build fails (`Ok(Err)`); why the module is refused (`Err`).
fn build_with_opencl(
    source: &native_binary::Source,
) -> Result<Result<Option<Arc<opencl::Program>>, String>, String> {
    let contents = lazy_usm_spirv::contents(&source.spirv).map_err(|error| error.to_string())?;
    if !contents.has_code {
        return Ok(Ok(None));
    }
    let Ok(runtime) = opencl::runtime() else {
        return Ok(Ok(None));
    };
    // Exported functions addressable, as a GPU driver has them (`zeModuleGetFunctionPointer`).
    let addressable = lazy_usm_spirv::with_exported_functions_addressable(&source.spirv)
        .map_err(|error| error.to_string())?;
    Ok(opencl::build(
        runtime,
        addressable.as_deref().unwrap_or(&source.spirv),
        &native_binary::compiler_options(&source.flags),
        source.constants.clone(),
        !contents.has_global_variables,
    )
    .map(Some))
}

/// What builds a SPIR-V module: its bytes, the descriptor's build flags, and its
/// specialization constants checked against the module's; why not, when they do not match.
///
/// # Safety
/// `desc`'s build flags, when not null, are a nul-terminated string, and its constants, when
/// not null, hold `numConstants` ids and value pointers, each value of its constant's size.
unsafe fn source_of(
    bytes: &[u8],
    desc: &ze_module_desc_t,
) -> Result<native_binary::Source, String> {
    let contents = lazy_usm_spirv::contents(bytes).map_err(|error| error.to_string())?;
    let flags = if desc.pBuildFlags.is_null() {
        String::new()
    } else {
        // SAFETY: the caller's nul-terminated flags.
        unsafe { CStr::from_ptr(desc.pBuildFlags) }
            .to_string_lossy()
            .into_owned()
    };
    let mut constants = Vec::new();
    if !desc.pConstants.is_null() {
        // SAFETY: the caller's constants descriptor.
        let given = unsafe { &*desc.pConstants };
        let count = given.numConstants as usize;
        if count > 0 && (given.pConstantIds.is_null() || given.pConstantValues.is_null()) {
            return Err("specialization constants without ids or values".into());
        }
        for index in 0..count {
            // SAFETY: `count` ids and value pointers (the caller's promise).
            let (id, value) = unsafe {
                (
                    *given.pConstantIds.add(index),
                    *given.pConstantValues.add(index),
                )
            };
            let size = constant_size(&contents, id)?;
            if value.is_null() {
                return Err(format!("specialization constant {id} has no value"));
            }
            // SAFETY: the value is of its constant's size (the caller's promise).
            let value = unsafe { std::slice::from_raw_parts(value as *const u8, size) };
            constants.push((id, value.to_vec()));
        }
    }
    Ok(native_binary::Source {
        spirv: bytes.to_vec(),
        flags,
        constants,
    })
}

/// `zeModuleGetNativeBinary`: the module's native binary (see `native_binary`).
pub(crate) unsafe extern "C" fn module_get_native_binary(
    module: ze_module_handle_t,
    size: *mut usize,
    binary: *mut u8,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::module(module as usize)?;
        // SAFETY: the caller's size pointer.
        let size = unsafe { out(size) }?;
        if binary.is_null() {
            *size = object.binary.len();
            return Ok(());
        }
        if *size < object.binary.len() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE);
        }
        // SAFETY: the caller's buffer of at least `*size` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(object.binary.as_ptr(), binary, object.binary.len())
        };
        *size = object.binary.len();
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn module_get_global_pointer(
    module: ze_module_handle_t,
    name: *const std::ffi::c_char,
    size: *mut usize,
    pointer: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::module(module as usize)?;
        if name.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // SAFETY: the caller's nul-terminated name.
        let name = unsafe { CStr::from_ptr(name) };
        // The variable lives in the OpenCL program's storage, host memory that the module's
        // kernels use: commands reach it as registered host memory, kernel arguments too (the
        // simulator keeps no residency for it, where a GPU has it in device memory). A module
        // whose kernels do not run for real has none to give.
        let (address, bytes) = object
            .program
            .as_ref()
            .and_then(|program| program.global_variable(name))
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)?;
        platform
            .lock()
            .memory
            .module_globals
            .insert(address, (bytes, module as usize));
        if !size.is_null() {
            // SAFETY: the caller's optional size pointer, not null here.
            unsafe { size.write(bytes) };
        }
        if !pointer.is_null() {
            // SAFETY: the caller's optional pointer, not null here.
            unsafe { pointer.write(address as *mut c_void) };
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn module_get_function_pointer(
    module: ze_module_handle_t,
    name: *const std::ffi::c_char,
    function: *mut *mut c_void,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::module(module as usize)?;
        if name.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // SAFETY: the caller's output pointer.
        let function = unsafe { out(function) }?;
        // SAFETY: the caller's nul-terminated name.
        let name = unsafe { CStr::from_ptr(name) };
        let address = object
            .program
            .as_ref()
            .and_then(|program| program.function(name))
            .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)?;
        *function = address as *mut c_void;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn module_destroy(module: ze_module_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::module(module as usize)?;
        // Kernels of the module should go first; compute-runtime destroys it anyway
        // (`ModuleImp::destroy` answers success), and so does the simulator, counting the
        // hazard. The kernels keep their code, so they stay usable.
        if registry::any_kernel_of(module as usize) {
            platform.lock().counters.destroy_hazards += 1;
        }
        registry::unregister(module as usize);
        let mut state = platform.lock();
        let before = state.memory.module_globals.len();
        state
            .memory
            .module_globals
            .retain(|_, &mut (_, owner)| owner != module as usize);
        if state.memory.module_globals.len() != before
            && let Some(program) = &object.program
        {
            state.memory.retired_programs.push(Arc::clone(program));
        }
        drop(state);
        release(&platform, object.context, &Object::Module(object.clone()));
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn module_get_kernel_names(
    module: ze_module_handle_t,
    count: *mut u32,
    names: *mut *const c_char,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::module(module as usize)?;
        // SAFETY: the caller's count and optional array; the names live as long as the module.
        unsafe { fill_array(count, names, object.names.iter().map(|name| name.as_ptr())) }
    })
}

pub(crate) unsafe extern "C" fn build_log_destroy(
    log: ze_module_build_log_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::build_log(log as usize)?;
        registry::unregister(log as usize);
        release(&platform, object.context, &Object::BuildLog(object.clone()));
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn build_log_get_string(
    log: ze_module_build_log_handle_t,
    size: *mut usize,
    text: *mut c_char,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::build_log(log as usize)?;
        // SAFETY: the caller's size pointer.
        let size = unsafe { out(size) }?;
        let bytes = object.text.as_bytes_with_nul();
        if text.is_null() {
            *size = bytes.len();
            return Ok(());
        }
        let written = (*size).min(bytes.len());
        if written == 0 {
            return Ok(());
        }
        // SAFETY: the caller's buffer of `*size` bytes; the copy ends with a nul.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, text, written);
            text.add(written - 1).write(0);
        }
        *size = written;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn kernel_create(
    module: ze_module_handle_t,
    desc: *const ze_kernel_desc_t,
    kernel: *mut ze_kernel_handle_t,
) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::module(module as usize)?;
        // SAFETY: the caller's descriptor.
        let desc = unsafe { input(desc) }?;
        // SAFETY: the caller's output pointer.
        let kernel = unsafe { out(kernel) }?;
        if desc.pKernelName.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // SAFETY: the caller's nul-terminated name.
        let name = unsafe { CStr::from_ptr(desc.pKernelName) }
            .to_str()
            .map_err(|_| ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_NAME)?
            .to_string();
        let (arguments, parameters) = match &object.kernels {
            Some(entries) => {
                let entry = entries
                    .iter()
                    .find(|entry| entry.name == name)
                    .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_NAME)?;
                (entry.parameters, entry.sizes.clone())
            }
            None => (
                Builtin::by_name(&name)
                    .map_or(NATIVE_ARGUMENTS, |builtin| builtin.arguments().len() as u32),
                Vec::new(),
            ),
        };
        let context = object.context;
        let builtin = Builtin::by_name(&name);
        let (code, info) = match (&object.program, builtin) {
            (Some(program), None) => {
                let info = program
                    .kernel_info(&name)
                    .map_err(|_| ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_NAME)?;
                let code = Code {
                    program: program.clone(),
                    name: name.clone(),
                    parameters: parameters.clone(),
                };
                (Some(Arc::new(code)), info)
            }
            _ => (None, KernelInfo::default()),
        };
        let source_attributes = object
            .attributes
            .iter()
            .find(|(of, _)| *of == name)
            .map(|(_, attributes)| attributes.clone())
            .unwrap_or_default();
        let object = Object::Kernel(Arc::new(Kernel {
            module: module as usize,
            context,
            device: object.device,
            builtin,
            name,
            arguments,
            parameters,
            code,
            has_code: object.has_code && builtin.is_none(),
            info,
            source_attributes,
            destroyed: Default::default(),
            state: Mutex::new(KernelState {
                // The size its source requires, where it requires one.
                group_size: if info.required_group_size == [0; 3] {
                    [1, 1, 1]
                } else {
                    info.required_group_size
                },
                global_offset: [0; 3],
                arguments: vec![None; arguments as usize],
                indirect: 0,
            }),
        }));
        *kernel = adopt(&platform, context, object) as ze_kernel_handle_t;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn kernel_destroy(kernel: ze_kernel_handle_t) -> ze_result_t {
    guard(|| {
        let (platform, object) = registry::kernel(kernel as usize)?;
        {
            let mut state = platform.lock();
            if state.uses.kernel_uses.contains_key(&(kernel as usize)) && !state.lost {
                // Queued launches still use it.
                state.counters.destroy_hazards += 1;
                return Err(ze_result_t::ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
            }
        }
        object
            .destroyed
            .store(true, std::sync::atomic::Ordering::Release);
        registry::unregister(kernel as usize);
        release(&platform, object.context, &Object::Kernel(object.clone()));
        Ok(())
    })
}

fn kernel_state(kernel: &Kernel) -> std::sync::MutexGuard<'_, KernelState> {
    kernel
        .state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether a work-group size fits the device's limits.
fn group_size_fits(size: [u32; 3]) -> bool {
    let total = size.iter().map(|&side| u64::from(side)).product::<u64>();
    size.iter().all(|&side| side > 0)
        && size
            .iter()
            .zip(MAX_GROUP_SIZE)
            .all(|(&side, max)| side <= max)
        && total <= u64::from(MAX_TOTAL_GROUP_SIZE)
}

pub(crate) unsafe extern "C" fn kernel_set_group_size(
    kernel: ze_kernel_handle_t,
    x: u32,
    y: u32,
    z: u32,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        let required = object.info.required_group_size;
        if !group_size_fits([x, y, z]) || (required != [0; 3] && required != [x, y, z]) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION);
        }
        kernel_state(&object).group_size = [x, y, z];
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn kernel_suggest_group_size(
    kernel: ze_kernel_handle_t,
    global_x: u32,
    global_y: u32,
    global_z: u32,
    x: *mut u32,
    y: *mut u32,
    z: *mut u32,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        if object.info.required_group_size != [0; 3] {
            // The size its source requires is the only one it takes.
            for (pointer, size) in [x, y, z].into_iter().zip(object.info.required_group_size) {
                // SAFETY: the caller's output pointers.
                *unsafe { out(pointer) }? = size;
            }
            return Ok(());
        }
        // The largest size in each dimension that divides the global size, within the limits
        // (x first, then what the total leaves for y and z).
        let mut budget = MAX_TOTAL_GROUP_SIZE;
        let mut suggest = |global: u32, max: u32| {
            let limit = max.min(budget).max(1);
            let size = (1..=limit.min(global.max(1)))
                .rev()
                .find(|&size| global.is_multiple_of(size))
                .unwrap_or(1);
            budget /= size;
            size
        };
        let sizes = [
            suggest(global_x, MAX_GROUP_SIZE[0]),
            suggest(global_y, MAX_GROUP_SIZE[1]),
            suggest(global_z, MAX_GROUP_SIZE[2]),
        ];
        for (pointer, size) in [x, y, z].into_iter().zip(sizes) {
            // SAFETY: the caller's output pointers.
            *unsafe { out(pointer) }? = size;
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn kernel_set_argument_value(
    kernel: ze_kernel_handle_t,
    index: u32,
    size: usize,
    value: *const c_void,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        if index >= object.arguments {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX);
        }
        if let Some(builtin) = object.builtin
            && builtin
                .arguments()
                .get(index as usize)
                .map(|&(size, _)| size)
                != Some(size)
        {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
        }
        // A kernel with code takes a pointer at a pointer's size and local memory as a size
        // with no value. A value may be given in fewer or more bytes than its parameter has,
        // but not in none: compute-runtime copies what it is given into the parameter's bytes
        // (`KernelImp::setArgImmediate`); the rest is zero here, where the driver leaves what
        // an earlier setting wrote.
        let mut value_size = None;
        if object.has_code {
            let fits = match object.parameters.get(index as usize) {
                Some(spirv::Parameter::Pointer { size: expected }) => size == *expected,
                Some(spirv::Parameter::Value { size: expected }) => {
                    value_size = Some(*expected);
                    size > 0
                }
                Some(spirv::Parameter::Local) => size > 0 && value.is_null(),
                Some(spirv::Parameter::Sampler) => {
                    // A live sampler's handle (compute-runtime's `setArgSampler` takes one).
                    if size != size_of::<ze_sampler_handle_t>() || value.is_null() {
                        return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
                    }
                    // SAFETY: the caller's value of the handle's size, checked above.
                    let handle = unsafe { (value as *const usize).read_unaligned() };
                    registry::sampler(handle)?;
                    true
                }
                _ => true,
            };
            if !fits {
                return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
            }
        }
        let is_local = object.has_code
            && matches!(
                object.parameters.get(index as usize),
                Some(spirv::Parameter::Local)
            );
        // A kernel whose parameters are unknown (no code) takes a large null value as what
        // compute-runtime makes of it, local memory (`KernelImp::setArgBuffer`), not as bytes.
        let unknown_local = !object.has_code && value.is_null() && size > MAX_ARGUMENT_BYTES;
        let mut bytes = if is_local || unknown_local {
            // Local memory: its size, kept as compute-runtime keeps it (a `uint32_t`,
            // `KernelImp::setArgBuffer`); too much of it fails the launch.
            u64::from(size as u32).to_le_bytes().to_vec()
        } else if value.is_null() {
            // A null value: a null pointer, or a value of zeros, no larger than a parameter.
            if size > MAX_ARGUMENT_BYTES {
                return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE);
            }
            vec![0; size]
        } else {
            // SAFETY: the caller's value of `size` bytes.
            unsafe { std::slice::from_raw_parts(value as *const u8, size) }.to_vec()
        };
        if let Some(expected) = value_size {
            bytes.resize(expected, 0);
        }
        let mut state = kernel_state(&object);
        if state.arguments.len() <= index as usize {
            state.arguments.resize(index as usize + 1, None);
        }
        state.arguments[index as usize] = Some(bytes);
        Ok(())
    })
}

/// The offset of the first work item's global id in each dimension, for the next launches.
pub(crate) unsafe extern "C" fn kernel_set_global_offset(
    kernel: ze_kernel_handle_t,
    x: u32,
    y: u32,
    z: u32,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        kernel_state(&object).global_offset = [x, y, z];
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn kernel_set_indirect_access(
    kernel: ze_kernel_handle_t,
    flags: ze_kernel_indirect_access_flags_t,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        kernel_state(&object).indirect = flags;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn kernel_get_indirect_access(
    kernel: ze_kernel_handle_t,
    flags: *mut ze_kernel_indirect_access_flags_t,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        // SAFETY: the caller's output pointer.
        *unsafe { out(flags) }? = kernel_state(&object).indirect;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn kernel_get_properties(
    kernel: ze_kernel_handle_t,
    properties: *mut ze_kernel_properties_t,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        // SAFETY: the caller's output pointer.
        let properties = unsafe { out(properties) }?;
        properties.numKernelArgs = object.arguments;
        let [x, y, z] = object.info.required_group_size;
        properties.requiredGroupSizeX = x;
        properties.requiredGroupSizeY = y;
        properties.requiredGroupSizeZ = z;
        properties.requiredNumSubGroups = 0;
        properties.requiredSubgroupSize = 0;
        properties.maxSubgroupSize = 32;
        properties.maxNumSubgroups = MAX_TOTAL_GROUP_SIZE / 8;
        properties.localMemSize = object.info.local_memory_bytes;
        properties.privateMemSize = object.info.private_memory_bytes;
        // Extensions asked for in the chain: the largest group it takes (the device's
        // limit), and the multiple of the SIMD width its groups should be.
        let mut next = properties.pNext;
        while !next.is_null() {
            // SAFETY: every extension struct starts with stype and pNext (spec).
            let (stype, following) = unsafe { super::chain_link(next) };
            match stype {
                ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_MAX_GROUP_SIZE_EXT_PROPERTIES => {
                    // SAFETY: the caller's chained struct of the type its stype names.
                    let limit =
                        unsafe { &mut *(next as *mut ze_kernel_max_group_size_properties_ext_t) };
                    limit.maxGroupSize = MAX_TOTAL_GROUP_SIZE;
                }
                ze_structure_type_t::ZE_STRUCTURE_TYPE_KERNEL_PREFERRED_GROUP_SIZE_PROPERTIES => {
                    // SAFETY: as above.
                    let preferred =
                        unsafe { &mut *(next as *mut ze_kernel_preferred_group_size_properties_t) };
                    preferred.preferredMultiple = super::device::SIMD_WIDTH;
                }
                _ => {}
            }
            next = following;
        }
        properties.spillMemSize = 0;
        // Stable per (module, name): the name's bytes, then the module handle.
        let mut id = [0u8; 16];
        for (slot, byte) in id.iter_mut().zip(object.name.bytes()) {
            *slot = byte;
        }
        properties.uuid.kid = id;
        properties.uuid.mid[..8].copy_from_slice(&(object.module as u64).to_le_bytes());
        Ok(())
    })
}

/// `zeModuleGetProperties`: `ZE_MODULE_PROPERTY_FLAG_IMPORTS` when the module imports symbols
/// (compute-runtime sets it while the module has unresolved externals).
pub(crate) unsafe extern "C" fn module_get_properties(
    module: ze_module_handle_t,
    properties: *mut ze_module_properties_t,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::module(module as usize)?;
        // SAFETY: the caller's output struct.
        let properties = unsafe { out(properties) }?;
        properties.flags = if object.has_imports {
            ze_module_property_flag_t::ZE_MODULE_PROPERTY_FLAG_IMPORTS.0
        } else {
            0
        };
        Ok(())
    })
}

/// `zeKernelGetSourceAttributes`: with `string` null, the size the attributes take (with
/// their nul); else the attributes, nul-terminated, into the caller's buffer `*string` of
/// `*size` bytes. A buffer too small for them is left as it is, with success, as
/// compute-runtime's `KernelImp::getSourceAttributes` leaves it (its `strncpy_s` refuses).
pub(crate) unsafe extern "C" fn kernel_get_source_attributes(
    kernel: ze_kernel_handle_t,
    size: *mut u32,
    string: *mut *mut c_char,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        // SAFETY: the caller's size pointer.
        let size = unsafe { out(size) }?;
        let text = CString::new(object.source_attributes.clone()).unwrap_or_default();
        let bytes = text.as_bytes_with_nul();
        let needed =
            u32::try_from(bytes.len()).map_err(|_| ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE)?;
        if string.is_null() {
            *size = needed;
            return Ok(());
        }
        // SAFETY: the caller's pointer to its buffer's address.
        let buffer = unsafe { *string };
        if buffer.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        if *size < needed {
            return Ok(());
        }
        // SAFETY: the caller's buffer of `*size` bytes, at least `needed`; the bytes end with
        // their nul.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, buffer, bytes.len())
        };
        Ok(())
    })
}

/// `zeKernelSetCacheConfig`: taken (compute-runtime's `KernelImp::setCacheConfig` records the
/// flags for the next launch's cache split, which the simulator does not model); flags other
/// than the spec's are refused.
pub(crate) unsafe extern "C" fn kernel_set_cache_config(
    kernel: ze_kernel_handle_t,
    flags: ze_cache_config_flags_t,
) -> ze_result_t {
    guard(|| {
        registry::kernel(kernel as usize)?;
        let known = ze_cache_config_flag_t::ZE_CACHE_CONFIG_FLAG_LARGE_SLM.0
            | ze_cache_config_flag_t::ZE_CACHE_CONFIG_FLAG_LARGE_DATA.0;
        if flags & !known != 0 {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ENUMERATION);
        }
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn kernel_get_name(
    kernel: ze_kernel_handle_t,
    size: *mut usize,
    name: *mut c_char,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        // SAFETY: the caller's size pointer.
        let size = unsafe { out(size) }?;
        let text = CString::new(object.name.clone()).unwrap_or_default();
        let bytes = text.as_bytes_with_nul();
        if name.is_null() {
            *size = bytes.len();
            return Ok(());
        }
        let written = (*size).min(bytes.len());
        if written > 0 {
            // SAFETY: the caller's buffer of `*size` bytes; the copy ends with a nul.
            unsafe {
                std::ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, name, written);
                name.add(written - 1).write(0);
            }
        }
        *size = written;
        Ok(())
    })
}

pub(crate) unsafe extern "C" fn append_launch_kernel(
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    groups: *const ze_group_count_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's arguments.
    unsafe { append_launch(list, kernel, groups, false, signal, wait_count, waits) }
}

/// `zeCommandListAppendLaunchKernelIndirect`: the group counts are read from `groups`, memory
/// the device reaches, when the launch runs (kernels with code; refused for the built-ins).
pub(crate) unsafe extern "C" fn append_launch_kernel_indirect(
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    groups: *const ze_group_count_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's arguments.
    unsafe { append_launch(list, kernel, groups, true, signal, wait_count, waits) }
}

/// `zeCommandListAppendLaunchKernelWithParameters`: a launch whose extension chain (cooperative
/// and dispatch hints) changes nothing here.
pub(crate) unsafe extern "C" fn append_launch_kernel_with_parameters(
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    groups: *const ze_group_count_t,
    _parameters: *const c_void,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    // SAFETY: the caller's arguments.
    unsafe { append_launch(list, kernel, groups, false, signal, wait_count, waits) }
}

/// A launch of `kernel` on `list`, its group counts at `groups`: read now, or when it runs
/// (`indirect`).
///
/// # Safety
/// `groups` must be null or valid for reading (now unless `indirect`), and `waits` valid for
/// `wait_count` reads.
#[allow(clippy::too_many_arguments)]
unsafe fn append_launch(
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    groups: *const ze_group_count_t,
    indirect: bool,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        // SAFETY: the caller's group counts (read now, or when the launch runs).
        let (launch, cross_context) = unsafe { launch_of(list, kernel, groups, indirect) }?;
        // SAFETY: the caller's wait list.
        let commands = unsafe {
            super::command::with_events(Some(Command::Launch(launch)), signal, wait_count, waits)
        }?;
        super::command::append(list, commands)?;
        count_cross_context(kernel, cross_context);
        Ok(())
    })
}

/// `zeCommandListAppendLaunchMultipleKernelsIndirect`: launch `index` of `count` kernels runs
/// with the group counts at `arguments[index]`, both read when the launches run, and only if
/// `index` is below the count at `count_buffer` then (the spec's "actual number of kernels").
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn append_launch_multiple_kernels_indirect(
    list: ze_command_list_handle_t,
    count: u32,
    kernels: *mut ze_kernel_handle_t,
    count_buffer: *const u32,
    arguments: *const ze_group_count_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    guard(|| {
        if kernels.is_null() || count_buffer.is_null() || arguments.is_null() {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
        }
        // SAFETY: the caller's array of `count` kernels.
        let handles = unsafe { std::slice::from_raw_parts(kernels, count as usize) };
        let mut commands = Vec::with_capacity(handles.len());
        let mut cross = Vec::with_capacity(handles.len());
        for (index, &kernel) in handles.iter().enumerate() {
            // Where this launch's counts are: computed, not read (the device reads them).
            let groups = index
                .checked_mul(size_of::<ze_group_count_t>())
                .and_then(|offset| (arguments as usize).checked_add(offset))
                .ok_or(ze_result_t::ZE_RESULT_ERROR_INVALID_SIZE)?;
            // SAFETY: an indirect launch only records where its counts are.
            let (mut launch, cross_context) =
                unsafe { launch_of(list, kernel, groups as *const ze_group_count_t, true) }?;
            launch.launch_if = Some((count_buffer as usize, index as u32));
            commands.push(Command::Launch(launch));
            cross.push((kernel, cross_context));
        }
        // SAFETY: the caller's wait list.
        let mut all =
            unsafe { super::command::with_events(None, std::ptr::null_mut(), wait_count, waits) }?;
        all.extend(commands);
        // SAFETY: no wait list.
        all.extend(unsafe { super::command::with_events(None, signal, 0, std::ptr::null_mut()) }?);
        super::command::append(list, all)?;
        for (kernel, cross_context) in cross {
            count_cross_context(kernel, cross_context);
        }
        Ok(())
    })
}

/// Counts a launch of a kernel of another context's module, once appended.
fn count_cross_context(kernel: ze_kernel_handle_t, cross_context: bool) {
    if let (true, Ok((platform, _))) = (cross_context, registry::kernel(kernel as usize)) {
        platform.lock().counters.cross_context_uses += 1;
    }
}

/// The launch of `kernel` on `list`, with the kernel's state now, as appended, and whether the
/// kernel is of another context's module (counted once the launch is appended).
///
/// # Safety
/// `groups` is the caller's: read now unless `indirect`, when only its address is kept.
unsafe fn launch_of(
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    groups: *const ze_group_count_t,
    indirect: bool,
) -> Result<(Launch, bool), ze_result_t> {
    {
        let (platform, object) = registry::kernel(kernel as usize)?;
        let (list_platform, list_object) = registry::list(list as usize)?;
        if !Arc::ptr_eq(&platform, &list_platform) || list_object.engine.device != object.device {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        if list_object.context != object.context {
            // A kernel of another context's module: compute-runtime's modules are the
            // device's, and it launches them (as for memory, see `exec::check_range`);
            // checking mode refuses it.
            if !platform.config.implicit_peer_import {
                return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
            }
        }
        let cross_context = list_object.context != object.context;
        // Kernels run on compute engines only.
        let (platform, _) = registry::kernel(kernel as usize)?;
        let groups_of_device = crate::model::queue_groups::queue_groups(
            &platform.config.devices[list_object.engine.device as usize],
        );
        let compute =
            ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE.0;
        if groups_of_device
            .get(list_object.engine.ordinal as usize)
            .is_none_or(|group| group.flags & compute == 0)
        {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        let (counts, groups_at) = if indirect {
            if groups.is_null() {
                return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER);
            }
            ([0; 3], Some(groups as usize))
        } else {
            // SAFETY: the caller's group counts.
            let groups = unsafe { input(groups) }?;
            (
                [groups.groupCountX, groups.groupCountY, groups.groupCountZ],
                None,
            )
        };
        let state = kernel_state(&object);
        let samplers = sampler_arguments(&object, &state.arguments);
        let launch = Launch {
            kernel: kernel as usize,
            kernel_destroyed: Arc::clone(&object.destroyed),
            samplers,
            builtin: object.builtin,
            code: object.code.clone(),
            group_size: state.group_size,
            global_offset: state.global_offset,
            groups_at,
            groups: counts,
            arguments: state.arguments.clone(),
            launch_if: None,
        };
        drop(state);
        Ok((launch, cross_context))
    }
}

/// The sampler behind each sampler argument of a kernel with code, by argument index, looked up
/// when the launch is appended (the handle's lookup result when it is none).
fn sampler_arguments(
    kernel: &Kernel,
    arguments: &[Option<Vec<u8>>],
) -> Vec<(usize, Result<Arc<Sampler>, ze_result_t>)> {
    let Some(code) = &kernel.code else {
        return Vec::new();
    };
    code.parameters
        .iter()
        .enumerate()
        .filter(|(_, parameter)| matches!(parameter, spirv::Parameter::Sampler))
        .filter_map(|(index, _)| {
            let bytes = arguments.get(index)?.as_ref()?;
            let handle = usize::from_ne_bytes(bytes.get(..8)?.try_into().ok()?);
            Some((index, registry::sampler(handle).map(|(_, sampler)| sampler)))
        })
        .collect()
}

/// A cooperative launch: the list's engine must run cooperative kernels (the compute group),
/// and all groups must fit at once (`zeKernelSuggestMaxCooperativeGroupCount`); then it runs as
/// any launch does.
pub(crate) unsafe extern "C" fn append_launch_cooperative_kernel(
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    groups: *const ze_group_count_t,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    let checked = guard(|| {
        let (platform, list_object) = registry::list(list as usize)?;
        let (_, object) = registry::kernel(kernel as usize)?;
        let cooperative =
            ze_command_queue_group_property_flag_t::ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COOPERATIVE_KERNELS.0;
        let groups_of_device = crate::model::queue_groups::queue_groups(
            &platform.config.devices[list_object.engine.device as usize],
        );
        if groups_of_device
            .get(list_object.engine.ordinal as usize)
            .is_none_or(|group| group.flags & cooperative == 0)
        {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
        }
        // SAFETY: the caller's group counts.
        let counts = unsafe { input(groups) }?;
        let total = u128::from(counts.groupCountX)
            * u128::from(counts.groupCountY)
            * u128::from(counts.groupCountZ);
        if total > u128::from(max_cooperative_groups(kernel_state(&object).group_size)) {
            return Err(ze_result_t::ZE_RESULT_ERROR_INVALID_ARGUMENT);
        }
        Ok(())
    });
    if checked != ze_result_t::ZE_RESULT_SUCCESS {
        return checked;
    }
    // SAFETY: the caller's list, kernel, group counts, events and wait list.
    unsafe { append_launch_kernel(list, kernel, groups, signal, wait_count, waits) }
}

/// How many groups of `group_size` run at once: each group's items in SIMD-wide hardware
/// threads, as many groups as the device's hardware threads hold (a model: compute-runtime
/// also counts barriers and local memory).
fn max_cooperative_groups(group_size: [u32; 3]) -> u32 {
    use super::device::{EXECUTION_UNITS, SIMD_WIDTH};
    let threads: u32 = EXECUTION_UNITS.iter().product();
    let items = group_size
        .iter()
        .map(|&side| u64::from(side))
        .product::<u64>();
    let per_group = items.div_ceil(u64::from(SIMD_WIDTH)).max(1);
    u32::try_from((u64::from(threads) / per_group).max(1)).unwrap_or(u32::MAX)
}

pub(crate) unsafe extern "C" fn kernel_suggest_max_cooperative_group_count(
    kernel: ze_kernel_handle_t,
    count: *mut u32,
) -> ze_result_t {
    guard(|| {
        let (_, object) = registry::kernel(kernel as usize)?;
        // SAFETY: the caller's output pointer.
        let count = unsafe { out(count) }?;
        *count = max_cooperative_groups(kernel_state(&object).group_size);
        Ok(())
    })
}

/// Sets the group size and every argument from `arguments` (an array of pointers to each
/// argument's value), as the separate calls would, then launches.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe extern "C" fn append_launch_kernel_with_arguments(
    list: ze_command_list_handle_t,
    kernel: ze_kernel_handle_t,
    groups: ze_group_count_t,
    group_size: ze_group_size_t,
    arguments: *mut *mut c_void,
    _next: *const c_void,
    signal: ze_event_handle_t,
    wait_count: u32,
    waits: *mut ze_event_handle_t,
) -> ze_result_t {
    let forms = match registry::kernel(kernel as usize) {
        Ok((_, object)) => object.argument_forms(),
        Err(error) => return error,
    };
    // Arguments the module does not describe cannot be read from the array.
    let Some(forms) = forms else {
        return ze_result_t::ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    };
    if arguments.is_null() && !forms.is_empty() {
        return ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
    // SAFETY: the caller's kernel.
    let result = unsafe {
        kernel_set_group_size(
            kernel,
            group_size.groupSizeX,
            group_size.groupSizeY,
            group_size.groupSizeZ,
        )
    };
    if result != ze_result_t::ZE_RESULT_SUCCESS {
        return result;
    }
    for (index, form) in forms.into_iter().enumerate() {
        // SAFETY: the caller's array holds a pointer per argument of the kernel.
        let value = unsafe { *arguments.add(index) };
        let result = match form {
            // SAFETY: `value` points to the argument's `size` bytes (the caller's promise).
            ArgumentForm::Value(size) => unsafe {
                kernel_set_argument_value(kernel, index as u32, size, value)
            },
            ArgumentForm::LocalSize if value.is_null() => {
                ze_result_t::ZE_RESULT_ERROR_INVALID_NULL_POINTER
            }
            ArgumentForm::LocalSize => {
                // SAFETY: `value` points to the local memory's size (the caller's promise);
                // read unaligned, as nothing promises a `size_t`'s alignment.
                let size = unsafe { value.cast::<usize>().read_unaligned() };
                // SAFETY: local memory takes no value.
                unsafe { kernel_set_argument_value(kernel, index as u32, size, std::ptr::null()) }
            }
        };
        if result != ze_result_t::ZE_RESULT_SUCCESS {
            return result;
        }
    }
    // SAFETY: the caller's list, kernel, events and wait list.
    unsafe { append_launch_kernel(list, kernel, &groups, signal, wait_count, waits) }
}
