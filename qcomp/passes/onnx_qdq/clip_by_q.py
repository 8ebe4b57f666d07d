"""Relu and Clip before a QuantizeLinear whose range already clips: onnxruntime removes
the op (its level-1 rewrite rules `ReluQuantFusion` and `ClipQuantFusion`,
`onnxruntime/core/optimizer/qdq_transformer/{relu,clip}_quantizelinear.cc`, which run
before the QDQ selectors), so `onnx-fuse-qdq` does too (`QdqRole("clip_by_q")`):

- the op's one result goes to exactly one QuantizeLinear and nowhere else;
- Relu: the QuantizeLinear has a constant zero point of one element at the storage
  minimum (uint8 0, int8 -128): `Q(Relu(x)) = Q(x)`, every negative x rounds to or
  below the zero point and saturates there;
- Clip: constant bounds (an absent one is float32's lowest / highest) and a
  QuantizeLinear with a constant float32 scalar scale and zero point (rank 0) whose
  range `[scale * (qmin - zp), scale * (qmax - zp)]` (float32) lies within them up to
  float32's epsilon: `min - lower <= eps` and `upper - max <= eps`.

A DequantizeLinear before the op is not needed (nor touched): what is left is the
QuantizeLinear of the op's input; when that is DequantizeLinear -> QuantizeLinear of one
constant scalar scale and zero point, onnxruntime's `QDQFinalCleanupTransformer` (after
the QDQ selectors) removes the pair (`redundant_pair`): the integers go on as they are.
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation, SSAValue

from qcomp.dialects.onnx import core
from qcomp.dialects.onnx import quantize as oq
from qcomp.dialects.onnx.float_ops import ClipOp
from qcomp.dialects.onnx.types import onnx_name
from qcomp.passes.onnx_qdq.groups import Group, _const, _same_params

STORAGE = {"uint8": (0, 255), "int8": (-128, 127)}
"""The storage types the rules know (onnxruntime's ClipQuantFusion throws on others)."""


def _scalar(v: SSAValue) -> np.ndarray | None:
    """The constant's values (flattened), None when `v` is not an onnx.Constant."""
    return None if core.is_none(v) else _const(v)


def find(op: Operation):
    """The group (`Group(op, [], q)`), why onnxruntime keeps the op (str), or None when
    its result does not go to exactly one QuantizeLinear."""
    uses = list(op.results[0].uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, oq.QuantizeLinearOp):
        return None
    q: oq.QuantizeLinearOp = uses[0].operation  # type: ignore[assignment]
    storage = onnx_name(q.y.type)
    if storage not in STORAGE:
        return f"{storage}: only 8-bit QuantizeLinear ranges are known to clip"
    lo, hi = STORAGE[storage]
    zp = _scalar(q.y_zero_point)
    if zp is None or zp.size != 1:
        return "the QuantizeLinear needs a constant zero point of one element"
    why = _clip(op, q, int(zp[0]), lo, hi) if isinstance(op, ClipOp) else _relu(int(zp[0]), lo)
    return why if why is not None else Group(op, [], q)


def _relu(zp: int, lo: int) -> str | None:
    if zp != lo:
        return f"the QuantizeLinear's zero point {zp} is not the storage minimum {lo}: " \
               "its range does not clip at 0"
    return None


def _clip(op: Operation, q: oq.QuantizeLinearOp, zp: int, lo: int, hi: int) -> str | None:
    f32 = np.finfo(np.float32)
    bounds = []
    for v, default in ((op.operands[1], f32.min), (op.operands[2], f32.max)):
        c = np.asarray([default], np.float32) if core.is_none(v) else _scalar(v)
        if c is None or c.size != 1:
            return "Clip's min and max must be constant scalars"
        bounds.append(np.float32(c[0]))
    scale = _scalar(q.y_scale)
    if (scale is None or onnx_name(q.y_scale.type) != "float"
            or [] != core.static_shape(q.y_scale) or [] != core.static_shape(q.y_zero_point)):
        return "the QuantizeLinear's scale and zero point must be constant float32 and " \
               "rank-0"
    s = np.float32(scale[0])
    lower, upper = s * np.float32(lo - zp), s * np.float32(hi - zp)
    if bounds[0] - lower > f32.eps or upper - bounds[1] > f32.eps:
        return f"Clip's range [{bounds[0]}, {bounds[1]}] does not cover the " \
               f"QuantizeLinear's [{lower}, {upper}]: it clips more"
    return None


def redundant_pair(q: Operation) -> oq.DequantizeLinearOp | None:
    """The DequantizeLinear whose QuantizeLinear `q` gives back its integers (the same
    constant scalar scale, zero point and storage type: `IsQDQPairSupported`), None
    when `q` is no such QuantizeLinear."""
    dq = getattr(q, "x", None) and q.x.owner  # type: ignore[attr-defined]
    if not isinstance(q, oq.QuantizeLinearOp) or not isinstance(dq, oq.DequantizeLinearOp):
        return None
    if onnx_name(dq.x.type) != onnx_name(q.y.type):
        return None
    return dq if _same_params(dq, q) is None else None
