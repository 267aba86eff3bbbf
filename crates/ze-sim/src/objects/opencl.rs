//! Kernels that run for real: a SPIR-V module is built by an OpenCL runtime on the host's CPU,
//! and a launch runs its kernel there on the simulated devices' memory, which is host memory.
//!
//! The runtime is the first OpenCL library found (`OPENCL_DYLIB_PATH`, a `;`-separated list of
//! library paths, else `libOpenCL.so.1`), and in it the first CPU device that takes SPIR-V
//! and fine-grained system SVM: the latter lets a kernel take any address as a pointer
//! argument, so the simulator passes the program's own USM pointers, and a kernel reads and
//! writes the same bytes that copies move. Intel's CPU runtime (`intel-opencl-rt` on PyPI)
//! has both; it is also what SYCL's CPU device runs DPC++ device code on, so SYCL's kernels
//! build as they would for a GPU.
//!
//! What the simulator cannot see: a kernel's loads and stores. Pointer arguments are checked
//! at append and at run (residency, P2P, a live allocation), but an address a kernel computes
//! or reads from a buffer is the kernel's business, as on a GPU; an address outside every
//! allocation faults this process instead of a device.

use cl3::command_queue::{
    create_command_queue_with_properties, enqueue_nd_range_kernel, finish, release_command_queue,
};
use cl3::context::create_context;
use cl3::device::{
    CL_DEVICE_IL_VERSION, CL_DEVICE_NAME, CL_DEVICE_SVM_CAPABILITIES,
    CL_DEVICE_SVM_FINE_GRAIN_SYSTEM, CL_DEVICE_TYPE_CPU, get_device_ids, get_device_info,
};
use cl3::error_codes::ClError;
use cl3::event::release_event;
use cl3::kernel::{
    CL_KERNEL_COMPILE_WORK_GROUP_SIZE, CL_KERNEL_LOCAL_MEM_SIZE, CL_KERNEL_PRIVATE_MEM_SIZE,
    create_kernel, get_kernel_work_group_info, release_kernel, set_kernel_arg,
    set_kernel_arg_svm_pointer,
};
use cl3::platform::{CL_PLATFORM_NAME, get_platform_ids, get_platform_info};
use cl3::program::{
    CL_PROGRAM_BUILD_LOG, build_program, compile_program, create_program_with_il,
    create_program_with_source, get_program_build_info, link_program, release_program,
    set_program_specialization_constant,
};
use cl3::types::{
    cl_command_queue, cl_context, cl_device_id, cl_int, cl_kernel, cl_platform_id, cl_program,
};
use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char, c_void};
use std::sync::{Arc, Mutex, OnceLock};

/// `clGetDeviceGlobalVariablePointerINTEL` (Intel's `cl_intel_global_variable_pointers`):
/// device, program, variable name, size out, address out.
type GlobalVariablePointerFn = unsafe extern "C" fn(
    cl_device_id,
    cl_program,
    *const c_char,
    *mut usize,
    *mut *mut c_void,
) -> cl_int;

/// `clGetDeviceFunctionPointerINTEL` (Intel's `cl_intel_function_pointers`): device, program,
/// function name, address out.
type FunctionPointerFn =
    unsafe extern "C" fn(cl_device_id, cl_program, *const c_char, *mut u64) -> cl_int;

/// The OpenCL device kernels run on.
pub(crate) struct Runtime {
    context: cl_context,
    device: cl_device_id,
    /// Platform and device, as the runtime names them.
    pub description: String,
    /// Where the runtime has them (Intel's CPU runtime answers both names, though its
    /// extension string lists neither): what `zeModuleGetGlobalPointer` and
    /// `zeModuleGetFunctionPointer` answer from.
    global_variable_pointer: Option<GlobalVariablePointerFn>,
    function_pointer: Option<FunctionPointerFn>,
}

/// The address of the runtime's extension function `name` on `platform`, if it has it.
fn extension_function(platform: cl_platform_id, name: &CStr) -> Option<*mut c_void> {
    let library = cl3::load_library().as_ref().ok()?;
    // A platform of this runtime and a nul-terminated name; the call only looks up.
    let address = library.clGetExtensionFunctionAddressForPlatform(platform, name.as_ptr())?;
    (!address.is_null()).then_some(address)
}

