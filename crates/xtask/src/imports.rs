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
    /// Every import, as (importing file, imported file).
    pub edges: BTreeSet<(String, String)>,
    /// Every file, as its path under `src`.
    pub file_names: BTreeSet<String>,
}

/// A crate's layers, bottom up: each a list of files or folders (ending in `/`) of `src`. A file
/// belongs to the layer of its longest matching entry.
pub struct Layers {
    pub krate: &'static str,
    pub layers: &'static [&'static [&'static str]],
    /// How many imports may run from a lower layer to a higher one.
    pub most_back_up: usize,
}

/// The layer of `file`, or `None` when no entry names it.
pub fn layer_of(layers: &Layers, file: &str) -> Option<usize> {
    layers
        .layers
        .iter()
        .enumerate()
        .flat_map(|(index, entries)| entries.iter().map(move |entry| (index, *entry)))
        .filter(|(_, entry)| {
            if entry.ends_with('/') {
                file.starts_with(entry)
            } else {
                file == *entry
            }
        })
        .max_by_key(|(_, entry)| entry.len())
        .map(|(index, _)| index)
}

/// What is wrong with a crate's imports: a loop of more than `largest_loop` files; where it has
/// layers, more imports running back up than it allows, and files in none of them.
pub fn failures(figures: &Figures, layers: Option<&Layers>, largest_loop: usize) -> Vec<String> {
    let name = &figures.name;
    let mut failures: Vec<String> = figures
        .loops
        .iter()
        .filter(|files| files.len() > largest_loop)
        .map(|files| {
            format!(
                "{name}: a loop of {} files ({})",
                files.len(),
                files.join(", ")
            )
        })
        .collect();
    if let Some(layers) = layers {
        let back_up = back_up(figures, layers);
        if back_up.len() > layers.most_back_up {
            failures.push(format!(
                "{name}: {} imports run back up, at most {} may",
                back_up.len(),
                layers.most_back_up
            ));
        }
        for file in &figures.file_names {
            if layer_of(layers, file).is_none() {
                failures.push(format!(
                    "{name}: {file} is in none of its layers (xtask's LAYERS)"
                ));
            }
        }
    }
    failures
}

/// The imports of `figures` that run from a lower layer up to a higher one.
pub fn back_up<'a>(figures: &'a Figures, layers: &Layers) -> Vec<&'a (String, String)> {
    figures
        .edges
        .iter()
        .filter(
            |(from, to)| match (layer_of(layers, from), layer_of(layers, to)) {
                (Some(from), Some(to)) => to > from,
                _ => false,
            },
        )
        .collect()
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
        // `$crate::` in a macro's body names this crate as `crate::` does.
        let (start, mut base) =
            if rest.starts_with("crate::") && (at == 0 || !ident(bytes[at - 1] as char)) {
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
        let grouped = group.is_some();
        if let Some(open) = group {
            let close = matching_brace(text, open);
            group_paths(&text[open..close], &base, &mut paths);
            end = close;
        }
        // A group names its items, not the module they are in.
        if !grouped {
            paths.push(base);
        }
        at = end.max(at + 1);
    }
    paths
}

/// `code` without its `#[cfg(test)]` items (a test module, a test-only function or import):
/// tests may reach anywhere.
fn without_tests(code: &str) -> String {
    let mut kept = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        kept.push_str(&rest[..at]);
        let item = &rest[at + "#[cfg(test)]".len()..];
        // The item ends at its first `;` outside braces, or where its first brace closes.
        let mut depth = 0;
        let mut end = item.len();
        for (offset, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = offset + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = offset + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    kept.push_str(rest);
    kept
}

/// Where the group opened before `open` closes (the end of `text` when it does not).
fn matching_brace(text: &str, open: usize) -> usize {
    let mut depth = 1;
    for (offset, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return open + offset;
                }
            }
            _ => {}
        }
    }
    text.len()
}

