#!/usr/bin/env bash
# Regenerates the bindings into a temporary file and fails if they differ from the committed
# src/generated.rs. Installs what generation needs when run as root under CI; the headers are
# the vendored ones in include/.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
if [[ "${CI:-}" == "true" && "$(id -u)" == "0" ]]; then
    if ! dpkg -s libclang-dev >/dev/null 2>&1; then
        apt-get update
        apt-get install -y libclang-dev
    fi
    if [[ "$(bindgen --version 2>/dev/null | awk '{print $2}')" != "0.73.2" ]]; then
        cargo install bindgen-cli --version 0.73.2 --locked
    fi
fi
fresh="$(mktemp --suffix=.rs)"
trap 'rm -f "$fresh"' EXIT
"$here/scripts/generate.sh" "$fresh" >/dev/null
if ! cmp -s "$fresh" "$here/src/generated.rs"; then
    echo "src/generated.rs differs from what scripts/generate.sh produces:" >&2
    diff -u "$here/src/generated.rs" "$fresh" | head -40 >&2
    exit 1
fi
echo "level-zero-sys: generated bindings reproduce byte for byte"
