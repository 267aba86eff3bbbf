//! Just enough SPIR-V to know a kernel module's entry points and, for each parameter, what its
//! argument value is: a pointer to global memory, a pointer to local memory, or a value of a
//! known size (a scalar, vector, array or struct, by value or behind a `ByVal` pointer). The
//! simulated driver counts a kernel's parameters with it; the loader shim reads the arguments
//! of launches that carry them (`zeCommandListAppendLaunchKernelWithArguments`).
//!
//! Facts from the SPIR-V specification 1.6: section 2.3 "Physical Layout", the opcodes of the
//! instructions read (below), storage classes (3.7) and the `FuncParamAttr` decoration (3.20,
//! `ByVal` = 2). Sizes and alignments of by-value types follow the OpenCL C ABI that SPIR-V
//! kernels are compiled for (OpenCL C 3.0, 6.3.5: a 3-component vector takes the size and
//! alignment of a 4-component one; structs are laid out with natural alignment unless
//! decorated `CPacked`).

#![deny(unsafe_code)]

use std::collections::HashMap;

/// The SPIR-V magic number, the module's first word.
pub const MAGIC: u32 = 0x0723_0203;
const HEADER_WORDS: usize = 5;

const OP_MEMORY_MODEL: u32 = 14;
const OP_CAPABILITY: u32 = 17;
const OP_ENTRY_POINT: u32 = 15;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_FLOAT: u32 = 22;
const OP_TYPE_VECTOR: u32 = 23;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_STRUCT: u32 = 30;
const OP_TYPE_SAMPLER: u32 = 26;
const OP_TYPE_POINTER: u32 = 32;
const OP_CONSTANT: u32 = 43;
const OP_FUNCTION: u32 = 54;
const OP_VARIABLE: u32 = 59;
const OP_FUNCTION_PARAMETER: u32 = 55;
const OP_DECORATE: u32 = 71;
const OP_TYPE_BOOL: u32 = 20;
const OP_SPEC_CONSTANT_TRUE: u32 = 48;
const OP_SPEC_CONSTANT_FALSE: u32 = 49;
const OP_SPEC_CONSTANT: u32 = 50;
const OP_LABEL: u32 = 248;
const OP_EXECUTION_MODE: u32 = 16;
const DECORATION_SPEC_ID: u32 = 1;
const DECORATION_LINKAGE_ATTRIBUTES: u32 = 41;
const DECORATION_BUILT_IN: u32 = 11;
const LINKAGE_IMPORT: u32 = 1;
const LINKAGE_EXPORT: u32 = 0;
// SPV_INTEL_function_pointers: its capabilities and decoration.
const CAPABILITY_FUNCTION_POINTERS_INTEL: u32 = 5603;
const CAPABILITY_INDIRECT_REFERENCES_INTEL: u32 = 5604;
const DECORATION_REFERENCED_INDIRECTLY_INTEL: u32 = 5602;
// Execution modes (SPIR-V 1.6, 3.6 "Execution Mode").
const MODE_LOCAL_SIZE: u32 = 17;
const MODE_LOCAL_SIZE_HINT: u32 = 18;
const MODE_SUBGROUP_SIZE: u32 = 35;

const STORAGE_UNIFORM_CONSTANT: u32 = 0;
const STORAGE_WORKGROUP: u32 = 4;
const STORAGE_CROSS_WORKGROUP: u32 = 5;
const STORAGE_FUNCTION: u32 = 7;
const STORAGE_GENERIC: u32 = 8;
const DECORATION_CPACKED: u32 = 10;
const DECORATION_FUNC_PARAM_ATTR: u32 = 38;
const FUNC_PARAM_ATTR_BYVAL: u32 = 2;
const ADDRESSING_PHYSICAL32: u32 = 1;

/// What a kernel parameter's argument value is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parameter {
    /// A pointer to global (or constant, or generic) memory: the value is an address of
    /// `size` bytes (8 in a 64-bit module).
    Pointer {
        /// The pointer's size in bytes.
        size: usize,
    },
    /// A pointer to local memory: its value says how much to reserve, and is no address.
    Local,
    /// A value of `size` bytes (a scalar, vector, array or struct), passed as such or behind a
    /// `ByVal` pointer; addresses may hide inside it.
    Value {
        /// Its size in bytes.
        size: usize,
    },
    /// A sampler (`OpTypeSampler`): the value is the driver's sampler handle.
    Sampler,
    /// A type this reader does not size (an image, ...).
    Unknown,
}

/// A kernel a module declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// Its name.
    pub name: String,
    /// Its parameters, in order.
    pub parameters: Vec<Parameter>,
}

