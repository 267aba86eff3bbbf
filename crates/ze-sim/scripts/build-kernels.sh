#!/usr/bin/env bash
# Builds the tests' kernels to SPIR-V: tests/kernels/*.cl with clang and the LLVM/SPIR-V
# translator, tests/kernels/*.spvasm with SPIRV-Tools' assembler (Debian: clang-15,
# llvm-spirv-15, spirv-tools). With an output folder, builds there instead (the check compares).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
source_dir="$here/tests/kernels"
out="${1:-$source_dir}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for source in "$source_dir"/*.cl; do
    name="$(basename "$source" .cl)"
    # OpenCL C 2.0 unless the source's first line names another (`// cl-std: CL1.2`).
    std="$(sed -n '1s#^// cl-std: \([A-Z0-9.]*\).*#\1#p' "$source")"
    clang-15 -c -target spir64 -cl-std="${std:-CL2.0}" -O2 -emit-llvm "$source" -o "$scratch/$name.bc"
    # Function pointers (function_pointers.cl) need their extension; other modules come out
    # as without it.
    llvm-spirv-15 --spirv-ext=+SPV_INTEL_function_pointers "$scratch/$name.bc" -o "$out/$name.spv"
done
for source in "$source_dir"/*.spvasm; do
    name="$(basename "$source" .spvasm)"
    spirv-as --target-env spv1.0 "$source" -o "$out/$name.spv"
done
for module in "$out"/*.spv; do
    # SPIRV-Tools 2022 (Debian 12) has no rules for SPV_INTEL_function_pointers: it refuses
    # every pointer to a function, so such modules are checked by the OpenCL runtime's build.
    if spirv-dis "$module" | grep -q 'OpExtension "SPV_INTEL_function_pointers"'; then
        continue
    fi
    spirv-val "$module"
done
