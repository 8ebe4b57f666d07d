"""Building blocks of `stablehlo-legalize-quant-to-math`: the quantize / dequantize /
requantize sequences of each `rescale` mode, built with a `Builder`.

Every sequence here is the IR form of one `qcomp.quant` function:

| emitted by                | computes (bit for bit)                                   |
|---------------------------|----------------------------------------------------------|
| `spec_quantize`           | `qcomp.quant.uniform.quantize` (via lower-quant-ops)     |
| `spec_dequantize`         | `qcomp.quant.uniform.dequantize` (via lower-quant-ops)   |
| `upstream_quantize`       | `qcomp.quant.stablehlo.quantize`                         |
| `upstream_dequantize`     | `qcomp.quant.stablehlo.dequantize`                       |
| `upstream_requantize`     | `qcomp.quant.stablehlo.requantize`                       |
| `float_rescale`           | `qcomp.quant.accumulator.rescale_accumulator`            |
| `fixed_point_rescale`     | `qcomp.quant.tflite.mbqm` (+ zero point, clamp)          |
| `tflite_quantize`         | `qcomp.quant.tflite.quantize_f32`                        |

Parameters become constants (rank 0 per-tensor, rank 1 per-axis) broadcast with
`stablehlo.broadcast_in_dim` to the operand's shape, so the output needs no chlo.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType, TupleType, f32, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.passes.utils.builder import Builder, element_of, is_dynamic, shape_of
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.passes.utils.uniform_tensor import dequantize_tensor, quantize_tensor
from qcomp.quant.stablehlo import merged_scale_and_zero_point
from qcomp.quant.tflite import quantize_multipliers


def upstream_storage(q: UniformQuantizedType) -> IntegerType:
    """Upstream's storage type: the signless `iN` of the storage width (MLIR keeps the
    signedness of `u8` in a flag, so upstream's lowering computes on `i8`)."""
    return IntegerType(q.storage_bitwidth)


def upstream_storage_type(t: Attribute) -> Attribute:
    """`t` with a quantized element as upstream lowers it: `upstream_storage` (u8 as
    signless i8), the shape and encoding kept (in each element of a tuple)."""
    if isinstance(t, TupleType):
        return TupleType([upstream_storage_type(e) for e in t.types])
    q = quantized_element(t)
    if q is None:
        return t
    if isinstance(t, TensorType):
        return TensorType(upstream_storage(q), t.get_shape(), t.encoding)
    return upstream_storage(q)


def _axis(q: UniformQuantizedType) -> int | None:
    return q.quantized_dimension if q.is_per_axis else None


def _flat(values) -> np.ndarray:
    return np.asarray(values).reshape(-1)


