"""The `stablehlo-legalize-quantized-op-to-qdq` pass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from qcomp.dialects.quant import expressed_of, quantized_element
from qcomp.dialects.stablehlo import UniformDequantizeOp, UniformQuantizeOp
from qcomp.dialects.stablehlo.undefined import op_name, quantization_of
from qcomp.passes.utils.builder import Builder
from qcomp.passes.utils.diagnostics import PassDiagnostic


class DecomposeQuantizedOp(RewritePattern):
    """`f(q...) -> Q` becomes `uniform_quantize(f(uniform_dequantize(q)...))`; the
    float op is the quantized op's own class on the expressed types."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        facts = quantization_of(op)
        if facts is None or not facts.upstream_qdq:
            return
        name = op_name(op)
        in_q = [quantized_element(v.type) for v in op.operands]
        out_q = [quantized_element(r.type) for r in op.results]
        if all(q is None for q in [*in_q, *out_q]):
            return
        kinds = {q.expressed_type for q in [*in_q, *out_q] if q is not None}
        if len(kinds) != 1:
            raise PassDiagnostic(
                op, f"cannot decompose '{name}': its quantized types have different "
                "expressed types")
        if any(q is not None and q.is_blockwise for q in [*in_q, *out_q]):
            raise PassDiagnostic(
                op, f"cannot decompose '{name}': sub-channel quantized types have no "
                f"{UniformDequantizeOp.name}")
        b = Builder(rewriter, op)
        operands: list[SSAValue] = [
            v if q is None else b.emit(UniformDequantizeOp(v, expressed_of(v.type)))
            for v, q in zip(op.operands, in_q)]
        result_types: list[Attribute] = [expressed_of(r.type) for r in op.results]
        float_op = b.insert(type(op).create(
            operands=operands, result_types=result_types,
            properties=dict(op.properties), attributes=dict(op.attributes),
            successors=list(op.successors), regions=[op.detach_region(r) for r in op.regions]))
        results: list[SSAValue] = [
            new if q is None else b.emit(UniformQuantizeOp(new, old.type))
            for old, new, q in zip(op.results, float_op.results, out_q)]
        rewriter.replace(op, [], results)


@dataclass(frozen=True)
class StablehloLegalizeQuantizedOpToQDQPass(ModulePass):
    """Decompose quantized ops into `uniform_dequantize -> float op -> uniform_quantize`.

    The inverse of `stablehlo-legalize-qdq-to-quantized-op`, for the 40 ops upstream
    covers (abs, add, atan2, batch_norm_grad, batch_norm_inference,
    batch_norm_training, cbrt, ceil, cholesky, clamp, compare, convolution, cosine,
    divide, dot, dot_general, exponential, exponential_minus_one, floor, log,
    log_plus_one, logistic, maximum, minimum, multiply, negate, power,
    reduce_precision, remainder, round_nearest_afz, round_nearest_even, rsqrt, select,
    sign, sine, sqrt, subtract, tan, tanh, triangular_solve):

        %r = f %qa, %qb : -> T          ==>    %a = uniform_dequantize %qa
                                               %b = uniform_dequantize %qb
                                               %f = f %a, %b : -> expressed(T)
                                               %r = uniform_quantize %f : -> T

    Each quantized operand (per-tensor or per-axis) is dequantized to its expressed
    type, the op is rebuilt with the same attributes on float types, and each
    quantized result is quantized back to its original type; operands and results
    that are not quantized (the predicate of `select`, the `i1` result of `compare`,
    the float lhs of a hybrid `dot_general`) are kept. This is the spec's
    `dequantize_op_quantize` (and `hybrid_dequantize_then_op`) written out, so the
    program computes the same values, up to the float rounding of the op itself
    (dot_general/convolution accumulate in the expressed type rather than exactly
    in integers).

    Ops that only move quantized values (reshape, transpose, broadcast_in_dim,
    concatenate, ...) and the quantize/dequantize ops themselves are left alone.

    Errors: an op whose quantized operands and results have different expressed
    types, or sub-channel types, cannot be decomposed.
    """

    name = "stablehlo-legalize-quantized-op-to-qdq"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(DecomposeQuantizedOp(), apply_recursively=False).rewrite_module(op)
