"""TFLite's LOG_SOFTMAX (along the last dimension): `stablehlo.composite
"tfl.log_softmax"` with a float decomposition (x - max) - log(Σ exp(x - max)), the
spec's fixed output (16/256, 127).

Under `rescale=fixed-point` the int8 kernel is reference_integer_ops::LogSoftmax
(`qcomp.quant.gemmlowp.log_softmax_int8`): with k = max - q per row, two 256-entry
tables made at compile time (d[k], the Q5.26 difference, and x[k], its gemmlowp exp in
Q12), the row's sum Σ x[k], its gemmlowp log in Q5, and per element clamp(RDBPOT(d[k] -
L, 22) + 127) where the difference is above the row's limit, -128 elsewhere; the log and
the limit run as StableHLO integer ops (`qcomp.tflite.fixed_ir.FixedIR`, the same steps
as the NumPy model).

LiteRT has no int16 LOG_SOFTMAX kernel (LogSoftmaxEval: float32, uint8, int8): a 16x8
model is refused at import."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import f32, i32, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.gemmlowp import (
    log_softmax_out,
    log_softmax_params,
    log_softmax_row,
    log_softmax_tables,
)
from qcomp.tflite.common import need_quantized, op_in, refuse_int16, same_shape
from qcomp.tflite.context import OpContext, f32_tensor
from qcomp.tflite.fixed_ir import FixedIR
from qcomp.tflite.kernels import gather, int8, quantized_type, reduce
from qcomp.tflite.operator import Operand, Operator, Options, declare


def log_softmax(ctx: OpContext) -> list[SSAValue]:
    x, out = ctx.inputs[0], ctx.outputs[0]
    refuse_int16(ctx)
    need_quantized(ctx, x, out)
    same_shape(ctx, x, out)
    r = len(x.shape)
    rows = list(range(r - 1))

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        t = f32_tensor(x.shape)
        f = op_in(b, sh.UniformDequantizeOp, [args[0]], t)
        m = reduce(b, f, [r - 1], sh.MaximumOp, np.float32(-np.inf))
        d = b.binary(sh.SubtractOp, f, b.broadcast_in_dim(m, tuple(x.shape), rows))
        s = reduce(b, b.op(sh.ExponentialOp, [d], f32), [r - 1], sh.AddOp, np.float32(0))
        log = b.broadcast_in_dim(b.op(sh.LogOp, [s], f32), tuple(x.shape), rows)
        return op_in(b, sh.UniformQuantizeOp, [b.binary(sh.SubtractOp, d, log)], out.type())
    return [ctx.composite("tfl.log_softmax", {}, [ctx.value(x)], out.type(), body)]


def lower_log_softmax(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 LogSoftmax (see the module docstring)."""
    x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), quantized_type(op_.results[0])
    if not int8(qi, qo):
        return None
    shape = shape_of(x)
    r = len(shape)
    rows = list(range(r - 1))
    _, _, rm, re, diff_min = log_softmax_params(qi.scale)
    d_table, x_table = log_softmax_tables(qi.scale)
    q = b.convert(st(x), i64)
    mx = b.broadcast_in_dim(reduce(b, q, [r - 1], sh.MaximumOp, -128), shape, rows)
    diff = b.binary(sh.SubtractOp, q, mx)
    k = b.convert(b.binary(sh.SubtractOp, mx, q), i32)
    d = gather(b, b.constant(d_table, i64), k)
    total = reduce(b, gather(b, b.constant(x_table, i64), k), [r - 1], sh.AddOp, 0)
    log_sum, limit = log_softmax_row(FixedIR(b, shape[:-1]), total, rm, re, diff_min)
    out = log_softmax_out(FixedIR(b, shape), d, diff, b.broadcast_in_dim(log_sum, shape, rows),
                          b.broadcast_in_dim(limit, shape, rows))
    return b.convert(out, qo.storage)


declare(Operator(
    "LOG_SOFTMAX", (sh.SubtractOp,), ("LogSoftmax",), output="fixed",
    fixed=(16.0 / 256.0, 127),
    how='composite "tfl.log_softmax"; in StableHLO, '
        "subtract(x, broadcast(log(reduce_add(exponential(x)))))",
    options=Options("LogSoftmaxOptions", required=False),
    inputs=(Operand("input", min_rank=1),), build=log_softmax,
    kernels={"tfl.log_softmax": lower_log_softmax}))


__all__ = ["log_softmax", "lower_log_softmax"]
