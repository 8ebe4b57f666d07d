"""A QDQ node group: DequantizeLinear -> target -> QuantizeLinear, found and judged as
onnxruntime's QDQ selectors judge it (`qdq_selectors.cc`, CPU execution provider's
defaults: int8 activations allowed, 16-bit and 4-bit types not):

- every tensor input of the target comes from a DequantizeLinear (a DequantizeLinear
  with other users is duplicated for the group, as `EnsureUniqueDQForNodeUnit` does);
- the target's one result goes to exactly one QuantizeLinear and to nothing else (not a
  graph output);
- per target selector (the op's declared `QdqRole`): `binary` (Add, Mul) and `where`
  (Where: its two data inputs; the condition is not quantized): both inputs and the
  output of one element type;
  `unary` (Sigmoid, GlobalAveragePool, AveragePool): input and output of one type;
  `variadic` (Concat): all of one type; `conv`: input and output of one type, an int8
  input needs int8 weights, the bias int32; `matmul`: an int8 input needs int8
  weights, output of the input's type; `gemm` (GemmSelector): as `matmul`, but the
  QuantizeLinear is optional (none: QGemm's result is float), a bias must be int32
  and beta 1; `drop` (Reshape, Flatten, Transpose, Squeeze, Unsqueeze, MaxPool,
  Gather, Resize, Slice; Split, whose every result goes to one QuantizeLinear:
  onnxruntime drops the pairs and moves the integers): input and output
  of one type, scalar positive constant scales, equal scale and zero point on both
  sides (onnxruntime's Resize rule also takes a non-positive scale, which no quantizer
  writes);
  `drop_dq` (ArgMax): DequantizeLinear -> op with no QuantizeLinear, an 8-bit input with
  a constant scalar scale and zero point: the op runs on the integers; `keep` (TopK,
  CumSum, InstanceNormalization, BatchNormalization, LayerNormalization, Pad,
  ConvTranspose): no group, onnxruntime has no rule for it;
  `clip_by_q` (Relu, Clip; `onnx_qdq.clip_by_q`): op -> QuantizeLinear, no
  DequantizeLinear needed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IntegerAttr
from xdsl.ir import Attribute, Operation, SSAValue

from qcomp.dialects.onnx import core
from qcomp.dialects.onnx import quantize as oq
from qcomp.dialects.onnx.types import onnx_name
from qcomp.ir.splat import dense_array


def kind(op: Operation | type[Operation]) -> str | None:
    """The op's selector (its declared `QdqRole`), None when onnxruntime's QDQ
    transformers do not fuse it."""
    role = core.qdq_role(op)
    return None if role is None else role.selector


def targets() -> dict[str, type[Operation]]:
    """Each fused form (`QLinearMatMul`, com.microsoft `QLinearAdd`, ...) -> the ONNX op
    whose declared `QdqRole` fuses to it (the ops registered in the onnx dialect now)."""
    from qcomp.dialects import onnx

    return {r.fused: cls for cls in onnx.ONNX.operations
            if (r := core.qdq_role(cls)) is not None and r.fused is not None}


def target_of(fused: Operation) -> type[Operation]:
    """The ONNX op a fused op (QLinearMatMul, QLinearConv) stands for."""
    f = core.facts(fused)
    assert f is not None
    return targets()[f.op_type]


def as_si64(a: Attribute) -> Attribute:
    """An ONNX INT attribute as onnx-mlir writes it (`1 : si64`); others as they are."""
    return IntegerAttr(a.value.data, core.SI64) if isinstance(a, IntegerAttr) else a


NARROW = ("int16", "uint16", "int4", "uint4")


@dataclass
class Group:
    target: Operation
    dqs: list[oq.DequantizeLinearOp]
    q: oq.QuantizeLinearOp | None
    """None for `drop_dq` (the op's result is not quantized: ArgMax's indices) and a
    `gemm` with a float result."""
    qs: tuple[oq.QuantizeLinearOp, ...] = ()
    """One QuantizeLinear per result (`drop` of a Split); () for a single result."""


def _dq(v: SSAValue) -> oq.DequantizeLinearOp | None:
    owner = v.owner
    return owner if isinstance(owner, oq.DequantizeLinearOp) else None


def data_operands(op: Operation) -> list[SSAValue]:
    """The operands that carry quantized data (the role's `data_inputs`, else every
    present one)."""
    role = core.qdq_role(op)
    idx = None if role is None else role.data_inputs
    if idx is None:
        return [v for v in op.operands if not core.is_none(v)]
    return [op.operands[i] for i in idx]


def find(op: Operation) -> Group | str | None:
    """The group around `op`, the reason onnxruntime would not fuse it (str), or None
    when `op` is not a QDQ target at all (no DequantizeLinear feeds it)."""
    selector = kind(op)
    if selector in (None, "keep", "clip_by_q"):  # clip_by_q: `onnx_qdq.clip_by_q.find`
        return None
    inputs = data_operands(op)
    dqs = [_dq(v) for v in inputs]
    if not any(dqs):
        return None
    if not all(dqs):
        return "not every quantized input comes from a DequantizeLinear"
    if selector == "drop_dq":
        return _drop_dq(op, dqs[0])  # type: ignore[arg-type]
    if selector == "gemm" and not _quantizes(op.results[0]):  # QGemm with a float result
        group = Group(op, dqs, None)  # type: ignore[arg-type]
    else:
        found = [_quantized(r) for r in op.results]
        why = next((q for q in found if isinstance(q, str)), None)
        if why is not None:
            return why
        group = Group(op, dqs, found[0], tuple(found) if len(found) > 1 else ())  # type: ignore
    why = _check(selector, group)
    role = core.qdq_role(op)
    if why is None and role is not None and role.condition is not None:
        why = role.condition(op)
    return why if why is not None else group


def _quantizes(v: SSAValue) -> bool:
    return any(isinstance(u.operation, oq.QuantizeLinearOp) for u in v.uses)


def _quantized(v: SSAValue) -> oq.QuantizeLinearOp | str:
    """The one QuantizeLinear that takes result `v`, or why there is not one."""
    uses = list(v.uses)
    qs = [u.operation for u in uses if isinstance(u.operation, oq.QuantizeLinearOp)]
    if not uses:
        return "the result is unused"
    if len(qs) != len(uses):
        return "the result has users other than QuantizeLinear (or is a graph output)"
    if len(qs) != 1:
        return "the result goes to several QuantizeLinear"
    return qs[0]  # type: ignore[return-value]


def _elem(v: SSAValue) -> str | None:
    return onnx_name(v.type)


def _const(v: SSAValue) -> np.ndarray | None:
    owner = v.owner
    a = getattr(owner, "properties", {}).get("value") or getattr(owner, "attributes", {}).get("value")
    if not isinstance(a, DenseIntOrFPElementsAttr):
        return None
    return dense_array(a).reshape(-1)


def _drop_dq(op: Operation, dq: oq.DequantizeLinearOp) -> Group | str:
    """onnxruntime's DropDQNodeGroupSelector: an 8-bit input whose DequantizeLinear has
    a constant scalar scale and zero point (`IsDQSupported`)."""
    t = _elem(dq.x)
    if t in NARROW:
        return f"{t}: 16-bit and 4-bit types are not fused"
    s = _const(dq.x_scale)
    z = np.zeros(1) if core.is_none(dq.x_zero_point) else _const(dq.x_zero_point)
    if s is None or z is None or s.size != 1 or z.size != 1:
        return "the DequantizeLinear's scale and zero point must be constant scalars"
    return Group(op, [dq], None)


def _check(kind: str, g: Group) -> str | None:
    ins = [_elem(d.x) for d in g.dqs]
    out = None if g.q is None else _elem(g.q.y)
    if kind in ("conv", "matmul", "gemm"):
        x, w = ins[0], ins[1]
        if any(t in NARROW for t in (x, w)):
            return f"{x} x {w}: 16-bit and 4-bit types are not fused"
        if x == "int8" and w != "int8":
            return "an int8 input needs int8 weights"
        if out is not None and x != out:
            return f"input ({x}) and output ({out}) element types differ"
        if kind != "matmul" and len(ins) == 3 and ins[2] != "int32":
            return f"the bias must be int32, got {ins[2]}"
        if kind == "gemm" and len(ins) == 3 and core.attr(g.target, "beta") not in (None, 1.0):
            return f"beta = {core.attr(g.target, 'beta')}: QGemm adds its bias with beta 1"
        return None
    if len(set(ins)) != 1 or ins[0] != out:
        return "inputs and output must have one element type, got " + ", ".join(
            f"{t}" for t in (*ins, out))
    if ins[0] in NARROW:
        return f"{ins[0]}: 16-bit and 4-bit types are not fused"
    if any(_elem(q.y) != out for q in g.qs):
        return "the QuantizeLinear of each result must have the input's element type"
    if kind == "drop":
        return next(filter(None, (_same_params(g.dqs[0], q) for q in g.qs or (g.q,))), None)
    return None


def _same_params(d: oq.DequantizeLinearOp, q: oq.QuantizeLinearOp) -> str | None:
    """onnxruntime's IsQDQPairSupported (and the positive scale the drop rules of
    MaxPool and the data-movement ops ask for here)."""
    ds, qs = _const(d.x_scale), _const(q.y_scale)
    if ds is None or qs is None or ds.size != 1 or qs.size != 1 or ds[0] <= 0 or qs[0] <= 0:
        return "the scales must be positive constant scalars"
    dz = np.zeros(1) if core.is_none(d.x_zero_point) else _const(d.x_zero_point)
    qz = np.zeros(1) if core.is_none(q.y_zero_point) else _const(q.y_zero_point)
    if dz is None or qz is None or not np.array_equal(ds, qs) or not np.array_equal(dz, qz):
        return "DequantizeLinear and QuantizeLinear must have the same constant scale " \
               "and zero point"
    return None
