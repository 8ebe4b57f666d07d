"""StableHLO sequences for the spec's quantize / dequantize on tensors, shared by
`lower-quant-ops` and `stablehlo-legalize-quant-to-math`:

    quantize:    q = convert(round_half_to_even(clamp(storage_min,
                              x / scale + zero_point, storage_max)))
    dequantize:  x = convert(q - zero_point) * scale

`TensorEmitter` inserts ops before an anchor op for one tensor shape; parameters
are broadcast to that shape (static) or applied with `chlo.broadcast_*` (dynamic).
"""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from qcomp.dialects.quant import UniformQuantizedType, float_kind
from qcomp.dialects.stablehlo.format import i64_array
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.quant.uniform import expressed_numpy_dtype


def signless(width: int) -> IntegerType:
    return IntegerType(width)


def wide_int(q: UniformQuantizedType) -> IntegerType:
    """Signless integer wide enough for `q - zero_point` (i32, or i64 for 32-bit storage)."""
    return signless(32 if q.storage_bitwidth < 32 else 64)


def in_expressed_type(values: np.ndarray, element: Attribute) -> np.ndarray:
    """Float constants rounded to the expressed type first (65535 is inf in f16, as
    the spec's convert gives), so the constant holds exactly what the formula uses."""
    kind = float_kind(element)
    if kind is None:
        return values
    return np.asarray(values, dtype=np.float64).astype(expressed_numpy_dtype(kind)).astype(np.float64)


def zero_in_range(q: UniformQuantizedType) -> bool:
    return q.storage_min <= 0 <= q.storage_max


class TensorEmitter:
    """Builds StableHLO ops before the op being rewritten, for a static tensor shape."""

    def __init__(self, ctx: Context, rewriter: PatternRewriter, anchor: Operation,
                 shape: tuple[int, ...]):
        self.ctx = ctx
        self.rewriter = rewriter
        self.point = InsertPoint.before(anchor)
        self.shape = shape
        self.dynamic = any(d < 0 for d in shape)

    def op(self, name: str, operands: list[SSAValue], element: Attribute,
           shape: tuple[int, ...] | None = None, **props: Attribute) -> SSAValue:
        cls = self.ctx.get_op(name)
        result_type = TensorType(element, self.shape if shape is None else shape)
        new = cls.create(operands=operands, result_types=[result_type], properties=props)
        self.rewriter.insert(new, self.point)
        return new.results[0]

    def constant(self, values: np.ndarray, element: Attribute) -> SSAValue:
        shape = tuple(values.shape)
        values = in_expressed_type(values, element)
        flat = [float(v) if not isinstance(element, IntegerType) else int(v)
                for v in values.reshape(-1)]
        attr = DenseIntOrFPElementsAttr.from_list(TensorType(element, shape), flat)
        return self.op("stablehlo.constant", [], element, shape, value=attr)

    def scalar(self, value: float | int, element: Attribute) -> SSAValue:
        return self.constant(np.array(value), element)

    def with_params(self, name: str, v: SSAValue, q: UniformQuantizedType, values: np.ndarray,
                    element: Attribute) -> SSAValue:
        """`name` (add, subtract, multiply, divide) of `v` and the parameter tensor
        `values`: StableHLO on the parameters broadcast to a static shape; for dynamic
        shapes `chlo.broadcast_<name>` of the small constant (rank 0, or 1-D along the
        quantized dimension)."""
        if not self.dynamic:
            return self.op(f"stablehlo.{name}", [v, self.params(q, values, element)], element)
        if q.is_per_tensor:
            small, dims = self.constant(values.reshape(()), element), None
        else:
            small = self.constant(values.reshape(-1), element)
            dims = i64_array([q.quantized_dimension])
        props = {} if dims is None else {"broadcast_dimensions": dims}
        return self.op(f"chlo.broadcast_{name}", [v, small], element, **props)

    def params(self, q: UniformQuantizedType, values: np.ndarray, element: Attribute) -> SSAValue:
        """The parameter tensor `values` (shaped like `q`'s parameters) broadcast to the
        full shape: per-tensor and per-axis with one `broadcast_in_dim`, sub-channel by
        broadcasting into (count, block) pairs and reshaping."""
        rank = len(self.shape)
        if q.is_per_tensor:
            return self.op("stablehlo.broadcast_in_dim", [self.constant(values.reshape(()), element)],
                           element, broadcast_dimensions=i64_array([]))
        if q.is_per_axis:
            return self.op("stablehlo.broadcast_in_dim", [self.constant(values.reshape(-1), element)],
                           element, broadcast_dimensions=i64_array([q.quantized_dimension]))
        counts = list(q.params_shape) + [1] * (rank - len(q.params_shape))
        values = values.reshape(counts)
        wide: list[int] = []
        dims: list[int] = []
        for d in range(rank):
            dims.append(len(wide))
            if counts[d] in (1, self.shape[d]):
                wide.append(self.shape[d])
            else:
                wide += [counts[d], self.shape[d] // counts[d]]
        out = self.op("stablehlo.broadcast_in_dim", [self.constant(values, element)], element,
                      tuple(wide), broadcast_dimensions=i64_array(dims))
        if tuple(wide) != self.shape:
            out = self.op("stablehlo.reshape", [out], element)
        return out


STABLEHLO_INT_WIDTHS = (2, 4, 8, 16, 32, 64)


def tensor_shape(op: Operation, t: Attribute, q: UniformQuantizedType) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    if q.storage_bitwidth not in STABLEHLO_INT_WIDTHS:
        raise PassDiagnostic(
            op, f"lower-quant-ops: {q.storage_bitwidth}-bit storage has no StableHLO integer "
            "type (2, 4, 8, 16, 32 or 64 bits)")
    shape = tuple(t.get_shape())
    if q.is_blockwise and any(d < 0 for d in shape):
        raise PassDiagnostic(
            op, "lower-quant-ops: sub-channel quantization needs a static shape")
    return shape


def quantize_tensor(em: TensorEmitter, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """Storage integers of `quantize(x)`: clamp, round half to even, convert."""
    e = q.expressed_type
    v = em.with_params("divide", x, q, q.scales, e)
    if np.any(q.zero_points != 0):
        v = em.with_params("add", v, q, q.zero_points.astype(np.float64), e)
    lo, hi = em.scalar(float(q.storage_min), e), em.scalar(float(q.storage_max), e)
    v = em.op("stablehlo.clamp", [lo, v, hi], e)
    v = em.op("stablehlo.round_nearest_even", [v], e)
    s = em.op("stablehlo.convert", [v], q.storage)
    if not zero_in_range(q):
        # NaN converts to 0: keep it inside a storage range that excludes 0
        lo_i, hi_i = em.scalar(q.storage_min, q.storage), em.scalar(q.storage_max, q.storage)
        s = em.op("stablehlo.clamp", [lo_i, s, hi_i], q.storage)
    return s


def dequantize_tensor(em: TensorEmitter, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """`convert(q - zero_point) * scale` from the storage integers `s`."""
    e = q.expressed_type
    if np.any(q.zero_points != 0):
        w = wide_int(q)
        s = em.op("stablehlo.convert", [s], w)
        s = em.with_params("subtract", s, q, q.zero_points, w)
    f = em.op("stablehlo.convert", [s], e)
    return em.with_params("multiply", f, q, q.scales, e)
