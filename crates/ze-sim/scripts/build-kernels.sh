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
    clang-15 -c -target spir64 -cl-std=CL2.0 -O2 -emit-llvm "$source" -o "$scratch/$name.bc"
    llvm-spirv-15 "$scratch/$name.bc" -o "$out/$name.spv"
done
for source in "$source_dir"/*.spvasm; do
    name="$(basename "$source" .spvasm)"
    spirv-as --target-env spv1.0 "$source" -o "$out/$name.spv"
done
for module in "$out"/*.spv; do
    spirv-val "$module"
done