/// The paths a group's items name under `base` (`a::B, c::{D, e::F}, self`), nested groups
/// included.
fn group_paths(items: &str, base: &[String], paths: &mut Vec<Vec<String>>) {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut depth = 0;
    let mut start = 0;
    let mut pieces = Vec::new();
    for (offset, c) in items.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                pieces.push(&items[start..offset]);
                start = offset + 1;
            }
            _ => {}
        }
    }
    pieces.push(&items[start..]);
    for piece in pieces {
        let piece = piece.trim();
        let piece = piece.split(" as ").next().unwrap_or(piece).trim();
        let mut path = base.to_vec();
        let mut rest = piece;
        loop {
            let segment: String = rest.chars().take_while(|&c| ident(c)).collect();
            if segment.is_empty() || segment == "self" {
                break;
            }
            rest = &rest[segment.len()..];
            path.push(segment);
            if let Some(after) = rest.strip_prefix("::") {
                if let Some(inner) = after.strip_prefix('{') {
                    let close = matching_brace(inner, 0);
                    group_paths(&inner[..close], &path, paths);
                    path.clear();
                    break;
                }
                rest = after;
            } else {
                break;
            }
        }
        if path.len() > base.len() {
            paths.push(path);
        }
    }
}

/// The names `code` (the module `module`'s) re-exports with `pub use` or `pub(crate) use`, each
/// as (the name's path from the crate root, the path it stands for). Names from other crates are
/// left out.
fn reexported(
    code: &str,
    module: &[String],
    owns_folder: bool,
    modules: &BTreeMap<Vec<String>, String>,
) -> Vec<(Vec<String>, Vec<String>)> {
    let mut found = Vec::new();
    for statement in code.split(';') {
        // Attributes before the statement (`#[doc(hidden)]`, `#[cfg(...)]`) are not part of it.
        let mut statement = statement.trim();
        while let Some(attribute) = statement.strip_prefix("#[") {
            let Some(close) = attribute.find(']') else {
                break;
            };
            statement = attribute[close + 1..].trim_start();
        }
        let Some(tree) = statement
            .strip_prefix("pub use ")
            .or_else(|| statement.strip_prefix("pub(crate) use "))
        else {
            continue;
        };
        let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
        // `a::b::{X, Y as Z, c::W}` or `a::b::X` (one level of braces).
        let (prefix, items): (&str, Vec<&str>) = match tree.split_once('{') {
            Some((prefix, rest)) => (
                prefix.trim_end_matches("::"),
                rest.trim_end_matches('}').split(',').collect(),
            ),
            None => match tree.rsplit_once("::") {
                Some((prefix, item)) => (prefix, vec![item]),
                None => continue,
            },
        };
        let mut base: Vec<String> = Vec::new();
        let mut segments = prefix.split("::").filter(|segment| !segment.is_empty());
        match segments.next() {
            Some("crate") => {}
            Some("self") => base.extend_from_slice(module),
            Some("super") => {
                base.extend_from_slice(module);
                if owns_folder || !base.is_empty() {
                    base.pop();
                }
            }
            Some(first) => {
                let mut child = module.to_vec();
                child.push(first.to_string());
                if !modules.contains_key(&child) {
                    continue; // another crate's names
                }
                base = child;
            }
            None => continue,
        }
        for segment in segments {
            if segment == "super" {
                base.pop();
            } else {
                base.push(segment.to_string());
            }
        }
        for item in items {
            let item = item.trim();
            let (path, alias) = match item.split_once(" as ") {
                Some((path, alias)) => (path.trim(), alias.trim()),
                None => (item, item.rsplit("::").next().unwrap_or(item)),
            };
            if path.is_empty() || path == "self" {
                continue;
            }
            let mut target = base.clone();
            target.extend(path.split("::").map(str::to_string));
            let mut name = module.to_vec();
            name.push(alias.to_string());
            found.push((name, target));
        }
    }
    found
}

