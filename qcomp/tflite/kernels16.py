"""`rescale=fixed-point` kernels of TFLite's int16 (16x8 mode) operators other than the
contractions, LiteRT's reference arithmetic (`qcomp.quant.tflite16`):

- SOFTMAX (`tfl.softmax`): e = E[q - max + 65535] (the exp step for every difference, a
  65536-entry compile-time table), S = Σ e (i32), h = count_leading_zeros(S),
  r = R[clamp(((S << (h - 1)) + 2^13 >> 14) - 98304) + 32768] (the 1/(1 + x) lookup of
  every int16), clamp((e r + 2^(30 - h)) >> (31 - h), 0, 32767).

- LOGISTIC, TANH: the kernel's value for each of the 65536 int16 inputs
  (`qcomp.quant.tflite16.logistic_int16` / `tanh_int16`: the sigmoid_table_uint16
  interpolation), a compile-time table gathered at q + 32768 (`int16_table`);
- RSQRT, GELU: LUTPopulate<int16_t> (f32) of 1/sqrt (`rsqrt_lut`) / GeluTransform,
  then LUTLookup, likewise a table of the 65536 results;
- BATCH_MATMUL (`tfl.batch_matmul`): clamp(MBQM64(Σ q_l q_r (i64), QuantizeMultiplier(
  f32(s_l s_r) / s_out))).

`with_int16(kernel8, kernel16)` is one kernel for a key that has an int8 one already.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType, i32, i64
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite import gelu_f, quantize_multiplier
from qcomp.quant.tflite16 import (
    INT16_MAX,
    INT16_MIN,
    logistic_int16,
    lut_lookup,
    lut_populate_int16,
    rsqrt_lut,
    softmax16_tables,
    tanh_int16,
)
from qcomp.tflite.context import dense
from qcomp.tflite.contractions16 import decomposed_op, mbqm64_ir
from qcomp.tflite.kernels import composite_props, float_prop, gather, per_tensor, quantized_type, reduce


def int16(*qs) -> bool:
    """Per-tensor signed 16-bit storage, zero point 0 (16x8 mode's activations)."""
    return per_tensor(*qs) and all(q.storage_bitwidth == 16 and q.is_signed
                                   and q.zero_point == 0 for q in qs)


def with_int16(kernel8, kernel16):
    """A kernel trying `kernel16`, then `kernel8` (each None when not its types)."""
    def lower(op_: Operation, b: Builder, st) -> SSAValue | None:
        v = kernel16(op_, b, st)
        return v if v is not None else kernel8(op_, b, st)
    lower.__doc__ = f"{kernel16.__doc__}\n\nOtherwise: {kernel8.__doc__}"
    return lower


def table(b: Builder, values: np.ndarray, element) -> SSAValue:
    """A 1-D `stablehlo.constant` of `values` in the integer type `element`."""
    return b.emit(sh.ConstantOp(dense(values, TensorType(element, [values.size]))))


def int16_table(values):
    """A kernel gathering `values(q, q_in, q_out, op)` (q: the 65536 int16 values) at
    q + 32768; None unless input and output are int16 with zero point 0."""
    def lower(op_: Operation, b: Builder, st) -> SSAValue | None:
        x = op_.operands[0]
        qi, qo = quantized_type(x), quantized_type(op_.results[0])
        if not int16(qi, qo):
            return None
        t = table(b, np.asarray(values(np.arange(INT16_MIN, INT16_MAX + 1), qi, qo, op_)),
                  qo.storage)
        idx = b.binary(sh.AddOp, b.convert(st(x), i32),
                       b.full(np.int32(32768), i32, shape_of(x)))
        return gather(b, t, idx)
    return lower


def _row(b: Builder, v: SSAValue, shape) -> SSAValue:
    """A row reduction's result [..] broadcast back to `shape` [.., n]."""
    return b.broadcast_in_dim(v, tuple(shape), list(range(len(shape) - 1)))


def lower_softmax16(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int16 SOFTMAX along the last dimension (see the module docstring)."""
    x, qi, qo = op_.operands[0], quantized_type(op_.operands[0]), quantized_type(op_.results[0])
    if not int16(qi, qo):
        return None
    shape = shape_of(x)
    last = len(shape) - 1
    e_tab, r_tab = softmax16_tables(qi.scale, float_prop(op_, "beta", 1.0))
    q = b.convert(st(x), i32)
    mx = _row(b, reduce(b, q, [last], sh.MaximumOp, INT16_MIN), shape)
    idx = b.binary(sh.AddOp, b.binary(sh.SubtractOp, q, mx), b.full(np.int32(65535), i32, shape))
    e = b.convert(gather(b, table(b, e_tab, i32), idx), i64)
    total = reduce(b, e, [last], sh.AddOp, 0)
    outer = shape_of(total)
    h = b.op(sh.CountLeadingZerosOp, [b.convert(total, i32)], i32)
    h = b.convert(h, i64)
    one = b.full(np.int64(1), i64, outer)
    shifted = b.binary(sh.ShiftLeftOp, total, b.binary(sh.SubtractOp, h, one))
    shifted = b.binary(sh.ShiftRightArithmeticOp,
                       b.binary(sh.AddOp, shifted, b.full(np.int64(1 << 13), i64, outer)),
                       b.full(np.int64(14), i64, outer))
    sym = b.clamp(b.binary(sh.SubtractOp, shifted, b.full(np.int64(98304), i64, outer)),
                  INT16_MIN, INT16_MAX)
    ridx = b.convert(b.binary(sh.AddOp, sym, b.full(np.int64(32768), i64, outer)), i32)
    r = _row(b, b.convert(gather(b, table(b, r_tab, i32), ridx), i64), shape)
    rs = _row(b, b.binary(sh.SubtractOp, b.full(np.int64(31), i64, outer), h), shape)
    half = b.binary(sh.ShiftLeftOp, b.full(np.int64(1), i64, shape),
                    b.binary(sh.SubtractOp, rs, b.full(np.int64(1), i64, shape)))
    v = b.binary(sh.ShiftRightArithmeticOp,
                 b.binary(sh.AddOp, b.binary(sh.MultiplyOp, e, r), half), rs)
    return b.convert(b.clamp(v, 0, INT16_MAX), qo.storage)


def _gelu_lut(q, qi, qo, op_):
    fn = gelu_f(bool(composite_props(op_)["approximate"].value.data))
    lut = lut_populate_int16(lambda v: np.float32(fn(np.array([v], np.float32))[0]),
                             qi.scale, 0, qo.scale, 0, single=True)
    return lut_lookup(q, lut)


lower_logistic16 = int16_table(lambda q, qi, qo, op_: logistic_int16(q, qi.scale))
lower_tanh16 = int16_table(lambda q, qi, qo, op_: tanh_int16(q, qi.scale))
lower_rsqrt16 = int16_table(lambda q, qi, qo, op_: lut_lookup(q, rsqrt_lut(qi.scale, qo.scale)))
lower_gelu16 = int16_table(_gelu_lut)


def lower_batch_matmul16(op_: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int16 BATCH_MATMUL (reference_ops::BatchMatMul<int16_t, int64_t>):
    clamp(MBQM64(Σ q_l q_r, QuantizeMultiplier(f32(s_l s_r) / s_out)))."""
    l_, r_ = op_.operands
    ql, qr, qo = quantized_type(l_), quantized_type(r_), quantized_type(op_.results[0])
    inner = decomposed_op(op_, sh.DotGeneralOp)
    if not int16(ql, qr, qo) or inner is None:
        return None
    shape = shape_of(op_.results[0])
    acc = b.emit(sh.DotGeneralOp.create(
        operands=[b.convert(st(l_), i64), b.convert(st(r_), i64)],
        result_types=[TensorType(i64, shape)], properties=dict(inner.properties)))
    m, e = quantize_multiplier(float(np.float32(np.float32(ql.scale) * np.float32(qr.scale)))
                               / qo.scale)
    v = mbqm64_ir(b, acc, np.array(m), np.array(e), None)
    return b.convert(b.clamp(v, INT16_MIN, INT16_MAX), qo.storage)


__all__ = ["int16", "int16_table", "lower_batch_matmul16", "lower_gelu16", "lower_logistic16",
           "lower_rsqrt16", "lower_softmax16", "lower_tanh16", "table", "with_int16"]
