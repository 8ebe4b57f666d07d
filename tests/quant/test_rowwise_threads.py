"""The rowwise kernels on row blocks (qcomp.quant.threads): a table large enough to be
cut, holding every kind of row, gives torch's bytes whatever the thread count, and the
bags cut by entries give torch's sums, on `for_blocks`' Python threads and on numba's TBB
threads alike (`threads.numba_tbb_threads`)."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.quant import rowwise as rw
from qcomp.quant import rowwise_bags as rb
from qcomp.quant import threads
from tests.lazy import importorskip, lazy_module
from tests.quant.rowwise_tables import BAG, KINDS, PREPACK, UNPACK, table

torch = importorskip("torch", reason="torch is not installed (pip install -e '.[test]')")
ops = lazy_module("torch", "ops.quantized")  # torch imported when a test first uses it


@pytest.fixture(scope="module")
def big():
    """7 x 1000 rows of 64 columns (one block per kind, shuffled): 448,000 values, cut
    into 3 blocks at 3 threads (`threads.MIN_WORK` = 65,536 per block)."""
    rng = np.random.default_rng(7)
    w = np.concatenate([table(rng, kind, 1000, 64) for kind in KINDS])
    return w[rng.permutation(len(w))]


@pytest.fixture(params=[1, 3], ids=["1-thread", "3-threads"])
def thread_count(request):
    before = threads.num_threads()
    threads.set_num_threads(request.param)
    yield request.param
    threads.set_num_threads(before)


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_big_tables_match_torch(big, bits, thread_count):
    tw = torch.from_numpy(big)
    want = getattr(ops, PREPACK[bits])(tw).numpy()
    got = rw.float_to_fused_8bit(big) if bits == 8 else rw.float_to_fused_nbit(big, bits)
    assert got.tobytes() == want.tobytes()
    back = getattr(ops, UNPACK[bits])(torch.from_numpy(want)).numpy()
    mine = rw.fused_8bit_to_float(got) if bits == 8 else rw.fused_nbit_to_float(got, bits)
    assert mine.tobytes() == back.tobytes()


def test_fake_and_extremes_do_not_depend_on_threads(big):
    before = threads.num_threads()
    try:
        threads.set_num_threads(1)
        one = [rw.float_to_fused_nbit_fake(big, 4).tobytes(), *map(np.ndarray.tobytes,
               rw.first_min_max(big) + rw.fbgemm_min_max(big))]
        threads.set_num_threads(3)
        three = [rw.float_to_fused_nbit_fake(big, 4).tobytes(), *map(np.ndarray.tobytes,
                 rw.first_min_max(big) + rw.fbgemm_min_max(big))]
    finally:
        threads.set_num_threads(before)
    assert one == three


@pytest.fixture(params=["python", "tbb"], ids=["python-pool", "tbb-pool"])
def pool(request, monkeypatch):
    """Which threads run the register kernels' blocks of bags."""
    if request.param == "tbb":
        if not (rw.kernel_backend() == "numba" and threads.numba_tbb_threads()):
            pytest.skip("numba's TBB threading layer is not available (the fast extra's tbb)")
    else:
        monkeypatch.setattr(rb, "numba_tbb_threads", lambda: False)
    return request.param


@pytest.mark.parametrize("bits", [8, 4])
@pytest.mark.parametrize("weighted", [False, True])
def test_big_bags_match_torch(big, bits, weighted, thread_count, pool):
    """6,000 bags of 0 to 40 entries (uneven: cut by entries, not by bags)."""
    rng = np.random.default_rng(bits)
    data = rw.float_to_fused_8bit(big) if bits == 8 else rw.float_to_fused_nbit(big, bits)
    lengths = rng.integers(0, 41, 6000)
    idx = rng.integers(0, len(data), int(lengths.sum()))
    w = rng.standard_normal(len(idx)).astype(np.float32) if weighted else None
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    bag = getattr(ops, BAG[bits])
    want = bag(torch.from_numpy(data), torch.from_numpy(idx), torch.from_numpy(offsets),
               False, 0, False, None if w is None else torch.from_numpy(w), None,
               True).numpy()
    got = rb.sparse_lengths(data, idx, lengths, bits, w)
    assert got.tobytes() == want.tobytes()
