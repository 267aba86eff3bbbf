#!/usr/bin/env bash
# Runs the Python suite (Intel's SYCL runtime on the simulated platform) with the first
# interpreter that has dpctl: $LAZY_USM_PYTHON, the virtual environment .ci/run installs
# (target/sycl-venv), or python3, against the workspace's build. Then, where the installed
# Python package is there (target/pkg-venv, which .ci/run makes from a wheel of this checkout),
# the suite again against the package, with its own tests (test_package.py). Says SKIPPED where
# no interpreter has dpctl and pytest, or the package is not installed, except under CI, where
# that fails. pytest's "nothing collected" (exit 5) is a failure here: the suite always has tests.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
# The simulator runs kernels through the OpenCL CPU runtime .ci/run installs, as cargo's runs do
# (.cargo/config.toml).
export OPENCL_DYLIB_PATH="${OPENCL_DYLIB_PATH:-$root/target/opencl-venv/lib/libintelocl.so}"

run_suite() {
    local python="$1"
    shift
    PYTHONDONTWRITEBYTECODE=1 "$python" -m pytest -q -p no:cacheprovider "$@"
    local status=$?
    if [[ $status -eq 5 ]]; then
        echo "tests/python: pytest collected no tests" >&2
        return 1
    fi
    return $status
}

missing() {
    if [[ -n "${CI:-}" ]]; then
        echo "tests/python: cannot run under CI: $1" >&2
        exit 1
    fi
    echo "SKIPPED tests/python: $1"
}

workspace=""
for python in "${LAZY_USM_PYTHON:-}" "$root/target/sycl-venv/bin/python" python3; do
    [[ -n "$python" ]] || continue
    if "$python" -c 'import dpctl, pytest' >/dev/null 2>&1; then
        workspace="$python"
        break
    fi
done
if [[ -z "$workspace" ]]; then
    missing "no Python with dpctl and pytest (.ci/run installs them into target/sycl-venv)"
    exit 0
fi
run_suite "$workspace" "$root/tests/python" --ignore "$root/tests/python/test_package.py" || exit 1

package="$root/target/pkg-venv/bin/python"
if ! "$package" -c 'import lazy_usm, dpctl, pytest' >/dev/null 2>&1; then
    missing "the Python package is not installed in target/pkg-venv (.ci/run builds and installs it)"
    exit 0
fi
LAZY_USM_PACKAGE=1 run_suite "$package" "$root/tests/python"
