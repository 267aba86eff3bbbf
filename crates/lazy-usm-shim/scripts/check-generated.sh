#!/usr/bin/env bash
# Regenerates src/forwarders.rs into a temporary file and fails if it differs from the
# committed one (its input is committed, so this needs no download).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
fresh="$(mktemp --suffix=.rs)"
trap 'rm -f "$fresh"' EXIT
python3 "$here/scripts/generate-forwarders.py" "$fresh"
if ! cmp -s "$fresh" "$here/src/forwarders.rs"; then
    echo "src/forwarders.rs differs from what scripts/generate-forwarders.py produces:" >&2
    diff -u "$here/src/forwarders.rs" "$fresh" | head -40 >&2
    exit 1
fi
echo "lazy-usm-shim: generated forwarders reproduce byte for byte"
