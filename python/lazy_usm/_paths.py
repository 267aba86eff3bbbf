"""Where the package's native parts are: the `lazy-usm` command with the loader stand-in and the
loader shim beside it, and PyTorch's allocator library."""
from __future__ import annotations

import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent


def command() -> pathlib.Path:
    """The `lazy-usm` command this package carries."""
    return _existing(PACKAGE / "_bin" / "lazy-usm")


def allocator_library() -> pathlib.Path:
    """`liblazy_usm.so`: lazy-usm's C ABI with PyTorch's pluggable-allocator entry points."""
    return _existing(PACKAGE / "_lib" / "liblazy_usm.so")


def _existing(path: pathlib.Path) -> pathlib.Path:
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing: this lazy_usm was not installed from a built wheel "
            "(pip install . at the repository root builds one)"
        )
    return path
