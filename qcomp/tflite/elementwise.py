"""TFLite's elementwise operators: ADD, SUB, MUL (operands broadcast_in_dim to the
output shape, then the StableHLO op), LOGISTIC, TANH, and the fused activation (a
`stablehlo.clamp`), with their `rescale=fixed-point` kernels (TFLite's int8 reference
kernels, tensorflow/lite/kernels/internal/reference/integer_ops):

- add / subtract: x_i = MBQM((q_i - z_i) << S, s_i / 2max(s_1, s_2)), S = 20 (8-bit;
  15 for 16-bit); out = MBQM(x_1 +- x_2, 2max(s_1, s_2) / (2^S s_out)) + z_out;
- add / subtract of one i32 type with zero point 0: the integer sum (the bias of a
  contraction);
- multiply: MBQM((q_1 - z_1)(q_2 - z_2), f32(f32(s_1 s_2) / s_out)) + z_out;
- logistic / tanh (int8): a 256-entry table, TFLite's LUTPopulate
  (`qcomp.quant.tflite.lut_int8`), gathered; int16: `qcomp.tflite.kernels16`;
- clamp (one quantized type): the clamp on the stored integers (TFLite's fused
  activations).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import i32, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.quant_to_math.emit import fixed_point_rescale, mbqm_ir
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite import logistic_f, lut_int8, quantize_multiplier
from qcomp.tflite.common import activation, broadcast, fused, op
from qcomp.tflite.context import OpContext
from qcomp.tflite.kernels import centred, gather, per_tensor, quantized_type
from qcomp.tflite.kernels16 import lower_logistic16, lower_tanh16, with_int16
from qcomp.tflite.operator import (
    ACTIVATION,
    Operand,
    Operator,
    Options,
    boolean,
    declare,
)


def lower_add_sub(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int8/int16 ADD and SUB (None: not this kernel's types)."""
    ql, qr, qo = quantized_type(op_.lhs), quantized_type(op_.rhs), quantized_type(op_.result)
    kind = sh.AddOp if isinstance(op_, sh.AddOp) else sh.SubtractOp
    if ql is None or qr is None or qo is None:
        return None
    if ql == qr == qo and not np.any(qo.zero_points) and qo.storage_bitwidth == 32:
        return b.binary(kind, st(op_.lhs), st(op_.rhs))
    if not per_tensor(ql, qr, qo) or max(q.storage_bitwidth for q in (ql, qr, qo)) > 16:
        return None
    left = 20 if qo.storage_bitwidth <= 8 else 15
    twice_max = 2.0 * float(max(np.float32(ql.scale), np.float32(qr.scale)))
    parts = []
    for v, q in ((op_.lhs, ql), (op_.rhs, qr)):
        x = b.binary(sh.ShiftLeftOp, centred(b, st(v), q),
                     b.full(np.int64(left), i64, shape_of(v)))
        m, s = quantize_multiplier(q.scale / twice_max)
        parts.append(mbqm_ir(b, x, np.int64(m), np.int64(s), None))
    total = b.binary(kind, parts[0], parts[1])
    return fixed_point_rescale(b, total, np.float64(twice_max / ((1 << left) * qo.scale)), None,
                               np.int64(qo.zero_point), qo.storage_min, qo.storage_max,
                               qo.storage, op_)


