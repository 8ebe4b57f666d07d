"""TFLite's arithmetic operators a converted transformer uses, and ABS: NEG (float,
int32, int64: `stablehlo.negate`; int8 / int16: `stablehlo.composite "tfl.neg"`, whose
kernel negates the stored integers as LiteRT's does, parameters unread), ABS, RSQRT and GELU (`stablehlo.composite "tfl.abs"` /
`"tfl.rsqrt"` / `"tfl.gelu"`,
an f32 decomposition), SQUARED_DIFFERENCE (`stablehlo.composite
"tfl.squared_difference"` of the operands broadcast to the output), BATCH_MATMUL
(`stablehlo.composite "tfl.batch_matmul"`: TFLite's operands may both carry zero
points, which StableHLO's quantized dot_general does not take).

Their `rescale=fixed-point` kernels (int8) are LiteRT's reference arithmetic:

- ABS: a 256-entry table of `qcomp.quant.tflite.abs_int8` (|q - z_in|, MBQM when the
  scales differ);
- RSQRT: a 256-entry table of `qcomp.quant.tflite.rsqrt_int8` (GetInvSqrtQuantized-
  MultiplierExp's Newton-Raphson in Q3.28, two MBQMs);
- GELU: LUTPopulate's table of GeluTransform(Approximate) in f32 steps;
- SQUARED_DIFFERENCE: x_i = MBQM((q_i - z_i) << 7, s_i / 2max(s_1, s_2));
  clamp(MBQM((x_1 - x_2)^2, (2max)^2 / (2^14 s_out)) + z_out);
- BATCH_MATMUL: acc = Σ (q_l - z_l)(q_r - z_r) (i64), clamp(MBQM(acc,
  QuantizeMultiplier(f32(s_l s_r) / s_out)) + z_out) (GetQuantizedConvolutionMultipler's
  f32 product).

RSQRT, GELU and BATCH_MATMUL on int16 (16x8 mode): `qcomp.tflite.kernels16`.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BoolAttr, f32, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.quant_to_math.emit import fixed_point_rescale, mbqm_ir
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite import abs_int8, gelu_f, lut_int8, quantize_multiplier, rsqrt_int8
from qcomp.tflite.activations import int8_table, unary_composite
from qcomp.tflite.common import broadcast, need_quantized, op, op_in
from qcomp.tflite.context import OpContext, f32_tensor, tensor_of
from qcomp.tflite.float_math import or_float, reciprocal_sqrt
from qcomp.tflite.kernels import centred, composite_props, int8, per_tensor, quantized_type
from qcomp.tflite.kernels16 import (
    lower_batch_matmul16,
    lower_gelu16,
    lower_rsqrt16,
    with_int16,
)
from qcomp.tflite.operator import ACTIVATION, Operand, Operator, Options, boolean, declare


def negate(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    if x.quantized or out.quantized:
        return unary_composite("tfl.neg", _neg)(ctx)
    return [op(ctx, sh.NegateOp, [ctx.value(x)], out.type())]


def _neg(b: Builder, x: SSAValue, ctx: OpContext) -> SSAValue:
    return op_in(b, sh.NegateOp, [x], x.type)


def lower_neg(op_: Operation, b: Builder, st) -> SSAValue | None:
    """LiteRT's int8 / int16 NEG (reference_ops::Negate): -q on the stored integers, the
    quantization parameters unread (-(-128) wraps to -128)."""
    x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), \
        quantized_type(op_.results[0])
    if not per_tensor(qi, qo) or qi.storage != qo.storage:
        return None
    return b.op(sh.NegateOp, [st(x)], qo.storage)


def _rsqrt(b: Builder, x: SSAValue, ctx: OpContext) -> SSAValue:
    return op_in(b, sh.RsqrtOp, [x], x.type)


def _gelu(b: Builder, x: SSAValue, ctx: OpContext) -> SSAValue:
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) (the exact form: with erf
    approximated by the same tanh form in the decomposition)."""
    shape = shape_of(x)

    def c(v):
        return b.full(np.float32(v), f32, shape)
    cube = b.binary(sh.MultiplyOp, b.binary(sh.MultiplyOp, x, x), x)
    inner = b.binary(sh.AddOp, x, b.binary(sh.MultiplyOp, c(0.044715), cube))
    t = op_in(b, sh.TanhOp, [b.binary(sh.MultiplyOp, c(np.sqrt(2 / np.pi)), inner)], x.type)
    return b.binary(sh.MultiplyOp, b.binary(sh.MultiplyOp, c(0.5), x),
                    b.binary(sh.AddOp, c(1.0), t))