// SAFETY: OpenCL contexts and device ids may be used from any thread: every OpenCL call is
// thread-safe except setting a kernel's arguments (OpenCL 3.0, appendix A.2), and kernels are
// never shared here (one per launch).
unsafe impl Send for Runtime {}
// SAFETY: as for `Send`.
unsafe impl Sync for Runtime {}

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The process's OpenCL device, found on first use; why there is none otherwise.
pub(crate) fn runtime() -> Result<&'static Runtime, &'static str> {
    RUNTIME
        .get_or_init(find_runtime)
        .as_ref()
        .map_err(String::as_str)
}

fn find_runtime() -> Result<Runtime, String> {
    let platforms = get_platform_ids().map_err(|code| {
        format!(
            "no OpenCL runtime ({}; OPENCL_DYLIB_PATH names one)",
            ClError(code)
        )
    })?;
    for platform in platforms {
        let Ok(devices) = get_device_ids(platform, CL_DEVICE_TYPE_CPU) else {
            continue;
        };
        for device in devices {
            let svm: u64 = match get_device_info(device, CL_DEVICE_SVM_CAPABILITIES) {
                Ok(value) => value.into(),
                Err(_) => continue,
            };
            let il: String = match get_device_info(device, CL_DEVICE_IL_VERSION) {
                Ok(value) => value.into(),
                Err(_) => continue,
            };
            if svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM == 0 || !il.contains("SPIR-V") {
                continue;
            }
            let context = create_context(&[device], std::ptr::null(), None, std::ptr::null_mut())
                .map_err(|code| format!("clCreateContext: {}", ClError(code)))?;
            let platform_name: String = get_platform_info(platform, CL_PLATFORM_NAME)
                .map(Into::into)
                .unwrap_or_default();
            let device_name: String = get_device_info(device, CL_DEVICE_NAME)
                .map(Into::into)
                .unwrap_or_default();
            // SAFETY: each address is the runtime's function of that name, whose signature
            // its extension's specification gives as the type it is cast to.
            let (global_variable_pointer, function_pointer) = unsafe {
                (
                    extension_function(platform, c"clGetDeviceGlobalVariablePointerINTEL").map(
                        |address| {
                            std::mem::transmute::<*mut c_void, GlobalVariablePointerFn>(address)
                        },
                    ),
                    extension_function(platform, c"clGetDeviceFunctionPointerINTEL").map(
                        |address| std::mem::transmute::<*mut c_void, FunctionPointerFn>(address),
                    ),
                )
            };
            return Ok(Runtime {
                context,
                device,
                description: format!("{platform_name}: {device_name}"),
                global_variable_pointer,
                function_pointer,
            });
        }
    }
    Err("no OpenCL CPU device with SPIR-V and fine-grained system SVM".into())
}

/// A built SPIR-V module.
pub(crate) struct Program {
    program: cl_program,
    runtime: &'static Runtime,
}

// SAFETY: a program may be used from any thread (see `Runtime`); kernels made from it are
// per launch.
unsafe impl Send for Program {}
// SAFETY: as for `Send`.
unsafe impl Sync for Program {}

impl Program {
    /// The address and size of the program-scope variable `name`, in the program's own
    /// storage (host memory, which every kernel of the program reads and writes); `None` if
    /// the program has no such variable or the runtime cannot say.
    pub(crate) fn global_variable(&self, name: &CStr) -> Option<(usize, usize)> {
        let lookup = self.runtime.global_variable_pointer?;
        let mut size = 0usize;
        let mut address = std::ptr::null_mut();
        // SAFETY: the runtime's function with its specified signature, on a device and program
        // of the runtime, a nul-terminated name and two output pointers of the right types.
        let status = unsafe {
            lookup(
                self.runtime.device,
                self.program,
                name.as_ptr(),
                &mut size,
                &mut address,
            )
        };
        (status == 0 && !address.is_null()).then_some((address as usize, size))
    }

    /// The address of the function `name` of the program (a value a kernel may call through
    /// a function pointer); `None` if it has none or the runtime cannot say.
    pub(crate) fn function(&self, name: &CStr) -> Option<u64> {
        let lookup = self.runtime.function_pointer?;
        let mut address = 0u64;
        // SAFETY: as for `global_variable`, with one output pointer.
        let status = unsafe {
            lookup(
                self.runtime.device,
                self.program,
                name.as_ptr(),
                &mut address,
            )
        };
        (status == 0 && address != 0).then_some(address)
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program this value made and owns; kernels made from it were released.
        let _ = unsafe { release_program(self.program) };
    }
}

/// What identifies a build: the module's bytes, its build options and its specialization
/// constants' values.
type BuildKey = (Vec<u8>, String, Vec<(u32, Vec<u8>)>);

