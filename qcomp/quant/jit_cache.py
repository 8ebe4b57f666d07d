"""numba's on-disk cache for qcomp's loop kernels, stamped with every kernel source.

numba stamps a cached function with the modification time and size of the file that
defines it. A kernel in `rowwise_kernels.py` inlines helpers from `rowwise_jit.py`, so
an edit to the helpers alone would leave the old compiled kernel in use. Functions
defined in the kernel modules (`qcomp/quant/rowwise*.py`) are stamped instead with a
hash of all of those files: any edit to any of them recompiles them all once.
Importing this module registers the stamp (before the kernel modules define their
functions: `rowwise_jit` imports it first).

Where: `NUMBA_CACHE_DIR` when it is set (numba's own rule), else the per-user
`cache_dir()`: `$XDG_CACHE_HOME/qcomp/numba` or `~/.cache/qcomp/numba`, never the
source tree. The subdirectory is named by the stamp, not by the checkout's path: a fresh
clone of the same sources loads the kernels compiled for another checkout.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from numba.core.caching import CacheImpl, UserProvidedCacheLocator

KERNEL_DIR = Path(__file__).resolve().parent
KERNEL_GLOB = "rowwise*.py"


def kernel_sources() -> list[Path]:
    """The files whose functions share the stamp."""
    return sorted(KERNEL_DIR.glob(KERNEL_GLOB))


def sources_stamp(paths: list[Path] | None = None) -> str:
    """sha256 over the names and contents of `paths` (default: the kernel sources)."""
    h = hashlib.sha256()
    for p in kernel_sources() if paths is None else paths:
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


@functools.cache
def _stamp() -> str:
    return sources_stamp()


def _is_kernel_file(py_file: str) -> bool:
    try:
        return Path(py_file).resolve() in kernel_sources()
    except OSError:
        return False


class _KernelStampMixin:
    """`get_source_stamp` for the kernel modules: the hash of every kernel source."""

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _is_kernel_file(py_file):
            return None
        return super().from_function(py_func, py_file)

    def get_source_stamp(self):
        return _stamp()

    @classmethod
    def get_suitable_cache_subpath(cls, py_file):
        """`<package dir name>_<stamp>`, not numba's hash of the checkout's path: every
        checkout of the same kernel sources (a fresh clone in CI, a worktree) shares
        one compiled copy, and an edit to any kernel source gets a directory of its own."""
        return f"{Path(py_file).resolve().parent.name}_{_stamp()[:40]}"


def cache_dir() -> Path:
    """`$XDG_CACHE_HOME/qcomp/numba`, else `~/.cache/qcomp/numba`."""
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "qcomp" / "numba"


class KernelUserProvidedLocator(_KernelStampMixin, UserProvidedCacheLocator):
    """The kernels' cache under `NUMBA_CACHE_DIR` when it is set."""


class KernelUserCacheLocator(_KernelStampMixin, UserProvidedCacheLocator):
    """The kernels' cache in `cache_dir()` (numba's `UserProvidedCacheLocator` with
    that root in place of `NUMBA_CACHE_DIR`)."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = str(cache_dir() / self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        if not _is_kernel_file(py_file):
            return None
        self = cls(py_func, py_file)
        try:
            self.ensure_cache_path()
        except OSError:     # not writable: numba's other locators (or no cache)
            return None
        return self


if KernelUserCacheLocator not in CacheImpl._locator_classes:
    CacheImpl._locator_classes[:0] = [KernelUserProvidedLocator, KernelUserCacheLocator]
