//! A module's kernels, read by `lazy-usm-spirv` (shared with lazy-usm's loader shim): each entry
//! point with its parameters.

pub use lazy_usm_spirv::{MAGIC, Parameter, SpirvError};

/// A kernel a module declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    /// Its name.
    pub name: String,
    /// How many arguments its function takes.
    pub parameters: u32,
    /// What each argument is, and its size where the module says.
    pub sizes: Vec<Parameter>,
}

/// The entry points of a SPIR-V module, in declaration order.
///
/// ```
/// use ze_sim::spirv::{self, EntryPoint};
/// let module = spirv::module_with_kernels(&[("scale", 2)]);
/// let entries = spirv::entry_points(&module).unwrap();
/// assert_eq!((entries[0].name.as_str(), entries[0].parameters), ("scale", 2));
/// assert!(spirv::entry_points(&module[..7]).is_err());
/// ```
pub fn entry_points(bytes: &[u8]) -> Result<Vec<EntryPoint>, SpirvError> {
    Ok(lazy_usm_spirv::kernels(bytes)?
        .into_iter()
        .map(|kernel| EntryPoint {
            name: kernel.name,
            parameters: kernel.parameters.len() as u32,
            sizes: kernel.parameters,
        })
        .collect())
}

/// A minimal valid module declaring `kernels` (name, parameter count): the header, an
/// `OpEntryPoint` per kernel and an `OpFunction` with that many `OpFunctionParameter`s. For
/// tests and examples that need a module without a compiler.
///
/// ```
/// let module = ze_sim::spirv::module_with_kernels(&[("a", 0), ("b", 3)]);
/// let names: Vec<_> = ze_sim::spirv::entry_points(&module).unwrap().into_iter().map(|e| e.name).collect();
/// assert_eq!(names, ["a", "b"]);
/// ```
pub fn module_with_kernels(kernels: &[(&str, u32)]) -> Vec<u8> {
    let parameters: Vec<Vec<lazy_usm_spirv::ParameterType>> = kernels
        .iter()
        .map(|&(_, count)| vec![lazy_usm_spirv::ParameterType::GlobalPointer; count as usize])
        .collect();
    let kernels: Vec<(&str, &[lazy_usm_spirv::ParameterType])> = kernels
        .iter()
        .zip(&parameters)
        .map(|(&(name, _), parameters)| (name, parameters.as_slice()))
        .collect();
    lazy_usm_spirv::module(&kernels)
}