def lower_mul(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 MUL: MBQM((q_1 - z_1)(q_2 - z_2), f32(s_1 s_2) / s_out in f32)."""
    ql, qr, qo = quantized_type(op_.lhs), quantized_type(op_.rhs), quantized_type(op_.result)
    if not per_tensor(ql, qr, qo) or max(q.storage_bitwidth for q in (ql, qr, qo)) > 16:
        return None
    prod = b.binary(sh.MultiplyOp, centred(b, st(op_.lhs), ql), centred(b, st(op_.rhs), qr))
    m = np.float32(np.float32(ql.scale) * np.float32(qr.scale)) / np.float32(qo.scale)
    return fixed_point_rescale(b, prod, np.float64(np.float32(m)), None,
                               np.int64(qo.zero_point), qo.storage_min, qo.storage_max,
                               qo.storage, op_)


def table_kernel(f):
    """int8 `f` (logistic, tanh) as TFLite's 256-entry table, gathered at q + 128."""
    def lower(op_: Operation, b: Builder, st) -> SSAValue | None:
        qi, qo = quantized_type(op_.operand), quantized_type(op_.result)
        if not per_tensor(qi, qo) or qi.storage_bitwidth != 8 or qo.storage_bitwidth != 8 \
                or qi.storage_min < -128 or qo.storage_min < -128:
            return None
        table = lut_int8(f, qi.scale, qi.zero_point, qo.scale, qo.zero_point)
        t = b.constant(table.astype(np.int64), qo.storage)
        shape = shape_of(op_.operand)
        idx = b.binary(sh.AddOp, b.convert(st(op_.operand), i32),
                       b.full(np.int32(128), i32, shape))
        return gather(b, t, idx)
    return lower


def lower_clamp(op_: Operation, b: Builder, st) -> SSAValue | None:
    """clamp with one quantized type throughout: the clamp of the stored integers."""
    qs = [quantized_type(v) for v in (*op_.operands, op_.result)]
    if any(q is None for q in qs) or len(set(qs)) != 1:
        return None
    return b.clamp_by(st(op_.min), st(op_.operand), st(op_.max))


def binary(cls: type[Operation]):
    """TFLite's binary operator as `cls` on both operands broadcast to the output."""
    def build(ctx: OpContext) -> list[SSAValue]:
        a, b = ctx.inputs
        out = ctx.outputs[0]
        try:
            shape = np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise ctx.fail(f"shapes {list(a.shape)} and {list(b.shape)} do not "
                           "broadcast") from None
        if tuple(shape) != tuple(out.shape):
            raise ctx.fail(f"output shape {list(out.shape)} is not the inputs' broadcast "
                           f"shape {list(shape)}")
        av, bv = broadcast(ctx, a, out.shape), broadcast(ctx, b, out.shape)
        return [fused(ctx, op(ctx, cls, [av, bv], out.type()), out)]
    return build


def unary(cls: type[Operation]):
    def build(ctx: OpContext) -> list[SSAValue]:
        x, out = ctx.inputs[0], ctx.outputs[0]
        return [op(ctx, cls, [ctx.value(x)], out.type())]
    return build


_TWO = (ACTIVATION, Operand("input2"))
_ACT = {"fusedActivationFunction": activation}
_ADD_OPTIONS = {**_ACT, "potScaleInt16": boolean}
_Q16 = (1.0 / 32768.0, 0)

declare(Operator(
    "ADD", (sh.AddOp,), ("Add", "QLinearAdd"), int16=True,
    options=Options("AddOptions", _ADD_OPTIONS, required=False), inputs=_TWO,
    build=binary(sh.AddOp), kernels={sh.AddOp: lower_add_sub}))
declare(Operator(
    "SUB", (sh.SubtractOp,), ("Sub",), int16=True,
    options=Options("SubOptions", _ADD_OPTIONS, required=False), inputs=_TWO,
    build=binary(sh.SubtractOp), kernels={sh.SubtractOp: lower_add_sub}))
declare(Operator(
    "MUL", (sh.MultiplyOp,), ("Mul", "QLinearMul"), int16=True,
    options=Options("MulOptions", _ACT, required=False), inputs=_TWO,
    build=binary(sh.MultiplyOp), kernels={sh.MultiplyOp: lower_mul}))

declare(Operator(
    "LOGISTIC", (sh.LogisticOp,), ("Sigmoid", "QLinearSigmoid"), output="fixed",
    fixed=(1.0 / 256.0, -128), fixed16=_Q16, int16=True, inputs=(ACTIVATION,),
    build=unary(sh.LogisticOp), kernels={sh.LogisticOp: with_int16(table_kernel(logistic_f), lower_logistic16)}))
declare(Operator(
    "TANH", (sh.TanhOp,), ("Tanh",), output="fixed", fixed=(1.0 / 128.0, 0),
    fixed16=_Q16, int16=True, inputs=(ACTIVATION,),
    build=unary(sh.TanhOp), kernels={sh.TanhOp: with_int16(table_kernel(np.tanh), lower_tanh16)}))


__all__ = ["binary", "lower_add_sub", "lower_clamp",
           "lower_mul", "table_kernel", "unary"]
