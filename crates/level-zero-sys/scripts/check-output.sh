#!/usr/bin/env bash
# Runs GENERATOR (a Python script taking an output path) into a temporary file and fails if
# the result differs from the committed TARGET. For generators whose inputs are committed.
# Usage: check-output.sh GENERATOR TARGET
set -euo pipefail
generator="$1"
target="$2"
fresh="$(mktemp --suffix=.rs)"
trap 'rm -f "$fresh"' EXIT
python3 "$generator" "$fresh"
if ! cmp -s "$fresh" "$target"; then
    echo "$target differs from what $generator produces:" >&2
    diff -u "$target" "$fresh" | head -40 >&2
    exit 1
fi
echo "$target: reproduced byte for byte"
