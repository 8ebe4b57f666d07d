"""The `stablehlo-legalize-qdq-to-quantized-op` pass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.quant import element_type, quantized_element
from qcomp.dialects.stablehlo import UniformDequantizeOp, UniformQuantizeOp
from qcomp.passes.qdq.rules import refusal
from qcomp.passes.utils.builder import Builder


def fusion_plan(quantize: Operation) -> tuple[Operation, list[SSAValue]] | str:
    """The compute op and its quantized inputs for fusing at `quantize`, or why not."""
    value = quantize.operands[0]
    if quantized_element(value.type) is not None:
        return "uniform_quantize requantizes a quantized value"
    if not isinstance(value, OpResult):
        return "the quantized value is not computed by an op"
    compute = value.op
    if compute.regions:
        return "ops with regions are not fused"
    if len(compute.results) > 1:
        return "ops with several results are not fused"
    if not compute.operands:
        return "ops without operands are not fused"
    if any(quantized_element(o.type) is not None for o in compute.operands):
        return "the op already has quantized operands"
    inputs: list[SSAValue] = []
    for operand in compute.operands:
        if not isinstance(operand, OpResult) or not isinstance(operand.op, UniformDequantizeOp):
            return "an operand is not produced by uniform_dequantize"
        inputs.append(operand.op.operands[0])
    expressed = element_type(value.type)
    for v in inputs:
        q = quantized_element(v.type)
        if q is None or q.expressed_type != expressed:
            return "expressed types of the dequantized inputs and the result differ"
    return compute, inputs


class FuseQDQ(RewritePattern):
    """At a `uniform_quantize` of `op(uniform_dequantize(x)...)`, build `op(x...)` on
    the quantized types when that is a legal quantized op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, UniformQuantizeOp):
            return
        plan = fusion_plan(op)
        if isinstance(plan, str):
            return
        compute, inputs = plan
        result_type = op.results[0].type
        if refusal(compute, [v.type for v in inputs], result_type) is not None:
            return
        fused = type(compute).create(
            operands=inputs, result_types=[result_type],
            properties=dict(compute.properties), attributes=dict(compute.attributes))
        try:
            fused.verify()
        except VerifyException:
            fused.erase(safe_erase=False)
            return
        Builder(rewriter, compute, point=InsertPoint.after(compute)).insert(fused)
        rewriter.replace(op, [], [fused.results[0]])
        # upstream's greedy driver drops what became dead: the float op and the
        # dequantizes that only fed it
        if not compute.results[0].uses:
            dequantizes = [o.op for o in compute.operands if isinstance(o, OpResult)]
            rewriter.erase(compute)
            for dq in dict.fromkeys(dequantizes):
                if not dq.results[0].uses:
                    rewriter.erase(dq)


@dataclass(frozen=True)
class StablehloLegalizeQDQToQuantizedOpPass(ModulePass):
    """Fuse `uniform_dequantize -> op -> uniform_quantize` into the op on quantized types.

    At each `stablehlo.uniform_quantize` of a float value computed by an op `f`
    whose operands all come from `stablehlo.uniform_dequantize`, as upstream:

        %a = uniform_dequantize %qa ; %b = uniform_dequantize %qb
        %r = f %a, %b : tensor<..xf32>
        %q = uniform_quantize %r : -> T          ==>     %q = f %qa, %qb : -> T

    `f` must have no regions, one result, at least one operand and no quantized
    operands. Ops that became dead (the float `f`, dequantizes used only by it) are
    removed, as upstream's greedy driver does.

    Upstream fuses every such pattern; this pass fuses only when the result is a
    legal quantized op under the StableHLO spec, since the quantized op then means
    exactly `quantize(f(dequantize(...)))`, and leaves the float ops alone otherwise:

    - `f` must have a quantized form: an elementwise op the spec defines through
      `dequantize_op_quantize`, a data-movement op, `dot`, `dot_general` or
      `convolution` (not e.g. `convert`, `custom_call`, `compare`);
    - all quantized types share one expressed type, equal to the float type of `f`;
    - per-tensor only, except `add` (per-axis with matching dimensions), the rhs and
      result of `dot`/`dot_general`/`convolution`, and `transpose`, `reshape`,
      `broadcast_in_dim`;
    - elementwise ops: one storage type and storage range throughout;
    - data-movement ops keep the stored integers, so every element must keep its
      scale and zero point: equal quantization, or for per-axis `transpose` /
      `reshape` / `broadcast_in_dim` a quantized dimension that follows the op (spec
      transpose C4, reshape C3, broadcast_in_dim C6) with the same parameters;
    - `dot`, `dot_general`, `convolution`: lhs per-tensor, same storage type for lhs
      and rhs, per-tensor rhs only with a per-tensor result, per-axis result along
      the matching dimension; `dot_general` also needs rhs zero points 0 and a
      per-axis rhs not along a contracting dimension; `convolution` a per-axis rhs
      along the kernel output feature dimension (the spec does not ask convolution
      for rhs zero points 0);
    - sub-channel types are never fused (StableHLO has none).

    The rules are in `qcomp/passes/qdq/rules.py`; the fused op must also pass its
    verifier.
    """

    name = "stablehlo-legalize-qdq-to-quantized-op"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FuseQDQ(), apply_recursively=False).rewrite_module(op)
