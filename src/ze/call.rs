//! The checked-call tier between the raw function table (`level_zero_sys::ZeApi`) and the safe
//! types: a call to the driver goes through [`ze_call!`], which turns its result into an
//! [`Error`](crate::Error) naming the call; a result read by hand (a status that is no error, a
//! call in `Drop`) names its call with [`ze_name!`]. Names come from the table's own symbols
//! (`ZeApi::SYMBOLS`), never typed by hand.

/// Calls the entry point in field `$field` of the table `$api` with the arguments given and
/// checks its result: `Ok(())` on success, else the [`Error`](crate::Error) for the result,
/// naming the call. As unsafe as the call: use it inside `unsafe`, with the call's reason.
macro_rules! ze_call {
    ($api:expr, $field:ident($($argument:expr),* $(,)?)) => {
        $crate::error::check(
            ::level_zero_sys::ZeApi::SYMBOLS.$field,
            ($api.$field)($($argument),*),
        )
    };
}

/// The name of the entry point in the table's field `$field`, as the headers spell it.
macro_rules! ze_name {
    ($field:ident) => {
        ::level_zero_sys::ZeApi::SYMBOLS.$field
    };
}

pub(crate) use {ze_call, ze_name};

/// The name of a driver extension function (`level_zero_sys::extensions`' names), for errors.
pub(crate) fn extension_name(name: &'static std::ffi::CStr) -> &'static str {
    name.to_str().unwrap_or("a driver extension function")
}

#[cfg(test)]
mod tests {
    /// No code of the library names a driver call by a string typed by hand: each name comes
    /// from the table (`ze_name!`, `ze_call!`) or the extensions' names, so it cannot drift from
    /// the function it names.
    #[test]
    fn no_call_is_named_by_hand() {
        fn files(folder: &std::path::Path, found: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(folder)
                .expect("a source folder")
                .flatten()
            {
                let path = entry.path();
                if path.is_dir() {
                    files(&path, found);
                } else if path.extension().is_some_and(|extension| extension == "rs") {
                    found.push(path);
                }
            }
        }
        let mut found = Vec::new();
        files(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut found,
        );
        assert!(found.len() > 30, "{found:?}");
        let mut named = Vec::new();
        for file in found {
            let text = std::fs::read_to_string(&file).expect("a source file");
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            for (number, line) in code.lines().enumerate() {
                if line.trim_start().starts_with("//") {
                    continue;
                }
                let by_hand = line.match_indices("\"ze").any(|(at, _)| {
                    let rest = &line.as_bytes()[at + 3..];
                    rest.first().is_some_and(u8::is_ascii_uppercase)
                        || (rest
                            .first()
                            .is_some_and(|c| matches!(c, b'x' | b'l' | b't' | b's'))
                            && rest.get(1).is_some_and(u8::is_ascii_uppercase))
                });
                if by_hand {
                    named.push(format!(
                        "{}:{}: {}",
                        file.display(),
                        number + 1,
                        line.trim()
                    ));
                }
            }
        }
        assert!(
            named.is_empty(),
            "calls named by hand:\n{}",
            named.join("\n")
        );
    }
}
