"""`rescale=fixed-point` kernels of TFLite's 16x8 contractions: the `stablehlo.composite
"tfl.conv_2d"` / `"tfl.depthwise_conv_2d"` / `"tfl.transpose_conv"` /
`"tfl.fully_connected"` the importer makes of an int16 x int8 contraction (operands in TFLite's layouts: input i16, weight i8,
bias raw i64 or quantized i32), as LiteRT's reference kernels compute them
(`qcomp.quant.tflite16`):

    acc = Σ q_x q_w + bias                     (the decomposition's convolution /
                                                dot_general on the stored integers, i64)
    CONV_2D, DEPTHWISE_CONV_2D,
    TRANSPOSE_CONV:              clamp(MBQM64(acc, M[c], shift[c]))  (an i32 bias:
                                 TFLite's int32 MBQM, `emit.mbqm_ir`)
    FULLY_CONNECTED:             clamp(round_half_away(f64(acc) * s_x s_w[c] / s_out))

(M, shift) = QuantizeMultiplier(s_x s_w[c] / s_out) in f64. The window properties are
the decomposition's own convolution's (one statement of them).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType, f64, i32, i64
from xdsl.ir import Operation, SSAValue
from xdsl.traits import SymbolTable

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType
from qcomp.passes.quant_to_math.emit import mbqm_ir
from qcomp.passes.utils.builder import Builder, element_of, shape_of
from qcomp.quant.tflite import quantize_multipliers
from qcomp.quant.tflite16 import reduced_multiplier
from qcomp.tflite.kernels import quantized_type

_LIMIT32 = 1 << 31


def mbqm64_ir(b: Builder, v: SSAValue, mult: np.ndarray, shift: np.ndarray,
              axis: int | None) -> SSAValue:
    """`qcomp.quant.tflite16.mbqm64` on an i64 tensor: (v * M' + 2^(t-1)) >> t, M' the
    16-bit reduced multiplier, t = 15 - shift (per-tensor, or 1-D along `axis`)."""
    shape = shape_of(v)
    t = 15 - np.asarray(shift, np.int64)

    def c(values) -> SSAValue:
        a = np.asarray(values, np.int64)
        return b.full(a.reshape(-1) if axis is not None else a.reshape(-1)[0], i64, shape,
                      axis)
    p = b.binary(sh.AddOp, b.binary(sh.MultiplyOp, v, c(reduced_multiplier(mult))),
                 c(np.int64(1) << (t - 1)))
    return b.binary(sh.ShiftRightArithmeticOp, p, c(t))


def fc_rescale(b: Builder, acc: SSAValue, m: np.ndarray, axis: int | None,
               qo: UniformQuantizedType) -> SSAValue:
    """clamp(round_nearest_afz(f64(acc) * m) + z_out) in `qo`'s storage: TFLite's
    float-scale FULLY_CONNECTED rescale (`m`: one factor, or one per channel along
    `axis`)."""
    shape = shape_of(acc)
    f = b.convert(acc, f64)
    if axis is not None:
        f = b.binary(sh.MultiplyOp, f, b.full(m, f64, shape, axis))
    else:
        f = b.binary(sh.MultiplyOp, f, b.full(m.reshape(-1)[0], f64, shape))
    v = b.convert(b.op(sh.RoundNearestAfzOp, [f], f64), i64)
    if qo.zero_point:
        v = b.binary(sh.AddOp, v, b.full(np.int64(qo.zero_point), i64, shape))
    return b.convert(b.clamp(v, qo.storage_min, qo.storage_max), qo.storage)


def decomposed_op(op: sh.CompositeOp, cls: type[Operation]) -> Operation | None:
    """The first `cls` op of the composite's decomposition (the one statement of its
    properties)."""
    f = SymbolTable.lookup_symbol(op, op.decomposition)
    return None if f is None else next((o for o in f.walk() if isinstance(o, cls)), None)


def _operands(op: Operation):
    """(x, w, bias, q_x, q_w, q_out) of a 16x8 contraction composite, or None."""
    x, w = op.operands[0], op.operands[1]
    bias = op.operands[2] if len(op.operands) > 2 else None
    qx, qw, qo = quantized_type(x), quantized_type(w), quantized_type(op.results[0])
    if qx is None or qw is None or qo is None or qx.storage_bitwidth != 16 \
            or qw.storage_bitwidth != 8 or qo.storage_bitwidth != 16 \
            or not qx.is_per_tensor or not qo.is_per_tensor:
        return None
    return x, w, bias, qx, qw, qo


def _accumulate(b: Builder, op: Operation, cls: type[Operation], x: SSAValue, w: SSAValue,
                bias: SSAValue | None, st, channel: int) -> tuple[SSAValue, bool] | None:
    """acc = Σ q_x q_w (+ bias) in i64 (i32 for the products when their sum fits),
    and whether the bias is i32 (TFLite's int32-bias kernel)."""
    inner = decomposed_op(op, cls)
    if inner is None:
        return None
    shape = shape_of(op.results[0])
    k = int(np.prod(shape_of(w))) // max(shape[channel], 1)  # products per output
    el = i32 if k * 32768 * 128 < _LIMIT32 else i64
    acc = b.emit(cls.create(operands=[b.convert(st(x), el), b.convert(st(w), el)],
                            result_types=[TensorType(el, shape)],
                            properties=dict(inner.properties)))
    acc = b.convert(acc, i64) if el != i64 else acc
    narrow = False
    if bias is not None:
        raw = st(bias)
        narrow = isinstance(element_of(raw), IntegerType) and element_of(raw).width.data == 32
        acc = b.binary(sh.AddOp, acc, b.broadcast(b.convert(raw, i64), shape, [channel]))
    return acc, narrow


def _multipliers(qx, qw, qo):
    m = np.float64(qx.scale) * np.asarray(qw.scales, np.float64).reshape(-1) / qo.scale
    return m, (0 if m.size > 1 else None)


def lower_conv16(op_: Operation, b: Builder, st) -> SSAValue | None:
    """A 16x8 CONV_2D / DEPTHWISE_CONV_2D / TRANSPOSE_CONV composite as TFLite's
    ConvPerChannel / DepthwiseConvPerChannel / TransposeConv for int16 (None: another
    kind of composite)."""
    got = _operands(op_)
    if got is None:
        return None
    x, w, bias, qx, qw, qo = got
    shape = shape_of(op_.results[0])
    channel = len(shape) - 1
    done = _accumulate(b, op_, sh.ConvolutionOp, x, w, bias, st, channel)
    if done is None:
        return None
    acc, narrow = done
    m, _ = _multipliers(qx, qw, qo)
    mult, shift = quantize_multipliers(m)
    axis = channel if m.size > 1 else None
    if narrow:  # an int32 bias: the int32 accumulator and MBQM
        v = mbqm_ir(b, acc, mult if axis is not None else mult.reshape(()),
                    shift if axis is not None else shift.reshape(()), axis)
    else:
        v = mbqm64_ir(b, acc, mult, shift, axis)
    return b.convert(b.clamp(v, qo.storage_min, qo.storage_max), qo.storage)


def lower_fc16(op_: Operation, b: Builder, st) -> SSAValue | None:
    """A 16x8 FULLY_CONNECTED composite as TFLite's float-scale FullyConnected for
    int16 (None: another kind of composite)."""
    got = _operands(op_)
    if got is None:
        return None
    x, w, bias, qx, qw, qo = got
    done = _accumulate(b, op_, sh.DotGeneralOp, x, w, bias, st, 1)
    if done is None:
        return None
    m, _ = _multipliers(qx, qw, qo)
    return fc_rescale(b, done[0], m, 1 if m.size > 1 else None, qo)


__all__ = ["decomposed_op", "fc_rescale", "lower_conv16", "lower_fc16", "mbqm64_ir"]
