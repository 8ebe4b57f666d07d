"""`onnx-unfuse-qdq` for onnxruntime's com.microsoft QLinearAveragePool,
QLinearReduceMean and QLinearWhere, by a rewrite of their own (before the generic one
by the float op whose `QdqRole` fuses to them: AveragePool's, Where's):

    QLinearAveragePool(x, sx, zx, sy, zy)   ->  Q(AveragePool(DQ(x, sx, zx)), sy, zy)
    QLinearReduceMean(d, sd, zd, sr, zr)    ->  Q(ReduceMean(DQ(d, sd, zd)) {axes, keepdims}, sr, zr)
    QLinearWhere(c, x, sx, zx, y, sy, zy, sz, zz)
                                            ->  Q(Where(c, DQ(x, sx, zx), DQ(y, sy, zy)), sz, zz)

Each rewrite gets the pass's emitter `b` (`dq`, `q`, `add`) and returns False when the op
stays (with a remark): QLinearAveragePool with channels_last = 1, or with ceil_mode and
count_include_pad both set (onnxruntime's kernel then divides by the kernel's size where
ONNX's AveragePool counts only the explicit padding).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    IntegerAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, SSAValue

from qcomp.dialects.onnx import core
from qcomp.dialects.onnx.float_math import ReduceMeanOp, WhereOp
from qcomp.dialects.onnx.float_ops import AveragePoolOp
from qcomp.passes.utils.diagnostics import remark

PASS = "onnx-unfuse-qdq"


def float_type(t: Attribute, like: SSAValue) -> TensorType | UnrankedTensorType:
    """`t`'s shape (or its unrankedness) with `like`'s float element type."""
    et = like.type.element_type  # type: ignore[attr-defined]
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(et)
    return TensorType(et, t.get_shape())  # type: ignore[attr-defined]


def _like(t: Attribute, element) -> TensorType | UnrankedTensorType:
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(element)
    return TensorType(element, t.get_shape())  # type: ignore[attr-defined]


def _props(op, names) -> dict[str, Attribute]:
    return {k: IntegerAttr(v.value.data, core.SI64) if isinstance(v, IntegerAttr) else v
            for k, v in op.attributes.items() if k in names}


def _zp(b, ins, i):
    return ins[i] if len(ins) > i else b.add(core.NoValueOp())


def _finish(b, op, rewriter, y, ys, yz) -> bool:
    rewriter.replace(op, [], [b.q(y, ys, yz, op.results[0].type)])
    return True


def average_pool(b, op, rewriter) -> bool:
    a = {k: core.attr(op, k) for k in ("channels_last", "ceil_mode", "count_include_pad")}
    if a["channels_last"]:
        remark(op, f"{PASS}: QLinearAveragePool with channels_last = 1 has no ONNX "
                   "AveragePool; it stays")
        return False
    if a["ceil_mode"] and a["count_include_pad"]:
        remark(op, f"{PASS}: QLinearAveragePool with ceil_mode and count_include_pad divides "
                   "by the kernel's size where ONNX's AveragePool does not; it stays")
        return False
    ins = list(op.inputs)
    out = op.results[0]
    y = b.add(AveragePoolOp.create(
        operands=[b.dq(*ins[:3])], result_types=[float_type(out.type, ins[3])],
        properties=_props(op, ("auto_pad", "ceil_mode", "count_include_pad", "kernel_shape",
                               "pads", "strides"))))
    return _finish(b, op, rewriter, y, ins[3], _zp(b, ins, 4))


def reduce_mean(b, op, rewriter) -> bool:
    ins = list(op.inputs)
    out = op.results[0]
    y = b.add(ReduceMeanOp.create(
        operands=[b.dq(*ins[:3]), b.add(core.NoValueOp())],
        result_types=[float_type(out.type, ins[3])], properties=_props(op, ("axes", "keepdims"))))
    return _finish(b, op, rewriter, y, ins[3], _zp(b, ins, 4))


def where(b, op, rewriter) -> bool:
    c, x, sx, zx, y, sy, zy, sz, zz = op.inputs
    out = op.results[0]
    z = b.add(WhereOp.create(operands=[c, b.dq(x, sx, zx), b.dq(y, sy, zy)],
                             result_types=[float_type(out.type, sz)]))
    return _finish(b, op, rewriter, z, sz, zz)


UNFUSE = {"QLinearAveragePool": average_pool, "QLinearReduceMean": reduce_mean,
          "QLinearWhere": where}
"""com.microsoft function name -> its rewrite."""
