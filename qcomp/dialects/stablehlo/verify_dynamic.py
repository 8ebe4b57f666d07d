"""Verifiers of the dynamic-shape StableHLO ops (upstream's TypeInference.cpp order and
messages). A shape, size or padding operand defined by `stablehlo.constant` is read as
upstream's `matchInts` reads it, and checked against the result type.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from types import SimpleNamespace

from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import SSAValue

from qcomp.dialects.quant import element_type
from qcomp.dialects.stablehlo.kinds import type_text, verify_value_kinds
from qcomp.dialects.stablehlo.ops import ConstantOp
from qcomp.dialects.stablehlo.verify_nn import (
    _conv_dimension_checks,
    verify_convolution,
    verify_gather,
)
from qcomp.dialects.stablehlo.verify_shapes import (
    check_inferred,
    compatible_elements,
    dims_compatible,
    fail,
    shape,
    shapes_compatible,
)
from qcomp.ir.splat import Repeated, dense_values


def constant_ints(value: SSAValue) -> list[int] | None:
    """The integers of `value` when a `stablehlo.constant` defines it (upstream's matchInts)."""
    owner = value.owner
    if not isinstance(owner, ConstantOp):
        return None
    attr = owner.value
    if not isinstance(element_type(attr.type), IntegerType):
        return None
    values = dense_values(attr)
    if isinstance(values, Repeated):  # a splat held as one element: not copied
        return Repeated(int(values.value), len(values))  # type: ignore[return-value]
    n = math.prod(shape(attr.type))
    values = [int(v) for v in values]
    return values * n if len(values) == 1 and n != 1 else values


def _list_text(values: Sequence[int]) -> str:
    """`1, 2, 3`; a held splat's thousands of copies end in `...`."""
    if isinstance(values, Repeated) and len(values) > 64:
        return ", ".join(map(str, values[:64])) + f", ... ({len(values)} values)"
    return ", ".join(map(str, values))


def _check_shape_operand(shape_value: SSAValue, result_type) -> None:
    dims = constant_ints(shape_value)
    if dims is not None and not shapes_compatible(dims, shape(result_type)):
        fail(f"output shape [{_list_text(dims)}] is incompatible with return type of "
             f"operation '{type_text(result_type)}'")


def _check_compatible_elements(operand, result) -> None:
    from qcomp.dialects.quant import quantized_element

    if quantized_element(operand) is None and quantized_element(result) is None and \
            not compatible_elements(operand, result):
        fail("expects operand and result to have compatible element type. Got: "
             f"'{type_text(operand)}' and '{type_text(result)}'")


def verify_dynamic_broadcast_in_dim(op) -> None:
    verify_value_kinds(op)
    ot, rt = op.operand.type, op.result.type
    _check_compatible_elements(ot, rt)
    dims = op.broadcast_dimensions
    os_, rs = shape(ot), shape(rt)
    if len(dims) != len(os_):
        fail(f"broadcast_dimensions size ({len(dims)}) does not match operand rank ({len(os_)})")
    if len(rs) < len(os_):
        fail(f"result rank ({len(rs)}) is less than operand rank ({len(os_)})")
    if len(set(dims)) != len(dims):
        fail("broadcast_dimensions should not have duplicates")
    for i, d in enumerate(dims):
        if not 0 <= d < len(rs):
            fail(f"broadcast_dimensions contains invalid value {d} for result with rank {len(rs)}")
        if os_[i] != 1 and not dims_compatible(os_[i], rs[d]):
            fail(f"size of operand dimension {i} ({_dim(os_[i])}) is not compatible with size "
                 f"of result dimension {d} ({_dim(rs[d])})")
    _check_shape_operand(op.output_dimensions, rt)
    hints = [*(_values(op.known_expanding_dimensions)), *(_values(op.known_nonexpanding_dimensions))]
    if len(set(hints)) != len(hints):
        fail("duplicate expansion hint for at least one operand dimension")
    for i in set(hints):
        if not 0 <= i < len(os_):
            fail(f"hint for expanding dimension {i} does not refer to a valid operand dimension")
    wanted = constant_ints(op.output_dimensions)
    if wanted is not None and all(d >= 0 for d in os_):
        for i, d in enumerate(dims):
            if os_[i] != 1 and d < len(wanted) and os_[i] != wanted[d]:
                fail(f"size of operand dimension {i} ({os_[i]}) is not equal to 1 or value of "
                     f"shape at index {d} ({wanted[d]})")


def _dim(d: int) -> str:
    return "?" if d < 0 else str(d)


def _values(attr) -> list[int]:
    return [int(v) for v in attr.get_values()] if attr is not None else []


def verify_dynamic_iota(op) -> None:
    verify_value_kinds(op)
    if op.iota_dimension < 0:
        fail("attribute 'iota_dimension' failed to satisfy constraint: 64-bit signless "
             "integer attribute whose value is non-negative")
    if op.iota_dimension >= len(shape(op.result.type)):
        fail("iota dimension cannot go beyond the output rank.")
    _check_shape_operand(op.output_shape, op.result.type)


def verify_dynamic_reshape(op) -> None:
    verify_value_kinds(op)
    ot, rt = op.operand.type, op.result.type
    _check_compatible_elements(ot, rt)
    os_, rs = shape(ot), shape(rt)
    static = all(d >= 0 for d in os_)
    if static and all(d >= 0 for d in rs) and math.prod(rs) != math.prod(os_):
        fail(f"number of output elements ({math.prod(rs)}) doesn't match expected number of "
             f"elements ({math.prod(os_)})")
    _check_shape_operand(op.output_shape, rt)
    if shape(op.output_shape.type)[0] != len(rs):
        fail("result should have a rank equal to the number of elements in output_shape")
    wanted = constant_ints(op.output_shape)
    if static and wanted is not None and math.prod(wanted) != math.prod(os_):
        fail(f"output_shape is incompatible with input type of operation: input has "
             f"{math.prod(os_)} elements, but output_shape has {math.prod(wanted)}")


def verify_real_dynamic_slice(op) -> None:
    verify_value_kinds(op)
    if element_type(op.operand.type) != element_type(op.result.type):
        fail("failed to verify that all of {operand, result} have same element type")
    types = [op.start_indices.type, op.limit_indices.type, op.strides.type]
    if any(t != types[0] for t in types):
        fail("failed to verify that all of {start_indices, limit_indices, strides} have same "
             "type")
    rank = len(shape(op.operand.type))
    for name, t in zip(("start_indices", "limit_indices", "strides"), types):
        n = math.prod(shape(t))
        if n != rank:
            fail(f"has mismatched number of operand rank ({rank}) and {name} size ({n})")


def verify_dynamic_pad(op) -> None:
    verify_value_kinds(op)
    e = element_type(op.operand.type)
    if element_type(op.padding_value.type) != e or element_type(op.result.type) != e:
        fail("failed to verify that all of {operand, padding_value, result} have same "
             "element type")
    pads = (op.edge_padding_low, op.edge_padding_high, op.interior_padding)
    if any(p.type != pads[0].type for p in pads):
        fail("failed to verify that all of {edge_padding_low, edge_padding_high, "
             "interior_padding} have same type")
    os_, rs = shape(op.operand.type), shape(op.result.type)
    if len(os_) != len(rs):
        fail("failed to verify that all of {operand, result} have same rank")
    n = shape(pads[0].type)[0]
    if n != len(os_):
        fail(f"padding operands size ({n}) must match operand rank ({len(os_)})")
    interior = constant_ints(op.interior_padding)
    if interior is not None and any(i < 0 for i in interior):
        fail(f"interior_padding must be non-negative, but got {_list_text(interior)}")
    low, high = constant_ints(op.edge_padding_low), constant_ints(op.edge_padding_high)
    if interior is None or low is None or high is None or any(d < 0 for d in (*os_, *rs)):
        return
    for i, (d_in, d_out) in enumerate(zip(os_, rs)):
        want = d_in + low[i] + max(d_in - 1, 0) * interior[i] + high[i]
        if d_out != want:
            fail(f"expected output dimension at index {i} to equal {want}, but got {d_out}")


def _check_start_indices(op, starts: Sequence[SSAValue]) -> None:
    if len({element_type(s.type) for s in starts}) > 1:
        fail("start indices must have same element type")


def verify_dynamic_slice(op) -> None:
    verify_value_kinds(op)
    if element_type(op.operand.type) != element_type(op.result.type):
        fail("failed to verify that all of {operand, result} have same element type")
    sizes, starts = op.slice_sizes, list(op.start_indices)
    os_ = shape(op.operand.type)
    if len(starts) != len(sizes):
        fail(f"has mismatched number of slice sizes ({len(sizes)}) and number of start "
             f"indices ({len(starts)})")
    if len(os_) != len(starts):
        fail(f"has mismatched number of start indices ({len(starts)}) and the rank of operand "
             f"({len(os_)})")
    _check_start_indices(op, starts)
    for i, s in enumerate(sizes):
        if s < 0:
            fail(f"has negative size index to dynamic slice: {s}")
        if os_[i] >= 0 and s > os_[i]:
            fail(f"has slice size {s} greater than dimension size {os_[i]} in dimension {i} of "
                 "operand")
    check_inferred(TensorType(element_type(op.operand.type), sizes), op.result.type)


def verify_dynamic_update_slice(op) -> None:
    verify_value_kinds(op)
    e = element_type(op.operand.type)
    if element_type(op.update.type) != e or element_type(op.result.type) != e:
        fail("failed to verify that all of {operand, update, result} have same element type")
    os_, us = shape(op.operand.type), shape(op.update.type)
    starts = list(op.start_indices)
    if len(us) != len(os_):
        fail(f"update rank does not match operand rank: {len(us)} vs {len(os_)}.")
    if len(starts) != len(os_):
        fail(f"expects number of start_indices to match operand rank: {len(starts)} vs "
             f"{len(os_)}.")
    _check_start_indices(op, starts)
    for i, (o, u) in enumerate(zip(os_, us)):
        if u < 0:
            continue
        if o >= 0 and u > o:
            fail(f"expects size at dimension {i} of update to be in range [0, {o}]. Got: {u}.")
    check_inferred(op.operand.type, op.result.type)


def verify_get_dimension_size(op) -> None:
    verify_value_kinds(op)
    d, rank = op.dimension, len(shape(op.operand.type))
    if d < 0:
        fail(f"requires non-negative dimension attribute; found ({d})")
    if d >= rank:
        fail(f"requires dimension attribute in range [0, {rank}); found ({d})")
    t = op.result.type
    if not (isinstance(t, TensorType) and shape(t) == () and element_type(t) == IntegerType(32)):
        fail(f"inferred type(s) 'tensor<i32>' are incompatible with return type(s) of "
             f"operation '{type_text(t)}'")


def verify_dynamic_gather(op) -> None:
    verify_value_kinds(op)
    sizes = constant_ints(op.slice_sizes)
    if sizes is None:
        return
    verify_gather(SimpleNamespace(
        operand=op.operand, start_indices=op.start_indices, result=op.result,
        dimension_numbers=op.dimension_numbers,
        slice_sizes=sizes if isinstance(sizes, Repeated) else tuple(sizes), operands=op.operands,
        results=op.results, get_trait=lambda _: None))


def verify_dynamic_conv(op) -> None:
    """The convolution checks; with constant padding the result shape too."""
    verify_value_kinds(op)
    pads = constant_ints(op.d_padding)
    lt = op.lhs.type
    k = len(op.dimension_numbers.input_spatial_dimensions)
    from qcomp.dialects.stablehlo.format import array_values

    def arr(attr, default):
        return array_values(attr) or (default,) * k

    view = SimpleNamespace(
        lhs=op.lhs, rhs=op.rhs, result=op.result, operands=op.operands, results=op.results,
        get_trait=lambda _: None, precision_config=op.precision_config,
        window_strides_attr=op.window_strides_attr, lhs_dilation_attr=op.lhs_dilation_attr,
        rhs_dilation_attr=op.rhs_dilation_attr, window_reversal_attr=op.window_reversal_attr,
        padding_attr=None, window_strides=arr(op.window_strides_attr, 1),
        lhs_dilation=arr(op.lhs_dilation_attr, 1), rhs_dilation=arr(op.rhs_dilation_attr, 1),
        feature_group_count=op.feature_group_count_attr.value.data,
        batch_group_count=op.batch_group_count_attr.value.data,
        padding=(((0, 0),) * k if not pads else Repeated((pads[0], pads[0]), len(pads) // 2)
                 if isinstance(pads, Repeated) else tuple(zip(pads[0::2], pads[1::2]))),
        **{n: getattr(op.dimension_numbers, n) for n in (
            "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
            "kernel_input_feature_dimension", "kernel_output_feature_dimension",
            "kernel_spatial_dimensions", "output_batch_dimension", "output_feature_dimension",
            "output_spatial_dimensions")})
    ps = shape(op.d_padding.type)
    n = len(shape(lt))
    if len(ps) != 2:
        fail(f"expects padding to be of rank 2 but got {len(ps)}")
    if n >= 2 and (ps[0] != n - 2 or ps[1] != 2):
        fail(f"expects padding to be of shape [{n - 2}, 2], but got [{ps[0]}, {ps[1]}]")
    if pads is None:  # upstream infers nothing more without the padding's values
        _conv_dimension_checks(view, lt, op.rhs.type)
        return
    verify_convolution(view)
