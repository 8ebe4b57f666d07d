"""TFLite's math operators on float tensors, and the quantized kernels LiteRT has for
some of them (tensorflow/lite/kernels/elementwise.cc, floor.cc, ceil.cc, round.cc,
div.cc, pow.cc):

| operator | FLOAT32 | quantized |
|---|---|---|
| SQUARE | `stablehlo.multiply` x x | - |
| SQRT | `stablehlo.sqrt` | int8, int16: `stablehlo.composite "tfl.sqrt"` |
| LOG | `stablehlo.log` | int8, int16: `stablehlo.composite "tfl.log"` |
| SIN, COS | `stablehlo.sine`, `stablehlo.cosine` | - |
| FLOOR, CEIL | `stablehlo.floor`, `stablehlo.ceil` | - |
| ROUND | `stablehlo.round_nearest_even` (RoundToNearest: ties to even) | - |
| DIV | `stablehlo.divide`, clamped to ±FLT_MAX (*), the fused activation; INT32 | int8, uint8: `stablehlo.composite "tfl.div"` |
| POW | `stablehlo.power`; INT32 too | - |

(*) the reference kernel clamps to its activation range, [-FLT_MAX, FLT_MAX] without a
fused activation: x / 0 is ±FLT_MAX. INT32 DIV rounds toward zero, as stablehlo.divide.

RSQRT and EXP on FLOAT32 are 1 / `stablehlo.sqrt` / `stablehlo.exponential`
(`or_float`, wrapping their quantized builds in `arithmetic` / `tables`).

Under `rescale=fixed-point` the quantized SQRT and LOG are LiteRT's kernels as tables
of every stored value (`qcomp.quant.tflite_math`): SQRT int(sqrtf(s_in (q - z_in)) /
s_out) + z_out, LOG LUTPopulate's table of logf (int8: 256 entries; int16: the 513-entry
LUT, interpolated, made into 65536); DIV int8 / uint8 reference_ops::DivElementwise (GetReciprocal's
Newton-Raphson, two SRDHMs) as a 256 x 256 table of (q_1, q_2).

The float results are LiteRT's where its kernel computes with correctly rounded IEEE
operations (square, sqrt, 1 / sqrt, floor, ceil, round, divide); exp, log, sin, cos and
pow are the C library's there and NumPy's float32 loops in qcomp's interpreter, which
differ by at most 2 ulp (measured by tests/importers/test_tflite_float_against_litert.py).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import f32, i32
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite_math import div_8bit, log_int8, log_int16, sqrt_quantized
from qcomp.tflite.activations import int8_table, unary_composite
from qcomp.tflite.common import ACTIVATIONS, activation, broadcast, fused, op, op_in, same_shape
from qcomp.tflite.context import OpContext, f32_tensor
from qcomp.tflite.elementwise import binary
from qcomp.tflite.kernels import gather, per_tensor, quantized_type
from qcomp.tflite.kernels16 import int16_table, with_int16
from qcomp.tflite.operator import ACTIVATION, Operand, Operator, Options, declare

_F32 = ("FLOAT32",)
_FLT_MAX = float(np.finfo(np.float32).max)


def _same_type(ctx: OpContext) -> None:
    x, out = ctx.inputs[0], ctx.outputs[0]
    if x.dtype != out.dtype or x.quantized != out.quantized:
        raise ctx.fail(f"{x.label} and {out.label} must have one type")
    same_shape(ctx, x, out)


def float_unary(f):
    """A FLOAT32 operator: `f(ctx, x, result type)`."""
    def build(ctx: OpContext) -> list[SSAValue]:
        x, out = ctx.inputs[0], ctx.outputs[0]
        _same_type(ctx)
        if x.dtype != "FLOAT32" or x.quantized:
            raise ctx.fail(f"{ctx.name} is imported for FLOAT32 tensors and LiteRT's "
                           f"quantized kernels only, {x.label} is "
                           f"{'quantized ' if x.quantized else ''}{x.dtype}")
        return [f(ctx, ctx.value(x), out.type())]
    return build


def unary_op(cls: type[Operation]):
    return lambda ctx, x, t: op(ctx, cls, [x], t)


def reciprocal_sqrt(ctx: OpContext, x: SSAValue, t) -> SSAValue:
    """1 / sqrt(x), two f32 roundings as LiteRT's `1.f / std::sqrt(f)` (not a correctly
    rounded `stablehlo.rsqrt`)."""
    one = ctx.b.full(np.float32(1), f32, tuple(t.get_shape()))
    return op(ctx, sh.DivideOp, [one, op(ctx, sh.SqrtOp, [x], t)], t)


def or_float(f, quantized):
    """`quantized(ctx)` for a quantized input; for a FLOAT32 one `f(ctx, x, type)` (an
    op class: that op)."""
    on_float = float_unary(unary_op(f) if isinstance(f, type) else f)

    def build(ctx: OpContext) -> list[SSAValue]:
        return quantized(ctx) if ctx.inputs[0].quantized else on_float(ctx)
    return build


def _square(ctx: OpContext, x: SSAValue, t) -> SSAValue:
    return op(ctx, sh.MultiplyOp, [x, x], t)


def _in_f32(cls: type[Operation]):
    def f(b: Builder, x: SSAValue, ctx: OpContext) -> SSAValue:
        return op_in(b, cls, [x], x.type)
    return f


def clamp_range(b: Builder, v: SSAValue, activation: int) -> SSAValue:
    """`v` clamped to TFLite's CalculateActivationRange<float> of `activation`."""
    lo, hi = ACTIVATIONS[activation] or (None, None)
    return b.emit(sh.ClampOp(b.constant(np.float32(-_FLT_MAX if lo is None else lo), f32), v,
                             b.constant(np.float32(_FLT_MAX if hi is None else hi), f32),
                             v.type))


