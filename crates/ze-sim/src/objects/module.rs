//! Modules, kernels and build logs, and the code a kernel runs.

use crate::objects::opencl::{self, KernelInfo};
use crate::objects::spirv;
use level_zero_sys::*;
use std::ffi::CString;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// Kernels the simulator runs itself, recognised by entry-point name in any module (a module of
/// declarations only, or a native binary, may name them); other kernels run through OpenCL
/// when their module has code and a runtime is present (`opencl`), else as no-ops that still
/// check their arguments' residency.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    /// `lazy_usm_sim_fill_u32(global uint* dst, uint value)`: `dst[i] = value`.
    Fill,
    /// `lazy_usm_sim_copy_u32(global uint* dst, global const uint* src)`: `dst[i] = src[i]`.
    Copy,
    /// `lazy_usm_sim_gather_u32(global uint* dst, global const ulong* pointers)`:
    /// `dst[i] = *(global uint*)pointers[i]`, a read through pointers.
    Gather,
}

impl Builtin {
    pub(crate) fn by_name(name: &str) -> Option<Self> {
        match name {
            "lazy_usm_sim_fill_u32" => Some(Self::Fill),
            "lazy_usm_sim_copy_u32" => Some(Self::Copy),
            "lazy_usm_sim_gather_u32" => Some(Self::Gather),
            _ => None,
        }
    }

    /// Each argument's size, and for pointers the bytes per work item they reach.
    pub(crate) fn arguments(self) -> &'static [(usize, Option<usize>)] {
        match self {
            Self::Fill => &[(8, Some(4)), (4, None)],
            Self::Copy => &[(8, Some(4)), (8, Some(4))],
            Self::Gather => &[(8, Some(4)), (8, Some(8))],
        }
    }
}

/// A kernel's code, where it runs for real: its built module, its name and its parameters.
pub(crate) struct Code {
    pub program: Arc<crate::objects::opencl::Program>,
    pub name: String,
    pub parameters: Vec<crate::objects::spirv::Parameter>,
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Code").field("name", &self.name).finish()
    }
}

/// A built module.
pub(crate) struct Module {
    pub context: usize,
    pub device: u32,
    /// Declared kernels and their argument counts; `None` for an opaque native binary.
    pub kernels: Option<Vec<spirv::EntryPoint>>,
    pub names: Vec<CString>,
    /// The module built by OpenCL, when its kernels run for real.
    pub program: Option<Arc<opencl::Program>>,
    /// Whether it is SPIR-V with function bodies: its kernels' arguments are then taken at
    /// their parameters' sizes, whether or not a runtime runs them.
    pub has_code: bool,
    /// Its native binary (`zeModuleGetNativeBinary`): the simulator's form for a module it
    /// built from SPIR-V, the caller's bytes for an opaque native one.
    pub binary: Vec<u8>,
    /// Each kernel's source attributes, by name (empty for an opaque native module).
    pub attributes: Vec<(String, String)>,
    /// Whether it imports symbols another module must export (`ZE_MODULE_PROPERTY_FLAG_IMPORTS`).
    pub has_imports: bool,
}

/// A build log.
pub(crate) struct BuildLog {
    pub context: usize,
    pub text: CString,
}

/// A kernel and the state launches snapshot.
pub(crate) struct Kernel {
    pub module: usize,
    pub context: usize,
    pub device: u32,
    pub name: String,
    pub builtin: Option<Builtin>,
    pub arguments: u32,
    /// Each argument's kind and size, from its SPIR-V module (empty for a native module's).
    pub parameters: Vec<spirv::Parameter>,
    /// Its code, when it runs for real (not a built-in).
    pub code: Option<Arc<Code>>,
    /// Whether its module has code (see `Module::has_code`).
    pub has_code: bool,
    /// What its build says of it (zeros without code).
    pub info: KernelInfo,
    /// Its source attributes as OpenCL C spells them (`zeKernelGetSourceAttributes`).
    pub source_attributes: String,
    pub state: Mutex<KernelState>,
    /// Set when it is destroyed: a recorded list may still launch it (a hazard when it runs).
    pub destroyed: Arc<AtomicBool>,
}

impl Kernel {
    /// How a launch that carries its arguments gives each one: a built-in's own sizes, else
    /// what the module says; `None` where neither says (an unsized type, a native module's
    /// kernel).
    pub(crate) fn argument_forms(&self) -> Option<Vec<ArgumentForm>> {
        if let Some(builtin) = self.builtin {
            return Some(
                builtin
                    .arguments()
                    .iter()
                    .map(|&(size, _)| ArgumentForm::Value(size))
                    .collect(),
            );
        }
        if self.parameters.len() != self.arguments as usize {
            return None;
        }
        self.parameters
            .iter()
            .map(|parameter| match *parameter {
                spirv::Parameter::Pointer { size } | spirv::Parameter::Value { size } => {
                    Some(ArgumentForm::Value(size))
                }
                spirv::Parameter::Sampler => {
                    Some(ArgumentForm::Value(size_of::<ze_sampler_handle_t>()))
                }
                spirv::Parameter::Local => Some(ArgumentForm::LocalSize),
                spirv::Parameter::Unknown => None,
            })
            .collect()
    }
}

/// What a launch carrying its arguments points to for one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgumentForm {
    /// The argument's value, of this many bytes.
    Value(usize),
    /// A `size_t`: how many bytes of local memory the argument gets (compute-runtime's
    /// `CommandList::setKernelState`, `level_zero/core/source/cmdlist/cmdlist.cpp`).
    LocalSize,
}

#[derive(Default)]
pub(crate) struct KernelState {
    pub group_size: [u32; 3],
    /// `zeKernelSetGlobalOffsetExp`'s offset.
    pub global_offset: [u32; 3],
    pub arguments: Vec<Option<Vec<u8>>>,
    pub indirect: ze_kernel_indirect_access_flags_t,
}
