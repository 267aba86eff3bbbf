#!/usr/bin/env python3
"""Writes src/generated/forwarders.rs: every Level Zero API function of the spec 1.17 headers and every
table getter, exported by name and forwarded to the real loader's function of the same name
(or answered as unsupported if it has none), except the functions the shim intercepts by hand
(INTERCEPTED below, in src/intercept.rs).

Every append to a command list whose parameters can carry a USM pointer (`void*`, `uint64_t*`)
is intercepted here too, derived from the bindings rather than listed: a peer's allocation
among those operands is made resident on the list's device first. An append with a pointer
parameter of any other type stops this script until it is classified below (POINTEE_NOT_USM,
NO_DEVICE_MEMORY or a hand-written intercept), so a new header cannot add one that slips past
the shim: CI regenerates and compares.

Also writes src/generated/intercepted_tables.rs: for each DDI table, the intercepted entries its getter
patches, and every intercepted function by name (for zeDriverGetExtensionFunctionAddress).

Input: level-zero-sys/src/generated.rs and the loader's tracer registrations header
(`layers/zel_tracing_register_cb.h`), both committed, so this runs offline and CI checks the
output byte for byte (`cargo xtask generated check`).

Usage: generate-forwarders.py [OUT [TABLES_OUT]]
"""
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE.parent / "level-zero-sys" / "scripts"))
from ze_functions import api_name, read, tracer_registrations  # noqa: E402

INTERCEPTED = {
    "zeMemAllocDevice",
    "zeMemFree",
    "zeMemFreeExt",
    "zeContextMakeMemoryResident",
    "zeContextEvictMemory",
    "zeContextDestroy",
    "zeCommandListCreate",
    "zeCommandListCreateImmediate",
    "zeCommandListDestroy",
    # A reset list's earlier work is done (the specification's rule): the host budget may evict
    # what it used.
    "zeCommandListReset",
    # A wait that succeeds frees what the list's earlier work used, for the host budget.
    "zeCommandListHostSynchronize",
    # A clone runs where its source runs: it is recorded as its source.
    "zeCommandListCreateCloneExp",
    "zeKernelSetArgumentValue",
    "zeKernelDestroy",
    "zeModuleCreate",
    "zeModuleDestroy",
    "zeKernelCreate",
    "zePhysicalMemCreate",
    "zePhysicalMemDestroy",
    "zeVirtualMemMap",
    "zeVirtualMemUnmap",
    "zeVirtualMemFree",
    # A kernel's pointer into a mapping may reach any mapping of its reservation.
    "zeVirtualMemReserve",
    "zeMemOpenIpcHandle",
    "zeMemCloseIpcHandle",
    # Its results land at dstptr plus each offset: every one is an operand.
    "zeCommandListAppendQueryKernelTimestamps",
    "zeCommandListAppendLaunchKernel",
    "zeCommandListAppendLaunchCooperativeKernel",
    "zeCommandListAppendLaunchKernelIndirect",
    "zeCommandListAppendLaunchKernelWithArguments",
    "zeCommandListAppendLaunchKernelWithParameters",
    "zeCommandListAppendLaunchMultipleKernelsIndirect",
}

# Tables whose layout some loader release changed, and the versions at which the headers'
# layout holds; outside them the getter patches nothing. Loader v1.18.0's 1.11 command-list exp
# table began with other functions than every release's from 1.9 on (read in each release
# tag's ze_ddi.h; the simulator's getter writes it under the same condition).
LAYOUT_HOLDS = {
    "ze_command_list_exp_dditable_t": "minor >= 9 && minor != 11",
}

# Written by hand in src/tables.rs: the getters of tables holding intercepted functions (the
# real table, with the shim's functions over the intercepted entries), and the extension
# function lookup (hands back the shim's own functions).
NOT_FORWARDED = {"zeDriverGetExtensionFunctionAddress"}

# Pointer parameters of appends that point to host-side descriptions, never to USM.
POINTEE_NOT_USM = {
    "ze_copy_region_t",
    "ze_image_region_t",
    "ze_group_count_t",
    "usize",
    "u32",
    "ze_event_handle_t",
    "ze_kernel_handle_t",
    "ze_command_list_handle_t",
}

