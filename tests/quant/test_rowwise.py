"""qcomp.quant.rowwise* against PyTorch's kernels (torch 2.13, fbgemm), bit for bit, plus
the seed's worked example of the random format and the unbiasedness of its rounding.

Every test runs on both kernel backends (numba, and its NumPy twin on fewer tables:
`kernels` fixture)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from qcomp.quant import rowwise as rw
from qcomp.quant import rowwise_bags as rb
from qcomp.quant import rowwise_rand as rr
from tests.lazy import importorskip, lazy_module
from tests.quant import rowwise_reference as ref
from tests.quant.rowwise_tables import BAG, KINDS, PREPACK, UNPACK, nan_table, table
from tests.sampling import examples

torch = importorskip("torch", reason="torch is not installed (pip install -e '.[test]')")
ops = lazy_module("torch", "ops.quantized")  # torch imported when a test first uses it

TABLES_PER_KIND = {"numba": examples(full=40, ci=16), "numpy": 8}
"""Random tables of each kind (every kind of `KINDS` in every run): 16 on the numba
kernels in CI, 40 with QCOMP_FULL=1; 8 on their NumPy twins."""


@pytest.fixture(autouse=True, params=["numba", "numpy"])
def kernels(request):
    """Run the test with the numba loops or with their NumPy twins."""
    if request.param == "numba" and not rw.numba_available():
        pytest.skip("numba is not installed (pip install -e '.[fast]')")
    rw.set_kernel_backend(request.param)
    yield request.param
    rw.set_kernel_backend(None)


def _count(kernels: str, n: int) -> int:
    """n cases on the numba kernels (two fifths of them in CI, all with QCOMP_FULL=1), a
    fifth of them on the NumPy ones."""
    return examples(full=n, ci=max(1, n * 2 // 5)) if kernels == "numba" else max(1, n // 5)


def _qcomp_pack(w: np.ndarray, bits: int) -> np.ndarray:
    return rw.float_to_fused_8bit(w) if bits == 8 else rw.float_to_fused_nbit(w, bits)


def _qcomp_unpack(b: np.ndarray, bits: int) -> np.ndarray:
    return rw.fused_8bit_to_float(b) if bits == 8 else rw.fused_nbit_to_float(b, bits)


def _torch(name: str, *args):
    return getattr(ops, name)(*args).numpy()


def _tables(seed: int, bits: int, kernels: str):
    """(kind, table) pairs: 1-95 rows... shapes with PyTorch's column rule (a multiple
    of 8 / bits at 4 and 2 bits), including 1, 2, 4 and > 32 columns."""
    rng = np.random.default_rng(seed)
    step = 8 // bits if bits != 8 else 1
    for kind in KINDS:
        for _ in range(TABLES_PER_KIND[kernels]):
            rows = int(rng.integers(1, 12))
            cols = int(rng.integers(1, 25)) * step
            yield kind, table(rng, kind, rows, cols)


def _diff(a: np.ndarray, b: np.ndarray) -> str:
    bad = np.argwhere(a.view(np.uint8) != b.view(np.uint8)) if a.shape == b.shape else []
    return f"shapes {a.shape} {b.shape}, first differing byte {bad[:1]}"


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_prepack_bytes_match_torch(bits, kernels):
    count = 0
    for kind, w in _tables(100 + bits, bits, kernels):
        want = _torch(PREPACK[bits], torch.from_numpy(w))
        got = _qcomp_pack(w, bits)
        assert got.tobytes() == want.tobytes() and got.shape == want.shape, (kind, _diff(got, want))
        count += 1
    assert count == len(KINDS) * TABLES_PER_KIND[kernels]


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_nan_and_inf_rows_match_torch(bits, kernels):
    """Rows with NaN (quiet, signalling, any payload), +-inf and huge values: fbgemm's
    extremes skip a NaN (and the values before it in its lane), a row of NaN gives
    scale -inf and bias FLT_MAX (8-bit), values outside [min, max] round as fbgemm's
    vector blocks (clamped) and scalar tails (low byte / lrintf) do; the dequantized
    floats, NaN payloads included, are torch's."""
    rng = np.random.default_rng(700 + bits)
    step = 8 // bits if bits != 8 else 1
    for _ in range(_count(kernels, 150)):
        w = nan_table(rng, int(rng.integers(1, 6)), int(rng.integers(1, 24)) * step)
        want = _torch(PREPACK[bits], torch.from_numpy(w))
        got = _qcomp_pack(w, bits)
        assert got.tobytes() == want.tobytes(), (w, _diff(got, want))
        back = _torch(UNPACK[bits], torch.from_numpy(want))
        assert _qcomp_unpack(want, bits).tobytes() == back.tobytes()


