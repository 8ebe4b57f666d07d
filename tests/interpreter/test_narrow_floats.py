"""Every float type ml_dtypes has, through constants (decimal and hex literals),
`convert` and elementwise ops, against jaxlib's StableHLO reference interpreter, bit
for bit: f32 inputs are converted to the type (rounding to nearest even, saturating or
overflowing as the type does), the ops run in it, and the result comes back as f32.
(tf32 is not an element type of StableHLO's ops nor of its interpreter.)
"""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.registry import parse_module
from tests.interpreter import jax_oracle

pytestmark = pytest.mark.skipif(not jax_oracle.AVAILABLE, reason=jax_oracle.REASON)

TYPES = ["f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ", "f8E4M3", "f8E3M4",
         "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN", "bf16", "f16"]
UNARY = ["abs", "negate", "sqrt", "exponential", "log", "tanh", "floor", "round_nearest_even",
         "sign", "cosine"]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "remainder",
          "atan2"]
N = 64


def _program(ty: str, ops: list[str]) -> str:
    f, t = f"tensor<{N}xf32>", f"tensor<{N}x{ty}>"
    lines = [f"func.func @main(%x: {f}, %y: {f}) -> ({', '.join([f] * len(ops))}) {{",
             f"  %a = stablehlo.convert %x : ({f}) -> {t}",
             f"  %b = stablehlo.convert %y : ({f}) -> {t}"]
    outs = []
    for i, op in enumerate(ops):
        args = "%a, %b" if op in BINARY else "%a"
        lines.append(f"  %r{i} = stablehlo.{op} {args} : {t}")
        lines.append(f"  %o{i} = stablehlo.convert %r{i} : ({t}) -> {f}")
        outs.append(f"%o{i}")
    lines += [f"  return {', '.join(outs)} : {', '.join([f] * len(ops))}", "}"]
    return "\n".join(lines)


def _inputs(ty: str, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e30, -1e-30, 0.5, 448.0, 1e-3]
    x = np.concatenate([rng.standard_normal(N - len(special)) * 4, special])
    y = np.concatenate([rng.standard_normal(N - len(special)) * 2, special[::-1]])
    if ty == "f8E8M0FNU":  # unsigned powers of two: no sign, no zero
        x, y = np.abs(x) + 0.25, np.abs(y) + 0.25
    return [x.astype(np.float32), y.astype(np.float32)]


def _same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    both_nan = np.isnan(got) & np.isnan(want)
    return bool(np.all(both_nan | (got.view(np.uint32) == want.view(np.uint32))))


@pytest.mark.parametrize("ty", TYPES)
def test_convert_and_elementwise_ops(ty):
    ops = UNARY + BINARY
    if ty == "f8E8M0FNU":  # no negative values: ops whose result may be negative are undefined
        ops = ["sqrt", "exponential", "multiply", "divide", "maximum", "minimum", "add"]
    if ty in ("f8E3M4", "f6E2M3FN"):
        # APFloat's roundToIntegral adds 2^(precision-1) (16, 8) in the type itself, which
        # overflows f8E3M4 (max 15.5) and f6E2M3FN (max 7.5): upstream's floor / round give
        # NaN (or 0) for every finite input; qcomp gives the rounded values
        # (test_f8e3m4_rounding)
        ops = [op for op in ops if op not in ("floor", "round_nearest_even")]
    src = _program(ty, ops)
    args = _inputs(ty, TYPES.index(ty))
    want = jax_oracle.eval_upstream(src, args)
    (r,) = run(parse_module(src), args)
    assert r.error is None, r.error.message
    for op, got, exp in zip(ops, r.results, want):
        assert _same_bits(np.asarray(got), exp), (ty, op, got, exp)


LITERALS = {
    "f4E2M1FN": ("[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x07, 0x0F, 0x01, 0x09]",
                 [0.0, -0.0, 1.0, 0.0, 0.0, 3.0, 6.0, -6.0, 0.5, -0.5]),
    "f6E2M3FN": ("[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x1F, 0x3F, 0x01, 0x21]",
                 [0.0, -0.0, 1.0, 0.125, 0.125, 3.25, 7.5, -7.5, 0.125, -0.125]),
    "f6E3M2FN": ("[0.0, -0.0, 1.0, 0.125, 0.1, 3.1415, 0x1F, 0x3F, 0x01, 0x21]",
                 [0.0, -0.0, 1.0, 0.125, 0.125, 3.0, 28.0, -28.0, 0.0625, -0.0625]),
}


@pytest.mark.parametrize("ty", sorted(LITERALS))
def test_sub_byte_float_literals(ty):
    """Upstream's interpret/constant.mlir values; decimal literals round to nearest even,
    hex ones are bit patterns."""
    literal, values = LITERALS[ty]
    src = (f"func.func @main() -> tensor<10xf32> {{\n"
           f"  %c = stablehlo.constant dense<{literal}> : tensor<10x{ty}>\n"
           f"  %f = stablehlo.convert %c : (tensor<10x{ty}>) -> tensor<10xf32>\n"
           f"  return %f : tensor<10xf32>\n}}")
    (r,) = run(parse_module(src), [])
    assert r.error is None, r.error.message
    got = r.results[0]
    assert got.tolist() == values and np.signbit(got[1])
    (want,) = jax_oracle.eval_upstream(src, [])
    assert _same_bits(got, want)


def test_f8e3m4_rounding():
    src = """func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %a = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xf8E3M4>
      %f = stablehlo.floor %a : tensor<4xf8E3M4>
      %r = stablehlo.round_nearest_even %a : tensor<4xf8E3M4>
      %g = stablehlo.convert %f : (tensor<4xf8E3M4>) -> tensor<4xf32>
      %h = stablehlo.convert %r : (tensor<4xf8E3M4>) -> tensor<4xf32>
      return %g, %h : tensor<4xf32>, tensor<4xf32>
    }"""
    (r,) = run(parse_module(src), [np.array([2.5, -0.75, 15.5, 0.5], np.float32)])
    assert r.results[0].tolist() == [2.0, -1.0, 15.0, 0.0]
    assert r.results[1].tolist() == [2.0, -1.0, np.inf, 0.0]  # 16 overflows f8E3M4