# ---------------------------------------------------------------------------
# Spec formulas (rescale=float, rescale=fixed-point)
# ---------------------------------------------------------------------------
def spec_quantize(b: Builder, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """convert(round_half_to_even(clamp(min, x / s + zp, max))) in the expressed type."""
    return quantize_tensor(b, x, q)


def tflite_quantize(b: Builder, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """TFLite's AffineQuantize (`fixed-point`): round_nearest_afz(x / s) + zp, clamped, in
    the expressed type: ties away from zero, the zero point added after rounding. Written
    convert(round_nearest_afz(clamp(min - zp, x / s, max - zp)) + zp) so that NaN and
    infinities go through the clamp and convert as in `spec_quantize`."""
    shape, axis = shape_of(x), _axis(q)
    el = element_of(x)
    per = (lambda v: _flat(v)) if axis is not None else (lambda v: np.asarray(v).reshape(()))
    zps = np.asarray(q.zero_points, np.int64)
    if axis is not None and is_dynamic(shape):
        return spec_quantize(b, x, q)
    v = b.binary(sh.DivideOp, x, b.full(per(q.scales), el, shape, axis))
    if axis is None:
        v = b.clamp(v, q.storage_min - int(zps), q.storage_max - int(zps))
    else:
        lo = b.full(per(q.storage_min - zps), el, shape, axis)
        hi = b.full(per(q.storage_max - zps), el, shape, axis)
        v = b.emit(sh.ClampOp(lo, v, hi, TensorType(el, shape)))
    v = b.op(sh.RoundNearestAfzOp, [v], el)
    if np.any(zps != 0):
        v = b.binary(sh.AddOp, v, b.full(per(zps), el, shape, axis))
    return b.convert(v, q.storage)


def spec_dequantize(b: Builder, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """convert(q - zp, expressed) * s."""
    return dequantize_tensor(b, s, q)


def fixed_point_rescale(b: Builder, value: SSAValue, multiplier: np.ndarray, axis: int | None,
                        zero_points, lo: int, hi: int, out: Attribute,
                        where: Operation) -> SSAValue:
    """clamp(MBQM(v, M, shift) + zp, lo, hi) in i64, then `out`: TFLite's
    MultiplyByQuantizedMultiplier (`qcomp.quant.tflite.mbqm`) with (M, shift) =
    QuantizeMultiplier(m) for the real factor `multiplier` (per-tensor, or 1-D along
    `axis`). A factor of exactly 1 is no rescale. `v` must fit in 32 bits, as in TFLite.
    """
    mult, shift = quantize_multipliers(multiplier)
    if np.any(shift > 30):
        raise PassDiagnostic(where, "rescale=fixed-point: scale factor "
                             f"{float(np.max(multiplier))} is too large for TFLite's "
                             "32-bit multiplier (at most 2^30)")
    # a factor below 2^-32 is QuantizeMultiplier's (0, 0): every value rescales to 0
    v = value if element_of(value) == i64 else b.convert(value, i64)
    shape = shape_of(v)
    if np.any(np.asarray(multiplier) != 1.0):
        v = mbqm_ir(b, v, mult, shift, axis)
    zps = np.asarray(zero_points)
    if np.any(zps != 0):
        v = b.binary(sh.AddOp, v, b.full(_flat(zps) if axis is not None else zps, i64,
                                         shape, axis))
    v = b.clamp(v, lo, hi)
    return v if out == i64 else b.convert(v, out)


def mbqm_ir(b: Builder, v: SSAValue, mult: np.ndarray, shift: np.ndarray,
            axis: int | None) -> SSAValue:
    """`qcomp.quant.tflite.mbqm` on an i64 tensor of int32 values:
    x = v << max(shift, 0); p = x * M; h = (p + (p >= 0 ? 2^30 : 1 - 2^30)) / 2^31
    (division toward zero), which is (p + 2^30) >> 31 (for p < 0, with q = p + 1 - 2^30:
    trunc(q / 2^31) = floor((q + 2^31 - 1) / 2^31) = floor((p + 2^30) / 2^31));
    e = max(-shift, 0); RoundingDivideByPOT(h, e): h >> e, plus
    1 where the remainder h & (2^e - 1) exceeds ((2^e - 1) >> 1) + (h < 0). With every
    e >= 1 that is one rounding shift, (h + 2^(e-1) + (h >> 63)) >> e (h >> 63 is -1
    for h < 0, else 0): with h = q 2^e + r, 0 <= r < 2^e, both are q + (r >= 2^(e-1))
    for h >= 0 and q + (r > 2^(e-1)) for h < 0."""
    shape = shape_of(v)
    like = v

    def c(values) -> SSAValue:
        """A constant at v's shape (rank 0, or 1-D along `axis`); with dynamic sizes
        broadcast to v's run-time shape (get_dimension_size, dynamic_broadcast_in_dim)
        so that compare and select see operands of one shape."""
        a = np.asarray(values, np.int64)
        along = axis is not None and a.ndim > 0
        if is_dynamic(shape):
            return b.dynamic_broadcast(b.constant(_flat(a) if along else a.reshape(()), i64),
                                       like, [axis] if along else [])
        return b.full(_flat(a) if along else a, i64, shape, axis if along else None)

    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    if np.any(left):
        v = b.binary(sh.ShiftLeftOp, v, c(left))
    p = b.binary(sh.MultiplyOp, v, c(mult))
    h = b.binary(sh.ShiftRightArithmeticOp, b.binary(sh.AddOp, p, c(1 << 30)), c(31))
    if not np.any(right):
        return h
    if np.all(right > 0):
        half = b.binary(sh.AddOp, h, c(np.int64(1) << (right - 1)))
        up = b.binary(sh.AddOp, half, b.binary(sh.ShiftRightArithmeticOp, h, c(63)))
        return b.binary(sh.ShiftRightArithmeticOp, up, c(right))
    mask = (np.int64(1) << right) - 1
    remainder = b.binary(sh.AndOp, h, c(mask))
    negative = b.emit(sh.CompareOp(h, c(0), "LT", "SIGNED"))
    threshold = b.binary(sh.AddOp, c(mask >> 1), b.convert(negative, i64))
    up = b.convert(b.emit(sh.CompareOp(remainder, threshold, "GT", "SIGNED")), i64)
    return b.binary(sh.AddOp, b.binary(sh.ShiftRightArithmeticOp, h, c(right)), up)


def fixed_point_requantize(b: Builder, s: SSAValue, q_in: UniformQuantizedType,
                           q_out: UniformQuantizedType, where: Operation) -> SSAValue:
    """q' = fixed_point_rescale(q - zp_in, s_in / s_out) + zp_out, integer only."""
    axis = _axis(q_out) if q_out.is_per_axis else _axis(q_in)
    shape = shape_of(s)
    v = b.convert(s, i64)
    if np.any(q_in.zero_points != 0):
        v = b.binary(sh.SubtractOp, v, b.full(_flat(q_in.zero_points) if q_in.is_per_axis
                                              else q_in.zero_point, i64, shape, _axis(q_in)))
    m = _flat(q_in.scales) / _flat(q_out.scales)
    zps = _flat(q_out.zero_points) * np.ones_like(m, dtype=np.int64)
    if axis is None:
        m, zps = m.reshape(()), zps.reshape(())
    return fixed_point_rescale(b, v, m, axis, zps, q_out.storage_min, q_out.storage_max,
                               q_out.storage, where)


# ---------------------------------------------------------------------------
# Upstream formulas (rescale=stablehlo)
# ---------------------------------------------------------------------------
def _f32(values) -> np.ndarray:
    return np.asarray(values, np.float64).astype(np.float32)


def upstream_quantize(b: Builder, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """convert(round_nearest_even(clamp(f32(min), x / f32(s) + f32(zp), f32(max))))."""
    shape, axis = shape_of(x), _axis(q)
    v = b.binary(sh.DivideOp, x, b.full(_f32(q.scales) if axis is not None
                                        else _f32(q.scale), f32, shape, axis))
    v = b.binary(sh.AddOp, v, b.full(_f32(q.zero_points) if axis is not None
                                     else _f32(q.zero_point), f32, shape, axis))
    v = b.clamp(v, np.float32(q.storage_min), np.float32(q.storage_max))
    v = b.op(sh.RoundNearestEvenOp, [v], f32)
    return b.convert(v, upstream_storage(q))


def upstream_dequantize(b: Builder, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """f32(i32(q) - i32(zp)) * f32(s)."""
    shape, axis = shape_of(s), _axis(q)
    v = b.convert(s, i32)
    v = b.binary(sh.SubtractOp, v, b.full(_flat(q.zero_points) if axis is not None
                                          else q.zero_point, i32, shape, axis))
    v = b.convert(v, f32)
    return b.binary(sh.MultiplyOp, v, b.full(_f32(q.scales) if axis is not None
                                             else _f32(q.scale), f32, shape, axis))


def upstream_requantize(b: Builder, s: SSAValue, q_in: UniformQuantizedType,
                        q_out: UniformQuantizedType, out: IntegerType) -> SSAValue:
    """round_nearest_even(f32(q) * f32(s_in/s_out) + f32(zp_out - zp_in*s_in/s_out)), clamped
    to the storage range only when `out` is narrower than 32 bits; a plain convert when
    the two types are equal."""
    if q_in == q_out:
        return b.convert(s, out)
    shape = shape_of(s)
    v = b.convert(s, f32)
    if q_in.is_per_tensor and q_out.is_per_tensor:
        ms, mz = merged_scale_and_zero_point(q_in.scale, q_in.zero_point, q_out.scale,
                                             q_out.zero_point)
        v = b.binary(sh.MultiplyOp, v, b.full(ms, f32, shape))
        merged_zp = q_out.zero_point - q_in.zero_point * (q_in.scale / q_out.scale)
        if merged_zp != 0:
            v = b.binary(sh.AddOp, v, b.full(mz, f32, shape))
    else:
        axis = _axis(q_out) if q_out.is_per_axis else _axis(q_in)
        n = max(_flat(q_in.scales).size, _flat(q_out.scales).size)
        ms, mz = merged_scale_and_zero_point(
            np.broadcast_to(_flat(q_in.scales), n), np.broadcast_to(_flat(q_in.zero_points), n),
            np.broadcast_to(_flat(q_out.scales), n), np.broadcast_to(_flat(q_out.zero_points), n))
        v = b.binary(sh.MultiplyOp, v, b.full(ms, f32, shape, axis))
        if np.any(mz != 0):
            v = b.binary(sh.AddOp, v, b.full(mz, f32, shape, axis))
    if out.width.data < 32:
        v = b.clamp(v, np.float32(q_out.storage_min), np.float32(q_out.storage_max))
    v = b.op(sh.RoundNearestEvenOp, [v], f32)
    return b.convert(v, out)


__all__ = [
    "fixed_point_requantize",
    "fixed_point_rescale",
    "mbqm_ir",
    "spec_dequantize",
    "spec_quantize",
    "tflite_quantize",
    "upstream_dequantize",
    "upstream_quantize",
    "upstream_requantize",
    "upstream_storage",
    "upstream_storage_type",
]
