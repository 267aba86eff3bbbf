#!/usr/bin/env bash
# Regenerates src/entry/by_name.rs and fails if it differs from the committed one (its inputs
# are committed, so this needs no download).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
exec "$here/../level-zero-sys/scripts/check-output.sh" "$here/scripts/generate-names.py" "$here/src/entry/by_name.rs"
