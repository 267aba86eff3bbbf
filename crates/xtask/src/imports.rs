//! `cargo xtask imports`: each crate's imports between its own files, and the loops they make.
//!
//! A file's module imports another where its text names `crate::a::b` or `super::...` (in `use`
//! lines or in paths); each name resolves to the longest prefix that is a module of the crate.
//! Imports inside a `#[cfg(test)]` part (from its first line on) are left out: tests may reach
//! anywhere. A loop is a set of files that import each other round (a strongly connected
//! component); every import between two files of one loop runs back up whatever order the
//! files are put in, so those are counted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One crate's figures.
pub struct Figures {
    pub name: String,
    pub files: usize,
    pub imports: usize,
    /// Each loop's files, largest first.
    pub loops: Vec<Vec<String>>,
    /// Imports between files of one loop.
    pub imports_in_loops: usize,
}

/// The module path of `file` under `src`: `lib.rs` and `main.rs` are the root, `a/mod.rs` and
/// `a.rs` are `a`.
fn module_of(src: &Path, file: &Path) -> Option<Vec<String>> {
    let relative = file.strip_prefix(src).ok()?;
    let mut parts: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".rs")?;
    if !(parts.is_empty() && matches!(stem, "lib" | "main") || stem == "mod") {
        parts.push(stem.to_string());
    }
    Some(parts)
}

fn rust_files(folder: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// The paths `text` names from `crate::` or `super::` (relative to `module`, whose file is a
/// `mod.rs` or the root when `owns_folder`), each as segments from the crate root; a `{...}`
/// group after a path names each of its items' first segment.
fn named_paths(text: &str, module: &[String], owns_folder: bool) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut paths = Vec::new();
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < text.len() {
        let rest = &text[at..];
        let (start, mut base) = if rest.starts_with("crate::")
            && (at == 0 || !ident(bytes[at - 1] as char) && bytes[at - 1] != b'$')
        {
            (at + "crate::".len(), Vec::new())
        } else if rest.starts_with("super::") && (at == 0 || !ident(bytes[at - 1] as char)) {
            // `super` of a folder's own file (`mod.rs`) is the folder's parent module.
            let mut base = module.to_vec();
            if owns_folder || !base.is_empty() {
                base.pop();
            }
            let mut start = at + "super::".len();
            while text[start..].starts_with("super::") {
                base.pop();
                start += "super::".len();
            }
            (start, base)
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        };
        let mut end = start;
        loop {
            let segment_end = text[end..]
                .find(|c: char| !ident(c))
                .map_or(text.len(), |offset| end + offset);
            if segment_end == end {
                break;
            }
            base.push(text[end..segment_end].to_string());
            end = segment_end;
            if text[end..].starts_with("::") && text[end + 2..].starts_with(|c: char| ident(c)) {
                end += 2;
            } else {
                break;
            }
        }
        // A group: right after `crate::`/`super::`, or after a path's last `::`.
        let group = if text[end..].starts_with("::{") {
            Some(end + 3)
        } else if text[end..].starts_with('{') {
            Some(end + 1)
        } else {
            None
        };
        if let Some(open) = group {
            let close = text[open..]
                .find('}')
                .map_or(text.len(), |offset| open + offset);
            for item in text[open..close].split(',') {
                let first: String = item.trim().chars().take_while(|&c| ident(c)).collect();
                if !first.is_empty() && first != "self" {
                    let mut path = base.clone();
                    path.push(first);
                    paths.push(path);
                }
            }
        }
        paths.push(base);
        at = end.max(at + 1);
    }
    paths
}

