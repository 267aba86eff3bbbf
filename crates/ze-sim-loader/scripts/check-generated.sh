#!/usr/bin/env bash
# Regenerates src/api_exports.rs into a temporary file and fails if it differs from the
# committed one (its inputs are committed files, so this needs no download).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
fresh="$(mktemp --suffix=.rs)"
trap 'rm -f "$fresh"' EXIT
python3 "$here/scripts/generate-exports.py" "$fresh"
if ! cmp -s "$fresh" "$here/src/api_exports.rs"; then
    echo "src/api_exports.rs differs from what scripts/generate-exports.py produces:" >&2
    diff -u "$here/src/api_exports.rs" "$fresh" | head -40 >&2
    exit 1
fi
echo "ze-sim-loader: generated exports reproduce byte for byte"
