"""TFLite's L2_NORMALIZATION (along the last dimension): `stablehlo.composite
"tfl.l2_normalization"` with a float decomposition x / max(sqrt(Σ x^2), 1e-6).

Under `rescale=fixed-point` the int8 kernel is reference_integer_ops::L2Normalization:
per row, acc = Σ (q - z_in)^2; (M, e) = GetInvSqrtQuantizedMultiplierExp(acc, -1)
(`qcomp.quant.tflite.inv_sqrt_multiplier`: five Newton-Raphson steps in gemmlowp's
Q3.28, here in IR on the row's accumulator); out = clamp(MBQM(q - z_in, M, e + 7),
-128, 127) (the spec's fixed output (1/128, 0)).

LiteRT has no int16 L2_NORMALIZATION kernel (l2norm.cc Prepare: float32, uint8, int8):
a 16x8 model is refused at import."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import f32, i32, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.tflite.common import need_quantized, op_in, refuse_int16, same_shape
from qcomp.tflite.context import OpContext, f32_tensor
from qcomp.tflite.fixed_ir import FixedIR
from qcomp.tflite.kernels import centred, int8, quantized_type, reduce
from qcomp.tflite.operator import Operand, Operator, Options, declare

_INT32_MAX = (1 << 31) - 1


def l2_normalization(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    refuse_int16(ctx)
    need_quantized(ctx, x, out)
    same_shape(ctx, x, out)
    r = len(x.shape)

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        f = op_in(b, sh.UniformDequantizeOp, [args[0]], f32_tensor(x.shape))
        total = reduce(b, b.binary(sh.MultiplyOp, f, f), [r - 1], sh.AddOp, np.float32(0))
        norm = b.binary(sh.MaximumOp, b.op(sh.SqrtOp, [total], f32),
                        b.full(np.float32(1e-6), f32, shape_of(total)))
        y = b.binary(sh.DivideOp, f, b.broadcast_in_dim(norm, tuple(x.shape),
                                                        list(range(r - 1))))
        return op_in(b, sh.UniformQuantizeOp, [y], out.type())
    return [ctx.composite("tfl.l2_normalization", {}, [ctx.value(x)], out.type(), body)]


def inv_sqrt_ir(f: FixedIR, acc: SSAValue) -> tuple[SSAValue, SSAValue]:
    """GetInvSqrtQuantizedMultiplierExp(acc, -1) per element of `acc` (i64, int32
    values >= 0): (M, e) for MBQM (`qcomp.quant.tflite.inv_sqrt_multiplier`)."""
    b = f.b
    big = f.cmp(acc, f.c(1 << 29), "GE")
    x = f.select(big, f.op(sh.ShiftRightArithmeticOp, acc, f.c(2)), acc)
    shift = f.op(sh.AddOp, f.c(11), b.convert(big, i64))
    clz = b.convert(b.op(sh.CountLeadingZerosOp, [b.convert(x, i32)], i32), i64)
    pairs = f.op(sh.SubtractOp, f.op(sh.ShiftRightArithmeticOp,
                                     f.op(sh.SubtractOp, clz, f.c(1)), f.c(1)), f.c(1))
    shift = f.op(sh.SubtractOp, shift, pairs)
    x = f.op(sh.ShiftLeftOp, x, f.op(sh.ShiftLeftOp, pairs, f.c(1)))
    half_input = f.op(sh.ShiftRightArithmeticOp,
                      f.op(sh.AddOp, f.op(sh.ShiftRightArithmeticOp, x, f.c(1)), f.c(1)),
                      f.c(1))
    half_three = f.c((1 << 28) + (1 << 27))
    v = f.c(1 << 28)
    for _ in range(5):
        v3 = f.sat_shift_left(f.srdhm(f.srdhm(v, v), v), 6)
        v = f.sat_shift_left(f.op(sh.SubtractOp, f.srdhm(half_three, v),
                                  f.srdhm(half_input, v3)), 3)
    v = f.srdhm(v, f.c(1518500250))
    negative = f.cmp(shift, f.c(0), "LT")
    v = f.select(negative, f.op(sh.ShiftLeftOp, v, f.op(sh.SubtractOp, f.c(0), shift)), v)
    shift = f.op(sh.MaximumOp, shift, f.c(0))
    small = f.cmp(acc, f.c(1), "LE")
    return (f.select(small, f.c(_INT32_MAX), v),
            f.select(small, f.c(0), f.op(sh.SubtractOp, f.c(0), shift)))


def lower_l2_normalization(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 L2Normalization (see the module docstring)."""
    x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), quantized_type(op_.results[0])
    if not int8(qi, qo):
        return None
    shape = shape_of(x)
    r = len(shape)
    c = centred(b, st(x), qi)
    acc = reduce(b, b.binary(sh.MultiplyOp, c, c), [r - 1], sh.AddOp, 0)
    m, e = inv_sqrt_ir(FixedIR(b, shape[:-1]), acc)
    rows = list(range(r - 1))
    f = FixedIR(b, shape)
    v = f.mbqm(c, b.broadcast_in_dim(m, shape, rows),
               f.op(sh.AddOp, b.broadcast_in_dim(e, shape, rows), f.c(7)))
    return b.convert(b.clamp(v, -128, 127), qo.storage)


declare(Operator(
    "L2_NORMALIZATION", (sh.DivideOp, sh.MultiplyOp), ("LpNormalization",),
    output="fixed", fixed=(1.0 / 128.0, 0),
    how='composite "tfl.l2_normalization"; in StableHLO, divide(x, sqrt(reduce_add(x*x))) '
        "or multiply(x, rsqrt(reduce_add(x*x))), broadcasts between",
    options=Options("L2NormOptions", required=False),
    inputs=(Operand("input", min_rank=1),), build=l2_normalization,
    kernels={"tfl.l2_normalization": lower_l2_normalization}))


__all__ = ["inv_sqrt_ir", "l2_normalization", "lower_l2_normalization"]
