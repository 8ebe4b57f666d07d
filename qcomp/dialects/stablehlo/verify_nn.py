"""Verifiers of the StableHLO contraction, gather, normalisation and region ops.

Shape inference as upstream (TypeInference.cpp):
- dot_general: `batch dims ++ lhs free dims ++ rhs free dims`.
- convolution, per spatial dimension: `padded = (in - 1) * lhs_dilation + 1 + lo + hi`,
  `window = (k - 1) * rhs_dilation + 1`, `out = (padded - window) // stride + 1`
  (0 when the window does not fit); batch `in_batch / batch_group_count`,
  feature = kernel output features.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType

from qcomp.dialects.quant import element_type
from qcomp.dialects.stablehlo import quant_verify as qv
from qcomp.dialects.stablehlo.kinds import type_text, verify_value_kinds
from qcomp.dialects.stablehlo.verify_shapes import (
    check_inferred,
    check_inferred_shape,
    dims_compatible,
    fail,
    shape,
)


def _check_distinct(a: Sequence[int], b: Sequence[int], name_a: str, name_b: str) -> None:
    seen: set[int] = set()
    for d in (*a, *b):
        if d in seen:
            fail(f"has duplicated dimension from {name_a} and {name_b}: {d}")
        seen.add(d)


def _check_in_range(rank: int, dims: Sequence[int], name: str) -> None:
    for d in dims:
        if not 0 <= d < rank:
            fail(f"{name} value: {d} is out of range: [0, {rank})")


def _check_precision(op) -> None:
    p = op.precision_config
    if p is not None and len(p.data) not in (0, 2):
        fail("expects precision config to be empty or have <= 2 elements.")


def verify_dot(op) -> None:
    verify_value_kinds(op)
    _check_precision(op)
    ls, rs = shape(op.lhs.type), shape(op.rhs.type)
    if len(ls) == 1 and len(rs) == 1 and dims_compatible(ls[0], rs[0]):
        dims: list[int] = []
    elif len(ls) == 2 and len(rs) == 1 and dims_compatible(ls[1], rs[0]):
        dims = [ls[0]]
    elif len(ls) == 1 and len(rs) == 2 and dims_compatible(ls[0], rs[0]):
        dims = [rs[1]]
    elif len(ls) == 2 and len(rs) == 2 and dims_compatible(ls[1], rs[0]):
        dims = [ls[0], rs[1]]
    else:
        fail("expected both lhs/rhs ranks to be either 1 or 2")
    check_inferred_shape(dims, op.result.type)


def verify_dot_general(op) -> None:
    verify_value_kinds(op)
    _check_precision(op)
    lb, rb = op.lhs_batching_dimensions, op.rhs_batching_dimensions
    lc, rc = op.lhs_contracting_dimensions, op.rhs_contracting_dimensions
    if len(lb) != len(rb):
        fail("lhs and rhs should have the same number of batching dimensions")
    if len(lc) != len(rc):
        fail("lhs and rhs should have the same number of contracting dimensions")
    _check_distinct(lb, lc, "lhs_batching_dimensions", "lhs_contracting_dimensions")
    _check_distinct(rb, rc, "rhs_batching_dimensions", "rhs_contracting_dimensions")
    ls, rs = shape(op.lhs.type), shape(op.rhs.type)
    _check_in_range(len(ls), lb, "lhs_batching_dimensions")
    _check_in_range(len(ls), lc, "lhs_contracting_dimensions")
    _check_in_range(len(rs), rb, "rhs_batching_dimensions")
    _check_in_range(len(rs), rc, "rhs_contracting_dimensions")
    for a, b in zip(lb, rb):
        if not dims_compatible(ls[a], rs[b]):
            fail("batching dimension sizes must match for lhs/rhs")
    for a, b in zip(lc, rc):
        if not dims_compatible(ls[a], rs[b]):
            fail("contracting dimension sizes must match for lhs/rhs")
    dims = [ls[a] if ls[a] >= 0 else rs[b] for a, b in zip(lb, rb)]
    dims += [ls[i] for i in range(len(ls)) if i not in lb and i not in lc]
    dims += [rs[i] for i in range(len(rs)) if i not in rb and i not in rc]
    check_inferred_shape(dims, op.result.type)
    qv.verify_dot_general(op.lhs.type, op.rhs.type, op.result.type, rc, rb)


def _strided_bound(bound: int, window: int, stride: int) -> int:
    if bound == 0 or window > bound:
        return 0
    return (bound - window) // stride + 1


def _conv_dimension_checks(op, lt: TensorType, rt: TensorType) -> None:
    n = len(lt.get_shape())
    in_sp, k_sp, out_sp = (op.input_spatial_dimensions, op.kernel_spatial_dimensions,
                           op.output_spatial_dimensions)
    if not len(in_sp) == len(k_sp) == len(out_sp):
        fail("expects the same size for input, kernel and output spatial-dimensions, but got "
             f"{len(in_sp)}, {len(k_sp)}, and {len(out_sp)} resp.")
    groups = [
        [op.input_batch_dimension, *in_sp, op.input_feature_dimension],
        [op.kernel_input_feature_dimension, *k_sp, op.kernel_output_feature_dimension],
        [op.output_batch_dimension, *out_sp, op.output_feature_dimension],
    ]
    if any(not 0 <= d < n for g in groups for d in g):
        fail(f"expects input, kernel, and output dimension-numbers to be in-range [0, {n}).")
    for g, label in zip(groups, ("input", "kernel", "output")):
        if len(set(g)) != len(g):
            fail(f"expects {label} dimension-numbers to be unique, got {{"
                 f"{', '.join(map(str, g))}}}.")
    fgc, bgc = op.feature_group_count, op.batch_group_count
    if fgc < 1 or bgc < 1:
        fail("expects feature_group_count and batch_group_count to be positive")
    if bgc > 1 and fgc > 1:
        fail("expects batch_group_count and feature_group_count not to be both greater than 1."
             f" Got {bgc} and {fgc} resp.")
    ls, rs = lt.get_shape(), rt.get_shape()
    in_f, in_b = ls[op.input_feature_dimension], ls[op.input_batch_dimension]
    k_in, k_out = rs[op.kernel_input_feature_dimension], rs[op.kernel_output_feature_dimension]
    if in_b >= 0 and in_b % bgc != 0:
        fail(f"expects input batch dimension ({in_b}) to be divisible by batch_group_count. "
             f"Got batch_group_count = {bgc}.")
    if in_f >= 0:
        if in_f % fgc != 0:
            fail(f"expects input feature dimension ({in_f}) to be a multiple of "
                 f"feature_group_count. Got feature_group_count = {fgc}.")
        if k_in >= 0 and in_f // fgc != k_in:
            fail(f"expects input feature dimension ({in_f}) / feature_group_count = kernel "
                 f"input feature dimension ({k_in}). Got feature_group_count = {fgc}.")
    if k_out >= 0:
        if k_out % bgc != 0:
            fail(f"expects output feature dimension size ({k_out}) to be a multiple of "
                 f"batch_group_count. Got batch_group_count = {bgc}.")
        if k_out % fgc != 0:
            fail(f"expects kernel output feature dimension ({k_out}) to be divisible by "
                 f"feature_group_count. For feature_group_count = {fgc}.")


def verify_convolution(op) -> None:
    verify_value_kinds(op)
    lt, rt, ot = op.lhs.type, op.rhs.type, op.result.type
    assert isinstance(lt, TensorType) and isinstance(rt, TensorType)
    n = len(lt.get_shape())
    if n < 2:
        fail(f"expects convolution arguments to have >= 2 dimensions. Got: '{type_text(lt)}' and "
             f"'{type_text(rt)}'.")
    if n != len(rt.get_shape()):
        fail("expects convolution arguments to have same number of dimensions. Got: "
             f"'{type_text(lt)}' and '{type_text(rt)}'.")
    _conv_dimension_checks(op, lt, rt)
    _check_precision(op)
    k = len(op.input_spatial_dimensions)
    if n != k + 2:
        fail(f"expects convolution arguments to have {k + 2} dimensions. Got: {n}")
    window = [rt.get_shape()[d] for d in op.kernel_spatial_dimensions]
    for attr, name in ((op.window_strides_attr, "window_strides"),
                       (op.lhs_dilation_attr, "lhs_dilation"),
                       (op.rhs_dilation_attr, "rhs_dilation"),
                       (op.window_reversal_attr, "window_reversal")):
        if attr is not None and len(attr.get_values()) != k:
            fail(f"expects {name} to have same dimension-size as size of window dimensions "
                 f"({k}), but got: {len(attr.get_values())}.")
    if op.padding_attr is not None and len(op.padding) != k:
        fail(f"expects padding-entries to have same dimension-size as size of window "
             f"dimensions ({k}), but got: {len(op.padding)}.")
    strides, lhs_d, rhs_d, pads = op.window_strides, op.lhs_dilation, op.rhs_dilation, op.padding
    for i in range(k):
        if window[i] >= 0 and window[i] <= 0:
            fail(f"expects window to have positive value for {i}-th window dimension, but got "
                 f"{window[i]}.")
        for value, label in ((strides[i], "stride"), (lhs_d[i], "base dilation factor"),
                             (rhs_d[i], "window dilation factor")):
            if value <= 0:
                fail(f"expects window to have positive {label} for {i}-th window dimension, "
                     f"but got {value}.")
    ls = lt.get_shape()
    out = [-1] * n
    for i, (d_in, d_out) in enumerate(zip(op.input_spatial_dimensions,
                                          op.output_spatial_dimensions)):
        size = ls[d_in]
        if size < 0 or window[i] < 0:
            continue
        base = 0 if size == 0 else (size - 1) * lhs_d[i] + 1
        padded = base + pads[i][0] + pads[i][1]
        dilated_window = 0 if window[i] == 0 else (window[i] - 1) * rhs_d[i] + 1
        out[d_out] = _strided_bound(padded, dilated_window, strides[i])
    in_b = ls[op.input_batch_dimension]
    out[op.output_batch_dimension] = -1 if in_b < 0 else in_b // op.batch_group_count
    out[op.output_feature_dimension] = rt.get_shape()[op.kernel_output_feature_dimension]
    check_inferred_shape(out, ot)
    qv.verify_convolution(lt, rt, ot, op.kernel_output_feature_dimension,
                          op.output_feature_dimension, op.kernel_input_feature_dimension,
                          op.feature_group_count, op.batch_group_count)


def verify_gather(op) -> None:
    verify_value_kinds(op)
    if element_type(op.operand.type) != element_type(op.result.type):
        fail("failed to verify that all of {operand, result} have same element type")
    dn = op.dimension_numbers
    os_ = shape(op.operand.type)
    ss = op.slice_sizes
    n_off, n_col, n_bat = (len(dn.offset_dims), len(dn.collapsed_slice_dims),
                           len(dn.operand_batching_dims))
    if n_off + n_col + n_bat != len(os_):
        fail(f"offset_dims size ({n_off}) plus collapse_slice_dims size ({n_col}) plus "
             f"operand_batching_dims size ({n_bat}) is not equal to operand rank ({len(os_)})")
    if len(ss) != len(os_):
        fail(f"slice_sizes size ({len(ss)}) not equal to (implied) operand rank ({len(os_)})")
    for i, s in enumerate(ss):
        if s < 0 or (os_[i] >= 0 and s > os_[i]):
            fail(f"slice size ({s}) is out of bounds for operand dimension ({os_[i]}) at index "
                 f"{i}")
    for d in dn.collapsed_slice_dims:
        if not 0 <= d < len(os_):
            fail(f"collapsed dimension {d} is out of bounds for slice_sizes.size ({len(ss)})")
        if ss[d] > 1:
            fail(f"Expects that for each dim in collapsed_slice_dims, slice_sizes[dim] should "
                 f"be <= 1, but got {ss[d]}")
    idx = shape(op.start_indices.type)
    ivd = dn.index_vector_dim
    if not 0 <= ivd <= len(idx):
        fail(f"index_vector_dim {ivd} is out of bounds for start indices with rank {len(idx)}")
    index_size = idx[ivd] if ivd < len(idx) else 1
    if index_size >= 0 and len(dn.start_index_map) != index_size:
        fail(f"start_index_map size ({len(dn.start_index_map)}) is not equal to size of index "
             f"dimension ({ivd}) of start_indices ({index_size})")
    batch = [idx[i] for i in range(len(idx)) if i != ivd]
    offsets = [ss[i] for i in range(len(ss))
               if i not in dn.collapsed_slice_dims and i not in dn.operand_batching_dims]
    rank = len(batch) + len(offsets)
    for d in dn.offset_dims:
        if not 0 <= d < rank:
            fail("Expects each element of offset_dims to be in range [0, implied-result-rank) "
                 f"i.e. [0, {rank}). got: {d}.")
    if len(shape(op.result.type)) != rank:
        return check_inferred(TensorType(element_type(op.operand.type), [-1] * rank),
                              op.result.type)
    out: list[int] = []
    bi = oi = 0
    for i in range(rank):
        if i in dn.offset_dims:
            out.append(offsets[oi] if oi < len(offsets) else -1)
            oi += 1
        else:
            out.append(batch[bi] if bi < len(batch) else -1)
            bi += 1
    check_inferred(TensorType(element_type(op.operand.type), out), op.result.type)


def verify_batch_norm_inference(op) -> None:
    verify_value_kinds(op)
    s = shape(op.operand.type)
    fi = op.feature_index
    if fi < 0 or fi >= 1 << 63:  # a signless i64: 2^64 - 1 is -1
        fail("attribute 'feature_index' failed to satisfy constraint: 64-bit signless integer "
             "attribute whose value is non-negative")
    if fi >= len(s):
        fail(f"expects featureIndex to be smaller than the rank of multi-dimensional operands; "
             f"got featureIndex {fi}, and rank {len(s)}.")
    for v in (op.scale, op.offset, op.mean, op.variance):
        n = shape(v.type)[0]
        if not dims_compatible(n, s[fi]):
            fail(f"expects the size of single-dimensional operands to be compatible with "
                 f"feature count, but the size of single-dimensional operands is {n} and the "
                 f"feature count is {s[fi]}.")
    check_inferred(op.operand.type, op.result.type)


def _check_reducer(op, n: int) -> None:
    if len(op.init_values) != n:
        fail("expects the size of inputs and init_values to be equal")
    if not op.body.blocks:
        fail("expect non-empty region")
    args = op.body.block.args
    if len(args) != 2 * n:
        fail(f"Reduction-region must take {2 * n} parameters, but takes {len(args)} "
             "parameter(s)")


def _accumulator_types(op, n: int) -> list:
    """Types the reducer returns (the init types when the body has no return yet)."""
    block = op.body.block
    last = block.last_op
    if last is not None and len(last.operands) == n:
        for i, (v, init) in enumerate(zip(last.operands, op.init_values)):
            if shape(v.type) != shape(init.type):
                fail(f"The shape of reduction-region's result type at index {i} differs from the "
                     f"op's corresponding init-value type: '{type_text(v.type)}' vs "
                     f"'{type_text(init.type)}'")
        return [v.type for v in last.operands]
    return [v.type for v in op.init_values]


def verify_reduce(op) -> None:
    verify_value_kinds(op)
    n = len(op.inputs)
    _check_reducer(op, n)
    rank = len(shape(op.inputs[0].type)) if n else 0
    dims = op.dimensions
    if len(set(dims)) != len(dims):
        fail("Dimensions should be unique. Got: " + ", ".join(map(str, dims)))
    for d in dims:
        if not 0 <= d < rank:
            fail(f"Out-of-bounds dimension {d}, expected to be in range [0, {rank})")
    accs = _accumulator_types(op, n)
    for x, acc, res in zip(op.inputs, accs, op.results):
        kept = [d for i, d in enumerate(shape(x.type)) if i not in dims]
        check_inferred(TensorType(element_type(acc), kept), res.type)


def verify_reduce_window(op) -> None:
    verify_value_kinds(op)
    n = len(op.inputs)
    _check_reducer(op, n)
    rank = len(shape(op.inputs[0].type)) if n else 0
    window = op.window_dimensions
    if len(window) != rank:
        fail(f"expects window-dimensions size == input rank, but got window-dimensions size: "
             f"{len(window)} and input: '{type_text(op.inputs[0].type)}' with rank = {rank}.")
    strides, base, wdil, pads = (op.window_strides, op.base_dilations, op.window_dilations,
                                 op.padding)
    for attr, name in ((strides, "window-strides"), (base, "base-dilation factors"),
                       (wdil, "window-dilation factors"), (pads, "padding-entries")):
        if len(attr) != rank:
            fail(f"expects {name} to have same dimension-size as size of window dimensions "
                 f"({rank}), but got: {len(attr)}.")
    accs = _accumulator_types(op, n)
    for x, acc, res in zip(op.inputs, accs, op.results):
        out = []
        for i, size in enumerate(shape(x.type)):
            if size < 0:
                out.append(-1)
                continue
            padded = (0 if size == 0 else (size - 1) * base[i] + 1) + pads[i][0] + pads[i][1]
            win = 0 if window[i] == 0 else (window[i] - 1) * wdil[i] + 1
            out.append(_strided_bound(padded, win, strides[i]))
        check_inferred(TensorType(element_type(acc), out), res.type)


def verify_optimization_barrier(op) -> None:
    ins = [v.type for v in op.operands]
    outs = [r.type for r in op.results]
    if len(ins) != len(outs):
        fail("requires the same number of operands and results")
    for i, (a, b) in enumerate(zip(ins, outs)):
        if a != b:
            fail(f"requires the same type for operand and result at index {i}")
