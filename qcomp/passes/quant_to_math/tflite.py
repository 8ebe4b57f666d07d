"""`rescale=fixed-point` lowerings that follow TFLite's int8 reference kernels
(tensorflow/lite/kernels/internal/reference/integer_ops), integer only at run time.

| op                         | TFLite kernel (per-tensor operands)                            |
|----------------------------|----------------------------------------------------------------|
| add / subtract             | x_i = MBQM((q_i - z_i) << S, s_i / 2max(s_1, s_2)), S = 20 (8-bit; 15 for 16-bit); out = MBQM(x_1 +- x_2, 2max(s_1, s_2) / (2^S s_out)) + z_out |
| multiply                   | MBQM((q_1 - z_1)(q_2 - z_2), f32(f32(s_1 s_2) / s_out)) + z_out |
| logistic / tanh (int8)     | a 256-entry table, TFLite's LUTPopulate (`qcomp.quant.tflite.lut_int8`), gathered |
| clamp (one quantized type) | the clamp on the stored integers (TFLite's fused activations)  |
| composite "tfl.average_pool_2d" | Σ in-bounds q, then (sum +- n/2) / n toward zero           |
| uniform_quantize i32 -> i8 marked `tfl.kernel = "fully_connected"` | clamp(round_nearest_afz(f64(acc) * f64(s_acc[c] / s_out)) + z_out) (TFLite's reference FULLY_CONNECTED: a float rescale) |
| composite "tfl.mean" (int8) | MBQM(Σ q - z_in n, M', e') + z_out, (M', e') = `mean_multiplier(s_in / s_out, n)` |
| composite "tfl.softmax" (int8) | e = T[max - q] (f32 table of 256), S = e_0 + e_1 + ... in order (f32), round_half_away(e * (1 / (S s_out))) + z_out |
| add / subtract, one i32 type, zero point 0 | the integer sum (the bias of a contraction)     |

Every MBQM is `emit.mbqm_ir` (TFLite's MultiplyByQuantizedMultiplier); other
`tfl.*` composites, and every composite in the other modes, call their decomposition.
All integer except two, where LiteRT 2.3's reference kernels are not: int8 SOFTMAX is
a float table kernel (`qcomp.quant.tflite.softmax_int8`), emitted as that kernel
computes it (the table a compile-time constant, the f32 sum unrolled in TFLite's
order), and FULLY_CONNECTED rescales its accumulator in f64
(`qcomp.quant.tflite.fully_connected_rescale`); the importer marks that requantize.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, StringAttr, TensorType, f32, f64, i32, i64
from xdsl.ir import Block, Operation, Region, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.dialects.stablehlo.attrs import GatherDimensionNumbersAttr
from qcomp.passes.quant_to_math.emit import fixed_point_rescale, mbqm_ir
from qcomp.passes.quant_to_math.mode import RescaleMode
from qcomp.passes.utils.builder import Builder, element_of, i64_array, shape_of
from qcomp.quant.tflite import (
    logistic_f,
    lut_int8,
    mean_multiplier,
    quantize_multiplier,
    softmax_table,
)


def _q(v: SSAValue) -> UniformQuantizedType | None:
    q = quantized_element(v.type)
    return q if isinstance(q, UniformQuantizedType) else None


def _per_tensor(*qs) -> bool:
    return all(q is not None and q.is_per_tensor for q in qs)


def _centred(b: Builder, v: SSAValue, q: UniformQuantizedType) -> SSAValue:
    x = b.convert(v, i64)
    if q.zero_point:
        x = b.binary(sh.SubtractOp, x, b.full(np.int64(q.zero_point), i64, shape_of(x)))
    return x


def lower_add_sub(op: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int8/int16 ADD and SUB (None: not this kernel's types)."""
    ql, qr, qo = _q(op.lhs), _q(op.rhs), _q(op.result)
    kind = sh.AddOp if isinstance(op, sh.AddOp) else sh.SubtractOp
    if ql is None or qr is None or qo is None:
        return None
    if ql == qr == qo and not np.any(qo.zero_points) and qo.storage_bitwidth == 32:
        return b.binary(kind, st(op.lhs), st(op.rhs))
    if not _per_tensor(ql, qr, qo) or max(q.storage_bitwidth for q in (ql, qr, qo)) > 16:
        return None
    left = 20 if qo.storage_bitwidth <= 8 else 15
    twice_max = 2.0 * float(max(np.float32(ql.scale), np.float32(qr.scale)))
    parts = []
    for v, q in ((op.lhs, ql), (op.rhs, qr)):
        x = b.binary(sh.ShiftLeftOp, _centred(b, st(v), q),
                     b.full(np.int64(left), i64, shape_of(v)))
        m, s = quantize_multiplier(q.scale / twice_max)
        parts.append(mbqm_ir(b, x, np.int64(m), np.int64(s), None))
    total = b.binary(kind, parts[0], parts[1])
    return fixed_point_rescale(b, total, np.float64(twice_max / ((1 << left) * qo.scale)), None,
                               np.int64(qo.zero_point), qo.storage_min, qo.storage_max,
                               qo.storage, op)


