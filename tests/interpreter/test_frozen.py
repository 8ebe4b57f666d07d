"""Per-constant caching of operand preparation (qcomp/interpreter/frozen.py) and the
exact float contractions it feeds (kernels.exact_float_dtype, the 'exact' accumulate)."""

import gc

import numpy as np
import pytest

from qcomp.interpreter import kernels
from qcomp.interpreter.frozen import _CACHE, cached


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a)
    a.flags.writeable = False
    return a


def test_writable_arrays_are_recomputed_every_time():
    a = np.arange(6)
    calls = []
    for _ in range(3):
        cached(a, "p", lambda v: calls.append(1) or v.sum())
    assert len(calls) == 3


def test_frozen_array_computed_once_per_layout_and_result_read_only():
    a = _frozen(np.arange(6).reshape(2, 3))
    calls = []

    def f(v):
        calls.append(v.shape)
        return v * 2

    r1 = cached(a, "double", f)
    r2 = cached(a, "double", f)
    rt = cached(a.T, "double", f)  # a view of the same data in another layout: its own entry
    assert calls == [(2, 3), (3, 2)]
    assert r1 is r2 and not r1.flags.writeable
    np.testing.assert_array_equal(rt, (np.arange(6).reshape(2, 3) * 2).T)


def test_view_of_writable_data_is_not_cached_even_if_read_only():
    base = np.arange(4)
    view = base[:]
    view.flags.writeable = False
    calls = []
    cached(view, "p", lambda v: calls.append(1) or v.sum())
    base[0] = 100
    assert cached(view, "p", lambda v: calls.append(1) or v.sum()) == 106
    assert len(calls) == 2


def test_entry_dropped_with_the_array():
    a = _frozen(np.arange(3))
    cached(a, "p", lambda v: v + 1)
    key = id(a)
    assert key in _CACHE
    del a
    gc.collect()
    assert key not in _CACHE


@pytest.mark.parametrize("k, expected", [(1023, np.float32), (1024, np.float64)])
def test_exact_float_dtype_at_the_float32_limit(k, expected):
    # 128 * 128 * 1024 = 2^24: a partial sum may be 2^24 + 1, not a float32
    a = np.full((1, k), -128, np.int8)
    b = np.full((k, 1), -128, np.int16)
    assert kernels.exact_float_dtype(a, b, k) is expected


def test_int_matmul_exact_at_the_limit():
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (7, 1100)).astype(np.int8)
    b = rng.integers(-128, 128, (1100, 5)).astype(np.int8)
    a[0] = -128
    b[:, 0] = -128
    b = _frozen(b)
    want = a.astype(np.int64) @ b.astype(np.int64)  # int64 arithmetic, no float involved
    for _ in range(2):  # second call uses the cached float copy of b
        np.testing.assert_array_equal(kernels.int_matmul(a, b), want)


def _conv_int64(x, w, pad, pad_value):
    """Direct definition: NHWC x HWIO, stride 1, every window summed in int64."""
    xp = np.pad(x.astype(np.int64), ((0, 0), (pad, pad), (pad, pad), (0, 0)), constant_values=pad_value)
    kh, kw, _, o = w.shape
    n, h, wd, _ = xp.shape
    out = np.zeros((n, h - kh + 1, wd - kw + 1, o), np.int64)
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            win = xp[:, i:i + kh, j:j + kw, :]
            out[:, i, j, :] = np.tensordot(win, w.astype(np.int64), axes=([1, 2, 3], [0, 1, 2]))
    return out


@pytest.mark.parametrize("dtype, pad_value", [(np.int8, 3), (np.int16, -20000), (np.int32, 7)])
def test_integer_convolution_exact_through_float_conversion(dtype, pad_value):
    rng = np.random.default_rng(1)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -30000), min(info.max, 30000)
    x = rng.integers(lo, hi, (2, 6, 5, 4)).astype(dtype)
    w = _frozen(rng.integers(lo, hi, (3, 3, 4, 3)).astype(dtype))
    got = kernels.convolution(
        x, w, input_batch=0, input_feature=3, input_spatial=[1, 2], kernel_in=2, kernel_out=3,
        kernel_spatial=[0, 1], output_batch=0, output_feature=3, output_spatial=[1, 2],
        strides=[1, 1], padding=[(1, 1), (1, 1)], lhs_dilation=[1, 1], rhs_dilation=[1, 1],
        reversal=[False, False], feature_groups=1, batch_groups=1, accumulate="int",
        pad_value=pad_value)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, _conv_int64(x, w, 1, pad_value))
