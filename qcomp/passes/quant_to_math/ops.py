"""Per-op lowerings of `stablehlo-legalize-quant-to-math` other than dot/convolution.

Each `lower_*` takes the op, a `Builder` positioned before it, the `RescaleMode` and
the op's operands as storage integers (`st`, quantized operands) or as they are, and
returns one value per result: storage integers for a quantized result, else a value of
the result's own type.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, f32, i32
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.ir.splat import splat_attr, splat_value
from qcomp.passes.quant_to_math.dot import illegal
from qcomp.passes.quant_to_math.emit import (
    fixed_point_requantize,
    spec_dequantize,
    spec_quantize,
    tflite_quantize,
    upstream_dequantize,
    upstream_quantize,
    upstream_requantize,
    upstream_storage,
)
from qcomp.passes.quant_to_math.mode import RescaleMode
from qcomp.passes.quant_to_math.tflite import lower_fc_requantize
from qcomp.passes.utils.builder import Builder, element_of, shape_of
from qcomp.passes.utils.diagnostics import PassDiagnostic
from qcomp.passes.utils.storage_boundaries import retype_block_args
from qcomp.quant.ranges import signed_view

Storage = Callable[[SSAValue], SSAValue]

def q_of(v: SSAValue) -> UniformQuantizedType | None:
    return quantized_element(v.type)


def _quantized_types(op: Operation) -> list[UniformQuantizedType]:
    return [q for v in [*op.operands, *op.results] if (q := q_of(v)) is not None]


def _need_uniform(op: Operation) -> None:
    for q in _quantized_types(op):
        if not isinstance(q, UniformQuantizedType):
            raise illegal(op)


# ---------------------------------------------------------------------------
# Quantize / dequantize
# ---------------------------------------------------------------------------
def lower_uniform_quantize(op: Operation, b: Builder, mode: RescaleMode, st: Storage
                           ) -> SSAValue:
    qo = q_of(op.result)
    qi = q_of(op.operand)
    if qo is None:
        raise PassDiagnostic(op, "Unsupported input element type.")
    if mode.upstream:
        if qi is None and element_of(op.operand) == f32 and not qo.is_blockwise:
            return upstream_quantize(b, op.operand, qo)
        if qi is not None and not (qi.is_blockwise or qo.is_blockwise):
            if qi.is_per_axis and qo.is_per_axis and \
                    qi.quantized_dimension != qo.quantized_dimension:
                raise PassDiagnostic(op, "Cannot requantize while changing quantization_axis")
            return upstream_requantize(b, st(op.operand), qi, qo, upstream_storage(qo))
        raise PassDiagnostic(op, "Unsupported input element type.")
    if qi is None:
        x = op.operand
        if element_of(x) != qo.expressed_type:
            x = b.convert(x, qo.expressed_type)
        if mode.integer_only and not (qo.is_blockwise or qo.is_float_storage):
            return tflite_quantize(b, x, qo)
        return spec_quantize(b, x, qo)
    if mode.integer_only and not (qi.is_blockwise or qo.is_blockwise):
        if (v := lower_fc_requantize(op, b, st)) is not None:
            return v
        if qi.is_per_axis and qo.is_per_axis and qi.quantized_dimension != qo.quantized_dimension:
            raise PassDiagnostic(op, "Cannot requantize while changing quantization_axis")
        return fixed_point_requantize(b, st(op.operand), qi, qo, op)
    real = spec_dequantize(b, st(op.operand), qi)
    if qi.expressed_type != qo.expressed_type:
        real = b.convert(real, qo.expressed_type)
    return spec_quantize(b, real, qo)


def lower_uniform_dequantize(op: Operation, b: Builder, mode: RescaleMode, st: Storage
                             ) -> SSAValue:
    qi = q_of(op.operand)
    assert qi is not None
    if mode.upstream:
        if qi.is_blockwise:
            raise illegal(op)
        f = upstream_dequantize(b, st(op.operand), qi)
        out = element_of(op.result)
        return f if out == f32 else b.convert(f, out)
    return spec_dequantize(b, st(op.operand), qi)


# ---------------------------------------------------------------------------
# dequantize -> op -> quantize
# ---------------------------------------------------------------------------
def lower_dq_op_q(op: Operation, b: Builder, mode: RescaleMode, st: Storage
                  ) -> list[SSAValue]:
    """Quantized operands dequantized, the op in float, quantized results quantized."""
    operands = []
    for v in op.operands:
        q = q_of(v)
        operands.append(v if q is None else mode.dequantize(b, st(v), q))
    result_types = []
    for r in op.results:
        q = q_of(r)
        if q is None:
            result_types.append(r.type)
        else:
            result_types.append(TensorType(mode.float_type(q), shape_of(r)))
    new = type(op).create(operands=operands, result_types=result_types,
                          properties=dict(op.properties), attributes=dict(op.attributes))
    b.insert(new)
    outs = []
    for r, n in zip(op.results, new.results):
        q = q_of(r)
        outs.append(n if q is None else mode.quantize(b, n, q))
    return outs


# ---------------------------------------------------------------------------
# Type-only ops
# ---------------------------------------------------------------------------
def lower_type_only(op: Operation, b: Builder, mode: RescaleMode, st: Storage
                    ) -> list[SSAValue]:
    """The same op on the storage integers (regions moved over, block arguments retyped
    to `mode.storage_type`)."""
    lowered = mode.storage_type
    if isinstance(op, sh.ConstantOp):
        t = lowered(op.output.type)
        value = op.value
        if value.type != t:  # u8 storage values as signless i8 (upstream)
            bits = t.element_type.width.data
            one = splat_value(value)
            if one is not None:  # a splat held as one element stays one element
                value = splat_attr(t, int(signed_view(np.array([int(one)]), bits)[0]))
            else:
                vals = signed_view(np.array([int(v) for v in value.get_values()]), bits)
                value = DenseIntOrFPElementsAttr.from_list(t, vals.tolist())
        return [b.emit(sh.ConstantOp(value, t))]
    regions = [op.detach_region(r) for r in list(op.regions)]
    for region in regions:
        for block in region.blocks:
            retype_block_args(block, b.rewriter, lowered)
    new = type(op).create(operands=[st(v) for v in op.operands],
                          result_types=[lowered(r.type) for r in op.results],
                          properties=dict(op.properties), attributes=dict(op.attributes),
                          regions=regions)
    b.insert(new)
    return list(new.results)


def all_same_quantized(op: Operation) -> bool:
    qs = _quantized_types(op)
    return len(set(qs)) <= 1 and all(
        q_of(v) is not None for v in [*op.operands, *op.results]
        if not (isinstance(op, sh.SelectOp) and v is op.pred))


# ---------------------------------------------------------------------------
# add
# ---------------------------------------------------------------------------
def lower_upstream_add(op: Operation, b: Builder, st: Storage) -> SSAValue | None:
    """Upstream's add; None when it falls back to dequantize -> add -> quantize."""
    ql, qr, qo = q_of(op.lhs), q_of(op.rhs), q_of(op.result)
    if ql is None or qr is None or qo is None:
        return None
    if ql.is_per_axis or qr.is_per_axis or qo.is_per_axis:
        if not (ql == qr == qo and qo.is_per_axis and qo.storage == i32):
            return None
        v = b.binary(sh.AddOp, st(op.lhs), st(op.rhs))
        if np.any(qo.zero_points != 0):
            v = b.binary(sh.SubtractOp, v, b.full(np.asarray(qo.zero_points).reshape(-1), i32,
                                                  shape_of(v), qo.quantized_dimension))
        return v
    if ql.is_blockwise or qr.is_blockwise or qo.is_blockwise:
        return None
    l32 = upstream_requantize(b, st(op.lhs), ql, qo, i32)
    r32 = upstream_requantize(b, st(op.rhs), qr, qo, i32)
    v = b.binary(sh.AddOp, l32, r32)
    v = b.binary(sh.SubtractOp, v, b.full(np.array(qo.zero_point), i32, shape_of(v)))
    if qo.storage == i32:
        return v
    v = b.clamp(v, qo.storage_min, qo.storage_max)
    return b.convert(v, upstream_storage(qo))


__all__ = [
    "all_same_quantized", "lower_dq_op_q", "lower_type_only",
    "lower_uniform_dequantize", "lower_uniform_quantize", "lower_upstream_add", "q_of",
]