def test_the_issues_nan_rows():
    """Issue 29's rows: [nan, 1, ..., 7] -> scale 6/255, bias 1; [[nan]] -> scale -inf,
    bias FLT_MAX (torch's bytes)."""
    row = np.array([[np.nan, 1, 2, 3, 4, 5, 6, 7]], np.float32)
    got = rw.float_to_fused_8bit(row)
    assert got[0, 8:].view("<f4").tolist() == [np.float32(6) / np.float32(255), 1.0]
    assert list(got[0, :8]) == [0, 0, 42, 85, 128, 170, 212, 255]
    one = rw.float_to_fused_8bit(np.array([[np.nan]], np.float32))
    assert one[0, 1:].view("<f4").tolist() == [-np.inf, float(np.finfo(np.float32).max)]
    assert got.tobytes() == _torch(PREPACK[8], torch.from_numpy(row)).tobytes()
    assert one.tobytes() == _torch(PREPACK[8], torch.from_numpy(
        np.array([[np.nan]], np.float32))).tobytes()


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_bags_over_nan_rows_match_torch(bits, kernels):
    """Bags over tables with NaN / inf scales, biases and values (torch's own bytes of
    NaN rows, and random bytes): the sums' NaN payloads are torch's."""
    rng = np.random.default_rng(800 + bits)
    step = 8 // bits if bits != 8 else 1
    for i in range(_count(kernels, 60)):
        w = nan_table(rng, int(rng.integers(1, 12)), int(rng.integers(1, 6)) * 8)
        packed = _torch(PREPACK[bits], torch.from_numpy(w))
        if i % 2:
            packed = rng.integers(0, 256, packed.shape, dtype=np.uint8)
            tail = 8 if bits == 8 else 4
            nan = np.uint32(0x7FC00000 | int(rng.integers(0, 1 << 22)))
            if bits == 8:
                packed[::2, -tail:-tail + 4] = np.array([nan], "<u4").view(np.uint8)
            else:
                packed[::2, -tail:-tail + 2] = np.array([0x7E00 | int(rng.integers(0, 512))],
                                                        "<u2").view(np.uint8)
        idx = rng.integers(0, len(w), int(rng.integers(1, 40)))
        offsets = np.concatenate([[0], np.sort(rng.integers(0, idx.size + 1, 4))])
        weights = rng.standard_normal(idx.size).astype(np.float32) if i % 3 else None
        tw = None if weights is None else torch.from_numpy(weights)
        want = _torch(BAG[bits], torch.from_numpy(packed), torch.from_numpy(idx),
                      torch.from_numpy(offsets), False, 0, False, tw, None, False)
        with np.errstate(all="ignore"):
            got = rb.embedding_bag_offsets(packed, idx, offsets, bits, weights)
        assert got.tobytes() == want.tobytes(), _diff(got, want)


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_unpack_bytes_match_torch(bits, kernels):
    """Dequantization of torch's own bytes, float32 bit patterns equal (NaN included)."""
    for kind, w in _tables(200 + bits, bits, kernels):
        packed = _torch(PREPACK[bits], torch.from_numpy(w))
        want = _torch(UNPACK[bits], torch.from_numpy(packed))
        got = _qcomp_unpack(packed, bits)
        assert got.tobytes() == want.tobytes() and got.shape == want.shape, (kind, _diff(got, want))


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_unpack_of_arbitrary_bytes_matches_torch(bits, kernels):
    """Rows of random bytes: scales and biases of every magnitude, inf and NaN, which
    is where a multiply-then-add and a fused multiply-add part ways."""
    rng = np.random.default_rng(300 + bits)
    for _ in range(_count(kernels, 200)):
        width = (8 + int(rng.integers(1, 40))) if bits == 8 else (4 + int(rng.integers(1, 10)))
        data = rng.integers(0, 256, (int(rng.integers(1, 6)), width), dtype=np.uint8)
        if rng.random() < 0.5:   # realistic exponents for the scale and bias
            p = rw.fused_cols(width, bits) if bits == 8 else width - 4
            n = 4 if bits == 8 else 2
            dt = np.float32 if bits == 8 else np.float16
            sb = (rng.standard_normal((len(data), 2)) * 10.0 ** rng.integers(-3, 4)).astype(dt)
            data[:, p:p + 2 * n] = sb.view(np.uint8)
        want = _torch(UNPACK[bits], torch.from_numpy(data))
        got = _qcomp_unpack(data, bits)
        assert got.tobytes() == want.tobytes(), _diff(got, want)


