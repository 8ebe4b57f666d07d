"""How much of each big sweep a test run takes.

CI (`.ci/run`, plain `pytest`) runs a sample of every sweep: a few seeds, a few models,
fewer property-test examples; every test still runs its checks on its sample.
`QCOMP_FULL=1` (`python3 tools/full_tests.py`) runs every sweep whole.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")

FULL = os.environ.get("QCOMP_FULL") == "1"
"""Run every sweep whole (`QCOMP_FULL=1`)."""


def examples(full: int, ci: int) -> int:
    """A property test's `max_examples`: `full` with QCOMP_FULL=1, else `ci`."""
    return full if FULL else min(ci, full)


def every(items: Sequence[T], k: int) -> list[T]:
    """One item in `k` (the first, the (k+1)-th, ...) in CI; every item with QCOMP_FULL=1."""
    return list(items) if FULL else list(items)[::k]


@contextmanager
def rowwise_numpy_loops() -> Iterator[None]:
    """In CI, the rowwise ops run on their NumPy loops where a test is not about the numba
    ones (tests/quant/test_rowwise.py holds those to the NumPy loops and to torch bit for
    bit): numba's first compile of the kernels is 25-30 s of CPU in a fresh checkout, paid
    again by every process that compiles before the cache is written. With QCOMP_FULL=1
    they run as a user's run does (numba when it is installed)."""
    from qcomp.quant import rowwise as rw

    rw.set_kernel_backend(None if FULL else "numpy")
    try:
        yield
    finally:
        rw.set_kernel_backend(None)
