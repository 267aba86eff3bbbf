//! Intel's native device binaries (zebin): an ELF file of the GPU's machine code per kernel,
//! its `.ze_info` description, and often the SPIR-V it was compiled from. What compute-runtime
//! takes from one (`unpackSingleZebin` in
//! `shared/source/device_binary_format/device_binary_format_zebin.cpp`): the intermediate
//! representation (the section of type `SHT_ZEBIN_SPIRV`), the build options
//! (`.misc.buildOptions`), its specialization constants, and the machine code. The simulator
//! can run only the first: machine
//! code for a GPU cannot run on the CPU runtime that stands in for one.
use object::Endianness;
use object::elf::{FileHeader32, FileHeader64};
use object::read::elf::{FileHeader, SectionHeader};

/// `e_type` of a relocatable ELF file, as compilers write zebins.
const TYPE_RELOCATABLE: u16 = 1;
/// `e_type` of an executable zebin (compute-runtime's `ET_ZEBIN_EXE`, `zebin_elf.h`).
const TYPE_ZEBIN_EXECUTABLE: u16 = 0xff12;
/// `e_machine` of Intel's GPU binaries (EM_INTELGT in the ELF machine registry), which
/// [`write`] puts in.
const MACHINE_INTEL_GT: u16 = 205;
/// The section type of the SPIR-V a zebin carries (`SHT_ZEBIN_SPIRV`, `zebin_elf.h`).
const SECTION_SPIRV: u32 = 0xff00_0009;
/// The section type of a zebin's miscellaneous sections (`SHT_ZEBIN_MISC`, `zebin_elf.h`).
const SECTION_MISC: u32 = 0xff00_0014;
/// The name of the miscellaneous section holding the build's options.
const BUILD_OPTIONS: &[u8] = b".misc.buildOptions";
/// The miscellaneous sections of its specialization constants: 32-bit ids, 64-bit values.
const SPEC_CONSTANT_IDS: &[u8] = b".misc.specConstantsIds";
const SPEC_CONSTANT_VALUES: &[u8] = b".misc.specConstantsValues";
/// The section type of a zebin's kernel descriptions (`SHT_ZEBIN_ZEINFO`, `zebin_elf.h`).
const SECTION_ZE_INFO: u32 = 0xff00_0011;

/// What the simulator reads of a zebin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zebin {
    /// The SPIR-V it was built from, if it carries it.
    pub spirv: Option<Vec<u8>>,
    /// The options it was built with (empty when it does not record them).
    pub build_options: String,
    /// The specialization constants it was built with: each id and its 64-bit value, as
    /// compute-runtime's `getSpecConstantsFromBinary` reads them (none unless both sections
    /// are there with as many ids as values).
    pub constants: Vec<(u32, u64)>,
    /// The kernels its `.ze_info` describes, by name.
    pub kernels: Vec<String>,
}

/// `bytes` read as a zebin: `Ok(None)` when they are not one, `Err` with why when they are
/// one (by compute-runtime's test, `isZebin` in `zebin_decoder.cpp`: a 32- or 64-bit ELF
/// header of a relocatable or zebin-executable file) whose sections cannot be read.
///
/// ```
/// let binary = ze_sim::zebin::write(&["scale"], Some(&[0x03, 0x02, 0x23, 0x07]), Some("-O2"), &[]);
/// let zebin = ze_sim::zebin::read(&binary).unwrap().expect("a zebin");
/// assert_eq!(zebin.kernels, ["scale"]);
/// assert_eq!(zebin.build_options, "-O2");
/// assert!(ze_sim::zebin::read(&binary[..100]).is_err(), "cut short");
/// assert_eq!(ze_sim::zebin::read(b"not an ELF file"), Ok(None));
/// ```
pub fn read(bytes: &[u8]) -> Result<Option<Zebin>, String> {
    if let Ok(header) = FileHeader64::<Endianness>::parse(bytes) {
        read_sections(header, bytes)
    } else if let Ok(header) = FileHeader32::<Endianness>::parse(bytes) {
        read_sections(header, bytes)
    } else {
        Ok(None)
    }
}