def test_nd_input_is_rows_by_last_dimension():
    w = np.random.default_rng(3).standard_normal((5, 2, 4)).astype(np.float32)
    got = rw.float_to_fused_8bit(w)
    assert got.shape == (5, 2, 12)
    want = _torch(PREPACK[8], torch.from_numpy(w.reshape(10, 4)))
    assert got.reshape(10, 12).tobytes() == want.tobytes()
    assert rw.fused_8bit_to_float(got).shape == (5, 2, 4)
    assert rw.float_to_fused_nbit(w, 4).shape == (5, 2, 6)


def test_layout_of_a_3x8_table():
    """REFERENCE.md section 10: 3 x 8 floats -> 3 x 16 bytes (8 values, f32 scale, f32
    bias) and 3 x 8 bytes at 4 bits (4 bytes of nibbles, f16 scale, f16 bias)."""
    w = np.arange(24, dtype=np.float32).reshape(3, 8)
    b8 = rw.float_to_fused_8bit(w)
    assert b8.shape == (3, 16)
    assert list(b8[0, :8]) == [0, 36, 73, 109, 146, 182, 219, 255]
    assert b8[0, 8:12].view("<f4")[0] == np.float32(7) / np.float32(255)
    assert b8[1, 12:16].view("<f4")[0] == 8.0
    b4 = rw.float_to_fused_nbit(w, 4)
    assert b4.shape == (3, 8)
    # q = rint(x / (7/15)) = [0, 2, 4, 6, 9, 11, 13, 15], low nibble first
    assert list(b4[0, :4]) == [0x20, 0x64, 0xB9, 0xFD]
    assert b4[0, 4:6].view("<f2")[0] == np.float16(7 / 15)


