"""The StableHLO meaning of `quantize_dynamic`'s ops (DynamicQuantizeLinear,
MatMulInteger, ConvInteger) and of Cast / CastLike: the builders their `Lowering` traits
name (`qcomp.dialects.onnx.quantize`, `qcomp.dialects.onnx.quantized`), the same builder
interface as `qcomp.dialects.onnx.to_stablehlo`'s. The interpreter runs these ops (as
imported) with their own NumPy formulas (`qcomp.interpreter.onnx_functions`), and
`tests/passes/test_onnx_integer_lowering.py` holds those, the lowered program,
onnxruntime and ONNX's reference evaluator to the same bits.

DynamicQuantizeLinear, in float32 throughout, as ONNX states it (uint8, qmin 0, qmax 255):

    lo = min(0, min(x)), hi = max(0, max(x))            reduce minimum / maximum from 0
    y_scale = (hi - lo) / 255
    y_zero_point = round_half_even(saturate(0 - lo / y_scale))
    y = saturate(round_half_even(x / y_scale) + y_zero_point)

For an input of zeros the formula's `0 / 0` has no value: `y_scale` is 0 as the formula
gives, `y` and `y_zero_point` are 0 (the divisions use 1 where `y_scale` is 0).
onnxruntime writes `y_scale` 1.0 there and ONNX's reference evaluator 1/255; `y` and
`y_zero_point` are 0 in all three, and so is anything computed from `x - y_zero_point`.

MatMulInteger / ConvInteger: the storage integers converted to i32, the zero points
subtracted (a 1-D `a_zero_point` of M entries is one per row of A, a 1-D `b_zero_point`
one per column of B, a 1-D `w_zero_point` one per output channel; any other shape
broadcasts NumPy-style), then `dot` / `dot_general` / `convolution` in i32 (the
result's type): `y = (a - a_zp) @ (b - b_zp)`, `y = conv(x - x_zp, w - w_zp)` with
zero padding (x's padding is x_zp, as ONNX's reference and onnxruntime pad).

Cast (and CastLike) is `stablehlo.convert`, which rounds to nearest even into a float
type, truncates toward zero into an integer type (out of range: undefined in ONNX and
in StableHLO), wraps between integer types, and maps to / from bool as `x != 0` / 1, 0,
ONNX's rules for those pairs; into a float8 type with `saturate` (the default) the value
is clamped to the type's largest finite magnitude first (±inf -> ±max, NaN stays NaN).
Not lowered (the op stays, with a remark): strings, float8e8m0 (its `round_mode`
rounding to a power of two), float4e2m1.
"""

from __future__ import annotations

import ml_dtypes
from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.onnx import core
from qcomp.dialects.onnx.to_stablehlo import (
    PASS,
    Unsupported,
    contract,
    convolution,
    element_of,
    lowest_highest,
    shape_of,
)
from qcomp.dialects.onnx.types import onnx_name

QMAX = 255.0
"""DynamicQuantizeLinear's uint8 range is [0, QMAX]."""


def dynamic_quantize_linear(b, op, out):
    """(y, y_scale, y_zero_point) by the module docstring's formulas."""
    f, u8 = element_of(op.x), element_of(op.y)
    dims = list(range(len(out)))
    lo = b.reduce(op.x, dims, sh.MinimumOp, 0)
    hi = b.reduce(op.x, dims, sh.MaximumOp, 0)
    zero, one, top = b.splat(0, f, ()), b.splat(1, f, ()), b.splat(QMAX, f, ())
    scale = b.op(sh.DivideOp, [b.op(sh.SubtractOp, [hi, lo], f, ()), top], f, ())
    degenerate = b.emit(sh.CompareOp(scale, zero, "EQ"))
    divisor = b.op(sh.SelectOp, [degenerate, one, scale], f, ())
    zpf = b.op(sh.SubtractOp, [zero, b.op(sh.DivideOp, [lo, divisor], f, ())], f, ())
    zpf = b.op(sh.RoundNearestEvenOp, [b.emit(sh.ClampOp(zero, zpf, top))], f, ())
    q = b.op(sh.RoundNearestEvenOp, [
        b.op(sh.DivideOp, [op.x, b.broadcast_in_dim(divisor, out, [])], f, out)], f, out)
    q = b.op(sh.AddOp, [q, b.broadcast_in_dim(zpf, out, [])], f, out)
    y = b.op(sh.ConvertOp, [b.emit(sh.ClampOp(zero, q, top))], u8, out)
    return [y, scale, b.op(sh.ConvertOp, [zpf], u8, ())]


def _minus_zero_point(b, x: SSAValue, zp: SSAValue, along: int | None) -> SSAValue:
    """`x - zp` in i32; a 1-D `zp` of more than one entry lies `along` x's dimension
    (None: NumPy broadcasting, trailing dimensions aligned)."""
    shape = shape_of(x)
    wide = b.op(sh.ConvertOp, [x], i32, shape)
    if core.is_none(zp):
        return wide
    z = b.op(sh.ConvertOp, [zp], i32, shape_of(zp))
    zs = shape_of(z)
    if along is not None and len(zs) == 1 and zs[0] > 1:
        z = b.broadcast_in_dim(z, shape, [along % len(shape)])
    else:
        z = b.numpy_broadcast(z, shape)
    return b.op(sh.SubtractOp, [wide, z], i32, shape)


def matmul_integer(b, op, out):
    """`(A - a_zero_point) @ (B - b_zero_point)` as an i32 dot / dot_general."""
    rows = -2 if len(shape_of(op.A)) >= 2 else None
    a = _minus_zero_point(b, op.A, op.a_zero_point, rows)
    c = _minus_zero_point(b, op.B, op.b_zero_point, None)
    return contract(b, a, c, i32, out)


def conv_integer(b, op, out):
    """`conv(x - x_zero_point, w - w_zero_point)` as an i32 convolution."""
    x = _minus_zero_point(b, op.x, op.x_zero_point, None)
    w = _minus_zero_point(b, op.w, op.w_zero_point, 0)
    return convolution(b, op, x, w, i32, out)


_FLOAT8_MAX = {"float8e4m3fn": ml_dtypes.float8_e4m3fn, "float8e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
               "float8e5m2": ml_dtypes.float8_e5m2, "float8e5m2fnuz": ml_dtypes.float8_e5m2fnuz}


def cast(b, op, out):
    """`stablehlo.convert`; into float8 with `saturate`, a clamp to ±max first."""
    x = op.input
    src, dst = element_of(x), element_of(op.output)
    names = onnx_name(src), onnx_name(dst)
    for n in names:
        if n in ("string", "float8e8m0", "float4e2m1"):
            raise Unsupported(f"{PASS}: '{op.name}' from {names[0]} to {names[1]} is not "
                              f"lowered ({n} has no StableHLO convert with ONNX's rounding)")
    if src == dst:
        return x
    if names[1] in _FLOAT8_MAX and core.attr(op, "saturate") and names[0] != "bool":
        top = float(ml_dtypes.finfo(_FLOAT8_MAX[names[1]]).max)
        lowest, highest = lowest_highest(src)
        if highest > top:  # an integer type within ±max needs no clamp
            x = b.emit(sh.ClampOp(b.splat(max(lowest, -top), src, ()), x,
                                  b.splat(top, src, ())))
    return b.op(sh.ConvertOp, [x], dst, out)