/// Why a module is not valid SPIR-V, as a build log would say it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpirvError {
    /// The byte count is not a whole number of words, or below the header's five.
    #[error("{0} bytes is not a SPIR-V module (a whole number of 32-bit words, at least 5)")]
    Size(usize),
    /// The first word is not the magic number.
    #[error("the first word is {0:#010x}, not the SPIR-V magic number 0x07230203")]
    Magic(u32),
    /// An instruction's word count is zero or runs past the end.
    #[error("instruction at word {0} has a bad word count")]
    WordCount(usize),
    /// An `OpEntryPoint` whose name is not a terminated UTF-8 literal.
    #[error("OpEntryPoint at word {0} has a malformed name")]
    Name(usize),
}

/// A type's size and alignment, where this reader knows them.
#[derive(Debug, Clone)]
enum Type {
    Sized { size: usize, align: usize },
    Pointer { storage: u32, pointee: u32 },
    Vector { component: u32, count: u32 },
    Array { element: u32, length: u32 },
    Struct { members: Vec<u32> },
    Sampler,
}

#[derive(Default)]
struct Module {
    types: HashMap<u32, Type>,
    constants: HashMap<u32, u64>,
    packed: std::collections::HashSet<u32>,
    by_value: std::collections::HashSet<u32>,
    pointer_size: usize,
    /// Layouts worked out so far: nested wide structs cost each type once, not once per path.
    layouts: std::cell::RefCell<HashMap<u32, Option<(usize, usize)>>>,
}

impl Module {
    /// Size and alignment of type `id`, through at most `depth` levels of nesting (a type
    /// nested deeper, or containing itself, has none).
    fn layout(&self, id: u32, depth: u32) -> Option<(usize, usize)> {
        if let Some(known) = self.layouts.borrow().get(&id) {
            return *known;
        }
        let found = self.layout_uncached(id, depth);
        // Only layouts found are kept: a type reached too deep has none there, but may have one
        // where it is met nearer the top.
        if found.is_some() {
            self.layouts.borrow_mut().insert(id, found);
        }
        found
    }

    fn layout_uncached(&self, id: u32, depth: u32) -> Option<(usize, usize)> {
        let depth = depth.checked_sub(1)?;
        match self.types.get(&id)? {
            Type::Sized { size, align } => Some((*size, *align)),
            Type::Pointer { .. } => Some((self.pointer_size, self.pointer_size)),
            // An opaque type: no value of it has a layout.
            Type::Sampler => None,
            Type::Vector { component, count } => {
                let (size, _) = self.layout(*component, depth)?;
                let slots = if *count == 3 { 4 } else { *count as usize };
                let total = size.checked_mul(slots)?;
                Some((total, total))
            }
            Type::Array { element, length } => {
                let (size, align) = self.layout(*element, depth)?;
                let length = usize::try_from(*self.constants.get(length)?).ok()?;
                Some((size.checked_mul(length)?, align))
            }
            Type::Struct { members } => {
                let packed = self.packed.contains(&id);
                let (mut offset, mut max_align) = (0usize, 1usize);
                for &member in members {
                    let (size, align) = self.layout(member, depth)?;
                    let align = if packed { 1 } else { align.max(1) };
                    offset = offset.checked_next_multiple_of(align)?.checked_add(size)?;
                    max_align = max_align.max(align);
                }
                Some((offset.checked_next_multiple_of(max_align)?, max_align))
            }
        }
    }

    fn parameter(&self, id: u32, type_id: u32) -> Parameter {
        const DEPTH: u32 = 16;
        match self.types.get(&type_id) {
            Some(Type::Pointer { storage, pointee }) => match *storage {
                STORAGE_CROSS_WORKGROUP | STORAGE_GENERIC | STORAGE_UNIFORM_CONSTANT => {
                    Parameter::Pointer {
                        size: self.pointer_size,
                    }
                }
                STORAGE_WORKGROUP => Parameter::Local,
                STORAGE_FUNCTION if self.by_value.contains(&id) => self
                    .layout(*pointee, DEPTH)
                    .map_or(Parameter::Unknown, |(size, _)| Parameter::Value { size }),
                _ => Parameter::Unknown,
            },
            Some(Type::Sampler) => Parameter::Sampler,
            Some(_) => self
                .layout(type_id, DEPTH)
                .map_or(Parameter::Unknown, |(size, _)| Parameter::Value { size }),
            None => Parameter::Unknown,
        }
    }
}

fn words_of(bytes: &[u8]) -> Result<Vec<u32>, SpirvError> {
    if !bytes.len().is_multiple_of(4) || bytes.len() < HEADER_WORDS * 4 {
        return Err(SpirvError::Size(bytes.len()));
    }
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
        .collect();
    if words[0] != MAGIC {
        return Err(SpirvError::Magic(words[0]));
    }
    Ok(words)
}

