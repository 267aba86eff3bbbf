//! The simulator's native binaries: what `zeModuleGetNativeBinary` hands out and a module
//! created from `ZE_MODULE_FORMAT_NATIVE` takes back. A real driver's is the device's ISA; the
//! simulator's holds what builds the module again: its SPIR-V, build flags and specialization
//! constants, behind a magic number, so a program that caches native binaries (as SYCL's
//! persistent cache does) gets its kernels back. Intel's own (zebin) are read by
//! `objects::zebin`; bytes of any other form stay an opaque module whose kernels run as no-ops.

/// The first bytes of every native binary the simulator writes.
const MAGIC: &[u8; 8] = b"ZESIMNB2";
/// Those of the form before the compiler's options were recorded, still read.
const MAGIC_WITHOUT_OPTIONS: &[u8; 8] = b"ZESIMNB1";

/// The options the device compiler gets for a module's build flags, as compute-runtime makes
/// them (`ModuleImp::createBuildOptions`, read in its source): `-ze-opt-disable` is taken out
/// and OpenCL's `-cl-opt-disable` appended, then `-ze-opt-level=N` taken out and the
/// compiler's `-ze-opt-level=ON` appended; the rest stay in their order. A real native binary
/// records them, and tests look for them there.
pub(crate) fn compiler_options(flags: &str) -> String {
    let mut options: Vec<String> = flags.split_whitespace().map(str::to_string).collect();
    let mut appended = Vec::new();
    if let Some(at) = options.iter().position(|flag| flag == "-ze-opt-disable") {
        options.remove(at);
        appended.push("-cl-opt-disable".to_string());
    }
    if let Some(at) = options
        .iter()
        .position(|flag| flag.starts_with("-ze-opt-level="))
    {
        let flag = options.remove(at);
        let level = flag.trim_start_matches("-ze-opt-level=");
        appended.push(format!("-ze-opt-level=O{level}"));
    }
    options.extend(appended);
    options.join(" ")
}

/// What builds a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Source {
    pub spirv: Vec<u8>,
    pub flags: String,
    /// Specialization constants: each `SpecId` and its value's bytes.
    pub constants: Vec<(u32, Vec<u8>)>,
}

/// `source` as a native binary: the magic, then length-prefixed SPIR-V and flags, then the
/// constants' count and each id, length and value, then the compiler's options
/// ([`compiler_options`]) length-prefixed, every number little-endian.
pub(crate) fn encode(source: &Source) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    let mut bytes = |data: &[u8]| {
        out.extend_from_slice(&(data.len() as u64).to_le_bytes());
        out.extend_from_slice(data);
    };
    bytes(&source.spirv);
    bytes(source.flags.as_bytes());
    out.extend_from_slice(&(source.constants.len() as u64).to_le_bytes());
    for (id, value) in &source.constants {
        out.extend_from_slice(&id.to_le_bytes());
        out.extend_from_slice(&(value.len() as u64).to_le_bytes());
        out.extend_from_slice(value);
    }
    let options = compiler_options(&source.flags);
    out.extend_from_slice(&(options.len() as u64).to_le_bytes());
    out.extend_from_slice(options.as_bytes());
    out
}

/// Whether `binary` claims to be one of the simulator's (it may still be damaged).
pub(crate) fn is_ours(binary: &[u8]) -> bool {
    binary.starts_with(MAGIC) || binary.starts_with(MAGIC_WITHOUT_OPTIONS)
}

/// A native binary [`encode`] wrote, or `None` for anything else (cut short, or another form).
pub(crate) fn decode(binary: &[u8]) -> Option<Source> {
    let (mut rest, has_options) = match binary.strip_prefix(MAGIC) {
        Some(rest) => (rest, true),
        None => (binary.strip_prefix(MAGIC_WITHOUT_OPTIONS)?, false),
    };
    let mut take = |count: usize| -> Option<&[u8]> {
        let (head, tail) = rest.split_at_checked(count)?;
        rest = tail;
        Some(head)
    };
    let number = |raw: &[u8]| -> Option<usize> {
        usize::try_from(u64::from_le_bytes(raw.try_into().ok()?)).ok()
    };
    let spirv_length = number(take(8)?)?;
    let spirv = take(spirv_length)?.to_vec();
    let flags_length = number(take(8)?)?;
    let flags = String::from_utf8(take(flags_length)?.to_vec()).ok()?;
    let count = number(take(8)?)?;
    let mut constants = Vec::new();
    for _ in 0..count {
        let id = u32::from_le_bytes(take(4)?.try_into().ok()?);
        let value_length = number(take(8)?)?;
        constants.push((id, take(value_length)?.to_vec()));
    }
    if has_options {
        // Derived from the flags: read past, not trusted.
        let options_length = number(take(8)?)?;
        take(options_length)?;
    }
    if !rest.is_empty() {
        return None;
    }
    Some(Source {
        spirv,
        flags,
        constants,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_flags_become_the_compilers_options_as_compute_runtime_makes_them() {
        assert_eq!(
            compiler_options("-ze-opt-level=1  -cl-mad-enable -ze-opt-disable -g"),
            "-cl-mad-enable -g -cl-opt-disable -ze-opt-level=O1"
        );
        assert_eq!(
            compiler_options("-ze-opt-level"),
            "-ze-opt-level",
            "no value: kept"
        );
        assert_eq!(compiler_options(""), "");
    }

    #[test]
    fn a_source_round_trips_and_anything_else_is_no_binary_of_ours() {
        let source = Source {
            spirv: vec![3, 2, 0x23, 7, 1, 0, 1, 0],
            flags: "-cl-mad-enable".into(),
            constants: vec![(7, 42u32.to_le_bytes().to_vec()), (9, vec![1])],
        };
        let binary = encode(&source);
        assert_eq!(decode(&binary), Some(source.clone()));
        for cut in 0..binary.len() {
            assert_eq!(decode(&binary[..cut]), None, "cut at {cut}");
        }
        let mut longer = binary.clone();
        longer.push(0);
        assert_eq!(decode(&longer), None);
        assert_eq!(decode(b"\x7fELF some device's ISA"), None);
        // The form before the compiler's options were recorded is still read.
        let options = compiler_options(&source.flags).len();
        let mut older = binary[..binary.len() - 8 - options].to_vec();
        older[..8].copy_from_slice(MAGIC_WITHOUT_OPTIONS);
        assert_eq!(decode(&older), Some(source.clone()));
        // A length beyond the binary is refused, not allocated.
        let mut huge = MAGIC.to_vec();
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(decode(&huge), None);
    }
}
