"""What TFLite's `rescale=fixed-point` kernels share: quantized types of values,
centring, a table gather, an integer reduce, composite attributes."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType, i32, i64
from xdsl.ir import Block, Operation, Region, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.dialects.stablehlo.attrs import GatherDimensionNumbersAttr
from qcomp.passes.utils.builder import Builder, element_of, i64_array, shape_of


def quantized_type(v: SSAValue) -> UniformQuantizedType | None:
    q = quantized_element(v.type)
    return q if isinstance(q, UniformQuantizedType) else None


def per_tensor(*qs) -> bool:
    return all(q is not None and q.is_per_tensor for q in qs)


def int8(*qs) -> bool:
    """Per-tensor signed 8-bit storage, the full [-128, 127] range."""
    return per_tensor(*qs) and all(q.storage_bitwidth == 8 and q.is_signed
                                   and q.storage_min >= -128 for q in qs)


def centred(b: Builder, v: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """q - z as i64."""
    x = b.convert(v, i64)
    if q.zero_point:
        x = b.binary(sh.SubtractOp, x, b.full(np.int64(q.zero_point), i64, shape_of(x)))
    return x


def gather(b: Builder, table: SSAValue, idx: SSAValue) -> SSAValue:
    """table[idx] elementwise (idx: i32 of any shape)."""
    shape = shape_of(idx)
    idx = b.op(sh.ReshapeOp, [idx], i32, (*shape, 1))
    dn = GatherDimensionNumbersAttr.get(collapsed_slice_dims=[0], start_index_map=[0],
                                        index_vector_dim=len(shape))
    return b.op(sh.GatherOp, [table, idx], element_of(table), shape, dimension_numbers=dn,
                slice_sizes=i64_array([1]))


def reduce(b: Builder, x: SSAValue, dims: list[int], kind: type[Operation], init) -> SSAValue:
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


def composite_props(op: sh.CompositeOp) -> dict:
    attrs = op.composite_attributes
    return {} if attrs is None else dict(attrs.data.items())


def ints(attr) -> list[int]:
    return [int(v) for v in attr.get_values()]


def float_prop(op: sh.CompositeOp, name: str, default: float) -> float:
    v = composite_props(op).get(name)
    return default if v is None else float(v.value.data)


__all__ = ["centred", "composite_props", "float_prop", "gather", "int8", "ints",
           "per_tensor", "quantized_type", "reduce"]
