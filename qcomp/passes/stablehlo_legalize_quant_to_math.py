"""The `stablehlo-legalize-quant-to-math` pass (alias: `stablehlo-legalize-quant-to-int`,
upstream's older name, `qcomp.passes.PASS_ALIASES`)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TupleType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import UpstreamGeneric, quantization
from qcomp.dialects.quant import StorageCastOp, float_kind, quantized_element
from qcomp.passes.quant_to_math.blockwise import lower_blockwise
from qcomp.passes.quant_to_math.dot import (
    conv_contraction,
    dot_contraction,
    illegal,
    lower_exact,
    lower_hybrid,
    lower_upstream,
    quantized_types,
    upstream_conv_contraction,
    upstream_types_ok,
)
from qcomp.passes.quant_to_math.mode import RescaleMode
from qcomp.passes.quant_to_math.ops import (
    all_same_quantized,
    lower_dq_op_q,
    lower_type_only,
    lower_uniform_dequantize,
    lower_uniform_quantize,
    lower_upstream_add,
)
from qcomp.passes.quant_to_math.tflite import lower_composite, lower_tflite
from qcomp.passes.utils.builder import Builder
from qcomp.passes.utils.diagnostics import PassDiagnostic, short_name
from qcomp.passes.utils.folding import Folds
from qcomp.passes.utils.storage_boundaries import TypeMap, lower_function_boundary
from qcomp.quant.uniform import storage_round_trips

RESCALE_MODES = tuple(m.value for m in RescaleMode)


def _holds_quantized(t: Attribute) -> bool:
    """A quantized tensor or scalar, or a tuple holding one."""
    if isinstance(t, TupleType):
        return any(_holds_quantized(e) for e in t.types)
    return quantized_element(t) is not None


def _is_quantized_op(op: Operation) -> bool:
    return any(_holds_quantized(v.type) for v in (*op.operands, *op.results))


def _lower_contraction(op: Operation, b: Builder, mode: RescaleMode, st) -> SSAValue:
    lq, rq, oq = quantized_types(op)
    if rq is not None and rq.is_blockwise and not isinstance(op, sh.DotOp):
        if lq is None and oq is None:
            return lower_hybrid(b, op, op.lhs, st(op.rhs), rq, mode)
        if lq is not None and oq is not None and lq.is_per_tensor and not oq.is_blockwise:
            return lower_blockwise(b, op, lq, rq, oq, st(op.lhs), st(op.rhs), mode)
    if mode.upstream:
        # upstream's integer patterns, else its dequantize -> op -> quantize fallback
        kind = upstream_types_ok(lq, rq, oq)
        if kind is None:
            return lower_dq_op_q(op, b, mode, st)[0]
        if kind is False:
            return lower_hybrid(b, op, op.lhs, st(op.rhs), rq, mode)
        try:
            c = (upstream_conv_contraction(op, lq, rq, oq) if isinstance(op, sh.ConvolutionOp)
                 else dot_contraction(op, lq, rq, oq, mode))
        except PassDiagnostic:
            return lower_dq_op_q(op, b, mode, st)[0]
        return lower_upstream(b, c, st(op.lhs), st(op.rhs))
    if lq is None and rq is not None and oq is None:
        return lower_hybrid(b, op, op.lhs, st(op.rhs), rq, mode)
    short = short_name(op)
    if lq is None or rq is None or oq is None:
        raise PassDiagnostic(op, f"{short}: lhs, rhs and result must all be quantized, or "
                             "only the rhs (hybrid)")
    if not lq.is_per_tensor or rq.is_blockwise or oq.is_blockwise:
        raise PassDiagnostic(op, f"{short}: lhs must be per-tensor and rhs/result per-tensor "
                             "or per-axis")
    c = (conv_contraction(op, lq, rq, oq) if isinstance(op, sh.ConvolutionOp)
         else dot_contraction(op, lq, rq, oq, mode))
    return lower_exact(b, c, st(op.lhs), st(op.rhs), mode)


def _round_trips(op: Operation) -> bool:
    """Whether the storage of `op`'s (one) quantized type survives dequantize ->
    quantize in its expressed type, so passing the integers through is the spec's
    dequantize -> op -> quantize (not so for i32 storage in f32)."""
    q = next(q for v in (*op.operands, *op.results) if (q := quantized_element(v.type)))
    return _type_round_trips(q)


@functools.lru_cache(maxsize=256)
def _type_round_trips(q) -> bool:
    return storage_round_trips(q.scales, q.zero_points, q.storage_min, q.storage_max,
                               float_kind(q.expressed_type))


def lower_op(op: Operation, b: Builder, mode: RescaleMode, st) -> list[SSAValue]:
    """One value per result of `op` (storage integers where the result is quantized)."""
    if isinstance(op, sh.UniformQuantizeOp):
        return [lower_uniform_quantize(op, b, mode, st)]
    if isinstance(op, sh.UniformDequantizeOp):
        return [lower_uniform_dequantize(op, b, mode, st)]
    if isinstance(op, sh.DotOp | sh.DotGeneralOp | sh.ConvolutionOp):
        return [_lower_contraction(op, b, mode, st)]
    if isinstance(op, sh.CompositeOp):
        return lower_composite(op, b, mode, st)
    if isinstance(op, sh.AddOp) and mode.upstream:
        added = lower_upstream_add(op, b, st)
        if added is not None:
            return [added]
    if mode.integer_only and (v := lower_tflite(op, b, st)) is not None:
        return [v]
    facts = quantization(op)
    if facts is None:
        raise illegal(op)
    if mode.upstream:  # upstream: its ConvertGenericOp list, else dequantize -> op -> quantize
        generic = facts.upstream_generic
        if generic == UpstreamGeneric.ALWAYS or (
                generic == UpstreamGeneric.SAME_TYPES and all_same_quantized(op)):
            return lower_type_only(op, b, mode, st)
        if facts.upstream_qdq:
            return lower_dq_op_q(op, b, mode, st)
        raise illegal(op)
    if facts.type_only or (facts.same_types_pass_through and all_same_quantized(op)
                           and _round_trips(op)):
        return lower_type_only(op, b, mode, st)
    if facts.dequantize_op_quantize:
        return lower_dq_op_q(op, b, mode, st)
    raise illegal(op)


@dataclass
class LowerQuantizedOp(RewritePattern):
    """Any op with a quantized operand or result → the same computation on storage
    integers (and floats), bridged to its neighbours with `quant.scast` until
    `FoldStorageCasts` removes the casts."""

    mode: RescaleMode
    folds: Folds | None = None
    """The Builders' emission-time folds (`RescaleMode.folds`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, StorageCastOp | func.FuncOp | ModuleOp) or not _is_quantized_op(op):
            return
        if op.dialect_name() != sh.StableHLO.name:
            raise illegal(op)
        b = Builder(rewriter, op, folds=self.folds)

        def st(v: SSAValue) -> SSAValue:
            t = self.mode.storage_type(v.type)
            if t == v.type:
                return v
            return b.emit(StorageCastOp(v, t))

        values = lower_op(op, b, self.mode, st)
        results: list[SSAValue] = []
        for old, new in zip(op.results, values, strict=True):
            if new.type != old.type:
                new = b.emit(StorageCastOp(new, old.type))
            results.append(new)
        rewriter.replace(op, [], results)
        if self.folds is not None:
            self.folds.erase_orphans(rewriter)


