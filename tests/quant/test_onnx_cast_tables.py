"""Cast-25's conversion tables (seed 001, ../shared/seeds/001_*.txt), row by row, with
exact bit patterns: float8 e4m3fn / e4m3fnuz / e5m2 / e5m2fnuz with saturate 1 and 0, and
float8e8m0 (saturate + up, non-saturate + nearest, and the other mode combinations by
the same rules). The expected codes are the tables' (written out here), the rounding
rows are checked against exact rationals and ml_dtypes; where ONNX's reference evaluator
departs from the table, the test pins each departure (docs/onnx.md)."""

from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from qcomp.quant.onnx_cast import cast_array

F8 = {  # name: (ml_dtypes type, FLT_MAX code, has inf, has -0)
    "float8e4m3fn": (ml_dtypes.float8_e4m3fn, 0x7E, False, True),
    "float8e4m3fnuz": (ml_dtypes.float8_e4m3fnuz, 0x7F, False, False),
    "float8e5m2": (ml_dtypes.float8_e5m2, 0x7B, True, True),
    "float8e5m2fnuz": (ml_dtypes.float8_e5m2fnuz, 0x7F, False, False),
}


def _code(x, to, saturate, round_mode="up"):
    return int(cast_array(np.array([x], np.float32), to, saturate=saturate,
                          round_mode=round_mode).view(np.uint8)[0])


def _is_nan(code, to, negative=None):
    v = np.array([code], np.uint8).view(F8[to][0] if to in F8 else ml_dtypes.float8_e8m0fnu)
    if not np.isnan(v.astype(np.float32))[0]:
        return False
    return negative is None or bool(code & 0x80) == negative


def _beyond_max(to):
    """A float32 whose nearest float8 (unbounded exponent) is past FLT_MAX: FLT_MAX plus
    three quarters of its ulp; and one that rounds back to FLT_MAX (a quarter ulp)."""
    dt, mx, _, _ = F8[to]
    m = float(ml_dtypes.finfo(dt).max)
    ulp = m - float(np.array([mx - 1], np.uint8).view(dt)[0])
    return np.float32(m + 0.75 * ulp), np.float32(m + 0.25 * ulp)


@pytest.mark.parametrize("to", sorted(F8))
def test_float8_saturate_table(to):
    dt, mx, _, neg0 = F8[to]
    over, back = _beyond_max(to)
    assert _code(0.0, to, 1) == 0x00
    assert _code(-0.0, to, 1) == (0x80 if neg0 else 0x00)
    assert _is_nan(_code(np.nan, to, 1), to)
    assert _code(np.inf, to, 1) == mx and _code(-np.inf, to, 1) == mx | 0x80
    assert _code(over, to, 1) == mx and _code(-over, to, 1) == mx | 0x80
    assert _code(1e30, to, 1) == mx
    assert _code(back, to, 1) == mx  # [x] = FLT_MAX: the RNE row


@pytest.mark.parametrize("to", sorted(F8))
def test_float8_no_saturate_table(to):
    dt, mx, has_inf, neg0 = F8[to]
    over, back = _beyond_max(to)
    assert _code(0.0, to, 0) == 0x00
    assert _code(-0.0, to, 0) == (0x80 if neg0 else 0x00)
    assert _is_nan(_code(np.nan, to, 0), to)
    neg_nan = _code(-np.float32(np.nan), to, 0)
    assert _is_nan(neg_nan, to, negative=True if neg0 else None)  # -NaN: -NaN / NaN
    for x in (np.inf, over, 1e30):
        c, cn = _code(x, to, 0), _code(-x, to, 0)
        if has_inf:  # e5m2: Inf / -Inf
            assert (c, cn) == (0x7C, 0xFC)
        else:
            assert _is_nan(c, to) and _is_nan(cn, to, negative=True if neg0 else None)
    assert _code(back, to, 0) == mx


@pytest.mark.parametrize("to", sorted(F8))
@pytest.mark.parametrize("saturate", [0, 1])
def test_float8_else_rows_round_half_even(to, saturate):
    dt = F8[to][0]
    m = float(ml_dtypes.finfo(dt).max)
    rng = np.random.default_rng(7)
    x = (rng.uniform(-1, 1, 2000) * m).astype(np.float32)
    x[:200] = rng.uniform(-4, 4, 200).astype(np.float32) * float(ml_dtypes.finfo(dt).smallest_subnormal)
    got = cast_array(x, to, saturate=bool(saturate))
    assert (got.view(np.uint8) == x.astype(dt).view(np.uint8)).all()


# -- float8e8m0 ------------------------------------------------------------------------------

E8M0 = "float8e8m0"
MIN, MAX, NAN = 0x00, 0xFE, 0xFF  # 2^-127, 2^127, NaN


def _e8(x, saturate, round_mode):
    a = np.array([x], np.float64 if isinstance(x, float) and not np.isfinite(x) or
                 abs(x) < 2.0 ** -126 or abs(x) > 3e38 else np.float32)
    return int(cast_array(a, E8M0, saturate=bool(saturate), round_mode=round_mode)
               .view(np.uint8)[0])


