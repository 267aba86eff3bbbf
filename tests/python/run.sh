#!/usr/bin/env bash
# Runs the Python suite (Intel's SYCL runtime on the simulated platform) with the first
# interpreter that has dpctl: $LAZY_USM_PYTHON, the virtual environment .ci/run installs
# (target/sycl-venv), or python3. Says SKIPPED where none has it or pytest is missing, except
# under CI, where that fails. pytest's "nothing collected" (exit 5) is a failure here: the suite
# always has tests.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
for python in "${LAZY_USM_PYTHON:-}" "$root/target/sycl-venv/bin/python" python3; do
    [[ -n "$python" ]] || continue
    if "$python" -c 'import dpctl, pytest' >/dev/null 2>&1; then
        PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -q -p no:cacheprovider "$root/tests/python"
        status=$?
        if [[ $status -eq 5 ]]; then
            echo "tests/python: pytest collected no tests" >&2
            exit 1
        fi
        exit $status
    fi
done
why="no Python with dpctl and pytest (.ci/run installs them into target/sycl-venv)"
if [[ -n "${CI:-}" ]]; then
    echo "tests/python: cannot run under CI: $why" >&2
    exit 1
fi
echo "SKIPPED tests/python: $why"