fn read_sections<Elf: FileHeader<Endian = Endianness>>(
    header: &Elf,
    bytes: &[u8],
) -> Result<Option<Zebin>, String> {
    let Ok(endian) = header.endian() else {
        return Ok(None);
    };
    if !matches!(
        header.e_type(endian),
        TYPE_RELOCATABLE | TYPE_ZEBIN_EXECUTABLE
    ) {
        return Ok(None);
    }
    let damaged = |error: object::read::Error| format!("a damaged native binary: {error}");
    let sections = header.sections(endian, bytes).map_err(damaged)?;
    let mut zebin = Zebin {
        spirv: None,
        build_options: String::new(),
        constants: Vec::new(),
        kernels: Vec::new(),
    };
    let (mut ids, mut values) = (None, None);
    for section in sections.iter() {
        let kind = section.sh_type(endian);
        if !matches!(kind, SECTION_SPIRV | SECTION_MISC | SECTION_ZE_INFO) {
            continue;
        }
        let data = section.data(endian, bytes).map_err(damaged)?;
        let name = sections.section_name(endian, section).map_err(damaged)?;
        match (kind, name) {
            (SECTION_SPIRV, _) => zebin.spirv = Some(data.to_vec()),
            (SECTION_MISC, BUILD_OPTIONS) => {
                zebin.build_options = String::from_utf8_lossy(data).into_owned();
            }
            (SECTION_MISC, SPEC_CONSTANT_IDS) => ids = Some(data),
            (SECTION_MISC, SPEC_CONSTANT_VALUES) => values = Some(data),
            (SECTION_ZE_INFO, _) => zebin.kernels = kernel_names(data),
            _ => {}
        }
    }
    if let (Some(ids), Some(values)) = (ids, values)
        && ids.len() / 4 == values.len() / 8
    {
        zebin.constants = ids
            .chunks_exact(4)
            .zip(values.chunks_exact(8))
            .map(|(id, value)| {
                (
                    u32::from_le_bytes(id.try_into().unwrap_or_default()),
                    u64::from_le_bytes(value.try_into().unwrap_or_default()),
                )
            })
            .collect();
    }
    Ok(Some(zebin))
}

/// The kernel names a `.ze_info` lists: each `- name:` entry under `kernels:` (its YAML, read
/// only as far as the names).
fn kernel_names(ze_info: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(ze_info);
    let mut names = Vec::new();
    let mut in_kernels = false;
    for line in text.lines() {
        if !line.starts_with(' ') && !line.starts_with('-') {
            in_kernels = line.trim_end().starts_with("kernels:");
            continue;
        }
        let entry = line.trim_start();
        let indent = line.len() - entry.len();
        // A kernel's entry is one level in; deeper `name:` keys belong to its arguments.
        if in_kernels
            && indent <= 2
            && let Some(name) = entry.strip_prefix("- name:")
        {
            // Control characters (a NUL among them) would cut a build log that names them.
            let name: String = name
                .trim()
                .trim_matches('"')
                .chars()
                .filter(|c| !c.is_control())
                .collect();
            names.push(name);
        }
    }
    names
}

/// A zebin for Intel's GPUs holding what the simulator reads: a `.ze_info` naming `kernels`,
/// the SPIR-V (if given), the build options (if given) and the specialization constants (ids
/// and 64-bit values); no machine code. For tests and
/// tools that hand the simulator a native binary shaped as Intel's compiler writes one.
///
/// ```
/// let machine_code_only = ze_sim::zebin::write(&["generated_gemm"], None, None, &[]);
/// assert_eq!(ze_sim::zebin::read(&machine_code_only).unwrap().unwrap().spirv, None);
/// ```
pub fn write(
    kernels: &[&str],
    spirv: Option<&[u8]>,
    build_options: Option<&str>,
    constants: &[(u32, u64)],
) -> Vec<u8> {
    write_for_machine(kernels, spirv, build_options, constants, MACHINE_INTEL_GT)
}

