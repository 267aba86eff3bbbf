//! Just enough of SPIR-V to know a module's kernels: the header is checked and the
//! `OpEntryPoint` instructions read, with the parameter count of each entry point's function.
//! (Facts from the SPIR-V specification, section 2.3 "Physical Layout" and the opcodes of
//! `OpEntryPoint` (15), `OpFunction` (54) and `OpFunctionParameter` (55).)

use std::collections::HashMap;

/// The SPIR-V magic number, the module's first word.
pub const MAGIC: u32 = 0x0723_0203;
const HEADER_WORDS: usize = 5;
const OP_ENTRY_POINT: u32 = 15;
const OP_FUNCTION: u32 = 54;
const OP_FUNCTION_PARAMETER: u32 = 55;

/// A kernel a module declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    /// Its name.
    pub name: String,
    /// How many arguments its function takes.
    pub parameters: u32,
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

/// The entry points of a SPIR-V module, in declaration order.
///
/// ```
/// use ze_sim::spirv::{self, EntryPoint};
/// let module = spirv::module_with_kernels(&[("scale", 2)]);
/// assert_eq!(
///     spirv::entry_points(&module).unwrap(),
///     [EntryPoint { name: "scale".into(), parameters: 2 }]
/// );
/// assert!(spirv::entry_points(&module[..7]).is_err());
/// ```
pub fn entry_points(bytes: &[u8]) -> Result<Vec<EntryPoint>, SpirvError> {
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
    let mut entries: Vec<(String, u32)> = Vec::new();
    let mut parameters: HashMap<u32, u32> = HashMap::new();
    let mut current_function = None;
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let opcode = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(SpirvError::WordCount(at));
        }
        let operands = &words[at + 1..at + count];
        match opcode {
            OP_ENTRY_POINT if operands.len() >= 3 => {
                let name = literal_string(&operands[2..]).ok_or(SpirvError::Name(at))?;
                entries.push((name, operands[1]));
            }
            OP_FUNCTION if operands.len() >= 2 => {
                current_function = Some(operands[1]);
                parameters.insert(operands[1], 0);
            }
            OP_FUNCTION_PARAMETER => {
                if let Some(function) = current_function {
                    *parameters.entry(function).or_default() += 1;
                }
            }
            _ => {}
        }
        at += count;
    }
    Ok(entries
        .into_iter()
        .map(|(name, function)| EntryPoint {
            name,
            parameters: parameters.get(&function).copied().unwrap_or(0),
        })
        .collect())
}

/// A nul-terminated UTF-8 string packed little-endian into words.
fn literal_string(words: &[u32]) -> Option<String> {
    let bytes: Vec<u8> = words.iter().flat_map(|word| word.to_le_bytes()).collect();
    let end = bytes.iter().position(|&byte| byte == 0)?;
    String::from_utf8(bytes[..end].to_vec()).ok()
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
    // Header: magic, version 1.0, generator 0, id bound, schema 0.
    let mut words = vec![MAGIC, 0x0001_0000, 0, 1000, 0];
    let instruction = |words: &mut Vec<u32>, opcode: u32, operands: &[u32]| {
        words.push(((operands.len() as u32 + 1) << 16) | opcode);
        words.extend_from_slice(operands);
    };
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
    for (index, (_, parameters)) in kernels.iter().enumerate() {
        instruction(&mut words, OP_FUNCTION, &[1, 100 + index as u32, 0, 2]);
        for parameter in 0..*parameters {
            instruction(&mut words, OP_FUNCTION_PARAMETER, &[3, 500 + parameter]);
        }
    }
    words.iter().flat_map(|word| word.to_le_bytes()).collect()
}
