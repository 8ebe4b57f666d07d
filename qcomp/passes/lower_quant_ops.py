"""The `lower-quant-ops` pass: `quant.qcast` / `quant.dcast` as arithmetic."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import ModuleOp, TensorType, UnrankedTensorType
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from qcomp.dialects.quant import (
    DequantizeCastOp,
    QuantizeCastOp,
    StorageCastOp,
    UniformQuantizedType,
    quantized_element,
)
from qcomp.passes.utils import unranked
from qcomp.passes.utils.builder import Builder
from qcomp.passes.utils.uniform_tensor import (
    check_zero_points,
    dequantize_tensor,
    quantize_tensor,
    signless,
    storage_width,
    tensor_shape,
    wide_int,
    zero_in_range,
)


def quantize_scalar(b: Builder, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """fpto[su]i(roundeven(min(max(x / scale + zero_point, storage_min), storage_max)));
    float storage: truncf(min(max(...))), rounding to nearest even."""
    e = q.expressed_type
    v = b.emit(arith.DivfOp(x, b.arith_constant(q.scale, e)))
    if q.zero_point != 0:
        v = b.emit(arith.AddfOp(v, b.arith_constant(float(q.zero_point), e)))
    v = b.emit(arith.MaximumfOp(v, b.arith_constant(float(q.storage_min), e)))
    v = b.emit(arith.MinimumfOp(v, b.arith_constant(float(q.storage_max), e)))
    if q.is_float_storage:
        return b.emit(arith.TruncFOp(v, q.storage))
    st = signless(q.storage_bitwidth)
    v = b.emit(math.RoundEvenOp(v))
    if q.is_signed:
        s = b.emit(arith.FPToSIOp(v, st))
    else:
        s = b.emit(arith.FPToUIOp(v, st))
    if not zero_in_range(q):
        lo, hi = b.arith_constant(q.storage_min, st), b.arith_constant(q.storage_max, st)
        mx, mn = (arith.MaxSIOp, arith.MinSIOp) if q.is_signed else (arith.MaxUIOp, arith.MinUIOp)
        s = b.emit(mn(b.emit(mx(s, lo)), hi))
    return s


def dequantize_scalar(b: Builder, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """[su]itofp(s - zero_point) * scale, the subtraction in `wide_int(q)`; float
    storage: (extf(s) - zero_point) * scale."""
    e = q.expressed_type
    if q.is_float_storage:
        f = b.emit(arith.ExtFOp(s, e))
        if q.zero_point != 0:
            f = b.emit(arith.SubfOp(f, b.arith_constant(float(q.zero_point), e)))
    elif q.zero_point != 0:
        w = wide_int(q)
        s = b.emit(arith.ExtSIOp(s, w) if q.is_signed else arith.ExtUIOp(s, w))
        s = b.emit(arith.SubiOp(s, b.arith_constant(q.zero_point, w)))
        f = b.emit(arith.SIToFPOp(s, e))  # pyright: ignore
    elif q.is_signed:
        f = b.emit(arith.SIToFPOp(s, e))  # pyright: ignore
    else:
        f = b.emit(arith.UIToFPOp(s, e))  # pyright: ignore
    return b.emit(arith.MulfOp(f, b.arith_constant(q.scale, e)))


class LowerQuantizeCast(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeCastOp, rewriter: PatternRewriter) -> None:
        q = quantized_element(op.res.type)
        assert q is not None
        b = Builder(rewriter, op)
        if isinstance(op.res.type, TensorType):
            stored = quantize_tensor(b, op.arg, q, tensor_shape(op, op.res.type, q))
        elif isinstance(op.res.type, UnrankedTensorType):
            storage_width(op, q)
            flat = unranked.flatten(b, op.arg, q)
            stored = quantize_tensor(b, flat.value, flat.quant, flat.shape)
            stored = unranked.restore(b, stored, flat.extents, q.storage)
        else:
            stored = quantize_scalar(b, op.arg, q)
        rewriter.replace(op, StorageCastOp(stored, op.res.type))


class LowerDequantizeCast(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DequantizeCastOp, rewriter: PatternRewriter) -> None:
        q = quantized_element(op.arg.type)
        assert q is not None
        check_zero_points(op, q, LowerQuantOpsPass.name)
        b = Builder(rewriter, op)
        if isinstance(op.arg.type, TensorType):
            shape = tensor_shape(op, op.arg.type, q)
            cast = b.insert(StorageCastOp(op.arg, TensorType(q.storage, shape)))
            result = dequantize_tensor(b, cast.res, q, shape)
        elif isinstance(op.arg.type, UnrankedTensorType):
            storage_width(op, q)
            cast = b.insert(StorageCastOp(op.arg, UnrankedTensorType(q.storage)))
            flat = unranked.flatten(b, cast.res, q)
            result = dequantize_tensor(b, flat.value, flat.quant, flat.shape)
            result = unranked.restore(b, result, flat.extents, q.expressed_type)
        else:
            storage = q.storage if q.is_float_storage else signless(q.storage_bitwidth)
            cast = b.insert(StorageCastOp(op.arg, storage))
            result = dequantize_scalar(b, cast.res, q)
        rewriter.replace(op, [], [result])


@dataclass(frozen=True)
class LowerQuantOpsPass(ModulePass):
    """Lower `quant.qcast` and `quant.dcast` to arithmetic on the storage integers.

    MLIR's `lower-quant-ops`, computing the StableHLO spec's formulas exactly, for
    per-tensor, per-axis and sub-channel types:

        quant.qcast:  q = convert(round_half_to_even(clamp(storage_min,
                                    x / scale + zero_point, storage_max)))
        quant.dcast:  x = convert(q - zero_point) * scale

    Scale and zero point are constants in the expressed type (the zero point
    subtraction is done in i32, or i64 for 32-bit storage); `quant.scast` moves between
    the quantized type and its storage integers, as upstream.

    Tensors of static shape lower to StableHLO ops: `constant`, `broadcast_in_dim`
    of the parameters to the tensor's shape (per-tensor from a rank-0 constant,
    per-axis along the quantized dimension, sub-channel into (count, block) pairs then
    `reshape`), `divide`, `add`, `clamp`, `round_nearest_even`, `convert`, `subtract`,
    `multiply`. Scalars lower to `arith` and `math.roundeven`. (xDSL's `arith` casts
    take scalars only, so tensors use StableHLO rather than upstream's `linalg.generic`.)

    Where upstream differs: it converts `x / scale + zero_point` with `arith.fptosi`
    (truncation toward zero, no rounding) and clamps only when the type narrows the
    storage range; here the value is clamped to the storage range in the expressed
    type and rounded half to even before the conversion, which is the spec. A NaN
    input gives the storage value nearest 0.

    Tensors with dynamic dimensions use `chlo.broadcast_divide` / `broadcast_add` /
    `broadcast_subtract` / `broadcast_multiply` of the rank-0 (per-tensor) or 1-D
    (per-axis, `broadcast_dimensions = [axis]`) parameter constant instead, as
    upstream's quant-to-math does.

    Unranked tensors (`tensor<*x...>`) are reshaped as upstream's pass reshapes them
    (`shape.shape_of`, `shape.num_elements`, `shape.split_at`, `tensor.from_elements`,
    `tensor.reshape`): per-tensor to 1-D, per-axis to 3-D around the quantized dimension
    (the extents before it, its scales, the extents after it), then converted as
    dynamic tensors and reshaped back to their own extents.

    Zero points may lie outside the storage range (MLIR's types allow any int64): the
    formulas are the same, the subtraction in i64 where `q - zero_point` can leave i32.

    Float storage (`f8E5M2`, `f8E4M3FN`, `f4E2M1FN`; upstream's pass would emit an
    invalid `arith.fptosi` to a float type) lowers to

        quant.qcast:  q = convert(clamp(storage_min, x / scale + zero_point, storage_max))
        quant.dcast:  x = (convert(q) - zero_point) * scale

    in the expressed type: the clamp to the storage range (by default the type's
    finite range) saturates, the conversion (`stablehlo.convert`, `arith.truncf` for
    scalars) rounds to nearest even and keeps NaN (+0 in f4E2M1FN, which has none),
    as `qcomp.quant.float_storage` computes. The storage values move in and out of the
    quantized type with `quant.scast` to the float type (qcomp's extension: MLIR's
    scast takes integers only).

    Errors: sub-channel types on tensors with dynamic dimensions; tensors whose
    storage width StableHLO has no integer type for (i3, u5, ...; scalars of any
    width lower through `arith`); zero points so far from the storage range that
    `q - zero_point` leaves i64.
    """

    name = "lower-quant-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([LowerQuantizeCast(), LowerDequantizeCast()]),
            apply_recursively=False,
        ).rewrite_module(op)
