"""The `onnx-unfuse-qdq` pass, the inverse of `onnx-fuse-qdq`: each QLinear op becomes
the QDQ group it stands for (onnxruntime's QDQ format, what `quantize_static` with
`QuantFormat.QDQ` writes):

    QLinearMatMul(a, sa, za, b, sb, zb, sy, zy)  ->  Q(MatMul(DQ(a, sa, za), DQ(b, sb, zb)), sy, zy)
    QLinearConv(x, ..., w, ..., sy, zy, B)       ->  Q(Conv(DQ(x), DQ(w), DQ(B, sx * sw, 0)), sy, zy)
    com.microsoft QLinearAdd / QLinearMul / QLinearSigmoid / QLinearGlobalAveragePool /
    QLinearConcat                                ->  Q(Add / Mul / Sigmoid / GlobalAveragePool / Concat(DQ...))
    com.microsoft QGemm(a, sa, za, b, sb, zb, C, sy, zy)
                                                 ->  Q(Gemm(DQ(a), DQ(b), DQ(C, sa * sb, 0)), sy, zy)
    com.microsoft QLinearSoftmax(x, sx, zx, sy, zy)  ->  Q(Softmax(DQ(x, sx, zx)), sy, zy)
    com.microsoft QLinearAveragePool / ReduceMean / Where / LeakyRelu: onnx_qdq/unfuse_contrib.py

(the float op is the one whose declared `QdqRole` fuses to the QLinear op).

A per-channel weight scale dequantizes along axis 0 (Conv's output channels) or 1
(MatMul's columns); the bias scale is `Mul(x_scale, w_scale)` (the scale QLinearConv
gives its int32 bias, a float32 constant when both scales are constants).
Data-movement ops on integers stay as they are (their scale is not on them).
QLinearGlobalAveragePool with channels_last = 1 stays, with a remark; so does QGemm
with alpha != 1 or without y_scale (a float result).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern
from xdsl.rewriter import InsertPoint

from qcomp.dialects.onnx import core
from qcomp.dialects.onnx import quantize as oq
from qcomp.dialects.onnx import quantized as oz
from qcomp.dialects.onnx.float_ops import GemmOp, MulOp, SoftmaxOp
from qcomp.passes.onnx_legalize_qdq_to_quant import constant_values
from qcomp.passes.onnx_qdq import groups, unfuse_contrib
from qcomp.passes.utils.diagnostics import remark

PASS = "onnx-unfuse-qdq"


class _Emit:
    def __init__(self, rewriter: PatternRewriter, anchor: Operation):
        self.rewriter, self.point = rewriter, InsertPoint.before(anchor)

    def add(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op, self.point)
        return op.results[0]

    def dq(self, x: SSAValue, scale: SSAValue, zp: SSAValue, axis: int | None = None
           ) -> SSAValue:
        t = _float(x.type, scale)
        props = {} if axis is None else {"axis": IntegerAttr(axis, core.SI64)}
        return self.add(oq.DequantizeLinearOp.create(operands=[x, scale, zp], result_types=[t],
                                                     properties=props))

    def q(self, y: SSAValue, scale: SSAValue, zp: SSAValue, out: Attribute) -> SSAValue:
        return self.add(oq.QuantizeLinearOp.create(operands=[y, scale, zp], result_types=[out]))


_float = unfuse_contrib.float_type


def _per_channel(scale: SSAValue) -> bool:
    s = core.static_shape(scale)
    return s is not None and len(s) == 1 and s[0] != 1


def _bias_scale(b: _Emit, sx: SSAValue, sw: SSAValue) -> SSAValue:
    """`sx * sw`: a float32 constant when both are constants (what quantize_static
    computes for the bias), else `onnx.Mul`."""
    x, w = constant_values(sx), constant_values(sw)
    st = sw.type
    if x is None or w is None:
        return b.add(MulOp.create(operands=[sx, sw], result_types=[st]))
    prod = (x.astype(np.float32) * w.astype(np.float32)).reshape(-1)
    attr = DenseIntOrFPElementsAttr.from_list(st, [float(v) for v in prod])  # type: ignore[arg-type]
    return b.add(core.ConstantOp(attr, st))


class UnfuseQDQ(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        b = _Emit(rewriter, op)
        if isinstance(op, oz.QLinearMatMulOp):
            a = b.dq(op.a, op.a_scale, op.a_zero_point)
            w = b.dq(op.b, op.b_scale, op.b_zero_point, 1 if _per_channel(op.b_scale) else None)
            y = b.add(groups.target_of(op).create(
                operands=[a, w], result_types=[_float(op.y.type, op.y_scale)]))
            rewriter.replace(op, [], [b.q(y, op.y_scale, op.y_zero_point, op.y.type)])
            return
        if isinstance(op, oz.QLinearConvOp):
            x = b.dq(op.x, op.x_scale, op.x_zero_point)
            w = b.dq(op.w, op.w_scale, op.w_zero_point, 0 if _per_channel(op.w_scale) else None)
            bias = op.B
            if not core.is_none(bias):
                s = _bias_scale(b, op.x_scale, op.w_scale)
                zero = b.add(core.NoValueOp())
                bias = b.dq(bias, s, zero, 0 if _per_channel(op.w_scale) else None)
            y = b.add(groups.target_of(op).create(
                operands=[x, w, bias], result_types=[_float(op.y.type, op.y_scale)],
                properties=dict(op.properties)))
            rewriter.replace(op, [], [b.q(y, op.y_scale, op.y_zero_point, op.y.type)])
            return
        if not isinstance(op, core.CustomOp) or op.function_name is None:
            return
        fn = op.function_name.data
        if fn in UNFUSERS:
            UNFUSERS[fn](b, op, rewriter)
            return
        if fn in unfuse_contrib.UNFUSE:
            unfuse_contrib.UNFUSE[fn](b, op, rewriter)
            return
        target = groups.targets().get(fn)
        if target is None:  # no float op declares it as its fused form
            return
        role, onnx_facts = core.qdq_role(target), core.facts(target)
        assert role is not None and onnx_facts is not None
        ins = list(op.inputs)
        for k, v in role.fused_attrs.items():
            if core.attr(op, k) not in (None, v):
                remark(op, f"{PASS}: {fn} with {k} = {core.attr(op, k)} has no ONNX "
                           f"{onnx_facts.op_type}; it stays")
                return
        if role.selector == "variadic":
            ys, yz, triples = ins[0], ins[1], ins[2:]
            ins_f = [b.dq(*triples[i:i + 3]) for i in range(0, len(triples), 3)]
        else:
            n = 1 if role.selector == "unary" else 2
            ins_f = [b.dq(*ins[3 * i:3 * i + 3]) for i in range(n)]
            ys, yz = ins[3 * n], ins[3 * n + 1] if len(ins) > 3 * n + 1 else b.add(core.NoValueOp())
        defs = target.get_irdl_definition().properties
        props = {k: groups.as_si64(v) for k, v in op.attributes.items() if k in defs}
        out = op.results[0]
        y = b.add(target.create(operands=ins_f, result_types=[_float(out.type, ys)],
                                properties=props))
        rewriter.replace(op, [], [b.q(y, ys, yz, out.type)])


def _unfuse_qgemm(b: _Emit, op: core.CustomOp, rewriter: PatternRewriter) -> None:
    ins = list(op.inputs) + [None] * (9 - len(op.inputs))
    a, sa, za, w, sw, zw, c, sy, zy = ins
    alpha = core.attr(op, "alpha")
    if alpha not in (None, 1.0) or sy is None or core.is_none(sy):
        remark(op, f"{PASS}: QGemm with alpha = {alpha} or a float result has no QDQ "
                   "form here; it stays")
        return
    trans_b = core.attr(op, "transB") or 0
    x = b.dq(a, sa, za)
    wf = b.dq(w, sw, zw, (0 if trans_b else 1) if _per_channel(sw) else None)
    if c is not None and not core.is_none(c):
        s = _bias_scale(b, sa, sw)
        c = b.dq(c, s, b.add(core.NoValueOp()), 0 if _per_channel(sw) else None)
    else:
        c = b.add(core.NoValueOp())
    props = {k: groups.as_si64(v) for k, v in op.attributes.items() if k in ("transA", "transB")}
    out = op.results[0]
    y = b.add(GemmOp.create(operands=[x, wf, c], result_types=[_float(out.type, sy)],
                            properties=props))
    if zy is None:
        zy = b.add(core.NoValueOp())
    rewriter.replace(op, [], [b.q(y, sy, zy, out.type)])


def _unfuse_qlinear_softmax(b: _Emit, op: core.CustomOp, rewriter: PatternRewriter) -> None:
    if (core.attr(op, "opset") or 13) < 13:
        remark(op, f"{PASS}: QLinearSoftmax of opset < 13 (over the flattened trailing "
                   "axes) stays")
        return
    ins = list(op.inputs)
    ys, yz = ins[3], ins[4] if len(ins) > 4 else b.add(core.NoValueOp())
    props = {k: groups.as_si64(v) for k, v in op.attributes.items() if k == "axis"}
    out = op.results[0]
    y = b.add(SoftmaxOp.create(operands=[b.dq(*ins[:3])], result_types=[_float(out.type, ys)],
                               properties=props))
    rewriter.replace(op, [], [b.q(y, ys, yz, out.type)])


UNFUSERS = {"QGemm": _unfuse_qgemm, "QLinearSoftmax": _unfuse_qlinear_softmax}
"""The com.microsoft ops unfused by a function of their own (the others: the float op
whose declared `QdqRole` fuses to them)."""


def unfusable() -> set[str]:
    """The QLinear / com.microsoft ops this pass takes apart."""
    return set(groups.targets()) | set(UNFUSERS) | set(unfuse_contrib.UNFUSE)


@dataclass(frozen=True)
class OnnxUnfuseQDQPass(ModulePass):
    """QLinearMatMul, QLinearConv and com.microsoft QLinearAdd / Mul / Sigmoid /
    GlobalAveragePool / Concat as DequantizeLinear -> float op -> QuantizeLinear (the
    inverse of onnx-fuse-qdq)."""

    name = "onnx-unfuse-qdq"

    def numerics_contract(self) -> tuple[str, int]:
        """The QDQ form rounds once more than the fused kernels: one storage step."""
        return ("spec", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(UnfuseQDQ(), apply_recursively=False).rewrite_module(op)


__all__ = ["OnnxUnfuseQDQPass"]
