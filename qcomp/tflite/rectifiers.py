"""TFLite's rectifiers: RELU, RELU6, RELU_N1_TO_1 (`stablehlo.composite
"tfl.relu"` / `"tfl.relu6"` / `"tfl.relu_n1_to_1"`: dequantize, clamp in f32,
quantize) and PRELU (`"tfl.prelu"` of the input and the slope broadcast to it:
dequantize both, select(x >= 0, x, alpha x), quantize).

Under `rescale=fixed-point` the rectifiers on int8 are TFLite's ReluX
(`qcomp.quant.tflite_ops.relu_x_int8`: one MBQM of q - z_in by f32(s_in / s_out), then
the activation range), a function of the stored value alone, so a 256-entry table made
at compile time and gathered; PRELU is BroadcastPrelu4DSlow: x = q - z_in,
z_out + (x >= 0 ? MBQM(x, f32(s_in / s_out)) : MBQM(x (a - z_a), f32(f32(s_in s_a) /
s_out))), clamped to [-128, 127]."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import f32, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite_ops import prelu_multipliers, relu_x_int8
from qcomp.tflite.activations import int8_table, unary_composite
from qcomp.tflite.common import broadcast, need_quantized, op_in, same_shape
from qcomp.tflite.context import OpContext, f32_tensor
from qcomp.tflite.kernels import centred, int8, quantized_type
from qcomp.tflite.operator import ACTIVATION, Operand, Operator, declare

RECTIFIERS = {"RELU": (0.0, None), "RELU6": (0.0, 6.0), "RELU_N1_TO_1": (-1.0, 1.0)}
"""Each rectifier's (low, high) bounds (None: none)."""


def _clamp_f32(lo: float | None, hi: float | None):
    def f(b: Builder, x: SSAValue, ctx: OpContext) -> SSAValue:
        shape = shape_of(x)
        if lo is not None:
            x = b.binary(sh.MaximumOp, x, b.full(np.float32(lo), f32, shape))
        if hi is not None:
            x = b.binary(sh.MinimumOp, x, b.full(np.float32(hi), f32, shape))
        return x
    return f


def _relu_table(lo: float | None, hi: float | None):
    def values(q, qi, qo, op_):
        return relu_x_int8(q, qi.scale, qi.zero_point, qo.scale, qo.zero_point, lo, hi)
    return values


for _name, (_lo, _hi) in RECTIFIERS.items():
    declare(Operator(
        _name, how=f'composite "tfl.{_name.lower()}"', int16=False,
        inputs=(ACTIVATION,), build=unary_composite(f"tfl.{_name.lower()}", _clamp_f32(_lo, _hi)),
        kernels={f"tfl.{_name.lower()}": int8_table(_relu_table(_lo, _hi))}))


def prelu(ctx: OpContext) -> list[SSAValue]:
    """`stablehlo.composite "tfl.prelu"` of the input and the slope (broadcast to the
    output's shape): x >= 0 ? x : alpha x in f32."""
    x, alpha = ctx.inputs
    out = ctx.outputs[0]
    need_quantized(ctx, x, alpha, out)
    same_shape(ctx, x, out)
    a = broadcast(ctx, alpha, out.shape)

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        t = f32_tensor(out.shape)
        xf = op_in(b, sh.UniformDequantizeOp, [args[0]], t)
        af = op_in(b, sh.UniformDequantizeOp, [args[1]], t)
        zero = b.full(np.float32(0), f32, tuple(out.shape))
        neg = b.binary(sh.MultiplyOp, af, b.binary(sh.MinimumOp, xf, zero))
        v = b.binary(sh.AddOp, b.binary(sh.MaximumOp, xf, zero), neg)
        return op_in(b, sh.UniformQuantizeOp, [v], out.type())
    return [ctx.composite("tfl.prelu", {}, [ctx.value(x), a], out.type(), body)]


def lower_prelu(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 PRELU (see the module docstring); None unless all int8."""
    from qcomp.passes.quant_to_math.emit import mbqm_ir

    xv, av = op_.operands
    qi, qa, qo = quantized_type(xv), quantized_type(av), quantized_type(op_.results[0])
    if not int8(qi, qa, qo):
        return None
    (m1, s1), (m2, s2) = prelu_multipliers(qi.scale, qa.scale, qo.scale)
    x, y = centred(b, st(xv), qi), centred(b, st(av), qa)
    pos = mbqm_ir(b, x, np.int64(m1), np.int64(s1), None)
    neg = mbqm_ir(b, b.binary(sh.MultiplyOp, x, y), np.int64(m2), np.int64(s2), None)
    shape = shape_of(xv)
    ge = b.emit(sh.CompareOp(x, b.full(np.int64(0), i64, shape), "GE"))
    v = b.emit(sh.SelectOp(ge, pos, neg))
    v = b.binary(sh.AddOp, v, b.full(np.int64(qo.zero_point), i64, shape))
    return b.convert(b.clamp(v, -128, 127), qo.storage)


declare(Operator(
    "PRELU", how='composite "tfl.prelu"', inputs=(ACTIVATION, Operand("alpha")),
    build=prelu, kernels={"tfl.prelu": lower_prelu}))


__all__ = ["RECTIFIERS", "lower_prelu", "prelu"]
