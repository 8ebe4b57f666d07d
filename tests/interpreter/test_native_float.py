"""f32 / f64 + - * / computed in the element type (no float64 temporaries) give the bits
that the float64-then-round-once rule gives (correct rounding and 53 >= 2 * 24 + 2)."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import f32, f64

from qcomp.dialects.stablehlo import kernels
from qcomp.interpreter import elementwise
from qcomp.interpreter.float_rounding import to_float

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.17e-38, 3.4e38, -3.4e38, 1.0, -1.5]


@pytest.mark.parametrize("impl", [kernels.ADD, kernels.SUBTRACT, kernels.MULTIPLY, kernels.DIVIDE])
@pytest.mark.parametrize("e,dt", [(f32, np.float32), (f64, np.float64)])
def test_native_equals_rounded_float64(impl, e, dt):
    rng = np.random.default_rng(0)
    n = 200_000
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 38, n)).astype(dt)
    b = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 38, n)).astype(dt)
    a[:len(SPECIAL) ** 2] = np.repeat(np.array(SPECIAL, dt), len(SPECIAL))
    b[:len(SPECIAL) ** 2] = np.tile(np.array(SPECIAL, dt), len(SPECIAL))
    got = elementwise.binary(impl, "op", a, b, e, e)
    assert got.dtype == dt
    with np.errstate(all="ignore"):
        want = to_float(impl.float(a.astype(np.float64), b.astype(np.float64)), np.dtype(dt))
    same = (got.view(f"u{got.itemsize}") == want.view(f"u{want.itemsize}")) | (np.isnan(got) & np.isnan(want))
    assert same.all()


@pytest.mark.parametrize("impl", [kernels.EXPONENTIAL, kernels.EXPONENTIAL_MINUS_ONE, kernels.LOG,
                                  kernels.LOG_PLUS_ONE, kernels.SINE, kernels.COSINE, kernels.TAN,
                                  kernels.TANH, kernels.CBRT])
def test_float32_unary_through_the_float64_loop_equals_widening(impl):
    """A float32 transcendental runs NumPy's float64 loop with a float32 output (the cast
    chunk by chunk): the bits of widening the operand and rounding the float64 result
    once, on contiguous and strided operands."""
    rng = np.random.default_rng(1)
    n = 300_000
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-40, 38, n)).astype(np.float32)
    x[:len(SPECIAL)] = np.array(SPECIAL, np.float32)
    x[len(SPECIAL):len(SPECIAL) + 6] = [88.72, 88.73, -103.9, -104.0, 0.5, 1e-7]
    for a in (x, x[::3], x.reshape(600, 500).T):
        got = elementwise.unary(impl, "op", a, f32, f32)
        assert got.dtype == np.float32 and got.shape == a.shape
        with np.errstate(all="ignore"):
            want = to_float(impl.float(a.astype(np.float64)), np.dtype(np.float32))
        assert got.tobytes() == want.tobytes()
