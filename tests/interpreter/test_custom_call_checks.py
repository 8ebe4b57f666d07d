"""`stablehlo.custom_call @check.expect_*` as stablehlo-translate's interpreter fallback
judges them (StablehloTranslateMain.cpp, CheckOps.cpp): operands (actual, expected);
`expect_eq` is `==` per element, `expect_close` allows 0..3 ULPs (non-finite values
only when bitwise equal, NaN vs NaN always), `expect_almost_eq` a tolerance of 0.001."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.interpreter.checks import ulp_distance
from qcomp.registry import parse_module


def verdicts(target: str, actual: str, expected: str, t: str) -> list[bool]:
    """Pass/fail of each element: one check per element."""
    n = len(actual.split(",")) // (2 if "(" in actual else 1)
    lines = []
    for i in range(n):
        lines.append(f"""
      %a{i} = stablehlo.slice %a [{i}:{i + 1}] : (tensor<{n}x{t}>) -> tensor<1x{t}>
      %e{i} = stablehlo.slice %e [{i}:{i + 1}] : (tensor<{n}x{t}>) -> tensor<1x{t}>
      stablehlo.custom_call @{target}(%a{i}, %e{i}) {{has_side_effect = true}} : (tensor<1x{t}>, tensor<1x{t}>) -> ()""")
    src = f"""func.func @t() {{
      %a = stablehlo.constant dense<[{actual}]> : tensor<{n}x{t}>
      %e = stablehlo.constant dense<[{expected}]> : tensor<{n}x{t}>{''.join(lines)}
      func.return
    }}"""
    (r,) = run(parse_module(src))
    assert r.error is None, r.error.message
    return [c.passed for c in r.checks]


def test_expect_eq_is_ieee_equality():
    got = verdicts("check.expect_eq", "1.0, 0x7FC00000, -0.0, 0x7F800000, 1.0",
                   "1.0, 0x7FC00000, 0.0, 0x7F800000, 1.00000012", "f32")
    assert got == [True, False, True, True, False]
    assert verdicts("check.expect_eq", "1, -2, 3", "1, -2, 4", "i32") == [True, True, False]


def test_expect_close_allows_three_ulps_and_no_more():
    # 1.0 + k ulp of f32 is 1 + k * 2**-23
    a = "1.0, 1.0, 1.0, -0.0, 0x7F800000, 0x7FC00000, 0x7F7FFFFF, 1.4e-45"
    e = ("1.00000036, 1.00000048, 0.99999994, 0.0, 0x7F800000, 0x7FC00001, 0x7F800000, "
         "-1.4e-45")
    assert verdicts("check.expect_close", a, e, "f32") == [
        True, False, True, True, True, True, False, True]


def test_expect_almost_eq_tolerance_is_a_thousandth():
    a = "1.0, 1.0, 0x7FF8000000000000, 0x7FF0000000000000, 0.0"
    e = "1.0009, 1.0011, 0x7FF8000000000000, 0xFFF0000000000000, -0.0009"
    assert verdicts("check.expect_almost_eq", a, e, "f64") == [True, False, True, False, True]


def test_ulp_distance_of_complex_is_the_larger_part():
    # ulp of 1.0 in f32 is 2**-23; the real part differs by 2 ulps, the imaginary by 4
    u = 2.0 ** -23
    a = np.array([1 + 1j], np.complex64)
    e = np.array([(1 + 2 * u) + (1 + 4 * u) * 1j], np.complex64)
    assert verdicts("check.expect_close", "(1.0, 1.0)", "(1.00000024, 1.00000048)",
                    "complex<f32>") == [False]
    assert ulp_distance(a.real.copy(), e.real.copy()).tolist() == [2]


@pytest.mark.parametrize("target", ["check.expect_close", "check.expect_almost_eq"])
def test_float_only_targets_reject_integers(target):
    src = f"""func.func @t() {{
      %a = stablehlo.constant dense<[1]> : tensor<1xi32>
      stablehlo.custom_call @{target}(%a, %a) {{has_side_effect = true}} : (tensor<1xi32>, tensor<1xi32>) -> ()
      func.return
    }}"""
    (r,) = run(parse_module(src))
    assert r.error is not None and "float or complex only" in r.error.message