/// The file a path from the crate root names: its longest prefix that is a module, after
/// following re-exports.
fn resolve<'a>(
    path: &[String],
    modules: &'a BTreeMap<Vec<String>, String>,
    reexports: &BTreeMap<Vec<String>, Vec<String>>,
) -> Option<&'a String> {
    let mut path = path.to_vec();
    for _ in 0..8 {
        let length = (0..=path.len())
            .rev()
            .find(|&length| modules.contains_key(&path[..length]))?;
        let named = path.get(..=length).filter(|_| length < path.len());
        // A name a glob re-export (`pub use ze::*;`) brings in: followed where the glob's
        // module names it (a submodule, or a re-export of its own).
        let through_glob = named.and_then(|named| {
            let mut glob = named[..length].to_vec();
            glob.push("*".to_string());
            let base = reexports.get(&glob)?.split_last()?.1.to_vec();
            let mut inside = base.clone();
            inside.push(named[length].clone());
            (modules.contains_key(&inside) || reexports.contains_key(&inside)).then_some(inside)
        });
        match named
            .and_then(|named| reexports.get(named))
            .or(through_glob.as_ref())
        {
            Some(target) => {
                let mut followed = target.clone();
                followed.extend_from_slice(&path[length + 1..]);
                path = followed;
            }
            None => return modules.get(&path[..length]),
        }
    }
    None
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
    // Each file's code (comments and tests left out), and the names it re-exports.
    let mut sources = Vec::new();
    let mut reexports: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for file in &files {
        let (Some(module), Ok(text)) = (module_of(src, file), std::fs::read_to_string(file)) else {
            continue;
        };
        let owns_folder =
            file.file_name().is_some_and(|name| name == "mod.rs") || module.is_empty();
        let code: String = text
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let code = without_tests(&code);
        reexports.extend(reexported(&code, &module, owns_folder, &modules));
        sources.push((module, owns_folder, code));
    }
    let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
    for (module, owns_folder, code) in &sources {
        let from = modules[module].clone();
        for path in named_paths(code, module, *owns_folder) {
            if let Some(target) = resolve(&path, &modules, &reexports)
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
        edges,
        file_names: modules.values().cloned().collect(),
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
            strings.contains(&"pool::classes::X".to_string()),
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
    fn nested_groups_macro_paths_and_code_after_a_test_item_are_read() {
        let paths = named_paths(
            "use crate::{error::{Error, check}, high::H};\nmacro_rules! m { () => { $crate::pool::P } }",
            &[],
            true,
        );
        let strings: Vec<String> = paths.iter().map(|path| path.join("::")).collect();
        for expected in ["error::Error", "error::check", "high::H", "pool::P"] {
            assert!(
                strings.contains(&expected.to_string()),
                "{expected}: {strings:?}"
            );
        }
        let code = "use crate::low::A;\n#[cfg(test)]\nfn helper() { crate::x::Y }\n#[cfg(test)]\nuse crate::z::Z;\nfn real() { crate::high::B }\n#[cfg(test)]\nmod tests { use crate::w::W; }\n";
        let kept = without_tests(code);
        assert!(kept.contains("crate::high::B"), "{kept}");
        assert!(kept.contains("crate::low::A"), "{kept}");
        for gone in ["crate::x::Y", "crate::z::Z", "crate::w::W"] {
            assert!(!kept.contains(gone), "{gone}: {kept}");
        }
    }

    #[test]
    fn a_name_the_root_reexports_resolves_to_the_module_that_defines_it() {
        let module = |path: &str| -> Vec<String> {
            path.split("::")
                .filter(|part| !part.is_empty())
                .map(str::to_string)
                .collect()
        };
        let modules: BTreeMap<Vec<String>, String> = [
            (module(""), "lib.rs"),
            (module("ze"), "ze/mod.rs"),
            (module("ze::memory"), "ze/memory.rs"),
            (module("pool"), "pool/mod.rs"),
            (module("pool::block"), "pool/block.rs"),
        ]
        .into_iter()
        .map(|(path, file)| (path, file.to_string()))
        .collect();
        let mut reexports = BTreeMap::new();
        reexports.extend(reexported(
            "pub use ze::memory::{Memory, Buffer as Plain};\n#[doc(hidden)]\npub use pool::Block;\npub use other_crate::Thing;",
            &[],
            true,
            &modules,
        ));
        reexports.extend(reexported(
            "pub(crate) use block::Block;",
            &module("pool"),
            true,
            &modules,
        ));
        reexports.extend(reexported(
            "pub use crate::pool::*;",
            &module("ze"),
            true,
            &modules,
        ));
        let file = |path: &str| resolve(&module(path), &modules, &reexports).cloned();
        assert_eq!(file("Memory").as_deref(), Some("ze/memory.rs"));
        assert_eq!(file("Plain::new").as_deref(), Some("ze/memory.rs"));
        // Through two re-exports: the root's of pool's.
        assert_eq!(file("Block").as_deref(), Some("pool/block.rs"));
        // Another crate's name stays with the file that re-exports it.
        assert_eq!(file("Thing").as_deref(), Some("lib.rs"));
        assert_eq!(file("pool::Unknown").as_deref(), Some("pool/mod.rs"));
        // Through a glob, to what the glob's module re-exports; a name it does not stays.
        assert_eq!(file("ze::Block").as_deref(), Some("pool/block.rs"));
        assert_eq!(file("ze::Unknown").as_deref(), Some("ze/mod.rs"));
    }

    #[test]
    fn imports_from_a_lower_layer_to_a_higher_one_run_back_up() {
        let layers = Layers {
            krate: "x",
            layers: &[&["a.rs", "low/"], &["b.rs"], &["low/special.rs"]],
            most_back_up: 0,
        };
        assert_eq!(layer_of(&layers, "low/x.rs"), Some(0));
        assert_eq!(layer_of(&layers, "low/special.rs"), Some(2));
        assert_eq!(layer_of(&layers, "c.rs"), None);
        let edge = |from: &str, to: &str| (from.to_string(), to.to_string());
        let figures = Figures {
            name: "x".to_string(),
            files: 4,
            imports: 3,
            loops: Vec::new(),
            imports_in_loops: 0,
            edges: [
                edge("b.rs", "a.rs"),
                edge("a.rs", "b.rs"),
                edge("b.rs", "low/special.rs"),
            ]
            .into_iter()
            .collect(),
            file_names: ["a.rs", "b.rs", "low/special.rs", "low/x.rs"]
                .into_iter()
                .map(str::to_string)
                .collect(),
        };
        assert_eq!(
            back_up(&figures, &layers),
            vec![&edge("a.rs", "b.rs"), &edge("b.rs", "low/special.rs")]
        );
        // Two back up where none may; a loop of two within a limit of three is fine.
        let loop_of_two = vec!["a.rs".to_string(), "b.rs".to_string()];
        let figures = Figures {
            loops: vec![loop_of_two],
            ..figures
        };
        let found = failures(&figures, Some(&layers), 3);
        assert_eq!(
            found,
            vec!["x: 2 imports run back up, at most 0 may".to_string()]
        );
        let allowing = Layers {
            most_back_up: 2,
            ..layers
        };
        assert!(failures(&figures, Some(&allowing), 3).is_empty());
        // A loop larger than allowed, and a file in no layer.
        assert_eq!(failures(&figures, Some(&allowing), 1).len(), 1);
        let mut unlayered = figures;
        unlayered.file_names.insert("c.rs".to_string());
        assert_eq!(
            failures(&unlayered, Some(&allowing), 3),
            vec!["x: c.rs is in none of its layers (xtask's LAYERS)".to_string()]
        );
        assert!(failures(&unlayered, None, 3).is_empty());
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
