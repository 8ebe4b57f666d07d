"""Which StableHLO ops have a quantized form, and when a quantized op is legal.

Shared by the two QDQ passes. The rules are the StableHLO spec's constraints on
quantized operands and results (docs/spec.md, "Constraints" of each op):

- ops whose quantized meaning is `dequantize_op_quantize` (declared `fusable`
  dequantize-op-quantize ops) take per-tensor types whose baseline (storage type,
  storage range, expressed type) is the same for every operand and the result; `add`
  (the one such op declaring `per_axis`) also allows per-axis (C3-C7);
- ops that only move elements (declared `fusable` type-only ops) keep the stored
  integers: per-tensor
  operand and result types must be equal; per-axis is allowed on `transpose`,
  `reshape` and `broadcast_in_dim` when the quantized dimension follows the op
  (transpose C4, reshape C3, broadcast_in_dim C6) and the parameters are the same;
- `dot`, `dot_general`, `convolution`: lhs per-tensor, `storage_type(lhs) =
  storage_type(rhs)`, one expressed type, per-tensor rhs implies per-tensor result
  (dot_general C17-C19, convolution C31-C33); `dot`/`dot_general`: rhs zero points
  all 0 (C15), a per-axis rhs not along a contracting dimension (C16), a per-axis
  result along the dimension rhs's quantized dimension becomes; `convolution`: a
  per-axis rhs along the kernel output feature dimension (C29), a per-axis result
  along the output feature dimension (C30). (The spec puts no zero-point
  constraint on convolution's rhs.)

`refusal(...)` returns why a quantized op would be illegal, or None when it is legal.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType, quantized_element
from qcomp.dialects.stablehlo.undefined import op_name, quantization_of


def _q(t: Attribute) -> UniformQuantizedType | None:
    return quantized_element(t)


def _baseline(q: UniformQuantizedType) -> tuple:
    return (q.storage_key, q.storage_min, q.storage_max, q.expressed_type)


def _name(q: UniformQuantizedType) -> str:
    return "per-axis" if q.is_per_axis else "per-tensor" if q.is_per_tensor else "sub-channel"


def _dq_op_q_refusal(name: str, per_axis: bool, ins: Sequence[UniformQuantizedType],
                     out: UniformQuantizedType) -> str | None:
    every = [*ins, out]
    short = name.removeprefix("stablehlo.")
    if per_axis:  # add's constraints (spec C3-C7)
        if len({q.storage_key for q in every}) != 1:
            return f"{short}: operand and result storage types differ (spec C3)"
        if len({q.expressed_type for q in every}) != 1:
            return f"{short}: operand and result expressed types differ (spec C4)"
        if any(q.is_per_axis for q in ins) != out.is_per_axis:
            return f"{short}: result is per-axis exactly when an operand is (spec C5)"
        for q in ins:
            if q.is_per_axis and q.quantized_dimension != out.quantized_dimension:
                return (f"{short}: per-axis operand and result quantize different dimensions "
                        "(spec C6, C7)")
        return None
    for q in every:
        if not q.is_per_tensor:
            return f"{name.removeprefix('stablehlo.')} takes per-tensor quantization only, not {_name(q)}"
    if len({_baseline(q) for q in every}) != 1:
        return ("operands and result differ in storage type, storage range or expressed type "
                "(baseline_element_type)")
    return None


def _rhs_dim_in_result(op: Operation, rhs_rank: int, lhs_rank: int, dim: int) -> int | None:
    """Where rhs dimension `dim` lands in a dot/dot_general result (None: contracted)."""
    if isinstance(op, sh.DotOp):
        if dim == 0:
            return None
        return (lhs_rank - 1) + (dim - 1)
    dn = op.properties.get("dot_dimension_numbers")
    if dn is None:
        return None
    rb = list(getattr(dn, "rhs_batching_dimensions"))
    rc = list(getattr(dn, "rhs_contracting_dimensions"))
    lc = list(getattr(dn, "lhs_contracting_dimensions"))
    if dim in rc:
        return None
    if dim in rb:
        return rb.index(dim)
    lhs_free = lhs_rank - len(rb) - len(lc)
    rhs_free = [d for d in range(rhs_rank) if d not in rb and d not in rc]
    return len(rb) + lhs_free + rhs_free.index(dim)


def _contraction_refusal(op: Operation, operand_types: Sequence[Attribute],
                         result_type: Attribute) -> str | None:
    short = op_name(op).removeprefix("stablehlo.")
    conv = isinstance(op, sh.ConvolutionOp)
    # the spec's constraint numbers: dot_general C15-C19, convolution C29-C33
    c = (dict(storage="C31", expressed="C32", per_tensor="C33") if conv else
         dict(storage="C17", expressed="C18", per_tensor="C19"))
    lhs, rhs, out = _q(operand_types[0]), _q(operand_types[1]), _q(result_type)
    if lhs is None or rhs is None or out is None:
        return f"{short}: lhs, rhs and result must all be quantized"
    if not lhs.is_per_tensor:
        return f"{short}: lhs must be per-tensor quantized, not {_name(lhs)}"
    if rhs.is_blockwise or out.is_blockwise:
        return f"{short}: sub-channel quantization is not a StableHLO type"
    if lhs.storage_key != rhs.storage_key:
        return f"{short}: lhs and rhs storage types differ (spec {c['storage']})"
    if len({lhs.expressed_type, rhs.expressed_type, out.expressed_type}) != 1:
        return f"{short}: lhs, rhs and result expressed types differ (spec {c['expressed']})"
    if not conv and any(int(z) != 0 for z in rhs.zero_points.flat):
        return f"{short}: rhs zero points must be 0 (spec C15)"
    if rhs.is_per_tensor and not out.is_per_tensor:
        return f"{short}: a per-tensor rhs needs a per-tensor result (spec {c['per_tensor']})"
    if conv:
        dn = op.properties.get("dimension_numbers")
        kof = getattr(dn, "kernel_output_feature_dimension", None)
        of = getattr(dn, "output_feature_dimension", None)
        if rhs.is_per_axis and rhs.quantized_dimension != kof:
            return "convolution: per-axis rhs must quantize the kernel output feature dimension (spec C29)"
        if out.is_per_axis and out.quantized_dimension != of:
            return "convolution: per-axis result must quantize the output feature dimension (spec C30)"
        return None
    if not rhs.is_per_axis:
        return None
    rank_l = len(operand_types[0].get_shape()) if isinstance(operand_types[0], TensorType) else 0
    rank_r = len(operand_types[1].get_shape()) if isinstance(operand_types[1], TensorType) else 0
    axis = rhs.quantized_dimension
    landed = _rhs_dim_in_result(op, rank_r, rank_l, axis)
    if landed is None:
        return f"{short}: per-axis rhs must not quantize a contracting dimension (spec C16)"
    if out.is_per_axis and out.quantized_dimension != landed:
        return (f"{short}: per-axis result must quantize dimension {landed}, where rhs "
                f"dimension {axis} lands")
    return None


def _params(q: UniformQuantizedType) -> tuple[tuple[float, ...], tuple[int, ...]]:
    return (tuple(float(v) for v in q.scales.flat), tuple(int(v) for v in q.zero_points.flat))


def _dims_product(shape: Sequence[int], dims: range) -> int:
    out = 1
    for d in dims:
        out *= shape[d]
    return out


def _per_axis_movement_refusal(op: Operation, operand_type: Attribute, result_type: Attribute,
                               a: UniformQuantizedType, r: UniformQuantizedType) -> str | None:
    """Per-axis `transpose`, `reshape`, `broadcast_in_dim`: the quantized dimension must
    follow the op (spec transpose C4, reshape C3, broadcast_in_dim C6) and every
    element keep its scale and zero point."""
    short = op_name(op).removeprefix("stablehlo.")
    if not (a.is_per_axis and r.is_per_axis):
        return f"{short}: operand and result must both be per-axis or both per-tensor"
    if _baseline(a) != _baseline(r):
        return f"{short}: operand and result differ in storage or expressed type"
    in_shape = list(operand_type.get_shape()) if isinstance(operand_type, TensorType) else []
    out_shape = list(result_type.get_shape()) if isinstance(result_type, TensorType) else []
    qa, qr = a.quantized_dimension, r.quantized_dimension
    if isinstance(op, sh.TransposeOp):
        perm = list(getattr(op, "permutation", ()))
        if qr >= len(perm) or perm[qr] != qa:
            return "transpose: the result's quantized dimension must be the operand's, permuted (spec C4)"
    elif isinstance(op, sh.ReshapeOp):
        if (_dims_product(in_shape, range(qa)) != _dims_product(out_shape, range(qr))
                or in_shape[qa] != out_shape[qr]
                or _dims_product(in_shape, range(qa + 1, len(in_shape)))
                != _dims_product(out_shape, range(qr + 1, len(out_shape)))):
            return "reshape: the quantized dimension must keep its place in the element order (spec C3)"
    elif isinstance(op, sh.BroadcastInDimOp):
        bdims = list(getattr(op, "broadcast_dimensions", ()))
        if qa >= len(bdims) or bdims[qa] != qr:
            return "broadcast_in_dim: the result's quantized dimension must be broadcast_dimensions[operand's] (spec C6)"
        if in_shape[qa] == 1:
            sa, za = _params(a)
            sr, zr = _params(r)
            if set(sr) != set(sa) or set(zr) != set(za):
                return "broadcast_in_dim: a size-1 quantized dimension repeats its one scale and zero point (spec C6)"
            return None
    else:
        return f"{short} takes per-tensor quantization only"
    if _params(a) != _params(r):
        return (f"{short} keeps the stored integers, so operand and result scales and zero "
                "points must be equal")
    return None


def _movement_refusal(op: Operation, operand_types: Sequence[Attribute], result_type: Attribute,
                      ins: Sequence[UniformQuantizedType], out: UniformQuantizedType) -> str | None:
    short = op_name(op).removeprefix("stablehlo.")
    if any(q.is_per_axis for q in [*ins, out]):
        if len(ins) != 1:
            return f"{short} takes per-tensor quantization only"
        return _per_axis_movement_refusal(op, operand_types[0], result_type, ins[0], out)
    if len(set([*ins, out])) != 1:
        return (f"{short} keeps the stored integers, so operand and result quantization "
                "must be equal")
    return None


def refusal(op: Operation, operand_types: Sequence[Attribute],
            result_type: Attribute) -> str | None:
    """Why `op` with these (quantized) operand and result types would not be a legal
    quantized StableHLO op, or None when it is."""
    name = op_name(op)
    ins = [_q(t) for t in operand_types]
    out = _q(result_type)
    if out is None or any(q is None for q in ins):
        return "every operand and the result must be quantized"
    ins_q = [q for q in ins if q is not None]
    if any(q.is_blockwise for q in [*ins_q, out]):
        return "sub-channel quantization is not a StableHLO type"
    if isinstance(op, sh.DotOp | sh.DotGeneralOp | sh.ConvolutionOp):
        return _contraction_refusal(op, operand_types, result_type)
    facts = quantization_of(op)
    if facts is not None and facts.fusable and facts.dequantize_op_quantize:
        return _dq_op_q_refusal(name, facts.per_axis, ins_q, out)
    if facts is not None and facts.fusable and facts.type_only:
        return _movement_refusal(op, operand_types, result_type, ins_q, out)
    return f"'{name}' has no quantized form in the StableHLO spec"
