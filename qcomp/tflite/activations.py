"""TFLite's activation operators beyond the fused ones: LEAKY_RELU and HARD_SWISH
(`stablehlo.composite "tfl.leaky_relu"` / `"tfl.hard_swish"`, an f32 decomposition:
dequantize, the function, quantize), MAXIMUM and MINIMUM (`stablehlo.maximum` /
`minimum` of the operands broadcast to the output).

Under `rescale=fixed-point` LEAKY_RELU and HARD_SWISH on int8 are TFLite's reference
kernels, which map each of the 256 stored values to one output value: qcomp computes
that table at compile time with the kernel's own integer arithmetic
(`qcomp.quant.tflite.leaky_relu_int8`: two MBQMs, f32-made multipliers;
`hard_swish_int8`: the int16 fixed-point pipeline of HardSwishPrepare / HardSwish) and
gathers it at q + 128. MAXIMUM / MINIMUM of one quantized type compare stored integers
(TFLite's kernel does, the converter gives inputs and output one scale)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import FloatAttr, f32, i32
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite import hard_swish_int8, leaky_relu_int8
from qcomp.tflite.common import need_quantized, op_in, same_params
from qcomp.tflite.context import OpContext, f32_tensor
from qcomp.tflite.elementwise import binary
from qcomp.tflite.kernels import float_prop, gather, int8, quantized_type
from qcomp.tflite.operator import ACTIVATION, Operand, Operator, Options, declare, finite


def int8_table(values):
    """A kernel gathering the 256-entry table `values(q, q_in, q_out, op)` (q: the int8
    values -128..127) at q + 128; None unless input and output are int8."""
    def lower(op_: Operation, b: Builder, st) -> SSAValue | None:
        x = op_.operands[0]
        qi, qo = quantized_type(x), quantized_type(op_.results[0])
        if not int8(qi, qo):
            return None
        table = values(np.arange(-128, 128, dtype=np.int64), qi, qo, op_)
        t = b.constant(np.asarray(table, np.int64), qo.storage)
        idx = b.binary(sh.AddOp, b.convert(st(x), i32), b.full(np.int32(128), i32,
                                                                shape_of(x)))
        return gather(b, t, idx)
    return lower


def _leaky_table(q, qi, qo, op_):
    return leaky_relu_int8(q, qi.scale, qi.zero_point, float_prop(op_, "alpha", 0.2),
                           qo.scale, qo.zero_point)


def _hard_swish_table(q, qi, qo, op_):
    return hard_swish_int8(q, qi.scale, qi.zero_point, qo.scale, qo.zero_point)


def unary_composite(name: str, f, attrs=lambda ctx: {}):
    """`stablehlo.composite name` of the input: dequantize, `f(b, x, ctx)` in f32,
    quantize."""
    def build(ctx: OpContext) -> list[SSAValue]:
        x, out = ctx.inputs[0], ctx.outputs[0]
        need_quantized(ctx, x, out)

        def body(b: Builder, args: list[SSAValue]) -> SSAValue:
            t = f32_tensor(x.shape)
            v = f(b, op_in(b, sh.UniformDequantizeOp, [args[0]], t), ctx)
            return op_in(b, sh.UniformQuantizeOp, [v], out.type())
        return [ctx.composite(name, attrs(ctx), [ctx.value(x)], out.type(), body)]
    return build


def _leaky(b: Builder, x: SSAValue, ctx: OpContext) -> SSAValue:
    """max(x, 0) + alpha min(x, 0)."""
    shape = shape_of(x)
    zero = b.full(np.float32(0), f32, shape)
    alpha = b.full(np.float32(ctx.option("alpha", 0.0)), f32, shape)
    neg = b.binary(sh.MultiplyOp, alpha, b.binary(sh.MinimumOp, x, zero))
    return b.binary(sh.AddOp, b.binary(sh.MaximumOp, x, zero), neg)


def _hard_swish(b: Builder, x: SSAValue, ctx: OpContext) -> SSAValue:
    """x relu6(x + 3) / 6."""
    shape = shape_of(x)
    r = b.binary(sh.AddOp, x, b.full(np.float32(3), f32, shape))
    r = b.emit(sh.ClampOp(b.full(np.float32(0), f32, ()), r, b.full(np.float32(6), f32, ()),
                          r.type))
    return b.binary(sh.DivideOp, b.binary(sh.MultiplyOp, x, r),
                    b.full(np.float32(6), f32, shape))


def min_max(cls: type[Operation]):
    """MAXIMUM / MINIMUM: one (scale, zero point) for inputs and output (TFLite's kernel
    compares stored integers), then `binary`."""
    inner = binary(cls)

    def build(ctx: OpContext) -> list[SSAValue]:
        for t in ctx.inputs:
            same_params(ctx, t, ctx.outputs[0])
        return inner(ctx)
    return build


declare(Operator(
    "LEAKY_RELU", how='composite "tfl.leaky_relu"', int16=True,
    options=Options("LeakyReluOptions", {"alpha": finite}, required=False),
    inputs=(ACTIVATION,),
    build=unary_composite("tfl.leaky_relu", _leaky, lambda ctx: {
        "alpha": FloatAttr(float(np.float32(ctx.option("alpha", 0.0))), f32)}),
    kernels={"tfl.leaky_relu": int8_table(_leaky_table)}))
declare(Operator(
    "HARD_SWISH", how='composite "tfl.hard_swish"', int16=False,
    inputs=(ACTIVATION,), build=unary_composite("tfl.hard_swish", _hard_swish),
    kernels={"tfl.hard_swish": int8_table(_hard_swish_table)}))
_TWO = (ACTIVATION, Operand("input2"))
declare(Operator("MAXIMUM", (sh.MaximumOp,), ("Max",), output="same", int16=True,
                 inputs=_TWO, build=min_max(sh.MaximumOp)))
declare(Operator("MINIMUM", (sh.MinimumOp,), ("Min",), output="same", int16=True,
                 inputs=_TWO, build=min_max(sh.MinimumOp)))


__all__ = ["int8_table", "min_max", "unary_composite"]
