"""A QDQ node group: DequantizeLinear -> target -> QuantizeLinear, found and judged as
onnxruntime's QDQ selectors judge it (`qdq_selectors.cc`, CPU execution provider's
defaults: int8 activations allowed, 16-bit and 4-bit types not):

- every tensor input of the target comes from a DequantizeLinear (a DequantizeLinear
  with other users is duplicated for the group, as `EnsureUniqueDQForNodeUnit` does);
- the target's one result goes to exactly one QuantizeLinear and to nothing else (not a
  graph output);
- per target kind: `binary` (Add, Mul): both inputs and the output of one element type;
  `unary` (Sigmoid, GlobalAveragePool): input and output of one type; `variadic`
  (Concat): all of one type; `conv`: input and output of one type, an int8 input needs
  int8 weights, the bias int32; `matmul`: an int8 input needs int8 weights, output of
  the input's type; `drop` (Reshape, Flatten, Transpose, Squeeze, Unsqueeze, MaxPool,
  Gather: onnxruntime drops the pair and moves the integers): input and output of one
  type, scalar positive constant scales, equal scale and zero point on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Operation, SSAValue

from qcomp.dialects.onnx import core
from qcomp.dialects.onnx import float_ops as fo
from qcomp.dialects.onnx import quantize as oq
from qcomp.dialects.onnx.types import onnx_name
from qcomp.ir.splat import dense_array

KIND: dict[type[Operation], str] = {
    fo.AddOp: "binary", fo.MulOp: "binary", fo.SigmoidOp: "unary",
    fo.GlobalAveragePoolOp: "unary", fo.ConcatOp: "variadic", fo.ConvOp: "conv",
    fo.MatMulOp: "matmul", fo.ReshapeOp: "drop", fo.FlattenOp: "drop",
    fo.TransposeOp: "drop", fo.SqueezeOp: "drop", fo.UnsqueezeOp: "drop",
    fo.MaxPoolSingleOutOp: "drop", fo.GatherOp: "drop"}
"""The target ops onnxruntime's QDQ transformers fuse, by selector."""

QUANTIZED_INPUTS: dict[type[Operation], tuple[int, ...]] = {
    fo.ReshapeOp: (0,), fo.SqueezeOp: (0,), fo.UnsqueezeOp: (0,), fo.GatherOp: (0,)}
"""Operands that carry quantized data where not all present operands do; the rest
(shapes, axes, indices) stay as they are."""

NARROW = ("int16", "uint16", "int4", "uint4")


@dataclass
class Group:
    target: Operation
    dqs: list[oq.DequantizeLinearOp]
    q: oq.QuantizeLinearOp


def _dq(v: SSAValue) -> oq.DequantizeLinearOp | None:
    owner = v.owner
    return owner if isinstance(owner, oq.DequantizeLinearOp) else None


def data_operands(op: Operation) -> list[SSAValue]:
    idx = QUANTIZED_INPUTS.get(type(op))
    if idx is None:
        return [v for v in op.operands if not core.is_none(v)]
    return [op.operands[i] for i in idx]


def find(op: Operation) -> Group | str | None:
    """The group around `op`, the reason onnxruntime would not fuse it (str), or None
    when `op` is not a QDQ target at all (no DequantizeLinear feeds it)."""
    kind = KIND.get(type(op))
    if kind is None:
        return None
    inputs = data_operands(op)
    dqs = [_dq(v) for v in inputs]
    if not any(dqs):
        return None
    if not all(dqs):
        return "not every quantized input comes from a DequantizeLinear"
    uses = list(op.results[0].uses)
    qs = [u.operation for u in uses if isinstance(u.operation, oq.QuantizeLinearOp)]
    if not uses:
        return "the result is unused"
    if len(qs) != len(uses):
        return "the result has users other than QuantizeLinear (or is a graph output)"
    if len(qs) != 1:
        return "the result goes to several QuantizeLinear"
    group = Group(op, dqs, qs[0])  # type: ignore[arg-type]
    why = _check(kind, group)
    return why if why is not None else group


def _elem(v: SSAValue) -> str | None:
    return onnx_name(v.type)


def _const(v: SSAValue) -> np.ndarray | None:
    owner = v.owner
    a = getattr(owner, "properties", {}).get("value") or getattr(owner, "attributes", {}).get("value")
    if not isinstance(a, DenseIntOrFPElementsAttr):
        return None
    return dense_array(a).reshape(-1)


def _check(kind: str, g: Group) -> str | None:
    ins = [_elem(d.x) for d in g.dqs]
    out = _elem(g.q.y)
    if kind in ("conv", "matmul"):
        x, w = ins[0], ins[1]
        if any(t in NARROW for t in (x, w)):
            return f"{x} x {w}: 16-bit and 4-bit types are not fused"
        if x == "int8" and w != "int8":
            return "an int8 input needs int8 weights"
        if x != out:
            return f"input ({x}) and output ({out}) element types differ"
        if kind == "conv" and len(ins) == 3 and ins[2] != "int32":
            return f"the bias must be int32, got {ins[2]}"
        return None
    if len(set(ins)) != 1 or ins[0] != out:
        return "inputs and output must have one element type, got " + ", ".join(
            f"{t}" for t in (*ins, out))
    if ins[0] in NARROW:
        return f"{ins[0]}: 16-bit and 4-bit types are not fused"
    if kind == "drop":
        d, q = g.dqs[0], g.q
        ds, qs = _const(d.x_scale), _const(q.y_scale)
        if ds is None or qs is None or ds.size != 1 or qs.size != 1 or ds[0] <= 0 or qs[0] <= 0:
            return "the scales must be positive constant scalars"
        dz = np.zeros(1) if core.is_none(d.x_zero_point) else _const(d.x_zero_point)
        qz = np.zeros(1) if core.is_none(q.y_zero_point) else _const(q.y_zero_point)
        if dz is None or qz is None or not np.array_equal(ds, qs) or not np.array_equal(dz, qz):
            return "DequantizeLinear and QuantizeLinear must have the same constant scale " \
                   "and zero point"
    return None