/// Builds already made: a module built again (each process's contexts, each test) costs a
/// lookup instead of a compile of about 150 ms.
static BUILDS: OnceLock<Mutex<HashMap<BuildKey, Arc<Program>>>> = OnceLock::new();

/// The options of a Level Zero build that OpenCL's standard build options name (OpenCL 3.0,
/// 5.8.6: math, optimization and kernel-argument options); the driver's own (`-ze-...`, `-g`)
/// and vendors' (`-cl-intel-...`) have no meaning for the CPU runtime here.
fn opencl_options(flags: &str) -> String {
    const STANDARD: &[&str] = &[
        "-cl-single-precision-constant",
        "-cl-denorms-are-zero",
        "-cl-fp32-correctly-rounded-divide-sqrt",
        "-cl-opt-disable",
        "-cl-mad-enable",
        "-cl-no-signed-zeros",
        "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only",
        "-cl-fast-relaxed-math",
        "-cl-uniform-work-group-size",
        "-cl-no-subgroup-ifp",
        "-cl-kernel-arg-info",
    ];
    flags
        .split_whitespace()
        .filter(|flag| STANDARD.contains(flag))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Builds `spirv` with the OpenCL options among `flags` and the specialization `constants`
/// (`SpecId` and value bytes); the build log when it fails. A `shared` build may be one made
/// before for the same key; one that is not (a module with program-scope variables, which
/// each module has its own of) is built anew.
pub(crate) fn build(
    runtime: &'static Runtime,
    spirv: &[u8],
    flags: &str,
    constants: Vec<(u32, Vec<u8>)>,
    shared: bool,
) -> Result<Arc<Program>, String> {
    let options = opencl_options(flags);
    let key = (spirv.to_vec(), options, constants);
    let builds = BUILDS.get_or_init(Default::default);
    if shared && let Some(program) = builds.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(program.clone());
    }
    let program = match build_il(runtime, &key, false) {
        Ok(program) => program,
        // Legacy atomics on generic pointers (`atomic_add(generic int*, int)`, which some
        // translators emit for OpenCL C 2.0 atomics) are no builtins of the CPU runtime: link
        // the module with definitions of them, and keep the first log if that fails too.
        Err(log) if log.contains("Symbols not found") => {
            build_il(runtime, &key, true).map_err(|_| log)?
        }
        Err(log) => return Err(log),
    };
    let program = Arc::new(program);
    if shared {
        builds
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, program.clone());
    }
    Ok(program)
}

/// OpenCL C 1.x's atomic functions on generic pointers, as OpenCL C 2.0's atomics define them
/// (relaxed, device scope: the 1.x functions order nothing), for int and uint.
fn generic_atomics_source() -> String {
    let mut source = String::new();
    for ty in ["int", "uint"] {
        let atomic = if ty == "int" {
            "atomic_int"
        } else {
            "atomic_uint"
        };
        let cast = format!("(volatile generic {atomic} *)p");
        let relaxed = "memory_order_relaxed, memory_scope_device";
        let mut binary = |name: &str, body: &str| {
            source.push_str(&format!(
                "{ty} __attribute__((overloadable)) {name}(volatile generic {ty} *p, {ty} v) \
                 {{ return {body}; }}\n"
            ));
        };
        for (name, op) in [
            ("atomic_add", "add"),
            ("atomic_sub", "sub"),
            ("atomic_and", "and"),
            ("atomic_or", "or"),
            ("atomic_xor", "xor"),
            ("atomic_min", "min"),
            ("atomic_max", "max"),
        ] {
            binary(
                name,
                &format!("atomic_fetch_{op}_explicit({cast}, v, {relaxed})"),
            );
        }
        binary(
            "atomic_xchg",
            &format!("atomic_exchange_explicit({cast}, v, {relaxed})"),
        );
        source.push_str(&format!(
            "{ty} __attribute__((overloadable)) atomic_inc(volatile generic {ty} *p) \
             {{ return atomic_fetch_add_explicit({cast}, 1, {relaxed}); }}\n\
             {ty} __attribute__((overloadable)) atomic_dec(volatile generic {ty} *p) \
             {{ return atomic_fetch_sub_explicit({cast}, 1, {relaxed}); }}\n\
             {ty} __attribute__((overloadable)) atomic_cmpxchg(volatile generic {ty} *p, {ty} c, {ty} v) \
             {{ atomic_compare_exchange_strong_explicit({cast}, &c, v, {relaxed}); return c; }}\n"
        ));
    }
    source
}

