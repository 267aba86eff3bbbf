#!/usr/bin/env bash
# Regenerates src/forwarders.rs and src/intercepted_tables.rs and fails if either differs from
# the committed one (their inputs are committed, so this needs no download). It also fails when
# the headers gain an append with a pointer parameter the generator cannot classify.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
python3 "$here/scripts/generate-forwarders.py" "$fresh/forwarders.rs" "$fresh/intercepted_tables.rs"
for file in forwarders.rs intercepted_tables.rs; do
    if ! cmp -s "$fresh/$file" "$here/src/$file"; then
        echo "src/$file differs from what scripts/generate-forwarders.py produces:" >&2
        diff -u "$here/src/$file" "$fresh/$file" | head -40 >&2
        exit 1
    fi
    echo "$here/src/$file: reproduced byte for byte"
done
