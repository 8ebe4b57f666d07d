"""What onnx-mlir's float ops share: ONNX element-type lists, attribute readers and
checks, the `OnnxOp` base (its `check()` rules, its `infer()`red result shape)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DenseIntOrFPElementsAttr, IntegerAttr, StringAttr
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation

from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.onnx.core import attr, fail, raw_attr, static_shape, type_str
from qcomp.ir.splat import dense_values

FLOAT_T = ("bfloat16", "float16", "float", "double")
MATMUL_T = ("float16", "float", "double", "uint32", "uint64", "int32", "int64", "bfloat16")
ARITH_T = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
           "float16", "float", "double", "bfloat16")
RELU_T = ("float", "int32", "int8", "int16", "int64", "float16", "double", "bfloat16")
DATA_T = (*ARITH_T, "string", "bool")
MOVE_T = (*DATA_T, "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
          "uint4", "int4")
AUTO_PAD = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def const_array(v: SSAValue) -> np.ndarray | None:
    """The values of a constant operand (`onnx.Constant`, `stablehlo.constant`,
    `arith.constant`), flattened, in their NumPy type; None when it is not one."""
    owner = getattr(v, "owner", None)
    val = getattr(owner, "attributes", {}).get("value") if owner is not None else None
    if val is None:
        val = getattr(owner, "properties", {}).get("value") if owner is not None else None
    if isinstance(val, DenseIntOrFPElementsAttr):
        return np.asarray(dense_values(val)).reshape(-1)
    return None


def const_ints(v: SSAValue) -> tuple[int, ...] | None:
    """The values of an integer constant operand (`const_array`), None when it is not one."""
    a = const_array(v)
    return None if a is None else tuple(int(x) for x in a)


def ints_attr(op: IRDLOperation, name: str) -> tuple[int, ...] | None:
    v = attr(op, name)
    return None if v is None else tuple(int(x) for x in v)


def _verify_ints_attr(op: IRDLOperation, name: str) -> None:
    a = raw_attr(op, name)
    if a is not None and not (isinstance(a, ArrayAttr)
                              and all(isinstance(x, IntegerAttr) for x in a.data)):
        fail(f"'{op.name}' op attribute '{name}' failed to satisfy constraint: "
             "64-bit integer array attribute")


def _verify_str_attr(op: IRDLOperation, name: str, allowed: Sequence[str]) -> None:
    a = raw_attr(op, name)
    if a is None:
        return
    if not isinstance(a, StringAttr):
        fail(f"'{op.name}' op attribute '{name}' failed to satisfy constraint: string attribute")
    if a.data not in allowed:
        fail(f"'{op.name}' op attribute '{name}' must be one of {', '.join(allowed)}, "
             f"got \"{a.data}\"")


def _same_element(op: IRDLOperation, values: Sequence[SSAValue]) -> None:
    types = {getattr(v.type, "element_type", None) for v in values}
    if len(types) > 1:
        fail(f"'{op.name}' op operands and result must have the same element type, got "
             + ", ".join(f"'{type_str(v.type)}'" for v in values))


def _result_shape(op: IRDLOperation, compute) -> None:
    """Calls `compute()` (the expected result shape, raising `ShapeError`) and checks the
    result's ranked type against it (unknown sizes match anything)."""
    try:
        want = compute()
    except fs.ShapeError as e:
        fail(f"'{op.name}' op {e}")
        return
    if want is None:
        return
    have = static_shape(op.results[0])
    if have is None:
        return
    if len(have) != len(want) or any(h != w and h >= 0 and w >= 0 for h, w in zip(have, want)):
        fail(f"'{op.name}' op result type '{type_str(op.results[0].type)}' does not match "
             f"the inferred shape [{', '.join('?' if d < 0 else str(d) for d in want)}]")


def _shapes(*values: SSAValue) -> list[list[int]] | None:
    out = [static_shape(v) for v in values]
    return None if any(s is None for s in out) else out  # type: ignore[return-value]


def _window_attrs(op: IRDLOperation) -> None:
    _verify_str_attr(op, "auto_pad", AUTO_PAD)
    for a in ("dilations", "kernel_shape", "pads", "strides"):
        _verify_ints_attr(op, a)


def window_of(op: IRDLOperation, x_shape: Sequence[int], kernel: Sequence[int] | None = None
              ) -> fs.Window:
    """The op's resolved window over `x_shape`'s spatial dimensions (NCHW...)."""
    k = kernel if kernel is not None else ints_attr(op, "kernel_shape")
    return fs.window(x_shape[2:], k or (), ints_attr(op, "strides"), ints_attr(op, "dilations"),
                     ints_attr(op, "pads"), attr(op, "auto_pad"), attr(op, "ceil_mode") or 0)


class OnnxOp(IRDLOperation):
    """An onnx op: `check()` holds its rules; `infer()` its result shape (None when
    unknown); `verify_` runs both."""

    def check(self) -> None:
        pass

    def infer(self) -> tuple[int, ...] | None:
        return None

    def verify_(self) -> None:
        self.check()
        _result_shape(self, self.infer)
