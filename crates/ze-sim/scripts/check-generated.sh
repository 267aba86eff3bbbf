#!/usr/bin/env bash
# Regenerates src/entry/by_name.rs and the tests' SPIR-V kernels and fails if either differs
# from what is committed (their inputs are committed, so this needs no download; the kernels
# need clang-15, llvm-spirv-15 and spirv-tools, which CI installs).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/../level-zero-sys/scripts/check-output.sh" "$here/scripts/generate-names.py" "$here/src/entry/by_name.rs"
if ! command -v clang-15 >/dev/null || ! command -v llvm-spirv-15 >/dev/null || ! command -v spirv-as >/dev/null; then
    if [[ -n "${CI:-}" ]]; then
        echo "clang-15, llvm-spirv-15 or spirv-as missing: the tests' kernels cannot be checked" >&2
        exit 1
    fi
    echo "SKIPPED: the tests' kernels (clang-15, llvm-spirv-15, spirv-tools not installed)"
    exit 0
fi
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
"$here/scripts/build-kernels.sh" "$fresh"
for module in "$fresh"/*.spv; do
    committed="$here/tests/kernels/$(basename "$module")"
    if ! cmp -s "$module" "$committed"; then
        echo "$committed differs from what scripts/build-kernels.sh produces" >&2
        exit 1
    fi
done
echo "$here/tests/kernels: every module reproduced byte for byte"
