"""The Level Zero API functions and table getters, read from src/generated.rs (bindgen's output
for the official headers), for the scripts that generate exports of every function (the
simulator's loader stand-in, lazy-usm's loader shim).

An API function's name is its function-pointer type's without `_pfn` and `_t`
(`ze_pfnDeviceGetProperties_t` -> `zeDeviceGetProperties`); a getter's table is the type its
second parameter points to.
"""
import os
import pathlib
import re

# The bindings read; LEVEL_ZERO_BINDINGS names another file (the generators' own tests use it
# to feed a header change in).
GENERATED = pathlib.Path(
    os.environ.get("LEVEL_ZERO_BINDINGS")
    or pathlib.Path(__file__).resolve().parent.parent / "src" / "generated.rs"
)

TABLE = re.compile(r"pub struct _(\w+_dditable_t) \{\n(.*?)\n\}", re.S)
FIELD = re.compile(r"pub (\w+):\s*(\w+),")
PFN = re.compile(
    r'pub type (\w+_pfn\w+_t) =\s*::std::option::Option<\s*unsafe extern "C" fn\((.*?)\)'
    r"\s*(?:->\s*([\w:]+))?,?\s*>;",
    re.S,
)
GETTER = re.compile(r"^(\w+?)_pfnGet(\w+)ProcAddrTable_t$")


def api_name(pfn_type):
    prefix, rest = re.match(r"^(\w+?)_pfn(\w+)_t$", pfn_type).groups()
    return prefix + rest


def read():
    """(functions, tables, getters): functions maps a function-pointer type to its
    (parameters as (name, type) pairs, return type); tables maps a DDI table to its
    (field, function-pointer type) pairs; getters maps a table to its getter's name."""
    text = GENERATED.read_text(encoding="utf-8")
    functions = {}
    for name, params, ret in (m.groups() for m in PFN.finditer(text)):
        params = [p.strip() for p in re.split(r",\s*", params.strip()) if p.strip()]
        functions[name] = ([tuple(p.split(":", 1)) for p in params], ret or "()")
    tables = {}
    for name, body in (m.groups() for m in TABLE.finditer(text)):
        fields = FIELD.findall(body)
        if fields and all(ty in functions for _, ty in fields):
            tables[name] = fields
    getters = {}
    for pfn, (params, _) in functions.items():
        if GETTER.match(pfn) and len(params) == 2 and params[1][1].strip().startswith("*mut "):
            getters[params[1][1].strip()[len("*mut "):]] = api_name(pfn)
    return functions, tables, getters


# The loader's tracer callback registrations (`zelTracer*RegisterCallback`): in no DDI table, so
# read from their header (which the bindings also cover, for the callback types).
REGISTER_CB = pathlib.Path(__file__).resolve().parent.parent / "include" / "level_zero" / "layers" / "zel_tracing_register_cb.h"
REGISTRATION = re.compile(
    r"^(zelTracer\w+RegisterCallback)\(\s*zel_tracer_handle_t (\w+),\s*zel_tracer_reg_t (\w+),"
    r"\s*(\w+) (\w+)\s*\);",
    re.M,
)


def tracer_registrations():
    """[(name, (parameters as (name, type) pairs, return type))] of every tracer callback
    registration, in the header's order; types as `read` gives them. Stops when a declaration
    of the header is not read, or names a callback type the bindings lack, so that a newer
    header's change of form cannot drop one silently."""
    header = REGISTER_CB.read_text(encoding="utf-8")
    found = REGISTRATION.findall(header)
    declared = re.findall(r"^zelTracer\w+RegisterCallback\(", header, re.M)
    if len(found) != len(declared):
        raise SystemExit(f"{REGISTER_CB.name}: {len(declared)} registrations declared, {len(found)} read")
    bindings = GENERATED.read_text(encoding="utf-8")
    missing = [t for _, _, _, t, _ in found if f"pub type {t} =" not in bindings]
    if missing:
        raise SystemExit(f"{REGISTER_CB.name}: callback types not in the bindings: {missing[:5]}")
    return [
        (name, ([(tracer, " zel_tracer_handle_t"), (kind, " zel_tracer_reg_t"), (callback, f" {callback_type}")], "ze_result_t"))
        for name, tracer, kind, callback_type, callback in found
    ]


# The simulator's table getters that fill their table, as ze-sim's src/abi/ddi.rs declares them
# (read by the scripts that generate its name table and the stand-in's exports).
FILLED_GETTER = re.compile(
    r"fn (ze[st]?Get\w+ProcAddrTable)\(\s*version: ze_api_version_t,\s*table: \*mut (\w+),"
)
