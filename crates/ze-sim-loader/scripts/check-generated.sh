#!/usr/bin/env bash
# Regenerates src/api_exports.rs and fails if it differs from the committed one (its inputs are
# committed, so this needs no download).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
exec "$here/../level-zero-sys/scripts/check-output.sh" "$here/scripts/generate-exports.py" "$here/src/api_exports.rs"