def quantized_div(ctx: OpContext) -> list[SSAValue]:
    """int8 / uint8 DIV: `stablehlo.composite "tfl.div"` of the inputs broadcast to the
    output (dequantize, divide, quantize), then the fused activation's clamp."""
    a, b_, out = *ctx.inputs, ctx.outputs[0]
    if not (a.dtype == b_.dtype == out.dtype and a.dtype in ("INT8", "UINT8")) or \
            not (a.quantized and b_.quantized and out.quantized) or a.per_axis or b_.per_axis:
        raise ctx.fail("a quantized DIV is imported for per-tensor INT8 or UINT8 tensors "
                       "(one type for both inputs and the output)")
    shape = tuple(out.shape)
    av, bv = broadcast(ctx, a, shape), broadcast(ctx, b_, shape)

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        t = f32_tensor(shape)
        q = b.binary(sh.DivideOp, op_in(b, sh.UniformDequantizeOp, [args[0]], t),
                     op_in(b, sh.UniformDequantizeOp, [args[1]], t))
        return op_in(b, sh.UniformQuantizeOp, [q], out.type())
    return [fused(ctx, ctx.composite("tfl.div", {}, [av, bv], out.type(), body), out)]


def lower_div(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 / uint8 DIV (reference_ops::DivElementwise): its 256 x 256 table
    (`qcomp.quant.tflite_math.div_8bit`) gathered at (q_1 - min) 256 + q_2 - min."""
    l_, r_ = op_.operands
    q1, q2, qo = quantized_type(l_), quantized_type(r_), quantized_type(op_.results[0])
    if not per_tensor(q1, q2, qo) or {(q.storage_bitwidth, q.storage_min, q.storage_max)
                                      for q in (q1, q2, qo)} not in ({(8, -128, 127)},
                                                                     {(8, 0, 255)}):
        return None
    lo = qo.storage_min
    values = div_8bit(q1.scale, q1.zero_point, q2.scale, q2.zero_point, qo.scale,
                      qo.zero_point, lo)
    if values is None:
        return None
    shape = shape_of(l_)

    def index(v: SSAValue) -> SSAValue:
        return b.binary(sh.SubtractOp, b.convert(st(v), i32), b.full(np.int32(lo), i32, shape))
    idx = b.binary(sh.AddOp, b.binary(sh.MultiplyOp, index(l_),
                                      b.full(np.int32(256), i32, shape)), index(r_))
    return gather(b, b.constant(values.reshape(-1).astype(np.int64), qo.storage), idx)


def div_operator(ctx: OpContext) -> list[SSAValue]:
    """DIV: FLOAT32 (clamped to the activation range, ±FLT_MAX without one), INT32, or
    quantized INT8 (`quantized_div`)."""
    a, b_, out = *ctx.inputs, ctx.outputs[0]
    if a.quantized or b_.quantized or out.quantized:
        return quantized_div(ctx)
    if a.dtype != b_.dtype or a.dtype != out.dtype or a.quantized or out.quantized or \
            a.dtype not in ("FLOAT32", "INT32"):
        raise ctx.fail("DIV is imported for FLOAT32, INT32 and quantized INT8 tensors (one "
                       "type for both inputs and the output)")
    if a.dtype == "INT32":
        if ctx.option("fusedActivationFunction", 0):
            raise ctx.fail("a fused activation on an INT32 DIV is not supported")
        return binary(sh.DivideOp)(ctx)
    shape = tuple(out.shape)
    v = op(ctx, sh.DivideOp, [broadcast(ctx, a, shape), broadcast(ctx, b_, shape)],
           out.type())
    return [clamp_range(ctx.b, v, ctx.option("fusedActivationFunction", 0))]


def pow_operator(ctx: OpContext) -> list[SSAValue]:
    a, b_, out = *ctx.inputs, ctx.outputs[0]
    if a.dtype != b_.dtype or a.dtype != out.dtype or a.quantized or out.quantized or \
            a.dtype not in ("FLOAT32", "INT32"):
        raise ctx.fail("POW is imported for FLOAT32 and INT32 tensors (one type for both "
                       "inputs and the output)")
    if a.dtype == "INT32" and b_.data is not None and np.any(b_.data < 0):
        raise ctx.fail("an INT32 POW takes no negative exponent")
    return binary(sh.PowerOp)(ctx)


def _sqrt_table(q, qi, qo, op_):
    return sqrt_quantized(q, qi.scale, qi.zero_point, qo.scale, qo.zero_point,
                          qo.storage_min, qo.storage_max)


def _log_table(q, qi, qo, op_):
    return log_int8(q, qi.scale, qi.zero_point, qo.scale, qo.zero_point)


def _log_table16(q, qi, qo, op_):
    return log_int16(q, qi.scale, qo.scale)


def _quantized(name: str, cls: type[Operation]):
    return unary_composite(f"tfl.{name}", _in_f32(cls))


_FLOAT_IN = (Operand("input", _F32),)
_BINARY = (Operand("input"), Operand("input2"))
for _name, _f in (("SQUARE", _square), ("SIN", unary_op(sh.SineOp)),
                  ("COS", unary_op(sh.CosineOp)), ("FLOOR", unary_op(sh.FloorOp)),
                  ("CEIL", unary_op(sh.CeilOp)),
                  ("ROUND", unary_op(sh.RoundNearestEvenOp))):
    declare(Operator(_name, output="none", spec=False, how="float", inputs=_FLOAT_IN,
                     build=float_unary(_f)))
declare(Operator(
    "SQRT", how='composite "tfl.sqrt"; on FLOAT32, sqrt', int16=True, inputs=(ACTIVATION,),
    build=or_float(sh.SqrtOp, _quantized("sqrt", sh.SqrtOp)),
    kernels={"tfl.sqrt": with_int16(int8_table(_sqrt_table), int16_table(_sqrt_table))}))
declare(Operator(
    "LOG", how='composite "tfl.log"; on FLOAT32, log', int16=True, inputs=(ACTIVATION,),
    build=or_float(sh.LogOp, _quantized("log", sh.LogOp)),
    kernels={"tfl.log": with_int16(int8_table(_log_table), int16_table(_log_table16))}))
declare(Operator(
    "DIV", how='composite "tfl.div" (int8, uint8); divide (FLOAT32, INT32)',
    options=Options("DivOptions", {"fusedActivationFunction": activation}, required=False),
    inputs=_BINARY, build=div_operator, kernels={"tfl.div": lower_div}))
declare(Operator("POW", output="none", spec=False, how="power (FLOAT32, INT32)",
                 options=Options("PowOptions", required=False), inputs=_BINARY,
                 build=pow_operator))


__all__ = [
    "clamp_range",
    "div_operator",
    "float_unary",
    "lower_div",
    "or_float",
    "pow_operator",
    "quantized_div",
    "reciprocal_sqrt",
    "unary_op",
]
