"""Verifiers of the StableHLO ops, in upstream's order and with upstream's messages.

Order per op, as MLIR runs them: operand/result kinds (`stablehlo_types`), then the
op's traits (compatible types, same shapes), then its own verifier (shape
inference, quantization constraints in `stablehlo_quant_verify`). Shapes use -1
for a dynamic size; two sizes are compatible when equal or either is dynamic.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ComplexType, IntegerType, TensorType
from xdsl.ir import Attribute

from qcomp.dialects.quant import UniformQuantizedType, element_type, quantized_element, storage_of
from qcomp.dialects.stablehlo import quant_verify as qv
from qcomp.dialects.stablehlo.kinds import type_text, verify_value_kinds
from qcomp.dialects.stablehlo.verify_nn import (  # the verifiers of the other ops
    verify_batch_norm_inference,
    verify_convolution,
    verify_dot,
    verify_dot_general,
    verify_gather,
    verify_optimization_barrier,
    verify_reduce,
    verify_reduce_window,
)
from qcomp.dialects.stablehlo.verify_shapes import (
    check_inferred,
    compatible_elements,
    compatible_types,
    dims_compatible,
    fail,
    fmt_dims,
    shape,
    shapes_compatible,
)


def _all_types(op) -> list[Attribute]:
    return [v.type for v in op.operands] + [r.type for r in op.results]


def check_compatible_types(op) -> None:
    first = op.operands[0].type
    if not all(compatible_types(t, first) for t in _all_types(op)):
        fail("requires compatible types for all operands and results")


def check_compatible_element_types(op) -> None:
    first = op.operands[0].type
    if not all(compatible_elements(t, first) for t in _all_types(op)):
        fail("requires compatible element types for all operands and results")


def check_same_shape(op, what: str = "all operands and results") -> None:
    types = _all_types(op)
    if not all(shapes_compatible(shape(t), shape(types[0])) for t in types):
        fail(f"requires the same shape for {what}")


def check_same_element_type(op) -> None:
    types = _all_types(op)
    if any(element_type(t) != element_type(types[0]) for t in types):
        fail("requires the same element type for all operands and results")


def check_elementwise_shapes(op) -> None:
    """MLIR's Elementwise trait."""
    shapes = [shape(t) for t in _all_types(op) if shape(t) or isinstance(t, TensorType)]
    non_scalar = [s for s in shapes if len(s) > 0]
    if any(not shapes_compatible(s, non_scalar[0]) for s in non_scalar):
        fail("all non-scalar operands/results must have the same shape and base type")


# ---------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------
def verify_elementwise(op) -> None:
    """Declared kinds, then compatible operand and result types (upstream's
    SameOperandsAndResultType-style rule)."""
    verify_value_kinds(op)
    check_compatible_types(op)


def verify_add(op) -> None:
    """`stablehlo.add`: same shapes; quantized types by the spec's C3-C7."""
    verify_value_kinds(op)
    check_same_shape(op)
    qv.verify_add(op.lhs.type, op.rhs.type, op.result.type)
    if quantized_element(op.lhs.type) is not None:
        # upstream's inferred type is the lhs's (i8 + i8 -> u8 has equal storage types,
        # the signless i8, but not equal storage ranges)
        check_inferred(op.lhs.type, op.result.type)


def verify_convert(op) -> None:
    verify_value_kinds(op)
    check_same_shape(op)


def verify_abs(op) -> None:
    """`stablehlo.abs`: the result is the operand's type, complex -> its float part."""
    verify_value_kinds(op)
    t = op.operand.type
    e = element_type(t)
    if isinstance(e, ComplexType):
        e = e.element_type
    check_inferred(TensorType(e, shape(t)), op.result.type)


def verify_uniform_quantize(op) -> None:
    verify_value_kinds(op)
    check_elementwise_shapes(op)
    qv.verify_uniform_quantize(op.operand.type, op.result.type)


def verify_uniform_dequantize(op) -> None:
    """The result is the operand's expressed type, same shape."""
    verify_value_kinds(op)
    check_elementwise_shapes(op)
    q = quantized_element(op.operand.type)
    assert q is not None
    check_inferred(TensorType(q.expressed_type, shape(op.operand.type)), op.result.type)


def verify_clamp(op) -> None:
    verify_value_kinds(op)
    x = shape(op.operand.type)
    for label, v in (("min", op.min), ("max", op.max)):
        s = shape(v.type)
        if s and not shapes_compatible(s, x):
            fail(f"{label} shape {fmt_dims(s)} is not scalar and is not compatible to operand "
                 f"shape {fmt_dims(x)}")
    check_compatible_element_types(op)
    check_inferred(op.operand.type, op.result.type)