# Pointees that may be USM: looked up in the shim's registry (a host pointer finds nothing).
POINTEE_USM = {"::std::os::raw::c_void", "u64"}

# How many bytes each operand of an append reaches from its pointer, by the append's other
# parameters (the headers' order): every allocation and mapping the range touches is made
# resident, not only the one it starts in. An append named here or in START_ONLY has every
# operand in one of the two (a header that changes its parameters stops this script); an append
# named in neither, new in a header, is intercepted at its operands' starts.
OPERAND_LENGTHS = {
    "zeCommandListAppendWriteGlobalTimestamp": {"arg2": "8"},
    "zeCommandListAppendMemoryCopy": {"arg2": "arg4", "arg3": "arg4"},
    "zeCommandListAppendMemoryFill": {"arg2": "arg5", "arg3": "arg4"},
    "zeCommandListAppendMemoryCopyRegion": {
        "arg2": "unsafe { crate::intercept::region_extent(arg3, arg4, arg5) }",
        "arg6": "unsafe { crate::intercept::region_extent(arg7, arg8, arg9) }",
    },
    "zeCommandListAppendMemoryCopyFromContext": {"arg2": "arg5", "arg4": "arg5"},
    "zeCommandListAppendMemoryPrefetch": {"arg2": "arg3"},
    "zeCommandListAppendMemoryCopyWithParameters": {"arg2": "arg4", "arg3": "arg4"},
    "zeCommandListAppendMemoryFillWithParameters": {"arg2": "arg5", "arg3": "arg4"},
    "zeRTASBuilderCommandListAppendCopyExt": {"arg2": "arg4", "arg3": "arg4"},
}

# Operands checked only where they start, and why.
START_ONLY = {
    ("zeCommandListAppendImageCopyToMemory", "arg2"): "an image's bytes depend on its format, which the shim does not record",
    ("zeCommandListAppendImageCopyFromMemory", "arg3"): "an image's bytes depend on its format",
    ("zeCommandListAppendImageCopyToMemoryExt", "arg2"): "an image's bytes depend on its format",
    ("zeCommandListAppendImageCopyFromMemoryExt", "arg3"): "an image's bytes depend on its format",
    ("zeCommandListAppendMemoryCopyWithParameters", "arg5"): "an extension chain (pNext): host memory",
    ("zeCommandListAppendMemoryFillWithParameters", "arg6"): "an extension chain (pNext): host memory",
}

# Appends with pointer parameters that reach no device memory, and why.
NO_DEVICE_MEMORY = {
    "zeCommandListAppendMemAdvise": "advice about a range: it reads and writes no bytes",
    "zeCommandListAppendMemoryRangesBarrier": "orders work on ranges: it reads and writes no bytes",
    "zeCommandListAppendHostFunction": "a host function and its host data",
    "zeCommandListAppendGraphExt": "its pointer is an extension chain",
    "zeCommandListAppendSignalExternalSemaphoreExt": "semaphore parameters, no memory",
    "zeCommandListAppendWaitExternalSemaphoreExt": "semaphore parameters, no memory",
    "zeCommandListImmediateAppendCommandListsWithParameters": "its pointer is an extension chain",
}


def pointee(ty):
    """The type a parameter points to, or None for a value; pointers to pointers keep a star."""
    ty = ty.strip()
    for prefix in ("*mut ", "*const "):
        if ty.startswith(prefix):
            return ty[len(prefix):]
    return None


def usm_operands(name, params):
    """The parameters of append `name` that may carry a USM pointer, or None if the append is
    not the generator's to intercept; stops on a pointer it cannot classify."""
    if "Append" not in name or not params or params[0][1].strip() != "ze_command_list_handle_t":
        return None
    if name in INTERCEPTED:
        return None
    operands = []
    for param, ty in params:
        target = pointee(ty)
        if target is None:
            continue
        if target in POINTEE_USM:
            operands.append(param.strip())
        elif target not in POINTEE_NOT_USM and name not in NO_DEVICE_MEMORY:
            sys.exit(
                f"{name}: parameter {param.strip()} points to {target}, which this script cannot "
                "classify: say whether it can reach device memory (POINTEE_NOT_USM, "
                "NO_DEVICE_MEMORY) or intercept the function by hand (INTERCEPTED)"
            )
    if name in NO_DEVICE_MEMORY or not operands:
        return None
    return operands