/// The compiled library of [`generic_atomics_source`], made once per process.
struct CompiledLibrary(cl_program);

// SAFETY: a compiled program, only ever an input of `clLinkProgram` (thread-safe, see `Runtime`).
unsafe impl Send for CompiledLibrary {}
// SAFETY: as for `Send`.
unsafe impl Sync for CompiledLibrary {}

static GENERIC_ATOMICS: OnceLock<Result<CompiledLibrary, String>> = OnceLock::new();

fn generic_atomics(runtime: &Runtime) -> Result<cl_program, String> {
    GENERIC_ATOMICS
        .get_or_init(|| {
            let source = generic_atomics_source();
            let program = create_program_with_source(runtime.context, &[source.as_str()])
                .map_err(|code| format!("clCreateProgramWithSource: {}", ClError(code)))?;
            compile_program(
                program,
                &[runtime.device],
                c"-cl-std=CL2.0",
                &[],
                &[],
                None,
                std::ptr::null_mut(),
            )
            .map_err(|code| format!("compiling the generic atomics: {}", ClError(code)))?;
            Ok(CompiledLibrary(program))
        })
        .as_ref()
        .map(|library| library.0)
        .map_err(Clone::clone)
}

/// Builds the module of `key` (bytes, options, specialization constants); with `link_atomics`,
/// compiles it and links it with the generic atomics instead. The build log when it fails.
fn build_il(
    runtime: &'static Runtime,
    key: &BuildKey,
    link_atomics: bool,
) -> Result<Program, String> {
    let (spirv, options, constants) = key;
    let program = create_program_with_il(runtime.context, spirv)
        .map_err(|code| format!("clCreateProgramWithIL: {}", ClError(code)))?;
    let program = Program { program, runtime };
    for (id, value) in constants {
        // SAFETY: `value` holds the constant's bytes, and its length is the size given.
        unsafe {
            set_program_specialization_constant(
                program.program,
                *id,
                value.len(),
                value.as_ptr() as *const c_void,
            )
        }
        .map_err(|code| format!("specialization constant {id}: {}", ClError(code)))?;
    }
    let options = CString::new(options.clone()).unwrap_or_default();
    let log_of = |program: &Program, code| {
        let log: String =
            get_program_build_info(program.program, runtime.device, CL_PROGRAM_BUILD_LOG)
                .map(Into::into)
                .unwrap_or_default();
        format!("{}\n{log}", ClError(code))
    };
    if !link_atomics {
        return match build_program(
            program.program,
            &[runtime.device],
            &options,
            None,
            std::ptr::null_mut(),
        ) {
            Ok(()) => Ok(program),
            Err(code) => Err(log_of(&program, code)),
        };
    }
    let library = generic_atomics(runtime)?;
    compile_program(
        program.program,
        &[runtime.device],
        &options,
        &[],
        &[],
        None,
        std::ptr::null_mut(),
    )
    .map_err(|code| log_of(&program, code))?;
    // SAFETY: two compiled programs of the runtime's context, for its device.
    let linked = unsafe {
        link_program(
            runtime.context,
            &[runtime.device],
            c"",
            &[program.program, library],
            None,
            std::ptr::null_mut(),
        )
    }
    .map_err(|code| format!("clLinkProgram: {}", ClError(code)))?;
    Ok(Program {
        program: linked,
        runtime,
    })
}

/// A kernel's properties, as its build found them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct KernelInfo {
    /// The group size its source requires (`reqd_work_group_size`), or zeros.
    pub required_group_size: [u32; 3],
    /// Local memory its source declares, in bytes.
    pub local_memory_bytes: u32,
    /// Private memory per work item, in bytes.
    pub private_memory_bytes: u32,
}

/// One argument of a launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Argument {
    /// An address in the process (USM), or null.
    Pointer(usize),
    /// Local memory of this many bytes.
    Local(usize),
    /// A value's bytes.
    Value(Vec<u8>),
    /// A sampler of these properties, made for the launch.
    Sampler {
        normalized: bool,
        addressing: cl3::sampler::cl_addressing_mode,
        filter: cl3::sampler::cl_filter_mode,
    },
}

