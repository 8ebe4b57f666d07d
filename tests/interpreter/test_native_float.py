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
