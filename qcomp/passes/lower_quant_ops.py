"""The `lower-quant-ops` pass: `quant.qcast` / `quant.dcast` as arithmetic."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    TensorType,
    i64,
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
    float_kind,
    quantized_element,
)
from qcomp.passes.diagnostics import PassDiagnostic
from qcomp.quant.uniform import expressed_numpy_dtype


def _signless(width: int) -> IntegerType:
    return IntegerType(width)


def _wide_int(q: UniformQuantizedType) -> IntegerType:
    """Signless integer wide enough for `q - zero_point` (i32, or i64 for 32-bit storage)."""
    return _signless(32 if q.storage_bitwidth < 32 else 64)


def _in_type(values: np.ndarray, element: Attribute) -> np.ndarray:
    """Float constants rounded to the expressed type first (65535 is inf in f16, as
    the spec's convert gives), so the constant holds exactly what the formula uses."""
    kind = float_kind(element)
    if kind is None:
        return values
    return np.asarray(values, dtype=np.float64).astype(expressed_numpy_dtype(kind)).astype(np.float64)


def _zero_in_range(q: UniformQuantizedType) -> bool:
    return q.storage_min <= 0 <= q.storage_max


class _TensorEmitter:
    """Builds StableHLO ops before the op being rewritten, for a static tensor shape."""

    def __init__(self, ctx: Context, rewriter: PatternRewriter, anchor: Operation,
                 shape: tuple[int, ...]):
        self.ctx = ctx
        self.rewriter = rewriter
        self.point = InsertPoint.before(anchor)
        self.shape = shape
        self.dynamic = any(d < 0 for d in shape)

    def op(self, name: str, operands: list[SSAValue], element: Attribute,
           shape: tuple[int, ...] | None = None, **props: Attribute) -> SSAValue:
        cls = self.ctx.get_op(name)
        result_type = TensorType(element, self.shape if shape is None else shape)
        new = cls.create(operands=operands, result_types=[result_type], properties=props)
        self.rewriter.insert(new, self.point)
        return new.results[0]

    def constant(self, values: np.ndarray, element: Attribute) -> SSAValue:
        shape = tuple(values.shape)
        values = _in_type(values, element)
        flat = [float(v) if not isinstance(element, IntegerType) else int(v)
                for v in values.reshape(-1)]
        attr = DenseIntOrFPElementsAttr.from_list(TensorType(element, shape), flat)
        return self.op("stablehlo.constant", [], element, shape, value=attr)

    def scalar(self, value: float | int, element: Attribute) -> SSAValue:
        return self.constant(np.array(value), element)

    def with_params(self, name: str, v: SSAValue, q: UniformQuantizedType, values: np.ndarray,
                    element: Attribute) -> SSAValue:
        """`name` (add, subtract, multiply, divide) of `v` and the parameter tensor
        `values`: StableHLO on the parameters broadcast to a static shape; for dynamic
        shapes `chlo.broadcast_<name>` of the small constant (rank 0, or 1-D along the
        quantized dimension)."""
        if not self.dynamic:
            return self.op(f"stablehlo.{name}", [v, self.params(q, values, element)], element)
        if q.is_per_tensor:
            small, dims = self.constant(values.reshape(()), element), None
        else:
            small = self.constant(values.reshape(-1), element)
            dims = _i64_array([q.quantized_dimension])
        props = {} if dims is None else {"broadcast_dimensions": dims}
        return self.op(f"chlo.broadcast_{name}", [v, small], element, **props)

    def params(self, q: UniformQuantizedType, values: np.ndarray, element: Attribute) -> SSAValue:
        """The parameter tensor `values` (shaped like `q`'s parameters) broadcast to the
        full shape: per-tensor and per-axis with one `broadcast_in_dim`, sub-channel by
        broadcasting into (count, block) pairs and reshaping."""
        rank = len(self.shape)
        if q.is_per_tensor:
            return self.op("stablehlo.broadcast_in_dim", [self.constant(values.reshape(()), element)],
                           element, broadcast_dimensions=_i64_array([]))
        if q.is_per_axis:
            return self.op("stablehlo.broadcast_in_dim", [self.constant(values.reshape(-1), element)],
                           element, broadcast_dimensions=_i64_array([q.quantized_dimension]))
        counts = list(q.params_shape) + [1] * (rank - len(q.params_shape))
        values = values.reshape(counts)
        wide: list[int] = []
        dims: list[int] = []
        for d in range(rank):
            dims.append(len(wide))
            if counts[d] in (1, self.shape[d]):
                wide.append(self.shape[d])
            else:
                wide += [counts[d], self.shape[d] // counts[d]]
        out = self.op("stablehlo.broadcast_in_dim", [self.constant(values, element)], element,
                      tuple(wide), broadcast_dimensions=_i64_array(dims))
        if tuple(wide) != self.shape:
            out = self.op("stablehlo.reshape", [out], element)
        return out


def _i64_array(values: list[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


STABLEHLO_INT_WIDTHS = (2, 4, 8, 16, 32, 64)


def _tensor_shape(op: Operation, t: Attribute, q: UniformQuantizedType) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    if q.storage_bitwidth not in STABLEHLO_INT_WIDTHS:
        raise PassDiagnostic(
            op, f"lower-quant-ops: {q.storage_bitwidth}-bit storage has no StableHLO integer "
            "type (2, 4, 8, 16, 32 or 64 bits)")
    shape = tuple(t.get_shape())
    if q.is_blockwise and any(d < 0 for d in shape):
        raise PassDiagnostic(
            op, "lower-quant-ops: sub-channel quantization needs a static shape")
    return shape


def quantize_tensor(em: _TensorEmitter, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """Storage integers of `quantize(x)`: clamp, round half to even, convert."""
    e = q.expressed_type
    v = em.with_params("divide", x, q, q.scales, e)
    if np.any(q.zero_points != 0):
        v = em.with_params("add", v, q, q.zero_points.astype(np.float64), e)
    lo, hi = em.scalar(float(q.storage_min), e), em.scalar(float(q.storage_max), e)
    v = em.op("stablehlo.clamp", [lo, v, hi], e)
    v = em.op("stablehlo.round_nearest_even", [v], e)
    s = em.op("stablehlo.convert", [v], q.storage)
    if not _zero_in_range(q):
        # NaN converts to 0: keep it inside a storage range that excludes 0
        lo_i, hi_i = em.scalar(q.storage_min, q.storage), em.scalar(q.storage_max, q.storage)
        s = em.op("stablehlo.clamp", [lo_i, s, hi_i], q.storage)
    return s


def dequantize_tensor(em: _TensorEmitter, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
    """`convert(q - zero_point) * scale` from the storage integers `s`."""
    e = q.expressed_type
    if np.any(q.zero_points != 0):
        w = _wide_int(q)
        s = em.op("stablehlo.convert", [s], w)
        s = em.with_params("subtract", s, q, q.zero_points, w)
    f = em.op("stablehlo.convert", [s], e)
    return em.with_params("multiply", f, q, q.scales, e)


class _ScalarEmitter:
    def __init__(self, rewriter: PatternRewriter, anchor: Operation):
        self.rewriter = rewriter
        self.point = InsertPoint.before(anchor)

    def add(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op, self.point)
        return op.results[0]

    def float_const(self, value: float, e: Attribute) -> SSAValue:
        value = float(_in_type(np.array(value), e))
        return self.add(arith.ConstantOp(FloatAttr(value, e)))  # pyright: ignore

    def int_const(self, value: int, t: IntegerType) -> SSAValue:
        return self.add(arith.ConstantOp(IntegerAttr(value, t)))


def quantize_scalar(em: _ScalarEmitter, x: SSAValue, q: UniformQuantizedType) -> SSAValue:
    e = q.expressed_type
    st = _signless(q.storage_bitwidth)
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
    if not _zero_in_range(q):
        lo, hi = em.int_const(q.storage_min, st), em.int_const(q.storage_max, st)
        mx, mn = (arith.MaxSIOp, arith.MinSIOp) if q.is_signed else (arith.MaxUIOp, arith.MinUIOp)
        s = em.add(mn(em.add(mx(s, lo)), hi))
    return s


def dequantize_scalar(em: _ScalarEmitter, s: SSAValue, q: UniformQuantizedType) -> SSAValue:
    e = q.expressed_type
    if q.zero_point != 0:
        w = _wide_int(q)
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
            em = _TensorEmitter(self.ctx, rewriter, op, _tensor_shape(op, op.res.type, q))
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
            em = _TensorEmitter(self.ctx, rewriter, op, _tensor_shape(op, op.arg.type, q))
            storage = TensorType(q.storage, em.shape)
            cast = StorageCastOp(op.arg, storage)
            rewriter.insert(cast, em.point)
            result = dequantize_tensor(em, cast.res, q)
        else:
            em_s = _ScalarEmitter(rewriter, op)
            cast = StorageCastOp(op.arg, _signless(q.storage_bitwidth))
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
