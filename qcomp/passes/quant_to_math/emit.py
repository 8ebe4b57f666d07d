"""Building blocks of `stablehlo-legalize-quant-to-math`: an op emitter and the
quantize / dequantize / requantize sequences of each `rescale` mode.

Every sequence here is the IR form of one `qcomp.quant` function:

| emitted by                | computes (bit for bit)                                   |
|---------------------------|----------------------------------------------------------|
| `spec_quantize`           | `qcomp.quant.uniform.quantize` (via lower-quant-ops)     |
| `spec_dequantize`         | `qcomp.quant.uniform.dequantize` (via lower-quant-ops)   |
| `upstream_quantize`       | `qcomp.quant.stablehlo.quantize`                         |
| `upstream_dequantize`     | `qcomp.quant.stablehlo.dequantize`                       |
| `upstream_requantize`     | `qcomp.quant.stablehlo.requantize`                       |
| `float_rescale`           | `qcomp.quant.accumulator.rescale_accumulator`            |
| `fixed_point_rescale`     | `qcomp.quant.accumulator.fixed_point_rescale`            |

Parameters become constants (rank 0 per-tensor, rank 1 per-axis) broadcast with
`stablehlo.broadcast_in_dim` to the operand's shape, so the output needs no chlo.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerType,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.passes.utils.tensor_emit import TensorEmitter, dequantize_tensor, quantize_tensor
from qcomp.quant.accumulator import fixed_point_parameters
from qcomp.quant.stablehlo import merged_scale_and_zero_point


def shape_of(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TensorType)
    return tuple(t.get_shape())


def element_of(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.element_type


@lru_cache(maxsize=4096)
def tensor_type(element: Attribute, shape: tuple[int, ...]) -> TensorType:
    """`TensorType(element, shape)`, built once per distinct pair (attributes are immutable)."""
    return TensorType(element, shape)


@lru_cache(maxsize=4096)
def _dense(element: Attribute, shape: tuple[int, ...], flat: tuple) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(tensor_type(element, shape), list(flat))


class Emitter:
    """Inserts StableHLO ops before `anchor`; result shapes default to the first operand's."""

    def __init__(self, ctx: Context, rewriter: PatternRewriter, anchor: Operation):
        self.ctx = ctx
        self.rewriter = rewriter
        self.anchor = anchor
        self.point = InsertPoint.before(anchor)

    def insert(self, op: Operation) -> Operation:
        self.rewriter.insert(op, self.point)
        return op

    def op(self, cls: type, operands: list[SSAValue], element: Attribute,
           shape: tuple[int, ...] | None = None, **props: Attribute) -> SSAValue:
        if shape is None:
            shape = shape_of(operands[0])
        new = cls.create(operands=operands, result_types=[tensor_type(element, tuple(shape))],
                         properties=props)
        return self.insert(new).results[0]

    def constant(self, values, element: Attribute) -> SSAValue:
        a = np.asarray(values)
        flat = ([int(v) for v in a.reshape(-1)] if isinstance(element, IntegerType)
                else [float(v) for v in a.reshape(-1)])
        if a.size <= 64 and isinstance(element, IntegerType):  # (-0.0 == 0.0 as keys)
            attr = _dense(element, tuple(a.shape), tuple(flat))
        else:
            attr = DenseIntOrFPElementsAttr.from_list(tensor_type(element, tuple(a.shape)), flat)
        return self.insert(sh.ConstantOp(attr)).results[0]

    def broadcast(self, x: SSAValue, shape: tuple[int, ...], dims: list[int]) -> SSAValue:
        if shape_of(x) == shape and dims == list(range(len(shape))):
            return x
        if dims != sorted(dims):
            # transpose first, so broadcast_in_dim only ever gets increasing dims
            perm = sorted(range(len(dims)), key=lambda k: dims[k])
            in_shape = shape_of(x)
            x = self.op(sh.TransposeOp, [x], element_of(x), tuple(in_shape[p] for p in perm),
                        permutation=i64_array(perm))
            dims = sorted(dims)
            if shape_of(x) == shape and dims == list(range(len(shape))):
                return x
        return self.op(sh.BroadcastInDimOp, [x], element_of(x), shape,
                       broadcast_dimensions=i64_array(dims))

    def full(self, values, element: Attribute, shape: tuple[int, ...],
             axis: int | None = None) -> SSAValue:
        """A rank-0 (axis None) or rank-1 constant broadcast to `shape` (along `axis`)."""
        a = np.asarray(values)
        if axis is None or a.size == 1 and a.ndim == 0:
            return self.broadcast(self.constant(a.reshape(()), element), shape, [])
        return self.broadcast(self.constant(a.reshape(-1), element), shape, [axis])

    def convert(self, x: SSAValue, element: Attribute) -> SSAValue:
        return self.op(sh.ConvertOp, [x], element)

    def binary(self, cls: type, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(cls, [a, b], element_of(a))

    def clamp(self, x: SSAValue, lo, hi) -> SSAValue:
        e = element_of(x)
        return self.op(sh.ClampOp, [self.constant(np.array(lo), e), x,
                                    self.constant(np.array(hi), e)], e, shape_of(x))

    def tensor_emitter(self, shape: tuple[int, ...]) -> TensorEmitter:
        return TensorEmitter(self.ctx, self.rewriter, self.anchor, shape)


def upstream_storage(q: UniformQuantizedType) -> IntegerType:
    """Upstream's storage type: the signless `iN` of the storage width (MLIR keeps the
    signedness of `u8` in a flag, so upstream's lowering computes on `i8`)."""
    return IntegerType(q.storage_bitwidth)


def storage_type_fn(upstream: bool):
    """Maps a type to its lowered form: quantized elements become storage integers
    (`uN` as `uiN`, or as signless `iN` for rescale=stablehlo, as upstream)."""
    from qcomp.dialects.quant import quantized_element
    from qcomp.passes.utils.storage_boundaries import stripped_type

    if not upstream:
        return stripped_type

    def convert(t: Attribute) -> Attribute:
        q = quantized_element(t)
        if q is None:
            return t
        if isinstance(t, TensorType):
            return TensorType(upstream_storage(q), t.get_shape(), t.encoding)
        return upstream_storage(q)

    return convert


def _axis(q: UniformQuantizedType) -> int | None:
    return q.quantized_dimension if q.is_per_axis else None


def _flat(values) -> np.ndarray:
    return np.asarray(values).reshape(-1)


# ---------------------------------------------------------------------------
# Spec formulas (rescale=float, rescale=fixed-point)
# ---------------------------------------------------------------------------
def spec_quantize(em: Emitter, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """convert(round_half_to_even(clamp(min, x / s + zp, max))) in the expressed type."""
    return quantize_tensor(em.tensor_emitter(shape_of(x)), x, q)


def spec_dequantize(em: Emitter, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """convert(q - zp, expressed) * s."""
    return dequantize_tensor(em.tensor_emitter(shape_of(s)), s, q)


def fixed_point_rescale(em: Emitter, value: SSAValue, multiplier: np.ndarray, axis: int | None,
                        zero_points, lo: int, hi: int, out: Attribute,
                        where: Operation) -> SSAValue:
    """clamp(((v * M + 2^(shift-1)) >> shift) + zp, lo, hi) in i64, then `out`.

    `multiplier` is the real scale (per-tensor, or 1-D along `axis`); (M, shift) come
    from `multiplier_and_shift(m, 32)`.
    """
    mult, shift = fixed_point_parameters(multiplier)
    if np.any(shift < 1):
        raise PassDiagnostic(where, "rescale=fixed-point: scale factor "
                             f"{float(np.max(multiplier))} is too large for a 32-bit multiplier")
    shape = shape_of(value)
    v = value if element_of(value) == i64 else em.convert(value, i64)
    v = em.binary(sh.MultiplyOp, v, em.full(_flat(mult) if axis is not None else mult, i64,
                                             shape, axis))
    half = np.left_shift(np.int64(1), shift - 1)
    v = em.binary(sh.AddOp, v, em.full(_flat(half) if axis is not None else half, i64, shape, axis))
    v = em.binary(sh.ShiftRightArithmeticOp, v,
                  em.full(_flat(shift) if axis is not None else shift, i64, shape, axis))
    zps = np.asarray(zero_points)
    if np.any(zps != 0):
        v = em.binary(sh.AddOp, v, em.full(_flat(zps) if axis is not None else zps, i64,
                                           shape, axis))
    v = em.clamp(v, lo, hi)
    return v if out == i64 else em.convert(v, out)


def fixed_point_requantize(em: Emitter, s: SSAValue, q_in: UniformQuantizedType,
                           q_out: UniformQuantizedType, where: Operation) -> SSAValue:
    """q' = fixed_point_rescale(q - zp_in, s_in / s_out) + zp_out, integer only."""
    axis = _axis(q_out) if q_out.is_per_axis else _axis(q_in)
    shape = shape_of(s)
    v = em.convert(s, i64)
    if np.any(q_in.zero_points != 0):
        v = em.binary(sh.SubtractOp, v, em.full(_flat(q_in.zero_points) if q_in.is_per_axis
                                                else q_in.zero_point, i64, shape, _axis(q_in)))
    m = _flat(q_in.scales) / _flat(q_out.scales)
    zps = _flat(q_out.zero_points) * np.ones_like(m, dtype=np.int64)
    if axis is None:
        m, zps = m.reshape(()), zps.reshape(())
    return fixed_point_rescale(em, v, m, axis, zps, q_out.storage_min, q_out.storage_max,
                               q_out.storage, where)


# ---------------------------------------------------------------------------
# Upstream formulas (rescale=stablehlo)
# ---------------------------------------------------------------------------
def _f32(values) -> np.ndarray:
    return np.asarray(values, np.float64).astype(np.float32)


def upstream_quantize(em: Emitter, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """convert(round_nearest_even(clamp(f32(min), x / f32(s) + f32(zp), f32(max))))."""
    shape, axis = shape_of(x), _axis(q)
    v = em.binary(sh.DivideOp, x, em.full(_f32(q.scales) if axis is not None
                                          else _f32(q.scale), f32, shape, axis))
    v = em.binary(sh.AddOp, v, em.full(_f32(q.zero_points) if axis is not None
                                       else _f32(q.zero_point), f32, shape, axis))
    v = em.clamp(v, np.float32(q.storage_min), np.float32(q.storage_max))
    v = em.op(sh.RoundNearestEvenOp, [v], f32)
    return em.convert(v, upstream_storage(q))


def upstream_dequantize(em: Emitter, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """f32(i32(q) - i32(zp)) * f32(s)."""
    shape, axis = shape_of(s), _axis(q)
    v = em.convert(s, i32)
    v = em.binary(sh.SubtractOp, v, em.full(_flat(q.zero_points) if axis is not None
                                            else q.zero_point, i32, shape, axis))
    v = em.convert(v, f32)
    return em.binary(sh.MultiplyOp, v, em.full(_f32(q.scales) if axis is not None
                                               else _f32(q.scale), f32, shape, axis))


def upstream_requantize(em: Emitter, s: SSAValue, q_in: UniformQuantizedType,
                        q_out: UniformQuantizedType, out: IntegerType) -> SSAValue:
    """round_nearest_even(f32(q) * f32(s_in/s_out) + f32(zp_out - zp_in*s_in/s_out)), clamped
    to the storage range only when `out` is narrower than 32 bits; a plain convert when
    the two types are equal."""
    if q_in == q_out:
        return em.convert(s, out)
    shape = shape_of(s)
    v = em.convert(s, f32)
    if q_in.is_per_tensor and q_out.is_per_tensor:
        ms, mz = merged_scale_and_zero_point(q_in.scale, q_in.zero_point, q_out.scale,
                                             q_out.zero_point)
        v = em.binary(sh.MultiplyOp, v, em.full(ms, f32, shape))
        merged_zp = q_out.zero_point - q_in.zero_point * (q_in.scale / q_out.scale)
        if merged_zp != 0:
            v = em.binary(sh.AddOp, v, em.full(mz, f32, shape))
    else:
        axis = _axis(q_out) if q_out.is_per_axis else _axis(q_in)
        n = max(_flat(q_in.scales).size, _flat(q_out.scales).size)
        ms, mz = merged_scale_and_zero_point(
            np.broadcast_to(_flat(q_in.scales), n), np.broadcast_to(_flat(q_in.zero_points), n),
            np.broadcast_to(_flat(q_out.scales), n), np.broadcast_to(_flat(q_out.zero_points), n))
        v = em.binary(sh.MultiplyOp, v, em.full(ms, f32, shape, axis))
        if np.any(mz != 0):
            v = em.binary(sh.AddOp, v, em.full(mz, f32, shape, axis))
    if out.width.data < 32:
        v = em.clamp(v, np.float32(q_out.storage_min), np.float32(q_out.storage_max))
    v = em.op(sh.RoundNearestEvenOp, [v], f32)
    return em.convert(v, out)


__all__ = [
    "Emitter", "element_of", "shape_of", "spec_quantize", "spec_dequantize",
    "fixed_point_rescale", "fixed_point_requantize", "upstream_quantize",
    "upstream_dequantize", "upstream_requantize", "upstream_storage", "storage_type_fn",
]
