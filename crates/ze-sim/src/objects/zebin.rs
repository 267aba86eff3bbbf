//! Intel's native device binaries (zebin): an ELF file of the GPU's machine code per kernel,
//! its `.ze_info` description, and often the SPIR-V it was compiled from. What compute-runtime
//! takes from one (`unpackSingleZebin` in
//! `shared/source/device_binary_format/device_binary_format_zebin.cpp`): the intermediate
//! representation (the section of type `SHT_ZEBIN_SPIRV`), the build options
//! (`.misc.buildOptions`), and the machine code. The simulator can run only the first: machine
//! code for a GPU cannot run on the CPU runtime that stands in for one.
use object::Endianness;
use object::elf::FileHeader64;
use object::read::elf::{FileHeader, SectionHeader};

/// `e_machine` of Intel's GPU binaries (EM_INTELGT in the ELF machine registry).
const MACHINE_INTEL_GT: u16 = 205;
/// `e_type` of an executable zebin (compute-runtime's `ET_ZEBIN_EXE`, `zebin_elf.h`).
const TYPE_ZEBIN_EXECUTABLE: u16 = 0xff12;
/// The section type of the SPIR-V a zebin carries (`SHT_ZEBIN_SPIRV`, `zebin_elf.h`).
const SECTION_SPIRV: u32 = 0xff00_0009;
/// The section type of a zebin's miscellaneous sections (`SHT_ZEBIN_MISC`, `zebin_elf.h`).
const SECTION_MISC: u32 = 0xff00_0014;
/// The name of the miscellaneous section holding the build's options.
const BUILD_OPTIONS: &[u8] = b".misc.buildOptions";
/// The section type of a zebin's kernel descriptions (`SHT_ZEBIN_ZEINFO`, `zebin_elf.h`).
const SECTION_ZE_INFO: u32 = 0xff00_0011;

/// What the simulator reads of a zebin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zebin {
    /// The SPIR-V it was built from, if it carries it.
    pub spirv: Option<Vec<u8>>,
    /// The options it was built with (empty when it does not record them).
    pub build_options: String,
    /// The kernels its `.ze_info` describes, by name.
    pub kernels: Vec<String>,
}

/// `bytes` read as a 64-bit zebin; `None` when they are not one (an ELF file for another
/// machine, or no ELF file at all).
///
/// ```
/// let binary = ze_sim::zebin::write(&["scale"], Some(&[0x03, 0x02, 0x23, 0x07]), Some("-O2"));
/// let zebin = ze_sim::zebin::read(&binary).expect("a zebin");
/// assert_eq!(zebin.kernels, ["scale"]);
/// assert_eq!(zebin.build_options, "-O2");
/// assert!(ze_sim::zebin::read(b"\x7fELF, but cut short").is_none());
/// ```
pub fn read(bytes: &[u8]) -> Option<Zebin> {
    let header = FileHeader64::<Endianness>::parse(bytes).ok()?;
    let endian = header.endian().ok()?;
    if endian != Endianness::Little {
        return None;
    }
    let (machine, kind) = (header.e_machine(endian), header.e_type(endian));
    if machine != MACHINE_INTEL_GT && kind != TYPE_ZEBIN_EXECUTABLE {
        return None;
    }
    let sections = header.sections(endian, bytes).ok()?;
    let mut zebin = Zebin {
        spirv: None,
        build_options: String::new(),
        kernels: Vec::new(),
    };
    for section in sections.iter() {
        let data = section.data(endian, bytes).ok()?;
        match section.sh_type(endian) {
            SECTION_SPIRV => zebin.spirv = Some(data.to_vec()),
            SECTION_MISC if sections.section_name(endian, section).ok() == Some(BUILD_OPTIONS) => {
                zebin.build_options = String::from_utf8_lossy(data).into_owned();
            }
            SECTION_ZE_INFO => zebin.kernels = kernel_names(data),
            _ => {}
        }
    }
    Some(zebin)
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
            names.push(name.trim().trim_matches('"').to_string());
        }
    }
    names
}

/// A zebin for Intel's GPUs holding what the simulator reads: a `.ze_info` naming `kernels`,
/// the SPIR-V (if given) and the build options (if given); no machine code. For tests and
/// tools that hand the simulator a native binary shaped as Intel's compiler writes one.
///
/// ```
/// let machine_code_only = ze_sim::zebin::write(&["generated_gemm"], None, None);
/// assert_eq!(ze_sim::zebin::read(&machine_code_only).unwrap().spirv, None);
/// ```
pub fn write(kernels: &[&str], spirv: Option<&[u8]>, build_options: Option<&str>) -> Vec<u8> {
    write_for_machine(kernels, spirv, build_options, MACHINE_INTEL_GT)
}

/// [`write`] with another ELF machine number.
fn write_for_machine(
    kernels: &[&str],
    spirv: Option<&[u8]>,
    build_options: Option<&str>,
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
        write_for_machine(&["probe"], spirv, options, machine)
    }

    #[test]
    fn a_zebin_gives_its_spirv_options_and_kernel_names() {
        let bytes = zebin(Some(&[3, 2, 1]), Some("-O2 -g"), MACHINE_INTEL_GT);
        let read = read(&bytes).expect("a zebin");
        assert_eq!(read.spirv.as_deref(), Some(&[3u8, 2, 1][..]));
        assert_eq!(read.build_options, "-O2 -g");
        assert_eq!(read.kernels, ["probe"]);
    }

    #[test]
    fn a_zebin_of_machine_code_only_has_no_spirv() {
        let read = read(&zebin(None, None, MACHINE_INTEL_GT)).expect("a zebin");
        assert_eq!(read.spirv, None);
        assert_eq!(read.build_options, "");
    }

    #[test]
    fn other_bytes_are_no_zebin() {
        // An ELF file of another machine (x86-64), a truncated one, and no ELF at all.
        assert_eq!(read(&zebin(Some(&[1]), None, 62)), None);
        let bytes = zebin(Some(&[1]), None, MACHINE_INTEL_GT);
        assert_eq!(read(&bytes[..100]), None);
        assert_eq!(read(&[0xde, 0xad]), None);
        assert_eq!(read(&[]), None);
    }
}
