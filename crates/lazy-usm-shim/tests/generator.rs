//! The forwarders' generator refuses bindings with an append whose pointer parameter it cannot
//! classify, so a header that adds one fails CI (which regenerates) instead of slipping past the
//! shim's residency.

use std::path::Path;
use std::process::Command;

fn generate(bindings: &Path, out: &Path) -> std::process::Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/generate-forwarders.py");
    Command::new("python3")
        .arg(script)
        .arg(out.join("forwarders.rs"))
        .arg(out.join("intercepted_tables.rs"))
        .env("LEVEL_ZERO_BINDINGS", bindings)
        .output()
        .expect("python3 runs")
}

#[test]
fn an_append_with_an_unclassified_pointer_stops_the_generator_and_a_usm_one_is_intercepted() {
    let bindings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../level-zero-sys/src/generated.rs");
    let text = std::fs::read_to_string(&bindings).unwrap();
    let folder = tempfile::tempdir().unwrap();
    let with = |extra: &str| {
        let path = folder.path().join("bindings.rs");
        std::fs::write(&path, format!("{text}\n{extra}\n")).unwrap();
        path
    };
    // A new append taking a descriptor the generator has never seen.
    let unknown = with(
        "pub type ze_pfnCommandListAppendNewThingExt_t = ::std::option::Option<unsafe extern \"C\" \
         fn(arg1: ze_command_list_handle_t, arg2: *const ze_new_thing_desc_t) -> ze_result_t>;\n\
         #[repr(C)]\npub struct _ze_new_thing_dditable_t {\n    pub pfnAppendNewThingExt: \
         ze_pfnCommandListAppendNewThingExt_t,\n}",
    );
    let output = generate(&unknown, folder.path());
    assert!(!output.status.success(), "the generator must stop");
    let message = String::from_utf8_lossy(&output.stderr);
    assert!(
        message.contains("zeCommandListAppendNewThingExt")
            && message.contains("ze_new_thing_desc_t"),
        "it names the append and the type: {message}"
    );
    // A new append taking a plain `void*` is intercepted without anyone listing it.
    let usm = with(
        "pub type ze_pfnCommandListAppendNewCopyExt_t = ::std::option::Option<unsafe extern \"C\" \
         fn(arg1: ze_command_list_handle_t, arg2: *mut ::std::os::raw::c_void) -> ze_result_t>;\n\
         #[repr(C)]\npub struct _ze_new_copy_dditable_t {\n    pub pfnAppendNewCopyExt: \
         ze_pfnCommandListAppendNewCopyExt_t,\n}\n\
         pub type ze_pfnGetNewCopyProcAddrTable_t = ::std::option::Option<unsafe extern \"C\" \
         fn(arg1: ze_api_version_t, arg2: *mut ze_new_copy_dditable_t) -> ze_result_t>;",
    );
    let output = generate(&usm, folder.path());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let forwarders = std::fs::read_to_string(folder.path().join("forwarders.rs")).unwrap();
    let start = forwarders
        .find("pub unsafe extern \"C\" fn zeCommandListAppendNewCopyExt(")
        .expect("exported");
    let body = &forwarders[start..start + 1400];
    assert!(
        body.contains("use_all_on_list(arg1, &[(arg2 as *const ::std::ffi::c_void, 1)])"),
        "its pointer operand is made resident first:\n{body}"
    );
    let tables = std::fs::read_to_string(folder.path().join("intercepted_tables.rs")).unwrap();
    assert!(
        tables.contains("pfnAppendNewCopyExt => zeCommandListAppendNewCopyExt,"),
        "and patched into its table"
    );
}

/// Under a host budget, the shim asks whether a list's work is done only while none of the
/// program's calls on the list is in the driver: every exported function whose first parameter
/// is a command list (generated or written by hand) takes the list's lock, or is one of the
/// few that need not (a clone reads a closed regular list, which the budget never asks about).
#[test]
fn every_call_on_a_command_list_takes_the_lists_lock() {
    let source = |file: &str| {
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(file))
            .unwrap()
    };
    let mut checked = 0;
    for file in ["generated/forwarders.rs", "intercept.rs"] {
        let text = source(file);
        for (start, _) in text.match_indices("pub unsafe extern \"C\" fn ") {
            let signature = &text[start
                ..text[start..]
                    .find('{')
                    .map_or(text.len(), |end| start + end)];
            let name = signature["pub unsafe extern \"C\" fn ".len()..]
                .split('(')
                .next()
                .unwrap();
            let first = signature.split_once('(').map_or("", |(_, parameters)| {
                parameters.split(',').next().unwrap_or("")
            });
            if !(first.contains("ze_command_list_handle_t")
                || first.contains("zet_command_list_handle_t"))
                || name == "zeCommandListCreateCloneExp"
            {
                continue;
            }
            let body_end = text[start..]
                .find("\n}\n")
                .map_or(text.len(), |end| start + end);
            let body = &text[start..body_end];
            assert!(
                ["calling(", "forwarding(", "write(&record.driver_calls)"]
                    .iter()
                    .any(|lock| body.contains(lock)),
                "{name} ({file}) takes no lock of its list"
            );
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} functions on lists found");
}