@dataclass
class ConvertFunctionBoundaries(RewritePattern):
    """func.func signatures, func.return and func.call on storage types (`quant.scast`
    bridges to the body until `FoldStorageCasts` removes the casts)."""

    lowered: TypeMap

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        lower_function_boundary(op, rewriter, self.lowered)


class FoldStorageCasts(RewritePattern):
    """`scast(scast(x))` back to the type of x is x; unused casts are erased."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: StorageCastOp, rewriter: PatternRewriter) -> None:
        if not op.res.uses:
            rewriter.erase(op)
            return
        inner = op.arg.owner
        if isinstance(inner, StorageCastOp) and inner.arg.type == op.res.type:
            rewriter.replace(op, [], [inner.arg])


def _check_no_quant_left(module: ModuleOp) -> None:
    for op in module.walk():
        if isinstance(op, StorageCastOp):
            users = [u.operation for u in op.res.uses]
            raise illegal(users[0] if users else op)
        if isinstance(op, func.FuncOp):
            continue
        if _is_quantized_op(op):
            raise illegal(op)


@dataclass(frozen=True)
class LegalizeQuantToMathPass(ModulePass):
    """Lower quantized StableHLO to integer and float StableHLO math (no `!quant` left).

    Function signatures take storage types (`tensor<4x!quant.uniform<i8:f32, 0.5:3>>` →
    `tensor<4xi8>`); every op on quantized values becomes math on the stored integers q
    (real = (q - zp) * s). `rescale` picks the arithmetic of every rescale:

    `float` (default): the StableHLO spec exactly (`qcomp-run --semantics spec`).
      uniform_quantize  q = convert(round_half_even(clamp(min, x / s + zp, max)))
                        (`qcomp.quant.uniform.quantize`); q → q: quantize(dequantize(q));
      uniform_dequantize x = convert(q - zp) * s (`qcomp.quant.uniform.dequantize`);
      dot, dot_general, convolution: integer kernel with the LiteRT zero-point terms
                        acc = Σq_l q_r - z_r Σq_l - z_l Σq_r + K z_l z_r (constant terms
                        folded; operands centred instead when a convolution or per-axis
                        kernel has non-zero zero points), then
                        q = clamp(round_half_even(f64(acc) * (s_l s_r) / s_res + z_res))
                        in f64 (`qcomp.quant.accumulator.rescale_accumulator`);
      add and the other arithmetic ops: dequantize → float op → quantize.
    `fixed-point`: TFLite's int8 kernels (LiteRT 2.3's reference ones, bit for bit):
      every quantized → quantized rescale is v' = MBQM(v, M, shift) + zp, clamped,
      TFLite's MultiplyByQuantizedMultiplier with (M, shift) = QuantizeMultiplier(scale)
      (`qcomp.quant.tflite`); float → quantized is TFLite's AffineQuantize,
      round_nearest_afz(x / s) + zp; add/subtract/multiply, int8 logistic/tanh
      (tables), quantized clamp and the `tfl.average_pool_2d` / `tfl.mean` composites
      as TFLite's integer kernels (`quant_to_math.tflite`); two of TFLite's reference
      kernels compute in float and are emitted so: the `tfl.softmax` composite (a
      256-entry f32 exp table, an in-order f32 sum) and a requantize marked
      `tfl.kernel = "fully_connected"` (the accumulator times s_acc / s_out in f64,
      rounded half away from zero). Folded as emitted (`qcomp.passes.utils.folding`):
      a constant of one value is one splat constant, clamps that cannot change their
      operand and converts back from a widening convert are left out, constant adds
      in a row (bias, zero-point terms) are one.
    `stablehlo`: upstream's pass bit for bit (`qcomp.quant.stablehlo`; storage as
      signless iN, u8 included): f32 math; requantize f32(q) * f32(s_in/s_out) +
      f32(zp_out - zp_in s_in/s_out), clamped only below 32 bits; add requantizes each
      operand to i32, l + r - zp, clamp unless i32; dot/conv (its integer patterns:
      NHWC/NCHW/NDHWC/NCDHW, kernel zero point 0, no lhs dilation): i32 acc and
      zp_offset = z_r Σq_l + z_l Σq_r - z_l z_r K, multiplied by cs = s_l s_r / s_res in
      f32 and truncated when |cs - 1| > 0.001, convert(acc + zp_res - zp_offset) without
      clamping; other quantized dot/conv and upstream's 40 QDQ ops: dequantize → f32 op
      → quantize.

    In every mode: hybrid dot/conv (float lhs, quantized rhs) dequantize the rhs; ops
    that only move values (reshape, transpose, broadcast_in_dim, concatenate, gather,
    slice, pad, select, reduce_window, constant, max/min with one quantized type, …)
    keep the integers. Convolutions pad the lhs explicitly with z_l (`float` and
    `fixed-point` also materialise lhs dilation that way, for any layout). Tensors with
    dynamic (`?`) dimensions take their scales and zero points through
    `chlo.broadcast_*` with `broadcast_dimensions` (as upstream), the same numbers as
    the static lowering.
    A blockwise (sub-channel) rhs of dot_general / convolution (a qcomp extension,
    docs/blockwise.md): one integer contraction per block of the split contracting
    dimension on the centred operands, each block sum rescaled with its own scales,
    the blocks summed in order: `float` in f64 (`rescale_blocks`, the spec exactly),
    `fixed-point` as i64 terms with 16 fraction bits and one half-up rounding
    (`fixed_point_rescale_blocks`, within one step), `stablehlo` in f32 with one
    truncation and no clamp (`qcomp.quant.stablehlo.dot_rescale_blocks`).
    Errors: ops with no lowering ("failed to legalize operation '...' that was
    explicitly marked illegal"), requantize changing the per-axis dimension
    (`stablehlo`, `fixed-point`), `stablehlo` quantize from non-f32. Fully quantized
    dot_general / convolution with dynamic dimensions: `float` and `fixed-point` run
    the kernel on the centred operands q - z; `stablehlo` builds upstream's zero-point
    offset with `get_dimension_size` and `dynamic_broadcast_in_dim`.
    """

    name = "stablehlo-legalize-quant-to-math"
    OPTION_CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"rescale": RESCALE_MODES}
    """The values each option allows (checked when the pass is built by name)."""

    rescale: str = "float"

    def numerics_contract(self) -> tuple[str, int]:
        """(semantics the input is read in, storage steps a result may move) for
        `qcomp-opt --verify-numerics`: `float` is the spec exactly, `stablehlo` is
        upstream's numerics exactly, `fixed-point` is the spec within one storage step
        (the 32-bit multiplier rounds the scale)."""
        return RescaleMode(self.rescale).numerics_contract()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        mode = RescaleMode.parse(self.rescale, self.name, op)
        PatternRewriteWalker(ConvertFunctionBoundaries(mode.storage_type),
                             apply_recursively=False).rewrite_module(op)
        folds = Folds() if mode.folds else None
        PatternRewriteWalker(LowerQuantizedOp(mode, folds), walk_regions_first=True,
                             apply_recursively=False).rewrite_module(op)
        PatternRewriteWalker(FoldStorageCasts(), walk_reverse=True).rewrite_module(op)
        if folds is not None:
            folds.erase_orphans()
        _check_no_quant_left(op)


__all__ = ["RESCALE_MODES", "LegalizeQuantToMathPass"]