# ---------------------------------------------------------------------------
# Bags
# ---------------------------------------------------------------------------
def _bag_cases(seed: int, bits: int, count: int):
    rng = np.random.default_rng(seed)
    step = 8 // bits if bits != 8 else 1
    for i in range(count):
        kind = KINDS[i % len(KINDS)]
        w = table(rng, kind, int(rng.integers(1, 20)), int(rng.integers(1, 20)) * step)
        lengths = rng.integers(0, 7, int(rng.integers(1, 8)))
        idx = rng.integers(0, len(w), int(lengths.sum()))
        weights = None
        if i % 2:
            weights = (rng.standard_normal(idx.size) * 10.0 ** rng.integers(-3, 3)).astype(np.float32)
        yield kind, w, idx, lengths, weights, bool(i % 3), (np.int64, np.int32)[i % 4 // 2]


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_bags_match_torch(bits, kernels):
    """SparseLengths(Weighted)Sum and embedding_bag_*_rowwise_offsets equal torch's bag
    kernels bit for bit (offsets with and without include_last_offset, int32 and int64
    indices, per-sample weights)."""
    n = 0
    count = _count(kernels, 200)
    for kind, w, idx, lengths, weights, last, itype in _bag_cases(400 + bits, bits, count):
        packed = _torch(PREPACK[bits], torch.from_numpy(w))
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        if not last:
            offsets = offsets[:-1]
        tw = None if weights is None else torch.from_numpy(weights)
        want = _torch(BAG[bits], torch.from_numpy(packed), torch.from_numpy(idx.astype(itype)),
                      torch.from_numpy(offsets.astype(itype)), False, 0, False, tw, None, last)
        with np.errstate(all="ignore"):
            by_offsets = rb.embedding_bag_offsets(packed, idx.astype(itype), offsets, bits,
                                                  weights, last)
            by_lengths = rb.sparse_lengths(packed, idx, lengths.astype(np.int32), bits, weights)
        assert by_offsets.tobytes() == want.tobytes(), (kind, _diff(by_offsets, want))
        assert by_lengths.tobytes() == want.tobytes(), (kind, _diff(by_lengths, want))
        n += 1
    assert n == count


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_bags_of_arbitrary_scales_match_torch(bits, kernels):
    """Bags over rows of random bytes whose scales, biases and weights spread over
    2^-K .. 2^K (sums whose fma rounding differs from a separate multiply and add, and
    from a float64 sum rounded to float32): every sum is torch's bit for bit."""
    rng = np.random.default_rng(500 + bits)
    for _ in range(_count(kernels, 150)):
        rows, cols = int(rng.integers(1, 20)), 8 * int(rng.integers(1, 4))
        width = rw.fused_width(cols, bits)
        data = rng.integers(0, 256, (rows, width), dtype=np.uint8)
        spread = int(rng.choice([0, 4, 8, 12, 16, 24]))
        sb = rng.standard_normal((rows, 2)) * 2.0 ** rng.integers(-spread, spread + 1, (rows, 2))
        with np.errstate(over="ignore"):   # float16 scales may overflow to inf: kept
            sb = sb.astype(np.float32 if bits == 8 else np.float16)
        data[:, width - (8 if bits == 8 else 4):] = sb.view(np.uint8)
        idx = rng.integers(0, rows, int(rng.integers(1, 120)))
        offsets = np.concatenate([[0], np.sort(rng.integers(0, idx.size + 1, int(rng.integers(1, 9))))])
        weights = None
        if rng.random() < 0.6:
            ws = int(rng.choice([0, 4, 10]))
            weights = (rng.standard_normal(idx.size) * 2.0 ** rng.integers(-ws, ws + 1, idx.size)
                       ).astype(np.float32)
        tw = None if weights is None else torch.from_numpy(weights)
        want = _torch(BAG[bits], torch.from_numpy(data), torch.from_numpy(idx),
                      torch.from_numpy(offsets), False, 0, False, tw, None, False)
        with np.errstate(all="ignore"):
            got = rb.embedding_bag_offsets(data, idx, offsets, bits, weights)
        assert got.tobytes() == want.tobytes(), _diff(got, want)
    # crafted: scale * q = 3 * (1 + 2^-23) is a float32 midpoint and the accumulator
    # +-1e-30 decides the rounding, which a plain float64 sum loses (test_fma_rounds_once)
    cols = 8
    width = rw.fused_width(cols, bits)
    data = np.zeros((2, width), np.uint8)
    data[:, :width - (8 if bits == 8 else 4)] = {8: 3, 4: 0x33, 2: 0xFF}[bits]   # q = 3
    if bits == 8:   # one entry: scale 1 + 2^-23, bias +-1e-30
        data[:, cols:] = np.array([[1 + 2 ** -23, 1e-30], [1 + 2 ** -23, -1e-30]], np.float32
                                  ).view(np.uint8)
        idx, weights = np.array([0, 1]), None
    else:           # 1e-30 * row 0 (q = 1), then (1 + 2^-23) * row 1 (scale 1, bias 0)
        data[0, :-4] = 0x11 if bits == 4 else 0x55
        data[:, -4:] = np.array([[1.0, 0.0]] * 2, np.float16).view(np.uint8)
        idx = np.array([0, 1, 0, 1])
        weights = np.array([1e-30, 1 + 2 ** -23, -1e-30, 1 + 2 ** -23], np.float32)
    offsets = np.arange(0, idx.size, 1 if bits == 8 else 2)
    tw = None if weights is None else torch.from_numpy(weights)
    want = _torch(BAG[bits], torch.from_numpy(data), torch.from_numpy(idx),
                  torch.from_numpy(offsets), False, 0, False, tw, None, False)
    assert want[0, 0] != want[1, 0] and abs(want[0, 0] - 3) < 1e-5
    assert rb.embedding_bag_offsets(data, idx, offsets, bits, weights).tobytes() == want.tobytes()


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_bags_of_uneven_lengths_match_torch(bits):
    """Many bags of lengths 0-8 (summed four entries per pass, then one at a time, the
    rows asked into the cache ahead across bag ends)."""
    rng = np.random.default_rng(600 + bits)
    w = table(rng, "magnitudes", 40, 16)
    packed = _torch(PREPACK[bits], torch.from_numpy(w))
    lengths = rng.integers(0, 9, 300)
    idx = rng.integers(0, 40, int(lengths.sum()))
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    for weights in (None, rng.standard_normal(idx.size).astype(np.float32)):
        tw = None if weights is None else torch.from_numpy(weights)
        want = _torch(BAG[bits], torch.from_numpy(packed), torch.from_numpy(idx),
                      torch.from_numpy(offsets), False, 0, False, tw, None, True)
        got = rb.sparse_lengths(packed, idx, lengths, bits, weights)
        assert got.tobytes() == want.tobytes(), _diff(got, want)


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_bags_of_register_widths_match_torch(bits, kernels):
    """The widths whose bags are summed in registers (`REGISTER_COLS`: one kernel per
    width) on every kind of table: sums, weighted sums and means (torch's sum times the
    float32 reciprocal of the length), bags of 0-40 entries (the rows asked into the
    cache ahead across bag ends and up to the last index). The NumPy twins on the
    first width only."""
    from qcomp.quant.rowwise_bag_kernels import REGISTER_COLS

    rng = np.random.default_rng(700 + bits)
    for cols in REGISTER_COLS if kernels == "numba" else REGISTER_COLS[:1]:
        for kind in KINDS:
            w = table(rng, kind, int(rng.integers(1, 60)), cols)
            packed = _torch(PREPACK[bits], torch.from_numpy(w))
            lengths = rng.integers(0, 41, int(rng.integers(1, 12)))
            idx = rng.integers(0, len(w), int(lengths.sum()))
            offsets = np.concatenate([[0], np.cumsum(lengths)])
            weights = (rng.standard_normal(idx.size) * 10.0 ** rng.integers(-3, 3)).astype(np.float32)
            for wt in (None, weights):
                tw = None if wt is None else torch.from_numpy(wt)
                want = _torch(BAG[bits], torch.from_numpy(packed), torch.from_numpy(idx),
                              torch.from_numpy(offsets), False, 0, False, tw, None, True)
                with np.errstate(all="ignore"):
                    got = rb.sparse_lengths(packed, idx, lengths, bits, wt)
                    mean = rb.sparse_lengths(packed, idx, lengths, bits, wt, mean=True)
                    inv = np.float32(1) / np.maximum(lengths, 1).astype(np.float32)
                    want_mean = (want * inv[:, None]).astype(np.float32)
                assert got.tobytes() == want.tobytes(), (cols, kind, _diff(got, want))
                assert mean.tobytes() == want_mean.tobytes(), (cols, kind, _diff(mean, want_mean))


@pytest.mark.parametrize("bits", [8, 4, 2])
def test_torch_bags_ignore_mode_so_mean_is_caffe2s(bits):
    """PyTorch's quantized bags return the sum for mode=1 (mean); SparseLengthsMean is
    Caffe2's: the float32 sum times float32(1 / length), 0 for an empty segment."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((9, 16)).astype(np.float32)
    packed = _torch(PREPACK[bits], torch.from_numpy(w))
    lengths = np.array([3, 0, 5, 1, 4, 9])
    idx = rng.integers(0, 9, int(lengths.sum()))
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    args = (torch.from_numpy(packed), torch.from_numpy(idx), torch.from_numpy(offsets), False)
    as_sum = _torch(BAG[bits], *args, 0, False, None, None, True)
    as_mean = _torch(BAG[bits], *args, 1, False, None, None, True)
    assert as_mean.tobytes() == as_sum.tobytes()
    mean = rb.sparse_lengths(packed, idx, lengths, bits, mean=True)
    inv = np.float32(1) / np.maximum(lengths, 1).astype(np.float32)
    assert mean.tobytes() == (as_sum * inv[:, None]).astype(np.float32).tobytes()
    assert not mean[1].any()


def test_bag_errors():
    packed = rw.float_to_fused_8bit(np.ones((4, 3), np.float32))
    with pytest.raises(rw.RowwiseError, match=r"index 1 is 4, outside the table's rows \[0, 4\)"):
        rb.sparse_lengths(packed, np.array([0, 4]), np.array([2]), 8)
    with pytest.raises(rw.RowwiseError, match="the lengths add up to 3, there are 2 indices"):
        rb.sparse_lengths(packed, np.array([0, 1]), np.array([2, 1]), 8)
    with pytest.raises(rw.RowwiseError, match=r"bag 1 spans \[3, 2\)"):
        rb.embedding_bag_offsets(packed, np.array([0, 1, 2]), np.array([0, 3, 2]), 8)
    with pytest.raises(rw.RowwiseError, match="3 columns at 4 bits need rows of 6 bytes"):
        rb.sparse_lengths(packed, np.array([0]), np.array([1]), 4, cols=3)


# ---------------------------------------------------------------------------
# The fake n-bit format, fma
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("bits", [4, 2])
def test_fake_nbit_holds_the_nbit_values_in_the_8bit_layout(bits):
    """For rows without zero extremes, the fake format stores the values, scale and
    bias of the real n-bit format (unpacked, widened to float32); its 8-bit
    dequantization equals the n-bit one."""
    rng = np.random.default_rng(bits)
    w = (rng.standard_normal((50, 16)) * 10.0 ** rng.integers(-3, 3, (50, 1))).astype(np.float32)
    fake = rw.float_to_fused_nbit_fake(w, bits)
    real = rw.float_to_fused_nbit(w, bits)
    assert fake.shape == (50, 24)
    q = ref.unpack_consecutive(real[:, :-4], bits, 16)
    assert np.array_equal(fake[:, :16], q)
    sb = real[:, -4:].copy().view("<f2").astype(np.float32)
    assert np.array_equal(fake[:, 16:].copy().view("<f4"), sb)
    assert rw.fused_8bit_to_float(fake).tobytes() == rw.fused_nbit_to_float(real, bits).tobytes()


def test_fake_nbit_zero_scale_gives_zeros():
    """A float16 scale of 0 has no guard in Caffe2's fake quantizer: 1/scale = inf, every
    value 0, the stored scale 0 (the real n-bit format would store 1)."""
    w = np.array([[1.0, 1.0 + 2 ** -23, 1.0]], np.float32)
    fake = rw.float_to_fused_nbit_fake(w, 4)
    assert list(fake[0, :3]) == [0, 0, 0]
    assert fake[0, 3:7].view("<f4")[0] == 0.0
    assert rw.float_to_fused_nbit(w, 4)[0, 2:4].view("<f2")[0] == 1.0


def _round_to_f32(x: Fraction) -> np.float32:
    """The float32 nearest to `x`, ties to even (exactly)."""
    r = np.float32(float(x))
    best = r
    for c in (np.nextafter(r, np.float32(np.inf)), np.nextafter(r, np.float32(-np.inf))):
        if not np.isfinite(c):
            continue
        d_c, d_b = abs(Fraction(float(c)) - x), abs(Fraction(float(best)) - x)
        if d_c < d_b or (d_c == d_b and int(c.view(np.uint32)) % 2 == 0):
            best = c
    return best


def test_fma_rounds_once():
    """fma_f32 against exact rational arithmetic, on random operands and on sums that
    land exactly between two float32 values in float64 (where a float64 sum rounded
    to float32 is wrong)."""
    rng = np.random.default_rng(9)
    a = (rng.standard_normal(3000) * 10.0 ** rng.integers(-20, 20, 3000)).astype(np.float32)
    b = rng.integers(0, 256, 3000).astype(np.float32)
    c = (rng.standard_normal(3000) * 10.0 ** rng.integers(-20, 20, 3000)).astype(np.float32)
    # crafted: p = 3 * (1 + 2^-23) is a float32 midpoint; c tiny decides the rounding
    a = np.append(a, np.float32(1 + 2 ** -23) * np.ones(4, np.float32))
    b = np.append(b, np.float32(3) * np.ones(4, np.float32))
    c = np.append(c, np.array([1e-30, -1e-30, 2 ** -60, -(2 ** -60)], np.float32))
    got = rw.fma_f32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        assert g == _round_to_f32(exact), (x, y, z)
    plain = (a.astype(np.float64) * b + c).astype(np.float32)
    assert (plain[-4:] != got[-4:]).any()   # the crafted cases do need the correction


# ---------------------------------------------------------------------------
# The random format: the seed's example, determinism, unbiasedness
# ---------------------------------------------------------------------------
SEED_X = np.array([[0.3, -1.4, -0.6, 0.9, 1.0]], np.float32)


def test_seed_worked_example_layout():
    """bitwidth 2, x = [0.3, -1.4, -0.6, 0.9, 1.0]: tail 3, min -1.4, max 1.0, levels
    [-1.4, -0.6, 0.2, 1.0]; bytes [x1|x3|x5|xxx] [x2|x4|xxx|xxx] (low bits first)."""
    b = rr.float_to_fused_rand(SEED_X, 2, random=False)
    assert b.shape == (1, 12)
    assert (b[0, 0], b[0, 1]) == (2, 3)
    assert b[0, 2:6].view("<f4")[0] == np.float32(-1.4)
    assert b[0, 6:10].view("<f4")[0] == np.float32(1.0)
    # nearest levels: x1 0.3 -> 0.2 (2), x2 -> 0, x3 -> 1, x4 0.9 -> 1.0 (3), x5 -> 3
    assert b[0, 10] == 2 | 1 << 2 | 3 << 4
    assert b[0, 11] == 0 | 3 << 2
    back = rr.fused_rand_to_float(b)
    assert np.allclose(back, [[0.2, -1.4, -0.6, 1.0, 1.0]], atol=1e-6)
    assert rr.tail_of(5, 2) == 3 and rr.rand_width(5, 2) == 12


@pytest.mark.parametrize("bits", [1, 2, 4, 8])
def test_segment_packing_round_trips(bits):
    rng = np.random.default_rng(bits)
    for cols in (1, 5, 7, 8, 9, 33):
        q = rng.integers(0, 1 << bits, (3, cols)).astype(np.uint8)
        packed = ref.pack_segments(q, bits)
        assert packed.shape == (3, rw.packed_bytes(cols, bits))
        assert np.array_equal(ref.unpack_segments(packed, bits, cols), q)
        s = packed.shape[1]
        for i in range(cols):    # value i sits in byte i % S, slot i // S
            slot = (packed[:, i % s] >> (i // s * bits)) & ((1 << bits) - 1)
            assert np.array_equal(slot, q[:, i])


def test_seed_example_probability_of_x1():
    """x1 = 0.3 becomes 0.2 with probability 7/8 and 1.0 with 1/8: over 4000 seeds the
    count of 1.0 is Binomial(4000, 1/8) (mean 500, sd 20.9); 5 sd is 105."""
    ups = 0
    for seed in range(4000):
        q = rr.float_to_fused_rand(SEED_X, 2, random=True, seed=seed)[0, 10] & 3
        assert q in (2, 3)
        ups += q == 3
    assert abs(ups - 500) < 105


def test_random_rounding_is_deterministic_per_seed():
    x = np.random.default_rng(1).standard_normal((4, 33)).astype(np.float32)
    a = rr.float_to_fused_rand(x, 4, seed=42)
    assert a.tobytes() == rr.float_to_fused_rand(x, 4, seed=42).tobytes()
    assert a.tobytes() != rr.float_to_fused_rand(x, 4, seed=43).tobytes()
    # the uniforms are SplitMix64's outputs 1, 2, ... for seed 0
    assert int(ref.splitmix64(0, np.array([0]))[0]) == 0xE220A8397B1DCDAF
    assert ref.uniforms(0, 0, 1)[0] == np.float32(0xE220A8 / 2 ** 24)


@pytest.mark.parametrize("bits", [1, 2, 4])
def test_stochastic_rounding_is_unbiased(bits):
    """E[x'] = x: a row of min, max and 20,000 copies of each of 8 values between them.

    Each copy's x' is the lower or upper level, so its variance is at most gap^2 / 4
    and the mean of n = 20,000 copies has sd <= gap / (2 sqrt(n)) = gap / 283. The
    tolerance is 5 of those sd plus the format's systematic error: the 1e-8 added to
    the gap before inverting and float32 rounding of (x - min) * gap_inv, below
    gap * 1e-5 here."""
    lo, hi = np.float32(-1.5), np.float32(2.5)
    values = np.linspace(-1.4, 2.4, 8).astype(np.float32)
    n = 20000
    row = np.concatenate([[lo, hi], np.repeat(values, n)]).astype(np.float32)[None, :]
    out = rr.fused_rand_to_float(rr.float_to_fused_rand(row, bits, seed=2024))[0, 2:]
    gap = float(hi - lo) / ((1 << bits) - 1)
    means = out.reshape(8, n).astype(np.float64).mean(axis=1)
    tol = 5 * gap / (2 * np.sqrt(n)) + gap * 1e-5
    assert np.all(np.abs(means - values) < tol), (means - values, tol)
    # and deterministic rounding is biased on the same row (the test can fail)
    det = rr.fused_rand_to_float(rr.float_to_fused_rand(row, bits, random=False))[0, 2:]
    assert np.any(np.abs(det.reshape(8, n).mean(axis=1) - values) > tol)


@pytest.mark.parametrize("bits", [1, 2, 4, 8])
def test_random_format_kernels_match_the_numpy_reading(bits):
    """The numba kernels (row loops, one uniform at a time) against the whole-array
    NumPy formulas of tests/quant/rowwise_reference.py, every kind of row, random and
    deterministic rounding, bytes and dequantized bits."""
    rng = np.random.default_rng(40 + bits)
    for kind in KINDS:
        for _ in range(12):
            x = table(rng, kind, int(rng.integers(1, 9)), int(rng.integers(1, 40)))
            for random in (True, False):
                seed = int(rng.integers(0, 2 ** 63))
                want = ref.float_to_fused_rand(x, bits, random, seed)
                got = rr.float_to_fused_rand(x, bits, random, seed)
                assert got.tobytes() == want.tobytes(), (kind, random, x.shape)
                back = ref.fused_rand_to_float(want, bits, x.shape[1])
                assert rr.fused_rand_to_float(want).tobytes() == back.tobytes(), kind
