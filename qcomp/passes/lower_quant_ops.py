"""The `lower-quant-ops` pass: `quant.qcast` / `quant.dcast` as arithmetic."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from qcomp.dialects.quant import (
    DequantizeCastOp,
    QuantizeCastOp,
    StorageCastOp,
    UniformQuantizedType,
    quantized_element,
)
from qcomp.passes.utils.tensor_emit import (
    TensorEmitter,
    dequantize_tensor,
    in_expressed_type,
    quantize_tensor,
    signless,
    tensor_shape,
    wide_int,
    zero_in_range,
)


class _ScalarEmitter:
    def __init__(self, rewriter: PatternRewriter, anchor: Operation):
        self.rewriter = rewriter
        self.point = InsertPoint.before(anchor)

    def add(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op, self.point)
        return op.results[0]

    def float_const(self, value: float, e: Attribute) -> SSAValue:
        value = float(in_expressed_type(np.array(value), e))
        return self.add(arith.ConstantOp(FloatAttr(value, e)))  # pyright: ignore

    def int_const(self, value: int, t: IntegerType) -> SSAValue:
        return self.add(arith.ConstantOp(IntegerAttr(value, t)))


def quantize_scalar(em: _ScalarEmitter, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    e = q.expressed_type
    st = signless(q.storage_bitwidth)
    v = em.add(arith.DivfOp(x, em.float_const(q.scale, e)))
    if q.zero_point != 0:
        v = em.add(arith.AddfOp(v, em.float_const(float(q.zero_point), e)))
    v = em.add(arith.MaximumfOp(v, em.float_const(float(q.storage_min), e)))
    v = em.add(arith.MinimumfOp(v, em.float_const(float(q.storage_max), e)))
    v = em.add(math.RoundEvenOp(v))
    if q.is_signed:
        s = em.add(arith.FPToSIOp(v, st))
    else:
        s = em.add(arith.FPToUIOp(v, st))
    if not zero_in_range(q):
        lo, hi = em.int_const(q.storage_min, st), em.int_const(q.storage_max, st)
        mx, mn = (arith.MaxSIOp, arith.MinSIOp) if q.is_signed else (arith.MaxUIOp, arith.MinUIOp)
        s = em.add(mn(em.add(mx(s, lo)), hi))
    return s


def dequantize_scalar(em: _ScalarEmitter, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
    e = q.expressed_type
    if q.zero_point != 0:
        w = wide_int(q)
        s = em.add(arith.ExtSIOp(s, w) if q.is_signed else arith.ExtUIOp(s, w))
        s = em.add(arith.SubiOp(s, em.int_const(q.zero_point, w)))
        f = em.add(arith.SIToFPOp(s, e))  # pyright: ignore
    elif q.is_signed:
        f = em.add(arith.SIToFPOp(s, e))  # pyright: ignore
    else:
        f = em.add(arith.UIToFPOp(s, e))  # pyright: ignore
    return em.add(arith.MulfOp(f, em.float_const(q.scale, e)))


@dataclass
class LowerQuantizeCast(RewritePattern):
    ctx: Context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: QuantizeCastOp, rewriter: PatternRewriter) -> None:
        q = quantized_element(op.res.type)
        assert q is not None
        if isinstance(op.res.type, TensorType):
            em = TensorEmitter(self.ctx, rewriter, op, tensor_shape(op, op.res.type, q))
            stored = quantize_tensor(em, op.arg, q)
        else:
            stored = quantize_scalar(_ScalarEmitter(rewriter, op), op.arg, q)
        rewriter.replace(op, StorageCastOp(stored, op.res.type))


@dataclass
class LowerDequantizeCast(RewritePattern):
    ctx: Context

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DequantizeCastOp, rewriter: PatternRewriter) -> None:
        q = quantized_element(op.arg.type)
        assert q is not None
        if isinstance(op.arg.type, TensorType):
            em = TensorEmitter(self.ctx, rewriter, op, tensor_shape(op, op.arg.type, q))
            storage = TensorType(q.storage, em.shape)
            cast = StorageCastOp(op.arg, storage)
            rewriter.insert(cast, em.point)
            result = dequantize_tensor(em, cast.res, q)
        else:
            em_s = _ScalarEmitter(rewriter, op)
            cast = StorageCastOp(op.arg, signless(q.storage_bitwidth))
            rewriter.insert(cast, em_s.point)
            result = dequantize_scalar(em_s, cast.res, q)
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

    Errors: sub-channel types on tensors with dynamic dimensions; tensors whose
    storage width StableHLO has no integer type for (i3, u5, ...; scalars of any
    width lower through `arith`).
    """

    name = "lower-quant-ops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            GreedyRewritePatternApplier([LowerQuantizeCast(ctx), LowerDequantizeCast(ctx)]),
            apply_recursively=False,
        ).rewrite_module(op)
