"""qcomp.quant.threads: the cut points and the blocks `for_blocks` hands out."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from qcomp.quant import threads


@pytest.fixture
def three_threads():
    before = threads.num_threads()
    threads.set_num_threads(3)
    yield
    threads.set_num_threads(before)


def test_split_by_count_and_by_position():
    assert threads.split(10, 3) == [0, 3, 6, 10]
    assert threads.split(0, 2) == [0, 0, 0]
    # bags starting at entries 0, 1, 2, 50, 51: equal spans of entries, not of bags
    assert threads.split(5, 2, [0, 1, 2, 50, 51]) == [0, 3, 5]
    assert threads.split(4, 2, [0, 0, 0, 0]) == [0, 0, 4]


def test_blocks_cover_every_row_once(three_threads):
    seen, names = [], set()
    lock = threading.Lock()

    def run(a, b):
        with lock:
            seen.append((a, b))
            names.add(threading.current_thread().name)

    threads.for_blocks(300_000, 1, run)
    assert sorted(seen) == [(0, 100_000), (100_000, 200_000), (200_000, 300_000)]
    assert threading.current_thread().name in names and len(names) >= 2
    seen.clear()
    threads.for_blocks(100, 1, run)          # too little work: one block, on the caller
    assert seen == [(0, 100)]


def test_nested_blocks_run_on_their_caller(three_threads):
    inner = []

    def run(a, b):
        threads.for_blocks(1 << 20, 1, lambda c, d: inner.append((c, d)))

    threads.for_blocks(1 << 20, 1, run)
    assert sorted(inner) == [(0, 1 << 20)] * 3


def test_a_failing_block_raises_in_the_caller(three_threads):
    def run(a, b):
        if a > 0:
            raise RuntimeError(f"block {a}")

    with pytest.raises(RuntimeError, match="block"):
        threads.for_blocks(1 << 20, 1, run)


def test_thread_count_checks(monkeypatch):
    with pytest.raises(ValueError, match="at least 1"):
        threads.set_num_threads(0)
    monkeypatch.setenv("QCOMP_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="QCOMP_NUM_THREADS must be a positive integer, got 'many'"):
        threads._default_threads()
    monkeypatch.setenv("QCOMP_NUM_THREADS", "5")
    assert threads._default_threads() == 5


def test_split_positions_are_nondecreasing_cuts():
    pos = np.cumsum(np.random.default_rng(0).integers(0, 40, 1000))
    cuts = threads.split(1000, 7, pos)
    assert cuts[0] == 0 and cuts[-1] == 1000 and cuts == sorted(cuts)
    spans = [pos[min(b, 999)] - pos[a] for a, b in zip(cuts, cuts[1:])]
    assert max(spans) - min(spans) < 80          # equal spans up to two bags' lengths


def test_tbb_threads_only_on_a_layer_that_may_be_tbb(monkeypatch):
    numba = pytest.importorskip("numba")
    from numba.np.ufunc import parallel
    monkeypatch.setattr(numba.config, "THREADING_LAYER", "omp")
    assert threads.numba_tbb_threads.__wrapped__() is False
    monkeypatch.setattr(numba.config, "THREADING_LAYER", "default")
    monkeypatch.setattr(parallel, "_is_initialized", True)
    monkeypatch.setattr(parallel, "_threading_layer", "workqueue")
    assert threads.numba_tbb_threads.__wrapped__() is False   # another layer already started
    monkeypatch.setattr(parallel, "_threading_layer", "tbb")
    assert threads.numba_tbb_threads.__wrapped__() is True


def test_block_cuts_none_for_one_block(three_threads):
    assert threads.block_cuts(100, 1) is None                 # too little work
    assert threads.block_cuts(300_000, 1) == [0, 100_000, 200_000, 300_000]