/// The figures of the crate whose sources are in `src`.
pub fn figures(name: &str, src: &Path) -> Figures {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<Vec<String>, String> = files
        .iter()
        .filter_map(|file| {
            let module = module_of(src, file)?;
            let label = file.strip_prefix(src).ok()?.display().to_string();
            Some((module, label))
        })
        .collect();
    let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
    for file in &files {
        let (Some(module), Ok(text)) = (module_of(src, file), std::fs::read_to_string(file)) else {
            continue;
        };
        let owns_folder =
            file.file_name().is_some_and(|name| name == "mod.rs") || module.is_empty();
        let text = text.split("#[cfg(test)]").next().unwrap_or("");
        let code: String = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let from = modules[&module].clone();
        for path in named_paths(&code, &module, owns_folder) {
            let target = (0..=path.len())
                .rev()
                .find_map(|length| modules.get(&path[..length]));
            if let Some(target) = target
                && *target != from
            {
                edges.insert((from.clone(), target.clone()));
            }
        }
    }
    let loops = strongly_connected(&modules.values().cloned().collect::<Vec<_>>(), &edges);
    let loop_of: BTreeMap<&String, usize> = loops
        .iter()
        .enumerate()
        .flat_map(|(index, files)| files.iter().map(move |file| (file, index)))
        .collect();
    let imports_in_loops = edges
        .iter()
        .filter(|(from, to)| loop_of.contains_key(from) && loop_of.get(from) == loop_of.get(to))
        .count();
    Figures {
        name: name.to_string(),
        files: modules.len(),
        imports: edges.len(),
        loops,
        imports_in_loops,
    }
}

/// The loops of the graph (components of more than one file), largest first (Tarjan's
/// algorithm).
fn strongly_connected(nodes: &[String], edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    struct State<'a> {
        edges: &'a BTreeSet<(String, String)>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(state: &mut State<'a>, node: &'a str) {
        let next = state.index.len();
        state.index.insert(node, next);
        state.low.insert(node, next);
        state.stack.push(node);
        state.on_stack.insert(node);
        let targets: Vec<&'a str> = state
            .edges
            .iter()
            .filter(|(from, _)| from == node)
            .map(|(_, to)| to.as_str())
            .collect();
        for target in targets {
            if !state.index.contains_key(target) {
                visit(state, target);
                let low = state.low[node].min(state.low[target]);
                state.low.insert(node, low);
            } else if state.on_stack.contains(target) {
                let low = state.low[node].min(state.index[target]);
                state.low.insert(node, low);
            }
        }
        if state.low[node] == state.index[node] {
            let mut component = Vec::new();
            while let Some(member) = state.stack.pop() {
                state.on_stack.remove(member);
                component.push(member.to_string());
                if member == node {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                state.found.push(component);
            }
        }
    }
    let mut state = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in nodes {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state
        .found
        .sort_by_key(|component| std::cmp::Reverse(component.len()));
    state.found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_from_crate_and_super_with_groups() {
        let module = vec!["pool".to_string(), "block".to_string()];
        let paths = named_paths(
            "use super::{classes::X, fence};\nuse crate::residency::Resident;\nlet x = crate::ze::memory::Buffer::new();",
            &module,
            false,
        );
        let strings: Vec<String> = paths.iter().map(|path| path.join("::")).collect();
        assert!(
            strings.contains(&"pool::classes".to_string()),
            "{strings:?}"
        );
        assert!(strings.contains(&"pool::fence".to_string()), "{strings:?}");
        assert!(
            strings.contains(&"residency::Resident".to_string()),
            "{strings:?}"
        );
        assert!(
            strings.contains(&"ze::memory::Buffer::new".to_string()),
            "{strings:?}"
        );
        // In a folder's own file, `super` is the folder's parent.
        let paths = named_paths("use super::error::Error;", &["pool".to_string()], true);
        assert_eq!(paths, vec![vec!["error".to_string(), "Error".to_string()]]);
    }

    #[test]
    fn a_loop_is_found_and_a_chain_is_not() {
        let nodes: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        let edge = |from: &str, to: &str| (from.to_string(), to.to_string());
        let edges: BTreeSet<_> = [
            edge("a", "b"),
            edge("b", "c"),
            edge("c", "a"),
            edge("c", "d"),
        ]
        .into_iter()
        .collect();
        assert_eq!(
            strongly_connected(&nodes, &edges),
            vec![vec!["a".to_string(), "b".to_string(), "c".to_string()]]
        );
    }
}