def lower_mul(op: Operation, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 MUL: MBQM((q_1 - z_1)(q_2 - z_2), f32(s_1 s_2) / s_out in f32)."""
    ql, qr, qo = _q(op.lhs), _q(op.rhs), _q(op.result)
    if not _per_tensor(ql, qr, qo) or max(q.storage_bitwidth for q in (ql, qr, qo)) > 16:
        return None
    prod = b.binary(sh.MultiplyOp, _centred(b, st(op.lhs), ql), _centred(b, st(op.rhs), qr))
    m = np.float32(np.float32(ql.scale) * np.float32(qr.scale)) / np.float32(qo.scale)
    return fixed_point_rescale(b, prod, np.float64(np.float32(m)), None,
                               np.int64(qo.zero_point), qo.storage_min, qo.storage_max,
                               qo.storage, op)


_TABLE_FUNCTIONS = {sh.LogisticOp: logistic_f, sh.TanhOp: np.tanh}


def _int8(*qs) -> bool:
    return _per_tensor(*qs) and all(q.storage_bitwidth == 8 and q.is_signed
                                    and q.storage_min >= -128 for q in qs)


def _gather(b: Builder, table: SSAValue, idx: SSAValue) -> SSAValue:
    """table[idx] elementwise (idx: i32 of any shape)."""
    shape = shape_of(idx)
    idx = b.op(sh.ReshapeOp, [idx], i32, (*shape, 1))
    dn = GatherDimensionNumbersAttr.get(collapsed_slice_dims=[0], start_index_map=[0],
                                        index_vector_dim=len(shape))
    return b.op(sh.GatherOp, [table, idx], element_of(table), shape, dimension_numbers=dn,
                slice_sizes=i64_array([1]))


def lower_table(op: Operation, b: Builder, st) -> SSAValue | None:
    """int8 logistic / tanh as TFLite's 256-entry table, gathered at q + 128."""
    qi, qo = _q(op.operand), _q(op.result)
    if not _per_tensor(qi, qo) or qi.storage_bitwidth != 8 or qo.storage_bitwidth != 8 \
            or qi.storage_min < -128 or qo.storage_min < -128:
        return None
    f = _TABLE_FUNCTIONS[type(op)]
    table = lut_int8(f, qi.scale, qi.zero_point, qo.scale, qo.zero_point)
    t = b.constant(table.astype(np.int64), qo.storage)
    shape = shape_of(op.operand)
    idx = b.binary(sh.AddOp, b.convert(st(op.operand), i32),
                   b.full(np.int32(128), i32, shape))
    return _gather(b, t, idx)


def lower_clamp(op: Operation, b: Builder, st) -> SSAValue | None:
    """clamp with one quantized type throughout: the clamp of the stored integers."""
    qs = [_q(v) for v in (*op.operands, op.result)]
    if any(q is None for q in qs) or len(set(qs)) != 1:
        return None
    q = qs[0]
    return b.emit(sh.ClampOp(st(op.min), st(op.operand), st(op.max),
                             TensorType(q.storage, shape_of(op.result))))


FC_KERNEL = ("tfl.kernel", "fully_connected")


def lower_fc_requantize(op: Operation, b: Builder, st) -> SSAValue | None:
    """A uniform_quantize i32 -> int8 the importer marked `tfl.kernel = "fully_connected"`:
    TFLite's reference FULLY_CONNECTED output, clamp(round_nearest_afz(f64(acc) *
    f64(s_acc / s_out)) + z_out) (`qcomp.quant.tflite.fully_connected_rescale`)."""
    mark = op.attributes.get(FC_KERNEL[0])
    qi, qo = _q(op.operand), _q(op.result)
    if not (isinstance(mark, StringAttr) and mark.data == FC_KERNEL[1]) or qi is None \
            or qo is None or not qo.is_per_tensor or qi.storage_bitwidth != 32 \
            or qo.storage_bitwidth != 8:
        return None
    shape = shape_of(op.operand)
    m = np.asarray(qi.scales, np.float64).reshape(-1) / np.float64(qo.scale)
    f = b.convert(st(op.operand), f64)
    if qi.is_per_axis:
        f = b.binary(sh.MultiplyOp, f, b.full(m, f64, shape, qi.quantized_dimension))
    else:
        f = b.binary(sh.MultiplyOp, f, b.full(m.reshape(()), f64, shape))
    v = b.convert(b.op(sh.RoundNearestAfzOp, [f], f64), i64)
    if qo.zero_point:
        v = b.binary(sh.AddOp, v, b.full(np.int64(qo.zero_point), i64, shape))
    return b.convert(b.clamp(v, qo.storage_min, qo.storage_max), qo.storage)


def _props(op: sh.CompositeOp) -> dict:
    attrs = op.composite_attributes
    return {} if attrs is None else {k: v for k, v in attrs.data.items()}


def _ints(attr) -> list[int]:
    return [int(v) for v in attr.get_values()]


def lower_average_pool(op: sh.CompositeOp, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 AVERAGE_POOL_2D: Σ in-bounds q (i32), (sum +- n/2) / n toward zero,
    clamped to the storage range (n: in-bounds count of each window)."""
    x, qi, qo = op.operands[0], _q(op.operands[0]), _q(op.results[0])
    if not _per_tensor(qi, qo) or qi != qo:
        return None
    p = _props(op)
    window, strides, pad = _ints(p["window"]), _ints(p["strides"]), _ints(p["padding"])
    in_shape, out_shape = shape_of(x), shape_of(op.results[0])
    scalar = TensorType(i32, [])
    block = Block(arg_types=[scalar, scalar])
    add = sh.AddOp.create(operands=[block.args[0], block.args[1]], result_types=[scalar])
    block.add_ops([add, sh.ReturnOp(add.results[0])])
    pads = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [4, 2]), pad)
    total = b.emit(sh.ReduceWindowOp.create(
        operands=[b.convert(st(x), i32), b.constant(np.int32(0), i32)],
        result_types=[TensorType(i32, out_shape)],
        properties={"window_dimensions": i64_array(window), "window_strides":
                    i64_array(strides), "padding": pads}, regions=[Region(block)]))
    counts = np.zeros(out_shape[1:3], np.int64)
    for i in range(out_shape[1]):
        for j in range(out_shape[2]):
            h0, w0 = i * strides[1] - pad[2], j * strides[2] - pad[4]
            counts[i, j] = ((min(h0 + window[1], in_shape[1]) - max(h0, 0))
                            * (min(w0 + window[2], in_shape[2]) - max(w0, 0)))
    n = b.broadcast_in_dim(b.constant(counts.astype(np.int32), i32), out_shape, [1, 2])
    half = b.broadcast_in_dim(b.constant((counts // 2).astype(np.int32), i32), out_shape,
                              [1, 2])
    positive = b.emit(sh.CompareOp(total, b.full(np.int32(0), i32, out_shape), "GT", "SIGNED"))
    num = b.emit(sh.SelectOp(positive, b.binary(sh.AddOp, total, half),
                             b.binary(sh.SubtractOp, total, half)))
    avg = b.binary(sh.DivideOp, num, n)
    return b.convert(b.clamp(avg, qo.storage_min, qo.storage_max), qo.storage)


def _reduce(b: Builder, x: SSAValue, dims: list[int], kind: type[Operation], init
             ) -> SSAValue:
    """stablehlo.reduce of `x` over `dims` with the body `kind` (an integer reduction:
    its order does not matter)."""
    el = element_of(x)
    scalar = TensorType(el, [])
    block = Block(arg_types=[scalar, scalar])
    body = kind.create(operands=[block.args[0], block.args[1]], result_types=[scalar])
    block.add_ops([body, sh.ReturnOp(body.results[0])])
    kept = tuple(d for i, d in enumerate(shape_of(x)) if i not in dims)
    return b.emit(sh.ReduceOp.create(
        operands=[x, b.constant(np.array(init), el)], result_types=[TensorType(el, kept)],
        properties={"dimensions": i64_array(dims)}, regions=[Region(block)]))


def _float_attr(op: sh.CompositeOp, name: str, default: float) -> float:
    v = _props(op).get(name)
    return default if v is None else float(v.value.data)


def lower_softmax(op: sh.CompositeOp, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 SOFTMAX along the last dimension (`qcomp.quant.tflite.softmax_int8`):
    e = T[max - q], S = in-order f32 sum of e, p = e * (1 / (S * s_out)),
    clamp(round_nearest_afz(p) + z_out)."""
    x, qi, qo = op.operands[0], _q(op.operands[0]), _q(op.results[0])
    if not _int8(qi, qo):
        return None
    shape = shape_of(x)
    r, n = len(shape), shape[-1]
    outer = tuple(shape[:-1])
    q = b.convert(st(x), i32)
    mx = b.broadcast_in_dim(_reduce(b, q, [r - 1], sh.MaximumOp, -128), shape, list(range(r - 1)))
    table = b.constant(softmax_table(qi.scale, _float_attr(op, "beta", 1.0)), f32)
    e = _gather(b, table, b.binary(sh.SubtractOp, mx, q))
    total = None
    for j in range(n):
        col = b.emit(sh.SliceOp(e, [0] * (r - 1) + [j], [*outer, j + 1]))
        total = col if total is None else b.binary(sh.AddOp, total, col)
    denom = b.binary(sh.MultiplyOp, total, b.full(np.float32(qo.scale), f32, (*outer, 1)))
    inv = b.binary(sh.DivideOp, b.full(np.float32(1.0), f32, (*outer, 1)), denom)
    inv = b.broadcast_in_dim(b.op(sh.ReshapeOp, [inv], f32, outer), shape, list(range(r - 1)))
    p = b.op(sh.RoundNearestAfzOp, [b.binary(sh.MultiplyOp, e, inv)], f32)
    v = b.binary(sh.AddOp, b.convert(p, i32), b.full(np.int32(qo.zero_point), i32, shape))
    return b.convert(b.clamp(v, qo.storage_min, qo.storage_max), qo.storage)


def lower_mean(op: sh.CompositeOp, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 MEAN (reference_ops::QuantizedMeanOrSum): clamp(MBQM(Σ q - z_in n,
    M', e') + z_out) with (M', e') = `qcomp.quant.tflite.mean_multiplier`."""
    x, qi, qo = op.operands[0], _q(op.operands[0]), _q(op.results[0])
    if not _int8(qi, qo):
        return None
    axes = _ints(_props(op)["axes"])
    shape = shape_of(x)
    n = int(np.prod([shape[a] for a in axes]))
    if n == 0:
        return None
    total = _reduce(b, b.convert(st(x), i64), axes, sh.AddOp, 0)
    if qi.zero_point:
        total = b.binary(sh.SubtractOp, total,
                         b.full(np.int64(qi.zero_point * n), i64, shape_of(total)))
    m, e = mean_multiplier(qi.scale, qo.scale, n)
    v = mbqm_ir(b, total, np.int64(m), np.int64(e), None)
    if qo.zero_point:
        v = b.binary(sh.AddOp, v, b.full(np.int64(qo.zero_point), i64, shape_of(v)))
    v = b.clamp(v, qo.storage_min, qo.storage_max)
    out_shape = shape_of(op.results[0])
    if shape_of(v) != out_shape:
        v = b.op(sh.ReshapeOp, [v], i64, out_shape)
    return b.convert(v, qo.storage)


_KERNELS = {"tfl.average_pool_2d": lower_average_pool, "tfl.softmax": lower_softmax,
            "tfl.mean": lower_mean}


def lower_composite(op: sh.CompositeOp, b: Builder, mode: RescaleMode, st) -> list[SSAValue]:
    """A TFLite kernel for a `tfl.*` composite under `fixed-point`; otherwise a call of
    the decomposition (lowered with the rest of the module)."""
    kernel = _KERNELS.get(op.composite_name.data) if mode.integer_only else None
    if kernel is not None and (v := kernel(op, b, st)) is not None:
        return [v]
    call = func.CallOp(op.decomposition.string_value() if hasattr(op.decomposition,
                                                                   "string_value")
                       else op.decomposition.root_reference.data,
                       [st(v) for v in op.operands],
                       [mode.storage_type(r.type) for r in op.results])
    b.insert(call)
    return list(call.results)


def lower_tflite(op: Operation, b: Builder, st) -> SSAValue | None:
    """The TFLite kernel of `op` under `fixed-point`, or None for the generic lowering
    (also for dynamic shapes)."""
    if any(isinstance(v.type, TensorType) and any(d < 0 for d in v.type.get_shape())
           for v in (*op.operands, *op.results)):
        return None
    if isinstance(op, sh.AddOp | sh.SubtractOp):
        return lower_add_sub(op, b, st)
    if isinstance(op, sh.MultiplyOp):
        return lower_mul(op, b, st)
    if isinstance(op, sh.LogisticOp | sh.TanhOp):
        return lower_table(op, b, st)
    if isinstance(op, sh.ClampOp):
        return lower_clamp(op, b, st)
    return None


__all__ = ["FC_KERNEL", "lower_composite", "lower_fc_requantize", "lower_tflite"]
