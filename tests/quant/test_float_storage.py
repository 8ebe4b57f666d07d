"""Float storage rounding (`qcomp.quant.float_storage`) against a brute-force oracle:
every finite value of the type enumerated from its bit patterns, the nearest one
picked by distance, ties to the even bit pattern, saturated to ±max."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from qcomp.quant.float_storage import (
    FLOAT_STORAGE_KINDS,
    dequantize_float,
    float_kind_dtype,
    quantize_float,
    round_to_float,
)


def _values(dt) -> np.ndarray:
    """(value, bit pattern) of every finite value of `dt`, sorted by value."""
    bits = np.arange(256 if ml_dtypes.finfo(dt).bits == 8 else 16, dtype=np.uint8)
    vals = bits.view(dt).astype(np.float64)
    keep = np.isfinite(vals)
    return vals[keep], bits[keep]


def _nearest(x: np.ndarray, dt) -> np.ndarray:
    vals, bits = _values(dt)
    hi = vals.max()
    out = np.empty_like(x)
    for i, v in enumerate(np.clip(x, -hi, hi)):
        if np.isnan(v):
            out[i] = np.nan if np.isnan(np.array(np.nan).astype(dt)) else 0.0
            continue
        d = np.abs(vals - v)
        ties = np.flatnonzero(d == d.min())
        pick = next((j for j in ties if bits[j] % 2 == 0), ties[0])
        out[i] = vals[pick] if vals[pick] != 0 else 0.0 * np.sign(v)
    return out


@pytest.mark.parametrize("kind", sorted(FLOAT_STORAGE_KINDS))
def test_round_to_float_is_the_nearest_value(kind):
    dt = float_kind_dtype(kind)
    vals, _ = _values(dt)
    grid = np.unique(vals)
    mids = (grid[:-1] + grid[1:]) / 2
    rng = np.random.default_rng(7)
    x = np.concatenate([
        rng.standard_normal(3000) * grid.max() / 3, grid, mids,
        mids + np.abs(mids) * 1e-12, mids - np.abs(mids) * 1e-12,  # just off the ties
        [1e30, -1e30, np.inf, -np.inf, np.nan],
    ])
    got = round_to_float(x, kind).astype(np.float64)
    want = _nearest(x, dt)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    assert same.all(), list(zip(x[~same][:5], got[~same][:5], want[~same][:5]))


def test_float64_rounds_once():
    # 1.0625 is the tie between 1.0 and 1.125 in f8E4M3FN; ml_dtypes' own cast rounds
    # the value above it through float32 to the tie and then to 1.0
    x = np.array([1.0625 + 2.0 ** -40, 1.0625, 1.0625 - 2.0 ** -40])
    assert round_to_float(x, "f8E4M3FN").astype(np.float64).tolist() == [1.125, 1.0, 1.0]


def test_saturation_and_nan():
    r = round_to_float(np.array([1e6, -np.inf, 500.0, np.nan]), "f8E4M3FN")
    assert r.view(np.uint8).tolist()[:3] == [0x7E, 0xFE, 0x7E]  # ±448
    assert np.isnan(r[3].astype(np.float32))
    r = round_to_float(np.array([np.inf, 60000.0]), "f8E5M2")
    assert r.astype(np.float64).tolist() == [57344.0, 57344.0]
    assert round_to_float(np.array([np.nan, 7.0]), "f4E2M1FN").astype(np.float64).tolist() == [0.0, 6.0]
    # 61440 is the tie between 57344 (max) and 2^16: without saturation, inf
    unsat = round_to_float(np.array([1e6, 61440.0, 61439.0]), "f8E5M2", saturate=False)
    assert unsat.astype(np.float64).tolist() == [np.inf, np.inf, 57344.0]
    assert np.isnan(round_to_float(np.array([1e6]), "f8E4M3FN", saturate=False).astype(np.float32)).all()


def test_quantize_and_dequantize_float():
    x = np.array([0.1, 3.0, -900.0, 1.7], np.float32)
    q = quantize_float(x, np.float32(2.0), np.int64(3), "f8E4M3FN", "f32")
    # x / 2 + 3 in f32, then the nearest f8E4M3FN value (spacing 0.25 in [2, 4)):
    # 3.05 -> 3.0, 4.5, -447 -> -448, 3.85 -> 3.75
    assert q.astype(np.float64).tolist() == [3.0, 4.5, -448.0, 3.75]
    d = dequantize_float(q, np.float32(2.0), np.int64(3), "f32")
    assert d.dtype == np.float32 and d.tolist() == [0.0, 3.0, -902.0, 1.5]
