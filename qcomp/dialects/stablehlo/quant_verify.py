"""Quantization constraints of the StableHLO spec, as upstream checks them.

- add (C2-C7): all or none quantized; equal storage and expressed types; per-axis
  operands need a per-axis result with the same quantized dimension.
- uniform_quantize (C2): the result's expressed type is the operand's float type
  (or the operand's expressed type when requantizing).
- reshape / transpose / broadcast_in_dim: scales and zero points carry over
  unchanged; the quantized dimension moves with the data.
- dot_general (C14-C20) and convolution (C28-C34): rhs quantized; lhs quantized
  iff result quantized; dot_general rhs zero points are 0 (C15) and its rhs
  quantized dimension is not contracted (C16); convolution's rhs/result
  quantized dimensions are the kernel output / output feature dimensions.
- qcomp's extension (docs/blockwise.md): a sub-channel (blockwise) rhs of dot_general
  and convolution, checked by `verify_blockwise_*` with messages of their own.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute

from qcomp.dialects.quant import UniformQuantizedType, element_type, quantized_element
from qcomp.dialects.stablehlo.kinds import type_text
from qcomp.ir.errors import UnprefixedVerifyException
from qcomp.ir.float_text import format_float


def fail(message: str) -> None:
    """Upstream reports these from TypeInference.cpp with `emitOptionalError(location,
    ...)`: the message alone, without `'<op>' op ` before it."""
    raise UnprefixedVerifyException(message)


def _q(t: Attribute) -> UniformQuantizedType | None:
    return quantized_element(t)


def _per_axis(t: Attribute) -> UniformQuantizedType | None:
    q = _q(t)
    return q if q is not None and q.is_per_axis else None


def _per_tensor(t: Attribute) -> UniformQuantizedType | None:
    q = _q(t)
    return q if q is not None and q.is_per_tensor else None


def _text(t: Attribute) -> str:
    return f"'{type_text(t)}'"


def verify_add(lhs: Attribute, rhs: Attribute, result: Attribute) -> None:
    types = [lhs, rhs, result]
    quantized = [_q(t) for t in types]
    if not any(q is not None for q in quantized):
        if len({element_type(t) for t in types}) != 1:
            fail("op requires the same element type for all operands and results")
        return
    if any(q is None for q in quantized):
        fail("expects  all operands and results to be either quantized or non-quantized")
    ql, qr, qo = quantized
    assert ql is not None and qr is not None and qo is not None
    if not ql.storage_type == qr.storage_type == qo.storage_type:
        fail("mismatched operands and result quantization storage types")
    if not ql.expressed_type == qr.expressed_type == qo.expressed_type:
        fail("mismatched operands and result quantization expressed types")
    if ql.is_per_axis or qr.is_per_axis:
        if not qo.is_per_axis:
            fail("result is not per_axis quantized but lhs or rhs are")
        if ql.is_per_axis and ql.quantized_dimension != qo.quantized_dimension:
            fail(f"quantization_dimension of lhs and result are not same {_text(ql)} vs "
                 f"{_text(qo)}")
        if qr.is_per_axis and qr.quantized_dimension != qo.quantized_dimension:
            fail(f"quantization_dimension of rhs and result are not same {_text(qr)} vs "
                 f"{_text(qo)}")
        return
    if qo.is_per_axis:
        fail("result per_axis quantized but none from rhs and lhs are per_axis quantized")


def verify_uniform_quantize(operand: Attribute, result: Attribute) -> None:
    qo = _q(result)
    assert qo is not None
    oe = element_type(operand)
    expected = oe.expressed_type if isinstance(oe, UniformQuantizedType) else oe
    if qo.expressed_type != expected:
        fail(f"Expressed type of result expected to be {_text(expected)}, but got "
             f"{_text(qo.expressed_type)}")


def verify_same_per_tensor_params(a: Attribute, b: Attribute) -> None:
    qa, qb = _per_tensor(a), _per_tensor(b)
    if qa is not None and qb is not None and qa != qb:
        fail(f"expect same quantization scale and zero_point but got {_text(a)} vs {_text(b)}")


def verify_same_per_axis_params(a: Attribute, b: Attribute) -> None:
    qa, qb = _per_axis(a), _per_axis(b)
    if qa is not None and qb is not None:
        # Upstream compares the parameter lists pairwise up to the shorter one.
        if (any(x != y for x, y in zip(qa.scales, qb.scales))
                or any(x != y for x, y in zip(qa.zero_points, qb.zero_points))):
            fail(f"expect same quantization scales and zero_points but got {_text(a)} vs "
                 f"{_text(b)}")


def verify_reshape(operand: Attribute, result: Attribute) -> None:
    verify_same_per_tensor_params(operand, result)
    verify_same_per_axis_params(operand, result)
    qa, qb = _per_axis(operand), _per_axis(result)
    if qa is None or qb is None:
        return
    assert isinstance(operand, TensorType) and isinstance(result, TensorType)
    os_, rs = operand.get_shape(), result.get_shape()
    da, db = qa.quantized_dimension, qb.quantized_dimension
    if os_[da] >= 0 and rs[db] >= 0 and os_[da] != rs[db]:
        fail(f"expect same quantization dimension size for operand and result {_text(operand)} "
             f"and {_text(result)}")
    if all(d >= 0 for d in os_) and all(d >= 0 for d in rs):
        pa = 1
        for d in os_[:da]:
            pa *= d
        pb = 1
        for d in rs[:db]:
            pb *= d
        if pa != pb:
            fail("product of dimensions before quantization dimension must match between "
                 f"operand and result for {pa} and {pb}")


def verify_transpose(operand: Attribute, permutation: Sequence[int], result: Attribute) -> None:
    verify_same_per_tensor_params(operand, result)
    verify_same_per_axis_params(operand, result)
    qr = _per_axis(result)
    if qr is None:
        return
    qo = _per_axis(operand)
    if qo is None:
        return
    rd = qr.quantized_dimension
    if qo.quantized_dimension != permutation[rd]:
        fail(f"operand quantization_dimension {qo.quantized_dimension} is not same as "
             f"permutation[{rd}] = {permutation[rd]}")


def _fmt(x: float) -> str:
    return format_float(x)


def verify_broadcast_in_dim(operand: Attribute, result: Attribute, dims: Sequence[int]) -> None:
    qr, qo = _per_axis(result), _per_axis(operand)
    if qr is None or qo is None:
        return
    od, rd = qo.quantized_dimension, qr.quantized_dimension
    if rd != dims[od]:
        fail(f"result quantization_dimension {rd} not same as broadcast_dimensions[{od}] = "
             f"{dims[od]}")
    assert isinstance(operand, TensorType) and isinstance(result, TensorType)
    if operand.get_shape()[od] == 1:
        rs, rz = list(qr.scales), list(qr.zero_points)
        for i in range(result.get_shape()[rd]):
            if rs[i] != qo.scales[0]:
                fail(f"mismatch result scale {i} ({_fmt(rs[i])}) and operand scale 0 "
                     f"({_fmt(qo.scales[0])})")
            if rz[i] != qo.zero_points[0]:
                fail(f"mismatch result zero_point {i} ({rz[i]}) and operand zero_point 0 "
                     f"({qo.zero_points[0]})")


def _verify_contraction_common(lhs: Attribute, rhs: Attribute, result: Attribute) -> None:
    ql, qr, qo = _q(lhs), _q(rhs), _q(result)
    if qr is None or (ql is None) != (qo is None):
        fail("rhs should be quantized for quantized operations and "
             "is_quantized(lhs)=is_quantized(result) should hold")
    assert qr is not None
    if ql is not None:
        assert qo is not None
        if ql.storage_type != qr.storage_type:
            fail("mismatched lhs and rhs quantization storage types")
        if not ql.expressed_type == qr.expressed_type == qo.expressed_type:
            fail("mismatched lhs, rhs and result quantization expressed types")
        if qr.is_per_tensor and not qo.is_per_tensor:
            fail("mismatched rhs and result quantization granularity")
    else:
        le, oe = element_type(lhs), element_type(result)
        if le != qr.expressed_type or le != oe:
            fail("mismatched rhs quantization expressed type and lhs and result element type")


def blocked_dimensions(q: UniformQuantizedType, shape: Sequence[int]) -> list[int]:
    """The dimensions a sub-channel type splits into more than one block."""
    return [d for d, b in zip(q.quantized_dimensions, q.block_sizes)
            if 0 < b < shape[d] or shape[d] < 0]


def _verify_blockwise_types(lhs: Attribute, result: Attribute, ql, qr, qo) -> bool:
    """A blockwise rhs with a float (hybrid) or quantized lhs and result: the expressed
    types agree; True when the lhs is quantized (the fully quantized form)."""
    if (ql is None) != (qo is None):
        fail("rhs should be quantized for quantized operations and "
             "is_quantized(lhs)=is_quantized(result) should hold")
    if ql is None:
        le, oe = element_type(lhs), element_type(result)
        if le != qr.expressed_type or le != oe:
            fail("mismatched rhs quantization expressed type and lhs and result element type")
        return False
    assert qo is not None  # ql is per-tensor: the op's element kinds say so
    if not ql.expressed_type == qr.expressed_type == qo.expressed_type:
        fail("mismatched lhs, rhs and result quantization expressed types")
    return True


def verify_blockwise_dot_general(lhs: Attribute, rhs: Attribute, result: Attribute,
                                 rhs_contracting: Sequence[int],
                                 rhs_batching: Sequence[int]) -> None:
    """qcomp's extension: a sub-channel (blockwise) quantized rhs, as GPTQ / AWQ weights
    are. Blocks may split one contracting dimension (one scale per block of K) and any
    free dimension (per output channel); the lhs is float (hybrid, the result float) or
    per-tensor quantized (the result per-tensor or per-axis quantized)."""
    qr, ql, qo = _q(rhs), _q(lhs), _q(result)
    assert qr is not None and isinstance(rhs, TensorType)
    blocked = blocked_dimensions(qr, rhs.get_shape())
    if any(d in rhs_batching for d in blocked):
        fail("blockwise rhs (qcomp extension): batching dimensions must not be split into "
             "blocks")
    if sum(d in rhs_contracting for d in blocked) > 1:
        fail("blockwise rhs (qcomp extension): at most one contracting dimension may be "
             "split into blocks")
    _verify_blockwise_types(lhs, result, ql, qr, qo)


def verify_dot_general(lhs: Attribute, rhs: Attribute, result: Attribute,
                       rhs_contracting: Sequence[int], rhs_batching: Sequence[int] = ()) -> None:
    if all(_q(t) is None for t in (lhs, rhs, result)):
        return
    qr = _q(rhs)
    if qr is not None and qr.is_blockwise:
        verify_blockwise_dot_general(lhs, rhs, result, rhs_contracting, rhs_batching)
        return
    if qr is not None and qr.is_per_tensor and qr.zero_point != 0:
        fail("Zero point of rhs should be 0")
    if qr is not None and qr.is_per_axis:
        if any(int(z) != 0 for z in qr.zero_points):
            fail("Zero points of rhs should be 0")
        if qr.quantized_dimension in rhs_contracting:
            fail("Quantization dimension of rhs should not be in the contracting dimension "
                 "of rhs")
    _verify_contraction_common(lhs, rhs, result)


def verify_blockwise_convolution(lhs: Attribute, rhs: Attribute, result: Attribute,
                                 kernel_input_feature: int, kernel_output_feature: int,
                                 output_feature: int, groups: int) -> None:
    """qcomp's extension: a sub-channel (blockwise) quantized kernel. Blocks may split the
    kernel input feature dimension (one scale per block of input channels) and the kernel
    output feature dimension (per output channel), not the spatial dimensions; the lhs is
    float (hybrid) or per-tensor quantized, and then both group counts are 1 and a
    per-axis result is quantized along the output feature dimension."""
    qr, ql, qo = _q(rhs), _q(lhs), _q(result)
    assert qr is not None and isinstance(rhs, TensorType)
    blocked = blocked_dimensions(qr, rhs.get_shape())
    if any(d not in (kernel_input_feature, kernel_output_feature) for d in blocked):
        fail("blockwise rhs (qcomp extension): only the kernel input and output feature "
             "dimensions may be split into blocks")
    if not _verify_blockwise_types(lhs, result, ql, qr, qo):
        return
    if groups != 1:
        fail("blockwise rhs (qcomp extension): a quantized lhs needs feature_group_count "
             "and batch_group_count of 1")
    if qo.is_per_axis and qo.quantized_dimension != output_feature:
        fail("quantization dimension of result should be same with output_feature_dimension")


def verify_convolution(lhs: Attribute, rhs: Attribute, result: Attribute,
                       kernel_output_feature: int, output_feature: int,
                       kernel_input_feature: int = -1, feature_groups: int = 1,
                       batch_groups: int = 1) -> None:
    if all(_q(t) is None for t in (lhs, rhs, result)):
        return
    qb = _q(rhs)
    if qb is not None and qb.is_blockwise:
        verify_blockwise_convolution(lhs, rhs, result, kernel_input_feature,
                                     kernel_output_feature, output_feature,
                                     feature_groups * batch_groups)
        return
    qr, qo = _per_axis(rhs), _per_axis(result)
    if qr is not None and qr.quantized_dimension != kernel_output_feature:
        fail("quantization dimension of rhs should be same with kernel_output_feature_dimension")
    if qo is not None and qo.quantized_dimension != output_feature:
        fail("quantization dimension of result should be same with output_feature_dimension")
    _verify_contraction_common(lhs, rhs, result)
