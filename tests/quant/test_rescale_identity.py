"""`qcomp.quant.accumulator.rescale_is_identity`: when it holds, `rescale_scaled` gives
back the exact sum for every integer within the bound (checked here on the bound's
edges, odd values and random values, per-tensor and per-axis); each condition that
it checks, broken alone, makes it fail, and (but for the conservative subnormal
condition) the general formula then differs from the sum on some value: the fast path
would be wrong there."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.quant.accumulator import (
    accumulator_factor,
    rescale_is_identity,
    rescale_scaled,
    unit_rescale_is_exact,
)

I32 = (-(1 << 31), (1 << 31) - 1)


def _accs(bound: int, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    edges = np.array([0, 1, -1, bound, -bound, bound - 1, -(bound - 1)], np.int64)
    rand = rng.integers(-bound, bound, (64 - len(edges),), endpoint=True)
    return np.concatenate([edges, rand]).reshape(-1, 1) * np.ones((1, n), np.int64)


@pytest.mark.parametrize("sl, sr, bound", [
    (0.03, [0.0021, 0.0037, 0.003, 0.0025], 2047 * 127 * 128),
    (0.5, [0.0031], (1 << 31) - 1),
    (1e-300, [1e-7], 1 << 24),                     # c near the smallest normal float64
    (3.7, [7.1e300], 1000),                         # c large, acc * c still finite
])
def test_identity_returns_the_sum(sl, sr, bound):
    c = accumulator_factor(sl, np.asarray(sr).reshape(1, -1))
    so = np.float64(sl) * np.asarray(sr, np.float64).reshape(1, -1)  # the i32 type's scales
    assert rescale_is_identity(c, so, None, bound, *I32)
    acc = _accs(bound, len(sr))
    got = rescale_scaled(acc.astype(np.float64), c, so, None, *I32, np.int64)
    assert got.tolist() == acc.tolist()


def _differs(c, so, zo, bound, lo, hi) -> bool:
    acc = _accs(bound, np.size(c), seed=1)
    rng = np.random.default_rng(2)
    acc = np.concatenate([acc, rng.integers(-bound, bound, (4096, np.size(c)), endpoint=True)])
    got = rescale_scaled(acc.astype(np.float64), c, so, zo, lo, hi, np.int64)
    return got.tolist() != acc.tolist()


def test_not_identity_when_a_condition_fails():
    c = accumulator_factor(0.03, np.array([[0.0021, 0.0037]]))
    bound = 1 << 30
    assert rescale_is_identity(c, c.copy(), None, bound, *I32)
    assert not rescale_is_identity(c, np.nextafter(c, 1.0), None, bound, *I32)  # one ulp off
    near = c * (1 + 1e-9)  # s_res within 1e-9 of s_l * s_r
    assert not rescale_is_identity(c, near, None, bound, *I32)
    assert _differs(c, near, None, bound, *I32)
    zero_point = np.array([[0.0, 3.0]])
    assert not rescale_is_identity(c, c, zero_point, bound, *I32)
    assert _differs(c, c, zero_point, bound, *I32)
    narrow = (-1000, 1000)  # the sum can leave the storage range: clamped
    assert not rescale_is_identity(c, c, None, bound, *narrow)
    assert _differs(c, c, None, bound, *narrow)
    assert not rescale_is_identity(c, c, None, 1 << 51, -(1 << 62), 1 << 62)
    tiny = np.array([[5e-324, 1e-310]])  # subnormal factors: not proven (the bound assumes
    assert not rescale_is_identity(tiny, tiny, None, 1 << 20, *I32)  # normal products)
    huge = np.array([[1e300]])
    assert not rescale_is_identity(huge, huge, None, 1 << 30, *I32)
    assert _differs(huge, huge, None, 1 << 30, *I32)
    assert rescale_is_identity(c, c, np.zeros((1, 2)), bound, *I32)  # +0.0 changes nothing


@pytest.mark.parametrize("scale", [0.0031, 7.5, 2.0 ** -1022, 2.0 ** 900, -0.25,
                                   float(np.nextafter(1.0, 2.0)) / 3])
def test_an_accepted_unit_rescale_rounds_back_every_integer(scale):
    """The rule both the NumPy backend and the XLA preparation use: NumPy's own f64
    multiply, divide and round_half_to_even give back every i16 value and the i32 edges
    and random i32 values, for each scale `unit_rescale_is_exact` accepts."""
    bound = 1 << 32
    assert unit_rescale_is_exact(np.array([scale]), bound)
    rng = np.random.default_rng(1)
    x = np.concatenate([np.arange(-(1 << 15), 1 << 15), [bound, -bound, bound - 1, 1 - bound],
                        rng.integers(-bound, bound, 1 << 16, endpoint=True)]).astype(np.int64)
    s = np.float64(scale)
    back = np.round((x.astype(np.float64) * s) / s)
    np.testing.assert_array_equal(back, x.astype(np.float64))
    clamped = np.round(np.clip((x.astype(np.float64) * s) / s, -1000.0, 999.0))
    np.testing.assert_array_equal(clamped, np.clip(x, -1000, 999).astype(np.float64))


def test_unit_rescale_refusals():
    """Each condition alone: a subnormal scale, an overflowing product, a bound at
    2^51 (f64(x) * s / s no longer within 1/2), NaN and infinity."""
    assert unit_rescale_is_exact([0.5, 3.0], (1 << 51) - 1)
    assert not unit_rescale_is_exact([0.5, 3.0], 1 << 51)
    assert not unit_rescale_is_exact([0.5, 2.0 ** -1023], 1 << 20)     # subnormal
    assert unit_rescale_is_exact([2.0 ** 990], 1 << 20)
    assert not unit_rescale_is_exact([2.0 ** 1004], 1 << 20)           # x * s overflows
    assert not unit_rescale_is_exact([np.nan], 10)
    assert not unit_rescale_is_exact([np.inf], 10)
    assert not unit_rescale_is_exact([0.0], 10)