def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "src" / "generated" / "forwarders.rs"
    tables_out = (
        pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else HERE / "src" / "generated" / "intercepted_tables.rs"
    )
    functions, tables, getters = read()
    lines = [
        "// Generated by scripts/generate-forwarders.py from level-zero-sys's bindings (spec 1.17).",
        "// Do not edit.",
        "",
        "use crate::real::Real;",
        "use level_zero_sys::*;",
        "",
    ]
    seen = set()
    entries = []
    for table in sorted(tables):
        for _, pfn in tables[table]:
            name = api_name(pfn)
            if name not in seen:
                seen.add(name)
                entries.append((name, functions[pfn]))
    # The tracer's callback registrations, in no table.
    for name, function in tracer_registrations():
        if name not in seen:
            seen.add(name)
            entries.append((name, function))
    for table in sorted(tables):
        getter = getters.get(table)
        if getter and getter not in seen:
            seen.add(getter)
            entries.append((getter, ([("version", " ze_api_version_t"), ("table", f" *mut {table}")], "ze_result_t")))
    operands_of = {name: usm_operands(name, params) for name, (params, _) in entries}
    generated = {name for name, operands in operands_of.items() if operands is not None}
    # Every other call on a command list: the host budget asks whether a list's work is done
    # only while none is in the driver (compute-runtime's answer is unguarded against them).
    list_calls = {
        name
        for name, (params, _) in entries
        if params and params[0][1].strip() in ("ze_command_list_handle_t", "zet_command_list_handle_t")
        and name not in INTERCEPTED and name not in NOT_FORWARDED and operands_of[name] is None
    }
    generated |= list_calls
    intercepted = {name for name in INTERCEPTED | generated if not GETTER_NAME.match(name)}
    patched = {
        table: [(field, api_name(pfn)) for field, pfn in fields if api_name(pfn) in intercepted]
        for table, fields in sorted(tables.items())
        if table in getters
    }
    patched = {table: fields for table, fields in patched.items() if fields}
    patched_getters = {getters[table] for table in patched}
    for name, (params, ret) in entries:
        if name in INTERCEPTED or name in NOT_FORWARDED or name in patched_getters:
            continue
        operands = operands_of[name]
        args = ", ".join(f"{p.strip()}:{t}" for p, t in params)
        names = ", ".join(p.strip() for p, _ in params)
        pointer = " ".join(
            ["unsafe extern \"C\" fn(", ", ".join(t.strip() for _, t in params), f") -> {ret}"]
        ).replace("( ", "(").replace(" )", ")")
        def intercepted_prologue(summary):
            """An intercept's doc comment (`summary`, its lines), signature and real function."""
            return [
                *summary,
                "///",
                "/// # Safety",
                "/// The caller passes what the Level Zero specification requires of this function.",
                "#[unsafe(no_mangle)]",
                f"pub unsafe extern \"C\" fn {name}({args}) -> {ret} {{",
                f"    static REAL: Real = Real::new(c\"{name}\");",
                f"    // SAFETY: the real loader's `{name}` has the signature the headers declare.",
                f"    let Some(function) = (unsafe {{ REAL.get::<{pointer}>() }}) else {{",
                "        return Unsupported::unsupported();",
                "    };",
            ]

        if name in list_calls:
            list_param = params[0][0].strip()
            lines += [
                *intercepted_prologue([
                    f"/// `{name}`, intercepted: forwarded under the list's lock (the host budget's",
                    "/// question whether the list's work is done never runs beside it).",
                ]),
                f"    let record = crate::intercept::list_for_append({list_param});",
                "    let _calling = crate::intercept::calling(&record);",
                "    // SAFETY: the caller's arguments, passed on unchanged.",
                f"    unsafe {{ function({names}) }}",
                "}",
                "",
            ]
            continue
        if operands is None:
            lines += [
                f"/// `{name}`: forwarded to the real loader.",
                "///",
                "/// # Safety",
                "/// The caller passes what the Level Zero specification requires of this function.",
                "#[unsafe(no_mangle)]",
                f"pub unsafe extern \"C\" fn {name}({args}) -> {ret} {{",
                f"    static REAL: Real = Real::new(c\"{name}\");",
                f"    // SAFETY: the real loader's `{name}` has the signature the headers declare.",
                f"    match unsafe {{ REAL.get::<{pointer}>() }} {{",
                "        // SAFETY: the caller's arguments, passed on unchanged.",
                f"        Some(function) => unsafe {{ function({names}) }},",
                f"        None => Unsupported::unsupported(),",
                "    }",
                "}",
                "",
            ]
            continue
        list_param = params[0][0].strip()
        lengths = OPERAND_LENGTHS.get(name, {})
        used = ", ".join(
            f"({operand} as *const ::std::ffi::c_void, {lengths.get(operand, '1')})"
            for operand in operands
        )
        unknown = set(lengths) - set(operands)
        if unknown:
            sys.exit(f"{name}: OPERAND_LENGTHS names {sorted(unknown)}, which are not its operands")
        known = name in OPERAND_LENGTHS or any(key[0] == name for key in START_ONLY)
        unsized = [o for o in operands if o not in lengths and (name, o) not in START_ONLY]
        if known and unsized:
            sys.exit(
                f"{name}: operands {unsized} have no length: say how many bytes each reaches "
                "(OPERAND_LENGTHS) or why only its start is checked (START_ONLY)"
            )
        safety = (
            ["    // SAFETY: the caller's regions, each null or a ze_copy_region_t as the specification requires."]
            if any("unsafe" in length for length in lengths.values())
            else []
        )
        lines += [
            *intercepted_prologue([
                f"/// `{name}`, intercepted: a peer's allocation or mapping its pointer operands'",
                "/// ranges touch becomes resident on the list's device first.",
            ]),
            *safety,
            "    // Until the driver has the work, what it uses stays resident under a host budget.",
            f"    let record = crate::intercept::list_for_append({list_param});",
            "    let in_progress = crate::intercept::appending(&record);",
            f"    let result = crate::intercept::use_all_on_list({list_param}, &[{used}]);",
            "    if result != ze_result_t::ZE_RESULT_SUCCESS {",
            "        return result;",
            "    }",
            "    let _forwarding = crate::intercept::forwarding(&in_progress);",
            "    // SAFETY: the caller's arguments, passed on unchanged.",
            f"    unsafe {{ function({names}) }}",
            "}",
            "",
        ]
    stale = {key for key in START_ONLY if key[1] not in (operands_of.get(key[0]) or [])}
    stale |= {name for name in OPERAND_LENGTHS if operands_of.get(name) is None}
    if stale:
        sys.exit(f"OPERAND_LENGTHS or START_ONLY names what is no operand of an append: {sorted(map(str, stale))}")
    out.write_text("\n".join(lines), encoding="utf-8")

    table_lines = [
        "// Generated by scripts/generate-forwarders.py from level-zero-sys's bindings (spec 1.17).",
        "// Do not edit.",
        "",
        "use crate::generated::forwarders::*;",
        "use crate::intercept::*;",
        "use level_zero_sys::*;",
        "use std::ffi::c_void;",
        "",
    ]
    by_name = []
    for table, fields in patched.items():
        holds = LAYOUT_HOLDS.get(table, "true")
        table_lines.append(f"wrapped_getter!({getters[table]}, {table}, |minor| {holds}, [")
        for field, name in fields:
            table_lines.append(f"    {field} => {name},")
            by_name.append(name)
        table_lines += ["]);", ""]
    missing = intercepted - set(by_name)
    if missing:
        sys.exit(f"intercepted but in no table: {sorted(missing)}")
    table_lines += [
        "/// The shim's function for an intercepted name, for `zeDriverGetExtensionFunctionAddress`.",
        "pub(crate) fn intercepted(name: &[u8]) -> Option<*mut c_void> {",
        "    let function = match name {",
    ]
    for name in sorted(set(by_name)):
        table_lines.append(f"        b\"{name}\" => {name} as *mut c_void,")
    table_lines += ["        _ => return None,", "    };", "    Some(function)", "}", ""]
    tables_out.write_text("\n".join(table_lines), encoding="utf-8")


GETTER_NAME = re.compile(r"^ze[a-z]*Get\w+ProcAddrTable$")


if __name__ == "__main__":
    main()
