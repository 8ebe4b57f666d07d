"""The `onnx-fuse-qdq` pass: onnxruntime's QDQ transformers
(`onnxruntime/core/optimizer/qdq_transformer/selectors_actions/`) on the onnx dialect.
A group DequantizeLinear -> target -> QuantizeLinear becomes

| target | fused |
|---|---|
| MatMul | onnx.QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) |
| Conv | onnx.QLinearConv(x, ..., w, ..., y_scale, y_zp, B) (B: the int32 bias DequantizeLinear's input, as onnxruntime passes it) |
| Add, Mul | com.microsoft QLinearAdd / QLinearMul (onnx.Custom) |
| Sigmoid, GlobalAveragePool | com.microsoft QLinearSigmoid / QLinearGlobalAveragePool (channels_last = 0) |
| Concat | com.microsoft QLinearConcat(y_scale, y_zp, x1, s1, z1, ...) |
| Reshape, Flatten, Transpose, Squeeze, Unsqueeze, MaxPool, Gather, GatherElements, Resize | the op on the integers (the pair dropped) |
| ArgMax (DequantizeLinear -> ArgMax, no QuantizeLinear) | ArgMax on the integers (the DequantizeLinear dropped) |

(the target op's declared `QdqRole`: its selector and fused form) when onnxruntime's
selectors accept it (`qcomp.passes.onnx_qdq.groups`); a group they
refuse stays, with a remark giving the selector's reason. An absent zero point becomes a
zero constant (the fused ops take one). `onnx-unfuse-qdq` is the inverse.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from qcomp.dialects.onnx import core
from qcomp.dialects.onnx import quantized as oz
from qcomp.dialects.onnx.core import ConstantOp, CustomOp
from qcomp.passes.onnx_qdq import groups
from qcomp.passes.utils.diagnostics import remark

PASS = "onnx-fuse-qdq"


def zero_point(rewriter: PatternRewriter, anchor: Operation, zp: SSAValue, scale: SSAValue,
               storage: TensorType) -> SSAValue:
    """`zp`, or a zero constant of the storage type shaped like the scale."""
    if not core.is_none(zp):
        return zp
    shape = tuple(scale.type.get_shape())  # type: ignore[attr-defined]
    t = TensorType(storage.element_type, shape)
    c = ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [0]), t)
    rewriter.insert(c, _before(anchor))
    return c.output


def _before(op: Operation) -> InsertPoint:
    return InsertPoint.before(op)


def _triple(rewriter, anchor, dq) -> list[SSAValue]:
    return [dq.x, dq.x_scale, zero_point(rewriter, anchor, dq.x_zero_point, dq.x_scale, dq.x.type)]


class FuseQDQ(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        g = groups.find(op)
        if g is None:
            return
        if isinstance(g, str):
            remark(op, f"{PASS}: '{op.name}' is not fused: {g}")
            return
        if g.q is None:  # drop_dq: the op on the DequantizeLinear's integers
            dq = g.dqs[0]
            rewriter.replace_uses_with_if(dq.y, dq.x, lambda u: u.operation is op)
            if not dq.y.uses:
                rewriter.erase(dq)
            return
        q = g.q
        out_t = q.y.type
        yz = zero_point(rewriter, op, q.y_zero_point, q.y_scale, out_t)
        role = core.qdq_role(op)
        assert role is not None
        if role.selector == "drop":
            operands = list(op.operands)
            operands[0] = g.dqs[0].x
            new = op.create(operands=operands, result_types=[out_t],
                            properties=dict(op.properties), attributes=dict(op.attributes))
        elif role.selector == "matmul":
            new = oz.QLinearMatMulOp.create(
                operands=[*_triple(rewriter, op, g.dqs[0]), *_triple(rewriter, op, g.dqs[1]),
                          q.y_scale, yz], result_types=[out_t])
        elif role.selector == "conv":
            bias = g.dqs[2].x if len(g.dqs) == 3 else op.operands[2]
            new = oz.QLinearConvOp.create(
                operands=[*_triple(rewriter, op, g.dqs[0]), *_triple(rewriter, op, g.dqs[1]),
                          q.y_scale, yz, bias], result_types=[out_t],
                properties=dict(op.properties))
        else:  # a com.microsoft QLinear op: the op's attributes, then the declared ones
            ins = [v for dq in g.dqs for v in _triple(rewriter, op, dq)]
            attrs = {k: groups.as_si64(v) for k, v in op.properties.items()}
            attrs |= {k: IntegerAttr(v, core.SI64) for k, v in role.fused_attrs.items()}
            out = [q.y_scale, yz]
            operands = [*out, *ins] if role.selector == "variadic" else [*ins, *out]
            new = CustomOp(operands, [out_t], role.fused, "com.microsoft", attrs)
        rewriter.insert(new, _before(op))
        rewriter.replace(q, [], [new.results[0]])
        rewriter.erase(op)
        for dq in g.dqs:
            if not dq.y.uses:
                rewriter.erase(dq)


@dataclass(frozen=True)
class OnnxFuseQDQPass(ModulePass):
    """DequantizeLinear -> MatMul | Conv | Add | Mul | Sigmoid | GlobalAveragePool | Concat
    -> QuantizeLinear as QLinearMatMul / QLinearConv / com.microsoft QLinear* (and the
    data-movement ops on the integers), deciding as onnxruntime's QDQ selectors do;
    refused groups stay, with a remark."""

    name = "onnx-fuse-qdq"

    def numerics_contract(self) -> tuple[str, int]:
        """The fused ops requantize once (onnxruntime's kernels): one storage step."""
        return ("spec", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(FuseQDQ(), apply_recursively=False).rewrite_module(op)


__all__ = ["OnnxFuseQDQPass", "zero_point"]