def verify_select(op) -> None:
    verify_value_kinds(op)
    t, f = op.on_true.type, op.on_false.type
    if not compatible_types(t, f):
        fail("requires compatible types for non-predicate operands")
    p = shape(op.pred.type)
    if p and not shapes_compatible(p, shape(t)):
        fail("requires the same shape for all operands")
    check_inferred(t, op.result.type)


def verify_compare(op) -> None:
    verify_value_kinds(op)
    if not compatible_elements(op.lhs.type, op.rhs.type):
        fail("requires compatible element types for all operands")
    check_same_shape(op)


def verify_reduce_precision(op) -> None:
    verify_value_kinds(op)
    check_compatible_types(op)
    if op.exponent_bits.value.data < 1:
        fail("attribute 'exponent_bits' failed to satisfy constraint: 32-bit signless integer "
             "attribute whose value is positive")
    if op.mantissa_bits.value.data < 0:
        fail("attribute 'mantissa_bits' failed to satisfy constraint: 32-bit signless integer "
             "attribute whose value is non-negative")


# ---------------------------------------------------------------------------
# constants and type-only ops
# ---------------------------------------------------------------------------
def verify_constant(op) -> None:
    verify_value_kinds(op)
    vt = getattr(op.value, "type", None)
    rt = op.output.type
    if not isinstance(vt, TensorType):
        fail(f"invalid properties {{value = {type_text(op.value)}}} for op stablehlo.constant: "
             f"Invalid attribute `value` in property conversion: {type_text(op.value)}")
    if quantized_element(rt) is not None:
        if vt != storage_of(rt):
            check_inferred(vt, rt)
    elif vt != rt:
        check_inferred(vt, rt)


def verify_iota(op) -> None:
    verify_value_kinds(op)
    s = shape(op.output.type)
    if op.iota_dimension < 0:
        fail("attribute 'iota_dimension' failed to satisfy constraint: 64-bit signless "
             "integer attribute whose value is non-negative")
    if len(s) == 0:
        fail("does not support scalars.")
    if op.iota_dimension >= len(s):
        fail("iota dimension cannot go beyond the output rank.")


def _bit_width(e: Attribute) -> int:
    if isinstance(e, UniformQuantizedType):
        return e.storage_bitwidth
    if isinstance(e, ComplexType):
        return 2 * _bit_width(e.element_type)
    if isinstance(e, IntegerType):
        return e.width.data
    return int(getattr(e, "bitwidth", 0))


def verify_bitcast_convert(op) -> None:
    verify_value_kinds(op)
    ot, rt = op.operand.type, op.result.type
    oe, re_ = element_type(ot), element_type(rt)
    if isinstance(oe, ComplexType) != isinstance(re_, ComplexType):
        fail(f"cannot convert between real and complex types, but got: '{type_text(ot)}' and "
             f"'{type_text(rt)}'")
    ow, rw = _bit_width(oe), _bit_width(re_)
    os_, rs = shape(ot), shape(rt)
    small, big = (os_, rs) if ow < rw else (rs, os_)
    sw, bw = min(ow, rw), max(ow, rw)
    prefix = small
    if ow != rw:
        if len(small) != len(big) + 1:
            fail(f"rank of smaller element type ({len(small)}) should be 1 more than rank of "
                 f"larger element type ({len(big)}), but {len(small)} != {len(big)} + 1.")
        prefix = small[:-1]
        if small[-1] >= 0 and small[-1] * sw != bw:
            fail(f"requires compatible bit widths. Got: '{type_text(ot)}' and '{type_text(rt)}', "
                 f"but {sw} * {small[-1]} != {bw}.")
    for a, b in zip(prefix, big):
        if not dims_compatible(a, b):
            fail("operand and result shapes must match except for the innermost dimension of "
                 f"the shape with the smaller element type. Got: '{type_text(ot)}' and "
                 f"'{type_text(rt)}'.")


def verify_reshape(op) -> None:
    verify_value_kinds(op)
    check_compatible_element_types(op)
    ot, rt = op.operand.type, op.result.type
    os_, rs = shape(ot), shape(rt)
    if all(d >= 0 for d in os_ + rs):
        n_out, n_in = _count(rs), _count(os_)
        if n_out != n_in:
            fail(f"number of output elements ({n_out}) doesn't match expected number of "
                 f"elements ({n_in})")
        if quantized_element(ot) is not None or quantized_element(rt) is not None:
            qv.verify_reshape(ot, rt)


