"""Blocks of rows on threads, for loop kernels that release the GIL (numba `nogil`).

`for_blocks(n, work, run)` cuts [0, n) into one contiguous block per thread and calls
`run(start, stop)` for each, the calling thread taking the first block. The kernels
compute each row (or bag) by the same sequential loop whichever thread runs it, so
the split never changes a result; it only changes the time.

Threads: `QCOMP_NUM_THREADS` when set, else the CPUs this process may run on;
`set_num_threads(n)` changes it for the process (1 runs everything on the caller).
Work below `MIN_WORK` per thread (`work`: elements per row) stays on the caller,
where starting threads would cost more than it saves.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

MIN_WORK = 1 << 16
"""Elements (row length x rows) a thread must get before a block goes to it."""

_state = threading.local()
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_key: tuple[int, int] = (0, 0)
_threads: int | None = None


def _default_threads() -> int:
    env = os.environ.get("QCOMP_NUM_THREADS", "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ValueError(f"QCOMP_NUM_THREADS must be a positive integer, got {env!r}") from None
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def num_threads() -> int:
    """The threads `for_blocks` uses at most."""
    global _threads
    if _threads is None:
        _threads = _default_threads()
    return _threads


def set_num_threads(n: int) -> None:
    """Use at most n threads (n >= 1) from now on."""
    global _threads
    if n < 1:
        raise ValueError(f"the thread count must be at least 1, got {n}")
    _threads = int(n)


def _executor(workers: int) -> ThreadPoolExecutor:
    """The shared pool of `workers` threads, made anew after a fork (its threads do
    not survive one) or a change in size."""
    global _pool, _pool_key
    with _lock:
        key = (os.getpid(), workers)
        if _pool is None or _pool_key != key:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="qcomp")
            _pool_key = key
        return _pool


def split(n: int, parts: int, positions: Sequence[int] | None = None) -> list[int]:
    """parts + 1 cut points 0 = c0 <= c1 <= ... <= c_parts = n: equal counts of items,
    or, given `positions` (nondecreasing, one per item: where its work starts, as a
    bag's first entry), equal spans of positions."""
    if positions is None or n == 0:
        return [n * p // parts for p in range(parts + 1)]
    pos = np.asarray(positions)
    lo, hi = int(pos[0]), int(pos[-1])
    targets = [lo + (hi - lo) * p // parts for p in range(1, parts)]
    inner = np.searchsorted(pos, targets, side="left").tolist()
    return [0] + [min(int(c), n) for c in inner] + [n]


def block_cuts(n: int, work: int, positions: Sequence[int] | None = None) -> list[int] | None:
    """The cut points of `for_blocks`' blocks over [0, n) (`split`), or None when one
    block on the caller does it all: too little work, one thread, or a nested call."""
    parts = min(num_threads(), max(1, n * work // MIN_WORK), max(n, 1))
    if parts <= 1 or getattr(_state, "inside", False):
        return None
    return split(n, parts, positions)


def for_blocks(n: int, work: int, run: Callable[[int, int], None],
               positions: Sequence[int] | None = None) -> None:
    """run(start, stop) over blocks covering [0, n): one block per thread, as many
    threads as `n * work / MIN_WORK` allows (at most `num_threads()`); the calling
    thread runs the first block and waits for the others. `positions`: cut by them
    (`split`) rather than by count. A nested call (from a block) runs on its caller."""
    cuts = block_cuts(n, work, positions)
    if cuts is None:
        run(0, n)
        return
    parts = len(cuts) - 1
    pool = _executor(parts - 1)

    def block(a: int, b: int) -> None:
        _state.inside = True
        try:
            run(a, b)
        finally:
            _state.inside = False

    futures = [pool.submit(block, cuts[p], cuts[p + 1]) for p in range(1, parts)
               if cuts[p] < cuts[p + 1]]
    block(cuts[0], cuts[1])
    for f in futures:
        f.result()


@functools.cache
def numba_tbb_threads() -> bool:
    """numba's parallel loops run on its TBB threading layer here: TBB installed (the
    `fast` extra), numba's layer choice `default`, `safe` or `tbb`, and no other layer
    already started in this process. The short kernels (bags: a tenth of a millisecond)
    then split across cores through `prange`, whose waiting threads answer within
    microseconds where `for_blocks`' pool wakes in tens; TBB, unlike GNU OpenMP, is safe
    across `fork`. Asked once a process."""
    try:
        import numba
        from numba.np.ufunc import parallel
    except ImportError:
        return False
    if str(numba.config.THREADING_LAYER).lower() not in ("default", "safe", "tbb"):
        return False
    if getattr(parallel, "_is_initialized", False):
        return parallel.threading_layer() == "tbb"
    try:
        parallel._check_tbb_version_compatible()  # pyright: ignore[reportPrivateUsage]
    except ImportError:
        return False
    return True
