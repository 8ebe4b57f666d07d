"""The `onnx-fuse-qdq` pass: onnxruntime's QDQ transformers
(`onnxruntime/core/optimizer/qdq_transformer/selectors_actions/`) on the onnx dialect.
A group DequantizeLinear -> target -> QuantizeLinear becomes

| target | fused |
|---|---|
| MatMul | onnx.QLinearMatMul(a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp) |
| Conv | onnx.QLinearConv(x, ..., w, ..., y_scale, y_zp, B) (B: the int32 bias DequantizeLinear's input, as onnxruntime passes it) |
| Add, Mul | com.microsoft QLinearAdd / QLinearMul (onnx.Custom) |
| Concat | com.microsoft QLinearConcat(y_scale, y_zp, x1, s1, z1, ...) |
| Sigmoid, GlobalAveragePool, AveragePool | com.microsoft QLinearSigmoid / QLinearGlobalAveragePool / QLinearAveragePool (channels_last = 0) |
| Gemm | com.microsoft QGemm(a, sa, za, b, sb, zb, C, y_scale, y_zp) (C: the int32 bias; no QuantizeLinear: the float result, no y_scale / y_zp) |
| Where | com.microsoft QLinearWhere(condition, x, sx, zx, y, sy, zy, z_scale, z_zp) |
| Reshape, Flatten, Transpose, Squeeze, Unsqueeze, MaxPool, Gather, GatherElements, Resize, Slice, Split | the op on the integers (the pair dropped; Split: one QuantizeLinear per result) |
| ArgMax (DequantizeLinear -> ArgMax, no QuantizeLinear) | ArgMax on the integers (the DequantizeLinear dropped) |
| Relu, Clip (op -> QuantizeLinear, first) | removed when the QuantizeLinear's range already clips (`onnx_qdq.clip_by_q`) |
| DequantizeLinear -> QuantizeLinear of one scale and zero point (last) | the integers (onnxruntime's QDQFinalCleanupTransformer) |

(the target op's declared `QdqRole`: its selector and fused form) when onnxruntime's
selectors accept it (`qcomp.passes.onnx_qdq.groups`); a group they
refuse stays, with a remark giving the selector's reason. An absent zero point becomes a
zero constant (the fused ops take one). `onnx-unfuse-qdq` is the inverse (but for the
Relu / Clip removed, and the DequantizeLinear -> QuantizeLinear pairs dropped).
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
from qcomp.passes.onnx_qdq import clip_by_q, groups
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


class DropRedundantPair(RewritePattern):
    """DequantizeLinear -> QuantizeLinear of one scale and zero point: the integers
    (onnxruntime's QDQFinalCleanupTransformer, after its QDQ selectors)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        dq = clip_by_q.redundant_pair(op)
        if dq is None:
            return
        rewriter.replace(op, [], [dq.x])
        if not dq.y.uses:
            rewriter.erase(dq)


@dataclass
class FuseQDQ(RewritePattern):
    clip_by_q: bool
    """The first walk: Relu / Clip before a QuantizeLinear that clips (onnxruntime's
    level-1 rules, before its QDQ selectors); the second: the groups."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if (groups.kind(op) == "clip_by_q") != self.clip_by_q:
            return
        g = clip_by_q.find(op) if self.clip_by_q else groups.find(op)
        if g is None:
            return
        if isinstance(g, str):
            remark(op, f"{PASS}: '{op.name}' is not fused: {g}")
            return
        role = core.qdq_role(op)
        assert role is not None
        if role.selector == "clip_by_q":  # the QuantizeLinear takes the op's input
            rewriter.replace(op, [], [op.operands[0]])
            return
        if role.selector == "drop_dq":  # the op on the DequantizeLinear's integers
            dq = g.dqs[0]
            rewriter.replace_uses_with_if(dq.y, dq.x, lambda u: u.operation is op)
            if not dq.y.uses:
                rewriter.erase(dq)
            return
        if g.q is None:  # QGemm with a float result
            new = _qgemm(rewriter, op, g, None)
            rewriter.insert(new, _before(op))
            rewriter.replace(op, [], [new.results[0]])
            _erase_unused(rewriter, g)
            return
        q = g.q
        out_t = q.y.type
        yz = zero_point(rewriter, op, q.y_zero_point, q.y_scale, out_t)
        if role.selector == "drop":
            operands = list(op.operands)
            operands[0] = g.dqs[0].x
            new = op.create(operands=operands, result_types=[p.y.type for p in g.qs or (q,)],
                            properties=dict(op.properties), attributes=dict(op.attributes))
        elif role.selector == "gemm":
            new = _qgemm(rewriter, op, g, yz)
        elif role.selector == "where":
            new = CustomOp([op.operands[0], *_triple(rewriter, op, g.dqs[0]),
                            *_triple(rewriter, op, g.dqs[1]), q.y_scale, yz], [out_t],
                           role.fused, "com.microsoft", {})
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
        for p, r in zip(g.qs or (q,), new.results, strict=True):
            rewriter.replace(p, [], [r])
        rewriter.erase(op)
        _erase_unused(rewriter, g)


def _erase_unused(rewriter: PatternRewriter, g: groups.Group) -> None:
    for dq in g.dqs:
        if not dq.y.uses:
            rewriter.erase(dq)


def _qgemm(rewriter: PatternRewriter, op: Operation, g: groups.Group,
           yz: SSAValue | None) -> CustomOp:
    """com.microsoft QGemm(A, a_scale, a_zp, B, b_scale, b_zp, C?, y_scale?, y_zp?): C the
    int32 bias the DequantizeLinear takes; without a QuantizeLinear, a float result
    (onnxruntime's GemmReplaceWithQuant: Gemm's attributes but beta)."""
    ins = [*_triple(rewriter, op, g.dqs[0]), *_triple(rewriter, op, g.dqs[1])]
    if len(g.dqs) == 3:
        ins.append(g.dqs[2].x)
    elif g.q is not None:
        none = core.NoValueOp()
        rewriter.insert(none, _before(op))
        ins.append(none.results[0])
    out_t = op.results[0].type
    if g.q is not None and yz is not None:
        ins += [g.q.y_scale, yz]
        out_t = g.q.y.type
    attrs = {k: groups.as_si64(v) for k, v in op.properties.items() if k != "beta"}
    return CustomOp(ins, [out_t], "QGemm", "com.microsoft", attrs)


@dataclass(frozen=True)
class OnnxFuseQDQPass(ModulePass):
    """DequantizeLinear -> MatMul | Conv | Gemm | Add | Mul | Where | Sigmoid |
    GlobalAveragePool | AveragePool | Concat -> QuantizeLinear as QLinearMatMul /
    QLinearConv / com.microsoft QGemm, QLinear* (and the data-movement ops on the
    integers), deciding as onnxruntime's QDQ selectors do; refused groups stay, with a
    remark. Before: Relu / Clip that the QuantizeLinear's range makes redundant go; after:
    DequantizeLinear -> QuantizeLinear of one scale and zero point goes."""

    name = "onnx-fuse-qdq"

    def numerics_contract(self) -> tuple[str, int]:
        """The fused ops requantize once (onnxruntime's kernels): one storage step."""
        return ("spec", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for pattern in (FuseQDQ(True), FuseQDQ(False), DropRedundantPair()):
            PatternRewriteWalker(pattern, apply_recursively=False).rewrite_module(op)


__all__ = ["OnnxFuseQDQPass", "zero_point"]