def _abs(b: Builder, x: SSAValue, ctx: OpContext) -> SSAValue:
    return op_in(b, sh.AbsOp, [x], x.type)


def _abs_table(q, qi, qo, op_):
    return abs_int8(q, qi.scale, qi.zero_point, qo.scale, qo.zero_point)


def _rsqrt_table(q, qi, qo, op_):
    return rsqrt_int8(q, qi.scale, qi.zero_point, qo.scale, qo.zero_point)


def _gelu_table(q, qi, qo, op_):
    approximate = bool(composite_props(op_)["approximate"].value.data)
    return lut_int8(gelu_f(approximate), qi.scale, qi.zero_point, qo.scale, qo.zero_point)


def squared_difference(ctx: OpContext) -> list[SSAValue]:
    a, c, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    need_quantized(ctx, a, c, out)
    av, cv = broadcast(ctx, a, out.shape), broadcast(ctx, c, out.shape)

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        t = f32_tensor(out.shape)
        d = b.binary(sh.SubtractOp, op_in(b, sh.UniformDequantizeOp, [args[0]], t),
                     op_in(b, sh.UniformDequantizeOp, [args[1]], t))
        return op_in(b, sh.UniformQuantizeOp, [b.binary(sh.MultiplyOp, d, d)], out.type())
    return [ctx.composite("tfl.squared_difference", {}, [av, cv], out.type(), body)]


def lower_squared_difference(op_: Operation, b: Builder, st) -> SSAValue | None:
    l_, r_ = op_.operands
    q1, q2, qo = quantized_type(l_), quantized_type(r_), quantized_type(op_.results[0])
    if not int8(q1, q2, qo):
        return None
    shape = shape_of(l_)
    twice = 2.0 * max(q1.scale, q2.scale)
    xs = []
    for v, q in ((l_, q1), (r_, q2)):
        x = b.binary(sh.ShiftLeftOp, centred(b, st(v), q), b.full(np.int64(7), i64, shape))
        m, e = quantize_multiplier(q.scale / twice)
        xs.append(mbqm_ir(b, x, np.int64(m), np.int64(e), None))
    d = b.binary(sh.SubtractOp, xs[0], xs[1])
    return fixed_point_rescale(b, b.binary(sh.MultiplyOp, d, d),
                               np.float64(twice * twice / ((1 << 14) * qo.scale)), None,
                               np.int64(qo.zero_point), -128, 127, qo.storage, op_)


def _dims(rank: int) -> DotDimensionNumbersAttr:
    """[..., m, k] x [..., k, n] -> [..., m, n], the leading dimensions batched."""
    batch = list(range(rank - 2))
    return DotDimensionNumbersAttr.get(lhs_batching=batch, rhs_batching=batch,
                                       lhs_contracting=[rank - 1],
                                       rhs_contracting=[rank - 2])