/// The kernels of a SPIR-V module, in declaration order, with their parameters.
///
/// ```
/// use lazy_usm_spirv::{Kernel, Parameter, ParameterType, kernels, module};
/// let bytes = module(&[("scale", &[ParameterType::GlobalPointer, ParameterType::Scalar(4)])]);
/// assert_eq!(
///     kernels(&bytes).unwrap(),
///     [Kernel {
///         name: "scale".into(),
///         parameters: vec![Parameter::Pointer { size: 8 }, Parameter::Value { size: 4 }],
///     }]
/// );
/// assert!(kernels(&bytes[..7]).is_err());
/// ```
pub fn kernels(bytes: &[u8]) -> Result<Vec<Kernel>, SpirvError> {
    let words = words_of(bytes)?;
    let mut module = Module {
        pointer_size: 8,
        ..Module::default()
    };
    let mut entries: Vec<(String, u32)> = Vec::new();
    // Each function's parameters: (parameter id, its type id).
    let mut functions: HashMap<u32, Vec<(u32, u32)>> = HashMap::new();
    let mut current_function = None;
    for instruction in instructions(&words) {
        let (at, opcode, operands) = instruction?;
        match (opcode, operands) {
            (OP_MEMORY_MODEL, [addressing, ..]) => {
                module.pointer_size = if *addressing == ADDRESSING_PHYSICAL32 {
                    4
                } else {
                    8
                };
            }
            (OP_ENTRY_POINT, [_, function, name @ ..]) if !name.is_empty() => {
                let name = literal_string(name).ok_or(SpirvError::Name(at))?;
                entries.push((name, *function));
            }
            (OP_TYPE_INT | OP_TYPE_FLOAT, [id, width, ..]) if width % 8 == 0 && *width > 0 => {
                let size = (*width / 8) as usize;
                module.types.insert(*id, Type::Sized { size, align: size });
            }
            (OP_TYPE_VECTOR, [id, component, count]) => {
                module.types.insert(
                    *id,
                    Type::Vector {
                        component: *component,
                        count: *count,
                    },
                );
            }
            (OP_TYPE_ARRAY, [id, element, length]) => {
                module.types.insert(
                    *id,
                    Type::Array {
                        element: *element,
                        length: *length,
                    },
                );
            }
            (OP_TYPE_STRUCT, [id, members @ ..]) => {
                module.types.insert(
                    *id,
                    Type::Struct {
                        members: members.to_vec(),
                    },
                );
            }
            (OP_TYPE_SAMPLER, [id]) => {
                module.types.insert(*id, Type::Sampler);
            }
            (OP_TYPE_POINTER, [id, storage, pointee]) => {
                module.types.insert(
                    *id,
                    Type::Pointer {
                        storage: *storage,
                        pointee: *pointee,
                    },
                );
            }
            (OP_CONSTANT, [_, id, low, rest @ ..]) => {
                let high = rest.first().copied().unwrap_or(0);
                module
                    .constants
                    .insert(*id, (u64::from(high) << 32) | u64::from(*low));
            }
            (OP_DECORATE, [target, DECORATION_CPACKED, ..]) => {
                module.packed.insert(*target);
            }
            (
                OP_DECORATE,
                [
                    target,
                    DECORATION_FUNC_PARAM_ATTR,
                    FUNC_PARAM_ATTR_BYVAL,
                    ..,
                ],
            ) => {
                module.by_value.insert(*target);
            }
            (OP_FUNCTION, [_, id, ..]) => {
                current_function = Some(*id);
                functions.insert(*id, Vec::new());
            }
            (OP_FUNCTION_PARAMETER, [type_id, id, ..]) => {
                if let Some(function) = current_function {
                    functions.entry(function).or_default().push((*id, *type_id));
                }
            }
            _ => {}
        }
    }
    Ok(entries
        .into_iter()
        .map(|(name, function)| Kernel {
            name,
            parameters: functions
                .get(&function)
                .map(|parameters| {
                    parameters
                        .iter()
                        .map(|&(id, type_id)| module.parameter(id, type_id))
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect())
}

/// What a module holds beyond its kernels' signatures: whether any function has a body, and the
/// specialization constants a build may set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Contents {
    /// Whether any function has a body (an `OpLabel`): a module of declarations only has none,
    /// and no kernel of it can run.
    pub has_code: bool,
    /// Each specialization constant's `SpecId` and its value's size in bytes (a boolean's is 1,
    /// as OpenCL's `clSetProgramSpecializationConstant` takes it), in `SpecId` order.
    pub specialization_constants: Vec<(u32, usize)>,
    /// Whether it imports a symbol another module must export (a `LinkageAttributes`
    /// decoration of linkage type `Import` on anything but a built-in variable, which
    /// translators also mark imported): it then needs dynamic linking to run.
    pub has_imports: bool,
    /// Whether it has program-scope variables in global memory (`OpVariable` of storage class
    /// `CrossWorkgroup`, which only module scope allows): each module built from it has its
    /// own.
    pub has_global_variables: bool,
}

/// Each kernel's source attributes as OpenCL C spells them (what `zeKernelGetSourceAttributes`
/// answers), from the execution modes its entry point has: `intel_reqd_sub_group_size(n)`
/// (`SubgroupSize`), `reqd_work_group_size(x,y,z)` (`LocalSize`) and
/// `work_group_size_hint(x,y,z)` (`LocalSizeHint`), in that order (compute-runtime's
/// `populateKernelSourceAttributes`), separated by spaces, numbers as signed 32-bit as it
/// prints them; by kernel name, in declaration order. Other execution modes (and the `...Id`
/// forms) are left out.
///
/// ```
/// use lazy_usm_spirv::{module, source_attributes};
/// let bytes = module(&[("plain", &[])]);
/// assert_eq!(source_attributes(&bytes).unwrap(), [("plain".to_string(), String::new())]);
/// assert!(source_attributes(&bytes[..8]).is_err());
/// ```
pub fn source_attributes(bytes: &[u8]) -> Result<Vec<(String, String)>, SpirvError> {
    let words = words_of(bytes)?;
    let mut entries: Vec<(String, u32)> = Vec::new();
    // Per function: its sub-group size, required size and size hint.
    let mut modes: HashMap<u32, [Option<String>; 3]> = HashMap::new();
    let signed = |value: &u32| *value as i32;
    for instruction in instructions(&words) {
        let (at, opcode, operands) = instruction?;
        match (opcode, operands) {
            (OP_ENTRY_POINT, [_, function, name @ ..]) if !name.is_empty() => {
                let name = literal_string(name).ok_or(SpirvError::Name(at))?;
                entries.push((name, *function));
            }
            (OP_EXECUTION_MODE, [function, MODE_SUBGROUP_SIZE, size]) => {
                modes.entry(*function).or_default()[0] =
                    Some(format!("intel_reqd_sub_group_size({})", signed(size)));
            }
            (OP_EXECUTION_MODE, [function, MODE_LOCAL_SIZE, x, y, z]) => {
                modes.entry(*function).or_default()[1] = Some(format!(
                    "reqd_work_group_size({},{},{})",
                    signed(x),
                    signed(y),
                    signed(z)
                ));
            }
            (OP_EXECUTION_MODE, [function, MODE_LOCAL_SIZE_HINT, x, y, z]) => {
                modes.entry(*function).or_default()[2] = Some(format!(
                    "work_group_size_hint({},{},{})",
                    signed(x),
                    signed(y),
                    signed(z)
                ));
            }
            _ => {}
        }
    }
    Ok(entries
        .into_iter()
        .map(|(name, function)| {
            let attributes: Vec<&str> = modes
                .get(&function)
                .into_iter()
                .flatten()
                .flatten()
                .map(String::as_str)
                .collect();
            (name, attributes.join(" "))
        })
        .collect())
}

/// Whether a module has code, and its specialization constants (SPIR-V 1.6, 3.32.8
/// "Constant-Creation Instructions", decoration `SpecId` = 1).
///
/// ```
/// use lazy_usm_spirv::{contents, module};
/// let declarations = module(&[("k", &[])]);
/// let found = contents(&declarations).unwrap();
/// assert!(!found.has_code && found.specialization_constants.is_empty());
/// assert!(!found.has_global_variables);
/// assert!(contents(&declarations[..6]).is_err());
/// ```
pub fn contents(bytes: &[u8]) -> Result<Contents, SpirvError> {
    let words = words_of(bytes)?;
    let mut sizes: HashMap<u32, usize> = HashMap::new();
    let mut spec_ids: HashMap<u32, u32> = HashMap::new();
    let mut constants: Vec<(u32, u32)> = Vec::new();
    let mut has_code = false;
    let mut imports: Vec<u32> = Vec::new();
    let mut built_ins: Vec<u32> = Vec::new();
    let mut has_global_variables = false;
    for instruction in instructions(&words) {
        let (_, opcode, operands) = instruction?;
        match (opcode, operands) {
            (OP_LABEL, _) => has_code = true,
            (OP_VARIABLE, [_, _, STORAGE_CROSS_WORKGROUP, ..]) => has_global_variables = true,
            // The name literal, then the linkage type (SPIR-V 1.6, 3.20 "Decoration").
            (OP_DECORATE, [target, DECORATION_LINKAGE_ATTRIBUTES, .., LINKAGE_IMPORT]) => {
                imports.push(*target);
            }
            (OP_DECORATE, [target, DECORATION_BUILT_IN, ..]) => built_ins.push(*target),
            (OP_TYPE_BOOL, [id]) => {
                sizes.insert(*id, 1);
            }
            // The scalar widths SPIR-V kernels have: a constant of another width has no size
            // here (and is not settable), so a made-up width cannot make a reader copy more.
            (OP_TYPE_INT | OP_TYPE_FLOAT, [id, width @ (8 | 16 | 32 | 64), ..]) => {
                sizes.insert(*id, (*width / 8) as usize);
            }
            (OP_DECORATE, [target, DECORATION_SPEC_ID, spec_id]) => {
                spec_ids.insert(*target, *spec_id);
            }
            (
                OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE | OP_SPEC_CONSTANT,
                [type_id, id, ..],
            ) => constants.push((*id, *type_id)),
            _ => {}
        }
    }
    let mut specialization_constants: Vec<(u32, usize)> = constants
        .into_iter()
        .filter_map(|(id, type_id)| Some((*spec_ids.get(&id)?, *sizes.get(&type_id)?)))
        .collect();
    specialization_constants.sort_unstable();
    specialization_constants.dedup_by_key(|&mut (spec_id, _)| spec_id);
    Ok(Contents {
        has_code,
        specialization_constants,
        has_imports: imports.iter().any(|target| !built_ins.contains(target)),
        has_global_variables,
    })
}

/// A module that takes function pointers (capability `FunctionPointersINTEL` of
/// `SPV_INTEL_function_pointers`) with each function it exports also decorated
/// `ReferencedIndirectlyINTEL` (and the `IndirectReferencesINTEL` capability that decoration
/// needs); `None` where nothing needs it. A GPU driver hands out the address of any exported
/// function (`zeModuleGetFunctionPointer` looks it up in the module's symbols), while an
/// OpenCL runtime addresses only functions so decorated (`clGetDeviceFunctionPointerINTEL`).
///
/// ```
/// use lazy_usm_spirv::{module, with_exported_functions_addressable};
/// assert_eq!(with_exported_functions_addressable(&module(&[("k", &[])])).unwrap(), None);
/// ```
pub fn with_exported_functions_addressable(bytes: &[u8]) -> Result<Option<Vec<u8>>, SpirvError> {
    let words = words_of(bytes)?;
    let mut capabilities = Vec::new();
    let mut first_capability_end = None;
    let mut functions = Vec::new();
    let mut entry_points = Vec::new();
    let mut referenced = Vec::new();
    // Each exported target, and the offset just past its export decoration.
    let mut exports: Vec<(usize, u32)> = Vec::new();
    for instruction in instructions(&words) {
        let (at, opcode, operands) = instruction?;
        let end = at + 1 + operands.len();
        match (opcode, operands) {
            (OP_CAPABILITY, [capability]) => {
                capabilities.push(*capability);
                first_capability_end.get_or_insert(end);
            }
            (OP_FUNCTION, [_, id, ..]) => functions.push(*id),
            (OP_ENTRY_POINT, [_, id, ..]) => entry_points.push(*id),
            (OP_DECORATE, [target, DECORATION_REFERENCED_INDIRECTLY_INTEL]) => {
                referenced.push(*target)
            }
            (OP_DECORATE, [target, DECORATION_LINKAGE_ATTRIBUTES, .., LINKAGE_EXPORT])
                if !exports.iter().any(|(_, exported)| exported == target) =>
            {
                exports.push((end, *target));
            }
            _ => {}
        }
    }
    if !capabilities.contains(&CAPABILITY_FUNCTION_POINTERS_INTEL) {
        return Ok(None);
    }
    // Kernels (which translators also export) are launched, not called through pointers.
    let mut insertions: Vec<(usize, Vec<u32>)> = exports
        .into_iter()
        .filter(|(_, target)| {
            functions.contains(target)
                && !entry_points.contains(target)
                && !referenced.contains(target)
        })
        .map(|(end, target)| {
            (
                end,
                vec![
                    3 << 16 | OP_DECORATE,
                    target,
                    DECORATION_REFERENCED_INDIRECTLY_INTEL,
                ],
            )
        })
        .collect();
    if insertions.is_empty() {
        return Ok(None);
    }
    if !capabilities.contains(&CAPABILITY_INDIRECT_REFERENCES_INTEL)
        && let Some(end) = first_capability_end
    {
        insertions.push((
            end,
            vec![
                2 << 16 | OP_CAPABILITY,
                CAPABILITY_INDIRECT_REFERENCES_INTEL,
            ],
        ));
    }
    insertions.sort_by_key(|(at, _)| *at);
    let mut rewritten = Vec::with_capacity(words.len() + 3 * insertions.len());
    let mut from = 0;
    for (at, inserted) in insertions {
        rewritten.extend_from_slice(&words[from..at]);
        rewritten.extend(inserted);
        from = at;
    }
    rewritten.extend_from_slice(&words[from..]);
    Ok(Some(
        rewritten
            .iter()
            .flat_map(|word| word.to_le_bytes())
            .collect(),
    ))
}

/// Each instruction after the header: its word offset, opcode and operands; the first one
/// whose word count is zero or runs past the end is an error, and the last item.
fn instructions(words: &[u32]) -> impl Iterator<Item = Result<(usize, u32, &[u32]), SpirvError>> {
    let mut at = HEADER_WORDS;
    std::iter::from_fn(move || {
        let first = *words.get(at)?;
        let count = (first >> 16) as usize;
        if count == 0 || at + count > words.len() {
            let bad = at;
            at = words.len();
            return Some(Err(SpirvError::WordCount(bad)));
        }
        let instruction = (at, first & 0xffff, &words[at + 1..at + count]);
        at += count;
        Some(Ok(instruction))
    })
}

/// A nul-terminated UTF-8 string packed little-endian into words.
fn literal_string(words: &[u32]) -> Option<String> {
    let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
    let end = bytes.iter().position(|&byte| byte == 0)?;
    String::from_utf8(bytes[..end].to_vec()).ok()
}

/// A parameter type for [`module`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterType {
    /// `global T*`.
    GlobalPointer,
    /// `local T*`.
    LocalPointer,
    /// An integer of this many bytes (1, 2, 4 or 8).
    Scalar(u32),
    /// A struct passed by value (`ByVal`) holding these many `global T*` and then a 4-byte int
    /// (so its layout has padding).
    StructByValue(u32),
}

/// A minimal valid 64-bit module declaring `kernels` (name, parameter types): the header, the
/// memory model, an `OpEntryPoint` per kernel, the types and an `OpFunction` with its
/// `OpFunctionParameter`s. For tests and examples that need a module without a compiler.
///
/// ```
/// use lazy_usm_spirv::{Parameter, ParameterType, kernels, module};
/// let bytes = module(&[("a", &[]), ("b", &[ParameterType::StructByValue(2)])]);
/// let found = kernels(&bytes).unwrap();
/// assert_eq!(found[1].parameters, [Parameter::Value { size: 24 }], "2 pointers, an int, padding");
/// ```
pub fn module(kernels: &[(&str, &[ParameterType])]) -> Vec<u8> {
    const UINT: u32 = 10;
    const GLOBAL: u32 = 11;
    const LOCAL: u32 = 12;
    const FIRST_INT: u32 = 20; // 20 + bytes: ints of 1, 2, 4, 8 bytes
    const FIRST_STRUCT: u32 = 40; // 40 + pointers: struct; 60 + pointers: pointer to it
    // Header: magic, version 1.0, generator 0, id bound, schema 0.
    let mut words = vec![MAGIC, 0x0001_0000, 0, 1000, 0];
    let instruction = |words: &mut Vec<u32>, opcode: u32, operands: &[u32]| {
        words.push(((operands.len() as u32 + 1) << 16) | opcode);
        words.extend_from_slice(operands);
    };
    instruction(&mut words, OP_MEMORY_MODEL, &[2, 2]); // Physical64, OpenCL
    for (index, (name, _)) in kernels.iter().enumerate() {
        let mut name_bytes = name.as_bytes().to_vec();
        name_bytes.push(0);
        name_bytes.resize(name_bytes.len().next_multiple_of(4), 0);
        let mut operands = vec![6, 100 + index as u32]; // execution model Kernel, function id
        operands.extend(
            name_bytes
                .chunks_exact(4)
                .map(|word| u32::from_le_bytes([word[0], word[1], word[2], word[3]])),
        );
        instruction(&mut words, OP_ENTRY_POINT, &operands);
    }
    let mut parameter_id = 500;
    let mut decorations = Vec::new();
    let mut functions = Vec::new();
    let mut structs = std::collections::BTreeSet::new();
    for (index, (_, parameters)) in kernels.iter().enumerate() {
        instruction(&mut functions, OP_FUNCTION, &[1, 100 + index as u32, 0, 2]);
        for parameter in parameters.iter() {
            let type_id = match *parameter {
                ParameterType::GlobalPointer => GLOBAL,
                ParameterType::LocalPointer => LOCAL,
                ParameterType::Scalar(bytes) => FIRST_INT + bytes,
                ParameterType::StructByValue(pointers) => {
                    structs.insert(pointers);
                    decorations.push([
                        parameter_id,
                        DECORATION_FUNC_PARAM_ATTR,
                        FUNC_PARAM_ATTR_BYVAL,
                    ]);
                    FIRST_STRUCT + 20 + pointers
                }
            };
            instruction(
                &mut functions,
                OP_FUNCTION_PARAMETER,
                &[type_id, parameter_id],
            );
            parameter_id += 1;
        }
    }
    for decoration in decorations {
        instruction(&mut words, OP_DECORATE, &decoration);
    }
    for bytes in [1, 2, 4, 8] {
        instruction(&mut words, OP_TYPE_INT, &[FIRST_INT + bytes, bytes * 8, 0]);
    }
    instruction(&mut words, OP_TYPE_INT, &[UINT, 32, 0]);
    instruction(
        &mut words,
        OP_TYPE_POINTER,
        &[GLOBAL, STORAGE_CROSS_WORKGROUP, UINT],
    );
    instruction(
        &mut words,
        OP_TYPE_POINTER,
        &[LOCAL, STORAGE_WORKGROUP, UINT],
    );
    for pointers in structs {
        let mut members = vec![FIRST_STRUCT + pointers];
        members.extend(std::iter::repeat_n(GLOBAL, pointers as usize));
        members.push(UINT);
        instruction(&mut words, OP_TYPE_STRUCT, &members);
        instruction(
            &mut words,
            OP_TYPE_POINTER,
            &[
                FIRST_STRUCT + 20 + pointers,
                STORAGE_FUNCTION,
                FIRST_STRUCT + pointers,
            ],
        );
    }
    words.extend(functions);
    words.iter().flat_map(|word| word.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Words as the module's bytes.
    fn bytes_of(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|word| word.to_le_bytes()).collect()
    }

    #[test]
    fn exported_functions_of_a_function_pointer_module_become_addressable() {
        let name = u32::from_le_bytes(*b"f\0\0\0");
        let export = |target: u32| {
            [
                5 << 16 | OP_DECORATE,
                target,
                DECORATION_LINKAGE_ATTRIBUTES,
                name,
                LINKAGE_EXPORT,
            ]
        };
        let function = |id: u32| [5 << 16 | OP_FUNCTION, 2, id, 0, 3];
        let module = |capability: u32| {
            let mut words = vec![
                MAGIC,
                0x0001_0000,
                0,
                10,
                0,
                2 << 16 | OP_CAPABILITY,
                capability,
            ];
            // %4 is a kernel (translators export kernels too).
            words.extend([4 << 16 | OP_ENTRY_POINT, 6, 4, name]);
            // %1 a function, exported twice; %9 a variable; %4 the kernel.
            for target in [1, 9, 1, 4] {
                words.extend(export(target));
            }
            words.extend(function(1));
            words.extend(function(4));
            bytes_of(&words)
        };
        assert_eq!(
            with_exported_functions_addressable(&module(6)).unwrap(),
            None
        );
        let rewritten =
            with_exported_functions_addressable(&module(CAPABILITY_FUNCTION_POINTERS_INTEL))
                .unwrap()
                .expect("rewritten");
        let words = words_of(&rewritten).unwrap();
        let found: Vec<(u32, Vec<u32>)> = instructions(&words)
            .map(|instruction| {
                let (_, opcode, operands) = instruction.unwrap();
                (opcode, operands.to_vec())
            })
            .collect();
        assert_eq!(
            found[1],
            (OP_CAPABILITY, vec![CAPABILITY_INDIRECT_REFERENCES_INTEL])
        );
        assert_eq!(
            found[4],
            (OP_DECORATE, vec![1, DECORATION_REFERENCED_INDIRECTLY_INTEL])
        );
        let decorated: Vec<u32> = found
            .iter()
            .filter(|(opcode, operands)| {
                *opcode == OP_DECORATE
                    && operands.get(1) == Some(&DECORATION_REFERENCED_INDIRECTLY_INTEL)
            })
            .map(|(_, operands)| operands[0])
            .collect();
        assert_eq!(decorated, [1], "once, and not the variable or the kernel");
        assert_eq!(
            with_exported_functions_addressable(&rewritten).unwrap(),
            None,
            "nothing more to do"
        );
        // Malformed modules are errors, never a panic: cut short of a header or a word, or an
        // instruction whose word count runs past the end.
        let whole = module(CAPABILITY_FUNCTION_POINTERS_INTEL);
        for cut in [0, 3, 19, 22] {
            assert!(
                with_exported_functions_addressable(&whole[..cut]).is_err(),
                "cut at {cut}"
            );
        }
        let mut overrun = words_of(&whole).unwrap();
        overrun[7] = 60 << 16 | OP_ENTRY_POINT;
        assert!(with_exported_functions_addressable(&bytes_of(&overrun)).is_err());
    }

    /// `module`'s bytes with an `OpExecutionMode` for its first entry point appended.
    fn with_mode(bytes: &[u8], mode: &[u32]) -> Vec<u8> {
        let words = words_of(bytes).unwrap();
        let mut at = HEADER_WORDS;
        let function = loop {
            let count = (words[at] >> 16) as usize;
            if words[at] & 0xffff == OP_ENTRY_POINT {
                break words[at + 2];
            }
            at += count;
        };
        let mut out = bytes.to_vec();
        let instruction = [
            ((mode.len() as u32 + 2) << 16) | OP_EXECUTION_MODE,
            function,
        ];
        for word in instruction.iter().chain(mode) {
            out.extend_from_slice(&word.to_le_bytes());
        }
        out
    }

    #[test]
    fn source_attributes_follow_the_entry_points_execution_modes() {
        let bytes = module(&[("hinted", &[]), ("plain", &[])]);
        let hinted = with_mode(&bytes, &[MODE_LOCAL_SIZE_HINT, 1, 2, 3]);
        let both = with_mode(&hinted, &[MODE_LOCAL_SIZE, 8, 1, 1]);
        let all = with_mode(&both, &[MODE_SUBGROUP_SIZE, 16]);
        assert_eq!(
            source_attributes(&all).unwrap(),
            [
                (
                    "hinted".to_string(),
                    "intel_reqd_sub_group_size(16) reqd_work_group_size(8,1,1) work_group_size_hint(1,2,3)"
                        .to_string()
                ),
                ("plain".to_string(), String::new()),
            ]
        );
        // A mode of another kind, or with the wrong operand count, is left out.
        let other = with_mode(&bytes, &[MODE_LOCAL_SIZE_HINT, 1, 2]);
        assert_eq!(source_attributes(&other).unwrap()[0].1, "");
    }

    #[test]
    fn every_parameter_kind_is_read_with_its_size() {
        let bytes = module(&[(
            "k",
            &[
                ParameterType::GlobalPointer,
                ParameterType::LocalPointer,
                ParameterType::Scalar(2),
                ParameterType::Scalar(8),
                ParameterType::StructByValue(1),
            ],
        )]);
        assert_eq!(
            kernels(&bytes).unwrap()[0].parameters,
            [
                Parameter::Pointer { size: 8 },
                Parameter::Local,
                Parameter::Value { size: 2 },
                Parameter::Value { size: 8 },
                Parameter::Value { size: 16 },
            ]
        );
    }

    #[test]
    fn vectors_arrays_and_packed_structs_follow_the_opencl_layout() {
        let mut module = Module {
            pointer_size: 8,
            ..Module::default()
        };
        module.types.insert(1, Type::Sized { size: 4, align: 4 });
        module.types.insert(
            2,
            Type::Vector {
                component: 1,
                count: 3,
            },
        );
        module.constants.insert(3, 5);
        module.types.insert(
            4,
            Type::Array {
                element: 1,
                length: 3,
            },
        );
        module.types.insert(5, Type::Sized { size: 1, align: 1 });
        module.types.insert(
            6,
            Type::Struct {
                members: vec![5, 1],
            },
        );
        module.types.insert(
            7,
            Type::Struct {
                members: vec![5, 1],
            },
        );
        module.packed.insert(7);
        module.types.insert(8, Type::Struct { members: vec![8] });
        assert_eq!(
            module.layout(2, 16),
            Some((16, 16)),
            "a 3-vector takes four slots"
        );
        assert_eq!(module.layout(4, 16), Some((20, 4)));
        assert_eq!(module.layout(6, 16), Some((8, 4)), "padding after the byte");
        assert_eq!(module.layout(7, 16), Some((5, 1)), "CPacked: none");
        assert_eq!(
            module.layout(8, 16),
            None,
            "a type that contains itself has no size"
        );
        assert_eq!(module.parameter(99, 1234), Parameter::Unknown);
    }

    #[test]
    fn wide_structs_nested_deep_are_laid_out_once_per_type() {
        // Fifteen levels of a struct of 8 members of the level below: 8^15 paths, 16 types.
        let mut module = Module {
            pointer_size: 8,
            ..Module::default()
        };
        module.types.insert(0, Type::Sized { size: 4, align: 4 });
        for level in 1..=15 {
            module.types.insert(
                level,
                Type::Struct {
                    members: vec![level - 1; 8],
                },
            );
        }
        let (size, align) = module.layout(15, 16).expect("sized");
        assert_eq!((size, align), (4 * 8usize.pow(15), 4));
        assert_eq!(module.layouts.borrow().len(), 16);
    }

    #[test]
    fn a_type_first_met_too_deep_is_still_laid_out_nearer_the_top() {
        let mut module = Module {
            pointer_size: 8,
            ..Module::default()
        };
        module.types.insert(0, Type::Sized { size: 4, align: 4 });
        for level in 1..=20 {
            module.types.insert(
                level,
                Type::Struct {
                    members: vec![level - 1],
                },
            );
        }
        assert_eq!(module.layout(20, 16), None, "nested past the limit");
        assert_eq!(module.layout(5, 16), Some((4, 4)), "met near the top");
    }

    #[test]
    fn malformed_modules_are_refused_with_the_reason() {
        assert_eq!(kernels(&[0; 8]), Err(SpirvError::Size(8)));
        assert_eq!(kernels(&[0; 20]), Err(SpirvError::Magic(0)));
        let mut bytes = module(&[("k", &[])]);
        bytes[20..24].copy_from_slice(&0u32.to_le_bytes());
        assert_eq!(kernels(&bytes), Err(SpirvError::WordCount(5)));
    }
}
