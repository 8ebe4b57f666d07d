"""Unranked tensors (`tensor<*x...>`) in `lower-quant-ops`, as upstream's
LowerQuantOps.cpp handles them: the tensor is reshaped to a ranked one with dynamic
extents, converted there, and reshaped back to its own extents.

- per-tensor (flattenUnrankedTensor): to 1-D, `tensor<?x...>`, of `num_elements` extents;
- per-axis (flattenUnrankedTensorAroundAxis): to 3-D, `tensor<?xNx...x?>`, the extents
  before the quantized dimension, its N scales, the extents after it; the quantized
  dimension is then 1;
- sub-channel types on unranked tensors are rejected by the quant ops' verifier.

    %0 = shape.shape_of %arg0 : tensor<*xf32> -> tensor<?xindex>
    %1 = shape.num_elements %0 : tensor<?xindex> -> index
    %from_elements = tensor.from_elements %1 : tensor<1xindex>
    %reshape = tensor.reshape %arg0(%from_elements) : (tensor<*xf32>, tensor<1xindex>) -> tensor<?xf32>
    ...
    %reshape_0 = tensor.reshape %5(%0) : (tensor<?xi8>, tensor<?xindex>) -> tensor<*xi8>
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, SSAValue

from qcomp.dialects.quant import UniformQuantizedType
from qcomp.dialects.shape import NumElementsOp, ShapeOfOp, SplitAtOp
from qcomp.dialects.tensor import FromElementsOp, ReshapeOp
from qcomp.passes.utils.builder import Builder


@dataclass(frozen=True)
class Flattened:
    """An unranked value reshaped to `shape`, with its own extents (`extents`) and the
    quantized type to use on the ranked form (`quant`)."""

    value: SSAValue
    extents: SSAValue
    shape: tuple[int, ...]
    quant: UniformQuantizedType


def _index(b: Builder, value: int) -> SSAValue:
    return b.emit(arith.ConstantOp(IntegerAttr(value, IndexType())))


def flatten(b: Builder, x: SSAValue, q: UniformQuantizedType) -> Flattened:
    """`x` (an unranked tensor) reshaped for the per-tensor or per-axis type `q`."""
    t = x.type
    assert isinstance(t, UnrankedTensorType)
    extents = b.emit(ShapeOfOp(x))
    if q.is_per_tensor:
        count = b.emit(NumElementsOp(extents))
        parts, shape, ranked_q = [count], (DYNAMIC_INDEX,), q
    else:
        axis, size = q.quantized_dimension, len(q.scales_attr.data)
        at_axis, after_axis = _index(b, axis), _index(b, axis + 1)
        left = b.emit(NumElementsOp(b.insert(SplitAtOp(extents, at_axis)).head))
        right = b.emit(NumElementsOp(b.insert(SplitAtOp(extents, after_axis)).tail))
        parts, shape = [left, _index(b, size), right], (DYNAMIC_INDEX, size, DYNAMIC_INDEX)
        ranked_q = UniformQuantizedType.per_axis(
            q.storage_type, q.expressed_type, 1, [float(s) for s in q.scales.flat],
            [int(z) for z in q.zero_points.flat], storage_min=q.storage_min,
            storage_max=q.storage_max, signed=q.is_signed)
    flat_shape = b.emit(FromElementsOp(parts, TensorType(IndexType(), [len(parts)])))
    flat = b.emit(ReshapeOp(x, flat_shape, TensorType(t.element_type, shape)))
    return Flattened(flat, extents, shape, ranked_q)


def restore(b: Builder, value: SSAValue, extents: SSAValue, element: Attribute) -> SSAValue:
    """`value` reshaped back to the unranked tensor of `extents`."""
    return b.emit(ReshapeOp(value, extents, UnrankedTensorType(element)))
