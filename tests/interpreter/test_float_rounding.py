"""float64 -> bf16 rounds once (ml_dtypes alone rounds through f32, twice)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from qcomp.registry import parse_module
from qcomp.interpreter import run
from qcomp.interpreter.float_rounding import to_float

ABOVE_TIE = 1 + 2.0 ** -8 + 2.0 ** -30  # just above the bf16 tie between 1 and 1 + 2^-7


def test_to_float_rounds_once():
    x = np.array([ABOVE_TIE, -ABOVE_TIE, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, np.inf, np.nan, 1e39])
    r = to_float(x, ml_dtypes.bfloat16).astype(np.float64)
    assert r[:5].tolist() == [1 + 2.0 ** -7, -(1 + 2.0 ** -7), 1.0, 1 + 2.0 ** -6, np.inf]
    assert np.isnan(r[5]) and r[6] == np.inf
    # f32 / f16 go through NumPy's own (single) rounding
    assert to_float(np.array([1 + 2.0 ** -24 + 2.0 ** -50]), np.float32).tolist() == [1 + 2.0 ** -23]


CONVERT = """func.func @main(%x: tensor<4xf64>) -> tensor<4xi16> {
  %r = stablehlo.convert %x : (tensor<4xf64>) -> tensor<4xbf16>
  %b = stablehlo.bitcast_convert %r : (tensor<4xbf16>) -> tensor<4xi16>
  func.return %b : tensor<4xi16>
}"""


def test_convert_f64_to_bf16_bits():
    x = np.array([ABOVE_TIE, -ABOVE_TIE, 1 + 2.0 ** -8, 3.0000001])
    (r,) = run(parse_module(CONVERT), [x], semantics="stablehlo")
    assert r.results[0].tolist() == [16257, -16511, 16256, 16448]


def test_convert_f64_to_bf16_matches_jaxlib():
    from tests.interpreter.jax_oracle import AVAILABLE, REASON, eval_upstream

    if not AVAILABLE:
        pytest.skip(REASON)
    rng = np.random.default_rng(3)
    x = (1 + np.floor(rng.random(4) * 256) / 256 + rng.choice([1, -1], 4) * 2.0 ** -9
         + rng.random(4) * 2.0 ** -30)
    (r,) = run(parse_module(CONVERT), [x], semantics="stablehlo")
    assert r.results[0].tolist() == eval_upstream(CONVERT, [x])[0].tolist()
