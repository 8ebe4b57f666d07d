"""numba's on-disk cache for qcomp's loop kernels, stamped with every kernel source.

numba stamps a cached function with the modification time and size of the file that
defines it. A kernel in `rowwise_kernels.py` inlines helpers from `rowwise_jit.py`, so
an edit to the helpers alone would leave the old compiled kernel in use. Functions
defined in the kernel modules (`qcomp/quant/rowwise*.py`) are stamped instead with a
hash of all of those files: any edit to any of them recompiles them all once.
Importing this module registers the stamp (before the kernel modules define their
functions: `rowwise_jit` imports it first).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from numba.core.caching import (
    CacheImpl,
    InTreeCacheLocator,
    UserProvidedCacheLocator,
    UserWideCacheLocator,
)

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


class KernelUserProvidedLocator(_KernelStampMixin, UserProvidedCacheLocator):
    """The kernels' cache under `NUMBA_CACHE_DIR` when it is set."""


class KernelInTreeLocator(_KernelStampMixin, InTreeCacheLocator):
    """The kernels' cache in the package's `__pycache__` (a writable checkout)."""


class KernelUserWideLocator(_KernelStampMixin, UserWideCacheLocator):
    """The kernels' cache in the user's cache directory (a read-only install)."""


if KernelInTreeLocator not in CacheImpl._locator_classes:
    CacheImpl._locator_classes[:0] = [KernelUserProvidedLocator, KernelInTreeLocator,
                                      KernelUserWideLocator]
