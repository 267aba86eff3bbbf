"""`python -m lazy_usm ARGS` and the `lazy-usm` console script: the package's `lazy-usm` command."""
from __future__ import annotations

import os
import sys

from lazy_usm import _paths


def main() -> None:
    """Replaces this process with the `lazy-usm` command, passing the arguments on."""
    command = str(_paths.command())
    os.execv(command, [command, *sys.argv[1:]])


if __name__ == "__main__":
    main()