/// [`write`] with another ELF machine number.
fn write_for_machine(
    kernels: &[&str],
    spirv: Option<&[u8]>,
    build_options: Option<&str>,
    constants: &[(u32, u64)],
    machine: u16,
) -> Vec<u8> {
    let mut ze_info = String::from("version: 1.8\nkernels:\n");
    for kernel in kernels {
        ze_info.push_str(&format!(
            "  - name: \"{kernel}\"\n    payload_arguments:\n      - arg_type: arg_byvalue\n        name: \"x\"\n"
        ));
    }
    let mut sections: Vec<(&[u8], u32, Vec<u8>)> =
        vec![(b".ze_info", SECTION_ZE_INFO, ze_info.into_bytes())];
    if let Some(spirv) = spirv {
        sections.push((b".spv", SECTION_SPIRV, spirv.to_vec()));
    }
    if let Some(options) = build_options {
        sections.push((BUILD_OPTIONS, SECTION_MISC, options.as_bytes().to_vec()));
    }
    if !constants.is_empty() {
        let ids = constants
            .iter()
            .flat_map(|(id, _)| id.to_le_bytes())
            .collect();
        let values = constants
            .iter()
            .flat_map(|(_, value)| value.to_le_bytes())
            .collect();
        sections.push((SPEC_CONSTANT_IDS, SECTION_MISC, ids));
        sections.push((SPEC_CONSTANT_VALUES, SECTION_MISC, values));
    }
    let mut names = vec![0u8];
    let mut name_at = Vec::new();
    for (name, _, _) in &sections {
        name_at.push(names.len() as u32);
        names.extend_from_slice(name);
        names.push(0);
    }
    let shstrtab_name = names.len() as u32;
    names.extend_from_slice(b".shstrtab\0");
    // The null section, each section, then the section names.
    let count = sections.len() + 2;
    let mut data_at = 64 + 64 * count;
    let mut out = vec![0u8; data_at];
    out[..4].copy_from_slice(b"\x7fELF");
    out[4] = 2; // 64-bit
    out[5] = 1; // little-endian
    out[6] = 1; // ELF version 1
    out[16..18].copy_from_slice(&1u16.to_le_bytes()); // relocatable, as compilers write zebins
    out[18..20].copy_from_slice(&machine.to_le_bytes());
    out[20..24].copy_from_slice(&1u32.to_le_bytes());
    out[40..48].copy_from_slice(&64u64.to_le_bytes()); // section headers follow the header
    out[52..54].copy_from_slice(&64u16.to_le_bytes());
    out[58..60].copy_from_slice(&64u16.to_le_bytes());
    out[60..62].copy_from_slice(&(count as u16).to_le_bytes());
    out[62..64].copy_from_slice(&((count - 1) as u16).to_le_bytes());
    let mut header = |index: usize, name: u32, kind: u32, offset: usize, size: usize| {
        let at = 64 + 64 * index;
        out[at..at + 4].copy_from_slice(&name.to_le_bytes());
        out[at + 4..at + 8].copy_from_slice(&kind.to_le_bytes());
        out[at + 24..at + 32].copy_from_slice(&(offset as u64).to_le_bytes());
        out[at + 32..at + 40].copy_from_slice(&(size as u64).to_le_bytes());
    };
    let mut payloads = Vec::new();
    for (index, (_, kind, data)) in sections.iter().enumerate() {
        header(index + 1, name_at[index], *kind, data_at, data.len());
        data_at += data.len();
        payloads.extend_from_slice(data);
    }
    const STRING_TABLE: u32 = 3;
    header(count - 1, shstrtab_name, STRING_TABLE, data_at, names.len());
    out.extend_from_slice(&payloads);
    out.extend_from_slice(&names);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zebin(spirv: Option<&[u8]>, options: Option<&str>, machine: u16) -> Vec<u8> {
        write_for_machine(&["probe"], spirv, options, &[], machine)
    }

    #[test]
    fn a_zebin_gives_its_spirv_options_constants_and_kernel_names() {
        let bytes = write_for_machine(
            &["probe", "second\0one"],
            Some(&[3, 2, 1]),
            Some("-O2 -g"),
            &[(7, 99), (8, u64::MAX)],
            MACHINE_INTEL_GT,
        );
        let read = read(&bytes).unwrap().expect("a zebin");
        assert_eq!(read.spirv.as_deref(), Some(&[3u8, 2, 1][..]));
        assert_eq!(read.build_options, "-O2 -g");
        assert_eq!(read.constants, [(7, 99), (8, u64::MAX)]);
        assert_eq!(read.kernels, ["probe", "secondone"], "no NUL kept");
    }

    /// A program's module bytes may lie at any address: a zebin one byte past an aligned one
    /// reads the same.
    #[test]
    fn a_zebin_at_any_alignment_reads_the_same() {
        let bytes = zebin(Some(&[5, 6, 7]), Some("-g"), MACHINE_INTEL_GT);
        let mut shifted = vec![0u8; bytes.len() + 1];
        shifted[1..].copy_from_slice(&bytes);
        let read = read(&shifted[1..]).unwrap().expect("a zebin");
        assert_eq!(read.spirv.as_deref(), Some(&[5u8, 6, 7][..]));
        assert_eq!(read.build_options, "-g");
    }

    #[test]
    fn a_zebin_of_machine_code_only_has_no_spirv() {
        let read = read(&zebin(None, None, MACHINE_INTEL_GT))
            .unwrap()
            .expect("a zebin");
        assert_eq!(read.spirv, None);
        assert_eq!(read.build_options, "");
        assert!(read.constants.is_empty());
    }

    /// compute-runtime's test: any relocatable ELF (an older zebin puts its GPU family in
    /// `e_machine`) or zebin executable; other files are no zebin.
    #[test]
    fn what_is_a_zebin_is_compute_runtimes_test() {
        let older = zebin(Some(&[1]), None, 0x0c09);
        assert!(read(&older).unwrap().is_some(), "any machine");
        let mut executable = zebin(Some(&[1]), None, 62);
        executable[16..18].copy_from_slice(&2u16.to_le_bytes()); // ET_EXEC
        assert_eq!(read(&executable), Ok(None));
        assert_eq!(read(&[0xde, 0xad]), Ok(None));
        assert_eq!(read(&[]), Ok(None));
    }

    /// A zebin whose section table or sections lie past its end, or whose names table is no
    /// table, is a damaged binary (a build failure), never an opaque module.
    #[test]
    fn a_damaged_zebin_is_an_error() {
        let whole = zebin(Some(&[1, 2, 3, 4]), Some("-O1"), MACHINE_INTEL_GT);
        assert!(read(&whole[..whole.len() - 4]).is_err(), "cut short");
        let mut far = whole.clone();
        // The first section's offset, far past the end.
        far[64 + 64 + 24..64 + 64 + 32].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(read(&far).is_err(), "a section past the end");
        let mut many = whole.clone();
        many[60..62].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(read(&many).is_err(), "more sections than bytes");
        let mut names = whole;
        names[62..64].copy_from_slice(&1u16.to_le_bytes());
        assert!(
            read(&names).is_err(),
            "section names from a section that holds none"
        );
    }
}