impl Argument {
    /// The OpenCL sampler a Level Zero sampler's descriptor names (Level Zero's `CLAMP` is
    /// OpenCL's clamp to edge, its `CLAMP_TO_BORDER` OpenCL's `CLAMP`, as both specifications
    /// describe them).
    pub(crate) fn sampler(
        address_mode: level_zero_sys::ze_sampler_address_mode_t,
        filter_mode: level_zero_sys::ze_sampler_filter_mode_t,
        normalized: bool,
    ) -> Self {
        use cl3::memory::{
            CL_ADDRESS_CLAMP, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_MIRRORED_REPEAT,
            CL_ADDRESS_NONE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR, CL_FILTER_NEAREST,
        };
        use level_zero_sys::{
            ze_sampler_address_mode_t as Mode, ze_sampler_filter_mode_t as Filter,
        };
        let addressing = match address_mode {
            Mode::ZE_SAMPLER_ADDRESS_MODE_REPEAT => CL_ADDRESS_REPEAT,
            Mode::ZE_SAMPLER_ADDRESS_MODE_CLAMP => CL_ADDRESS_CLAMP_TO_EDGE,
            Mode::ZE_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER => CL_ADDRESS_CLAMP,
            Mode::ZE_SAMPLER_ADDRESS_MODE_MIRROR => CL_ADDRESS_MIRRORED_REPEAT,
            _ => CL_ADDRESS_NONE,
        };
        let filter = if filter_mode == Filter::ZE_SAMPLER_FILTER_MODE_LINEAR {
            CL_FILTER_LINEAR
        } else {
            CL_FILTER_NEAREST
        };
        Argument::Sampler {
            normalized,
            addressing,
            filter,
        }
    }
}

/// A sampler object made for one launch, released when dropped.
struct SamplerObject(cl3::types::cl_sampler);

impl Drop for SamplerObject {
    fn drop(&mut self) {
        // SAFETY: the sampler this value made and owns; its launch has completed.
        let _ = unsafe { cl3::sampler::release_sampler(self.0) };
    }
}

/// A kernel object, released when dropped.
struct KernelObject(cl_kernel);

impl Drop for KernelObject {
    fn drop(&mut self) {
        // SAFETY: the kernel this value made and owns, used by no queued work any more.
        let _ = unsafe { release_kernel(self.0) };
    }
}

impl Program {
    fn kernel(&self, name: &str) -> Result<KernelObject, String> {
        let name = CString::new(name).map_err(|_| "a kernel name with a nul".to_string())?;
        create_kernel(self.program, &name)
            .map(KernelObject)
            .map_err(|code| format!("clCreateKernel: {}", ClError(code)))
    }

    /// The properties of kernel `name`.
    pub(crate) fn kernel_info(&self, name: &str) -> Result<KernelInfo, String> {
        let kernel = self.kernel(name)?;
        let device = self.runtime.device;
        let required: Vec<usize> =
            get_kernel_work_group_info(kernel.0, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE)
                .map(Into::into)
                .unwrap_or_default();
        let number = |parameter| -> u32 {
            get_kernel_work_group_info(kernel.0, device, parameter)
                .map(|value| u64::from(value).min(u64::from(u32::MAX)) as u32)
                .unwrap_or(0)
        };
        let mut required_group_size = [0u32; 3];
        for (slot, size) in required_group_size.iter_mut().zip(required) {
            *slot = u32::try_from(size).unwrap_or(u32::MAX);
        }
        Ok(KernelInfo {
            required_group_size,
            local_memory_bytes: number(CL_KERNEL_LOCAL_MEM_SIZE),
            private_memory_bytes: number(CL_KERNEL_PRIVATE_MEM_SIZE),
        })
    }