def _count(dims: Sequence[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def verify_transpose(op) -> None:
    verify_value_kinds(op)
    check_compatible_element_types(op)
    ot, rt = op.operand.type, op.result.type
    perm = op.permutation
    rank = len(shape(ot))
    if len(perm) != rank:
        fail(f"TransposeOp operand rank {rank} does not match permutation size {len(perm)}")
    if sorted(perm) != list(range(rank)):
        fail(f"attribute permutation must be a permutation of [{', '.join(map(str, range(rank)))}]"
             f" but got {', '.join(map(str, perm))}")
    inferred = tuple(shape(ot)[d] for d in perm)
    check_inferred(TensorType(element_type(rt), inferred), rt)
    qv.verify_transpose(ot, perm, rt)


def verify_broadcast_in_dim(op) -> None:
    verify_value_kinds(op)
    check_compatible_element_types(op)
    ot, rt = op.operand.type, op.result.type
    qv.verify_same_per_tensor_params(ot, rt)
    dims = op.broadcast_dimensions
    os_, rs = shape(ot), shape(rt)
    if len(dims) != len(os_):
        fail(f"broadcast_dimensions size ({len(dims)}) does not match operand rank ({len(os_)})")
    if len(set(dims)) != len(dims):
        fail("broadcast_dimensions should not have duplicates")
    for i, d in enumerate(dims):
        if d < 0 or d >= len(rs):
            fail(f"broadcast_dimensions contains invalid value {d} for result with rank "
                 f"{len(rs)}")
        if os_[i] >= 0 and os_[i] != 1 and os_[i] != rs[d]:
            fail(f"size of operand dimension {i} ({os_[i]}) is not equal to 1 or size of result "
                 f"dimension {d} ({rs[d]})")
    qv.verify_broadcast_in_dim(ot, rt, dims)


def verify_concatenate(op) -> None:
    verify_value_kinds(op)
    check_same_element_type(op)
    types = [v.type for v in op.inputs]
    if not types:
        fail("expected 1 or more operands, but found 0")
    dim = op.dimension
    rank = len(shape(types[0]))
    if rank == 0:
        fail("rank-0 values cannot be concatenated")
    if dim < 0 or dim >= rank:
        fail(f"dimension {dim} is out-of-bounds for input rank {rank}")
    first = shape(types[0])
    total = 0
    for i, t in enumerate(types):
        s = shape(t)
        if len(s) != rank:
            fail(f"operands (0) and ({i}) do not match rank")
        for d in range(rank):
            if d != dim and not dims_compatible(first[d], s[d]):
                fail(f"shapes of operand (0) and ({i}) are not compatible at non-concat index "
                     f"{d}: ({', '.join(map(str, first))}) != ({', '.join(map(str, s))})")
        total = -1 if total < 0 or s[dim] < 0 else total + s[dim]
    inferred = [next((shape(t)[d] for t in types if shape(t)[d] >= 0), -1) for d in range(rank)]
    inferred[dim] = total
    check_inferred(TensorType(element_type(types[0]), inferred), op.result.type)


def verify_slice(op) -> None:
    verify_value_kinds(op)
    check_same_element_type(op)
    s = shape(op.operand.type)
    starts, limits, strides = op.start_indices, op.limit_indices, op.strides
    if not len(starts) == len(limits) == len(strides):
        fail("failed to verify that all of {start_indices, limit_indices, strides} have same "
             "size")
    if len(starts) != len(s):
        fail(f"the number of elements in start_indices ({len(starts)}) does not match the rank "
             f"of the operand ({len(s)})")
    out = []
    for i, (a, b, c) in enumerate(zip(starts, limits, strides)):
        if a < 0:
            fail(f"negative start index {a} in dimension {i}")
        if s[i] >= 0 and b > s[i]:
            fail(f"limit index {b} is larger than dimension size {s[i]} in dimension {i}")
        if a > b:
            fail(f"start index {a} is larger than limit index {b} in dimension {i}")
        if c <= 0:
            fail(f"stride must be positive but got {c} in dimension {i}")
        out.append(-(-(b - a) // c))
    check_inferred(TensorType(element_type(op.operand.type), out), op.result.type)


def verify_pad(op) -> None:
    verify_value_kinds(op)
    check_same_element_type(op)
    s = shape(op.operand.type)
    lo, hi, inner = op.edge_padding_low, op.edge_padding_high, op.interior_padding
    if not len(lo) == len(hi) == len(inner) == len(s):
        fail(f"edge_padding_low length ({len(lo)}) must match operand rank ({len(s)})")
    out = []
    for i, d in enumerate(s):
        if inner[i] < 0:
            fail(f"Interior padding cannot be negative: {inner[i]}")
        out.append(-1 if d < 0 else d + lo[i] + hi[i] + max(d - 1, 0) * inner[i])
        if out[-1] < -1 or (d >= 0 and out[-1] < 0):
            fail(f"Padding result in negative size for dimension {i}")
    check_inferred(TensorType(element_type(op.operand.type), out), op.result.type)


__all__ = [
    "verify_batch_norm_inference", "verify_convolution", "verify_dot", "verify_dot_general",
    "verify_gather", "verify_optimization_barrier", "verify_reduce", "verify_reduce_window",
]