def batch_matmul(ctx: OpContext) -> list[SSAValue]:
    a, c, out = ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]
    need_quantized(ctx, a, c, out)
    if a.per_axis or c.per_axis:
        raise ctx.fail("BATCH_MATMUL takes per-tensor quantized operands")
    r = len(a.shape)
    if len(c.shape) != r or r < 2 or a.shape[:-2] != c.shape[:-2]:
        raise ctx.fail(f"operands of shapes {list(a.shape)} and {list(c.shape)}: only "
                       "equal batch dimensions are supported")
    vals = []
    for t, adj in ((a, ctx.option("adjX", False)), (c, ctx.option("adjY", False))):
        v = ctx.value(t)
        shape = t.shape
        if adj:
            shape = (*t.shape[:-2], t.shape[-1], t.shape[-2])
            perm = [*range(r - 2), r - 1, r - 2]
            v = op(ctx, sh.TransposeOp, [v], t.type(shape), permutation=i64_array(perm))
        vals.append((v, shape))
    (av, ash), (cv, csh) = vals
    if ash[-1] != csh[-2]:
        raise ctx.fail(f"contracting sizes {ash[-1]} and {csh[-2]} differ")
    want = (*ash[:-1], csh[-1])
    if tuple(out.shape) != want:
        raise ctx.fail(f"output shape {list(out.shape)} does not match {list(want)}")

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        lf = op_in(b, sh.UniformDequantizeOp, [args[0]], f32_tensor(ash))
        rf = op_in(b, sh.UniformDequantizeOp, [args[1]], f32_tensor(csh))
        acc = op_in(b, sh.DotGeneralOp, [lf, rf], f32_tensor(want),
                    dot_dimension_numbers=_dims(r))
        return op_in(b, sh.UniformQuantizeOp, [acc], out.type())
    return [ctx.composite("tfl.batch_matmul", {}, [av, cv], out.type(), body)]


def lower_batch_matmul(op_: Operation, b: Builder, st) -> SSAValue | None:
    l_, r_ = op_.operands
    ql, qr, qo = quantized_type(l_), quantized_type(r_), quantized_type(op_.results[0])
    if not int8(ql, qr, qo):
        return None
    shape = shape_of(op_.results[0])
    acc = op_in(b, sh.DotGeneralOp, [centred(b, st(l_), ql), centred(b, st(r_), qr)],
                tensor_of(shape, i64), dot_dimension_numbers=_dims(len(shape)))
    m = float(np.float32(np.float32(ql.scale) * np.float32(qr.scale))) / qo.scale
    return fixed_point_rescale(b, acc, np.float64(m), None, np.int64(qo.zero_point),
                               -128, 127, qo.storage, op_)


declare(Operator("NEG", int16=True,
                 how='negate (FLOAT32, INT32, INT64); composite "tfl.neg" (int8, int16)',
                 options=Options("NegOptions", required=False),
                 inputs=(Operand("input", ("FLOAT32", "INT32", "INT64", "INT8", "INT16")),),
                 build=negate, kernels={"tfl.neg": lower_neg}))
declare(Operator(
    "ABS", how='composite "tfl.abs"', inputs=(ACTIVATION,),
    build=unary_composite("tfl.abs", _abs), kernels={"tfl.abs": int8_table(_abs_table)}))
declare(Operator(
    "RSQRT", how='composite "tfl.rsqrt"', inputs=(ACTIVATION,), int16=True,
    build=or_float(reciprocal_sqrt, unary_composite("tfl.rsqrt", _rsqrt)),
    kernels={"tfl.rsqrt": with_int16(int8_table(_rsqrt_table), lower_rsqrt16)}))
declare(Operator(
    "GELU", how='composite "tfl.gelu"', inputs=(ACTIVATION,), int16=True,
    options=Options("GeluOptions", {"approximate": boolean}, required=False),
    build=unary_composite("tfl.gelu", _gelu, lambda ctx: {
        "approximate": BoolAttr.from_bool(bool(ctx.option("approximate", False)))}),
    kernels={"tfl.gelu": with_int16(int8_table(_gelu_table), lower_gelu16)}))
declare(Operator(
    "SQUARED_DIFFERENCE", how='composite "tfl.squared_difference"',
    inputs=(ACTIVATION, Operand("input2")), build=squared_difference,
    kernels={"tfl.squared_difference": lower_squared_difference}))
declare(Operator(
    "BATCH_MATMUL", how='composite "tfl.batch_matmul"', int16=True,
    options=Options("BatchMatMulOptions", {"adjX": boolean, "adjY": boolean,
                                           "asymmetricQuantizeInputs": boolean},
                    required=False),
    inputs=(ACTIVATION, Operand("input2")), build=batch_matmul,
    kernels={"tfl.batch_matmul": with_int16(lower_batch_matmul, lower_batch_matmul16)}))


__all__ = ["batch_matmul", "lower_batch_matmul", "lower_neg", "lower_squared_difference", "negate",
           "squared_difference"]