    /// Runs kernel `name` over `global` work items in groups of `local`, starting at `offset`,
    /// and returns when it has completed.
    ///
    /// # Safety
    /// The kernel reads and writes what its pointer arguments (and any address it computes)
    /// reach: that memory must stay valid, and used by nothing else that races with the
    /// kernel, until this returns.
    pub(crate) unsafe fn run(
        &self,
        name: &str,
        arguments: &[Argument],
        global: [usize; 3],
        local: [usize; 3],
        offset: [usize; 3],
    ) -> Result<(), String> {
        if global.contains(&0) {
            return Ok(());
        }
        let kernel = self.kernel(name)?;
        // Released once the launch below has completed.
        let mut samplers = Vec::new();
        for (index, argument) in arguments.iter().enumerate() {
            let index = index as u32;
            if let Argument::Sampler {
                normalized,
                addressing,
                filter,
            } = argument
            {
                let sampler = cl3::sampler::create_sampler(
                    self.runtime.context,
                    cl3::types::cl_bool::from(*normalized),
                    *addressing,
                    *filter,
                )
                .map(SamplerObject)
                .map_err(|code| format!("argument {index}: clCreateSampler: {}", ClError(code)))?;
                let handle = sampler.0;
                samplers.push(sampler);
                // SAFETY: the sampler's handle, whose bytes OpenCL copies at once.
                unsafe {
                    set_kernel_arg(
                        kernel.0,
                        index,
                        size_of::<cl3::types::cl_sampler>(),
                        (&raw const handle).cast::<c_void>(),
                    )
                }
                .map_err(|code| format!("argument {index}: {}", ClError(code)))?;
                continue;
            }
            // SAFETY: each value pointer is valid for the size given with it (a pointer's own
            // bytes, a value's bytes, or none for local memory); OpenCL copies them at once.
            let result = unsafe {
                match argument {
                    Argument::Pointer(address) => {
                        set_kernel_arg_svm_pointer(kernel.0, index, *address as *const c_void)
                    }
                    Argument::Local(bytes) => {
                        set_kernel_arg(kernel.0, index, *bytes, std::ptr::null())
                    }
                    Argument::Value(bytes) => set_kernel_arg(
                        kernel.0,
                        index,
                        bytes.len(),
                        bytes.as_ptr() as *const c_void,
                    ),
                    Argument::Sampler { .. } => unreachable!("set above"),
                }
            };
            result.map_err(|code| format!("argument {index}: {}", ClError(code)))?;
        }
        QUEUE.with(|queue| {
            let queue = queue.get(self.runtime)?;
            // SAFETY: the arrays hold 3 sizes each, as the work dimension says; the caller
            // keeps the memory the kernel reaches valid until `finish` below returns.
            let event = unsafe {
                enqueue_nd_range_kernel(
                    queue,
                    kernel.0,
                    3,
                    offset.as_ptr(),
                    global.as_ptr(),
                    local.as_ptr(),
                    0,
                    std::ptr::null(),
                )
            }
            .map_err(|code| format!("clEnqueueNDRangeKernel: {}", ClError(code)))?;
            let finished = finish(queue).map_err(|code| format!("clFinish: {}", ClError(code)));
            // SAFETY: the event the enqueue returned, not used after this.
            let _ = unsafe { release_event(event) };
            finished
        })
    }
}

/// Each thread's OpenCL queue, made when the thread first runs a kernel.
struct ThreadQueue(std::cell::Cell<Option<cl_command_queue>>);

impl ThreadQueue {
    fn get(&self, runtime: &Runtime) -> Result<cl_command_queue, String> {
        if let Some(queue) = self.0.get() {
            return Ok(queue);
        }
        // SAFETY: the runtime's live context and its device; no properties.
        let queue = unsafe {
            create_command_queue_with_properties(runtime.context, runtime.device, std::ptr::null())
        }
        .map_err(|code| format!("clCreateCommandQueueWithProperties: {}", ClError(code)))?;
        self.0.set(Some(queue));
        Ok(queue)
    }
}

impl Drop for ThreadQueue {
    fn drop(&mut self) {
        if let Some(queue) = self.0.get() {
            // SAFETY: this thread's queue, idle (every run finished it).
            let _ = unsafe { release_command_queue(queue) };
        }
    }
}

thread_local! {
    static QUEUE: ThreadQueue = const { ThreadQueue(std::cell::Cell::new(None)) };
}

/// The name of the runtime kernels run on, or why they do not run.
///
/// ```
/// // Either the device's description, or the reason there is none: never empty.
/// let found = ze_sim::kernel_runtime();
/// assert!(!found.as_ref().map_or_else(|why| why, |name| name).is_empty());
/// ```
pub fn kernel_runtime() -> Result<&'static str, &'static str> {
    runtime().map(|runtime| runtime.description.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_opencl_options_reach_the_build() {
        assert_eq!(
            opencl_options(
                "-ze-opt-level=2 -cl-fast-relaxed-math  -g -cl-intel-greater-than-4GB-buffer-required -cl-mad-enable"
            ),
            "-cl-fast-relaxed-math -cl-mad-enable"
        );
        assert_eq!(opencl_options(""), "");
    }

    #[test]
    fn bytes_that_are_no_module_do_not_build() {
        if std::env::var_os("CI").is_some() {
            runtime().expect("under CI the OpenCL runtime is installed");
        }
        if let Ok(runtime) = runtime() {
            let error = build(runtime, &[0; 20], "", Vec::new(), true)
                .err()
                .unwrap();
            assert!(error.contains("clCreateProgramWithIL"), "{error}");
        }
    }
}
