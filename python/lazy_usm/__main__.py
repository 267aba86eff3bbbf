"""`python -m lazy_usm ARGS` and the `lazy-usm` console script: the package's `lazy-usm` command."""
from __future__ import annotations

import os
import sys

from lazy_usm import _paths


def main() -> None:
    """Replaces this process with the `lazy-usm` command, passing the arguments on."""
    command = str(_paths.command())
    # The environment this package (and Intel's SYCL runtime, intel-sycl-rt) was installed
    # into, for `lazy-usm doctor` to find the runtime there.
    environment = dict(os.environ, LAZY_USM_PYTHON_PREFIX=sys.prefix)
    os.execve(command, [command, *sys.argv[1:]], environment)


if __name__ == "__main__":
    main()