TABLE = [  # (x, saturate + up, non-saturate + nearest), the seed's e8m0 table
    (0.0, MIN, NAN),             # 0: "0" (E8M0 has no zero: code 0, its least value)
    (np.nan, NAN, NAN),
    (np.inf, MAX, NAN),
    (2.0 ** 127 * 1.5, MAX, NAN),  # x > E8M0_MAX
    (2.0 ** 127 * (1 + 2 ** -23), MAX, NAN),
    (float(np.finfo(np.float32).max), MAX, NAN),
    (1e300, MAX, NAN),            # a double past float32's range
    (2.0 ** -128, MIN, NAN),      # x < E8M0_MIN
    (2.0 ** -149, MIN, NAN),
    (2.0 ** -127 * 0.75, MIN, NAN),
]


@pytest.mark.parametrize("x,sat_up,nosat_nearest", TABLE, ids=lambda v: repr(v))
def test_e8m0_table(x, sat_up, nosat_nearest):
    assert _e8(x, 1, "up") == sat_up
    assert _e8(x, 0, "nearest") == nosat_nearest
    # the same rows decide the other combinations: saturate clamps, else NaN
    for mode in ("up", "down", "nearest"):
        assert _e8(x, 1, mode) == sat_up
        assert _e8(x, 0, mode) == nosat_nearest


def _exact_e8m0(x: float, mode: str) -> int:
    """The code of an in-range x (2^-127 <= x <= 2^127), from exact rationals."""
    f = Fraction(x)
    k = -127
    while Fraction(2) ** (k + 1) <= f:
        k += 1
    lo, hi = Fraction(2) ** k, Fraction(2) ** (k + 1)
    if f == lo or mode == "down":
        return k + 127
    if mode == "up":
        return k + 1 + 127
    return k + 1 + 127 if f - lo >= hi - f else k + 127  # nearest, ties up


def _in_range_samples():
    rng = np.random.default_rng(3)
    x = np.exp2(rng.uniform(-127, 127, 400)).astype(np.float32)
    mant = np.array([1.0, 1.125, 1.25, 1.375, 1.5, 1.5 + 2 ** -23, 1.5 - 2 ** -23, 1.75,
                     2 - 2 ** -23], np.float32)
    exps = np.array([-127, -126, -100, -1, 0, 1, 50, 126], np.float64)
    grid = (mant[:, None].astype(np.float64) * np.exp2(exps)[None, :]).reshape(-1)
    x = np.concatenate([x.astype(np.float64), grid])
    return x[(x >= 2.0 ** -127) & (x <= 2.0 ** 127)]


@pytest.mark.parametrize("mode", ["up", "down", "nearest"])
@pytest.mark.parametrize("saturate", [0, 1])
def test_e8m0_rounding_is_exact(mode, saturate):
    x = _in_range_samples()
    got = cast_array(x, E8M0, saturate=bool(saturate), round_mode=mode).view(np.uint8)
    want = [_exact_e8m0(float(v), mode) for v in x]
    assert got.tolist() == want
    # float32 inputs give the same (float32 holds these values exactly)
    x32 = x[np.abs(x) >= 2.0 ** -126].astype(np.float32)
    got32 = cast_array(x32, E8M0, saturate=bool(saturate), round_mode=mode).view(np.uint8)
    assert got32.tolist() == [_exact_e8m0(float(v), mode) for v in x32]


def test_e8m0_departures_of_onnx_reference():
    """Where `onnx.numpy_helper.to_float8e8m0` (ONNX's reference evaluator) departs from
    the table, each departure with its inputs (and nowhere else on the samples)."""
    onnx = pytest.importorskip("onnx")
    ref = onnx.numpy_helper.to_float8e8m0

    def both(x, sat, mode):
        x = np.array([x], np.float32)
        return (int(cast_array(x, E8M0, saturate=sat, round_mode=mode).view(np.uint8)[0]),
                int(ref(x, sat, mode).view(np.uint8)[0]))

    # 0 without saturation: the table says NaN, the reference gives code 0 (2^-127)
    assert both(0.0, False, "nearest") == (NAN, MIN)
    # inf with saturation: the table says E8M0_MAX, the reference NaN
    assert both(np.inf, True, "up") == (MAX, NAN)
    # 'up' tests the mantissa with mask 0x4FFFFF, missing bits 0x300000: 1.375 -> 1
    assert both(1.375, True, "up") == (128, 127)
    assert both(1.25, True, "up") == (128, 127)
    # float32 subnormals: 2^-127 is exact, the reference rounds it up to 2^-126
    assert both(2.0 ** -127, True, "up") == (MIN, 1)
    # x > E8M0_MAX without saturation: NaN in the table, 2^127 in the reference
    assert both(2.0 ** 127 * 1.25, False, "nearest") == (NAN, MAX)

    x = _in_range_samples().astype(np.float32)
    x = x[x >= 2.0 ** -126]  # float32 normals
    for mode in ("down", "nearest", "up"):
        for sat in (False, True):
            ours = cast_array(x, E8M0, saturate=sat, round_mode=mode).view(np.uint8)
            theirs = ref(x, sat, mode).view(np.uint8)
            frac = x.view(np.uint32) & 0x7FFFFF
            masked = (mode == "up") & (frac != 0) & ((frac & 0x4FFFFF) == 0)
            assert ((ours == theirs) | masked).all(), mode
            assert (ours[masked] == theirs[masked] + 1).all()
