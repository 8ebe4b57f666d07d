"""onnx-mlir's float ops of QDQ models (`src/Dialect/ONNX/ONNXOps.td.inc`), in its
generic text with the ONNX attributes as properties (`{...}` reads too):

    %y = "onnx.Conv"(%x, %w, %b) <{auto_pad = "NOTSET", group = 1 : si64,
         kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]}>
         : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>

Operand names, attribute names and defaults, and element types are onnx-mlir's (ONNX's
newest opset); MaxPool is onnx-mlir's `onnx.MaxPoolSingleOut` (MaxPool without its
optional Indices output, which is what onnx-mlir's importer makes of a MaxPool whose
Indices are unused). Each verifier checks the operator's attribute rules and, when the
result is ranked, its shape (`float_shapes`). Constant operands (Reshape's shape,
Squeeze / Unsqueeze axes) are read from `onnx.Constant`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import NoMemoryEffect

from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.onnx.core import (
    OnnxFacts,
    attr,
    elements_in,
    fail,
    is_none,
    raw_attr,
    static_shape,
    type_str,
    verify_int_attr,
)

FLOAT_T = ("bfloat16", "float16", "float", "double")
MATMUL_T = ("float16", "float", "double", "uint32", "uint64", "int32", "int64", "bfloat16")
ARITH_T = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
           "float16", "float", "double", "bfloat16")
RELU_T = ("float", "int32", "int8", "int16", "int64", "float16", "double", "bfloat16")
DATA_T = (*ARITH_T, "string", "bool")
MOVE_T = (*DATA_T, "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
          "uint4", "int4")
AUTO_PAD = ("NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")


def const_ints(v: SSAValue) -> tuple[int, ...] | None:
    """The values of an integer constant operand (`onnx.Constant`, `stablehlo.constant`,
    `arith.constant`), None when it is not one."""
    owner = getattr(v, "owner", None)
    val = getattr(owner, "attributes", {}).get("value") if owner is not None else None
    if val is None:
        val = getattr(owner, "properties", {}).get("value") if owner is not None else None
    if isinstance(val, DenseIntOrFPElementsAttr):
        return tuple(int(x) for x in val.get_values())
    return None


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
    if len(have) != len(want) or any(h != w and -1 not in (h, w) for h, w in zip(have, want)):
        fail(f"'{op.name}' op result type '{type_str(op.results[0].type)}' does not match "
             f"the inferred shape [{', '.join('?' if d < 0 else str(d) for d in want)}]")


def _shapes(*values: SSAValue) -> list[list[int]] | None:
    out = [static_shape(v) for v in values]
    return None if any(s is None for s in out) else out  # type: ignore[return-value]


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


# -- contractions and windows -----------------------------------------------------------

def _window_attrs(op: OnnxOp) -> None:
    _verify_str_attr(op, "auto_pad", AUTO_PAD)
    for a in ("dilations", "kernel_shape", "pads", "strides"):
        _verify_ints_attr(op, a)


def window_of(op: IRDLOperation, x_shape: Sequence[int], kernel: Sequence[int] | None = None
              ) -> fs.Window:
    """The op's resolved window over `x_shape`'s spatial dimensions (NCHW...)."""
    k = kernel if kernel is not None else ints_attr(op, "kernel_shape")
    return fs.window(x_shape[2:], k or (), ints_attr(op, "strides"), ints_attr(op, "dilations"),
                     ints_attr(op, "pads"), attr(op, "auto_pad"), attr(op, "ceil_mode") or 0)


@irdl_op_definition
class ConvOp(OnnxOp):
    """`Y[n, m] = B[m] + sum_{c in group(m), k} X[n, c, s*o + d*k - pad_begin] * W[m, c', k]`."""

    name = "onnx.Conv"
    X = operand_def()
    W = operand_def()
    B = operand_def()
    auto_pad = opt_prop_def(StringAttr)
    dilations = opt_prop_def(ArrayAttr)
    group = opt_prop_def(IntegerAttr)
    kernel_shape = opt_prop_def(ArrayAttr)
    pads = opt_prop_def(ArrayAttr)
    strides = opt_prop_def(ArrayAttr)
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Conv", (1, 11, 22), ("X", "W", "B?"), ("Y",),
        {"auto_pad": "NOTSET", "group": 1, "dilations": None, "kernel_shape": None,
         "pads": None, "strides": None}))

    def check(self) -> None:
        for i, v in enumerate((self.X, self.W)):
            elements_in(self, v, f"operand #{i}", FLOAT_T)
        elements_in(self, self.B, "operand #2", FLOAT_T, optional=True)
        elements_in(self, self.Y, "result #0", FLOAT_T)
        verify_int_attr(self, "group")
        _window_attrs(self)
        _same_element(self, [v for v in (self.X, self.W, self.B, self.Y) if not is_none(v)])

    def infer(self):
        s = _shapes(self.X, self.W)
        if s is None:
            return None
        x, w = s
        g = attr(self, "group")
        if len(x) < 3 or len(w) != len(x):
            raise fs.ShapeError("X and W must have the same rank (at least 3)")
        if g < 1 or (x[1] >= 0 and w[1] >= 0 and x[1] != w[1] * g):
            raise fs.ShapeError(f"X has {x[1]} channels; W's {w[1]} input channels times "
                                f"group {g} must equal that")
        if w[0] >= 0 and w[0] % g:
            raise fs.ShapeError(f"W's {w[0]} output channels are not divisible by group {g}")
        k = ints_attr(self, "kernel_shape")
        if k is not None and any(a != b and b >= 0 for a, b in zip(k, w[2:])):
            raise fs.ShapeError(f"kernel_shape {list(k)} differs from W's {w[2:]}")
        if not is_none(self.B):
            b = static_shape(self.B)
            if b is not None and (len(b) != 1 or (b[0] >= 0 and w[0] >= 0 and b[0] != w[0])):
                raise fs.ShapeError(f"B must be 1-D with W's {w[0]} output channels")
        if any(d < 0 for d in w[2:]):
            return None
        return (x[0], w[0], *window_of(self, x, w[2:]).out)


@irdl_op_definition
class MatMulOp(OnnxOp):
    """`numpy.matmul(A, B)`."""

    name = "onnx.MatMul"
    A = operand_def()
    B = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("MatMul", (1, 9, 13), ("A", "B"), ("Y",)))

    def check(self) -> None:
        elements_in(self, self.A, "operand #0", MATMUL_T)
        elements_in(self, self.B, "operand #1", MATMUL_T)
        _same_element(self, [self.A, self.B, self.Y])

    def infer(self):
        s = _shapes(self.A, self.B)
        return None if s is None else fs.matmul(*s)


@irdl_op_definition
class GemmOp(OnnxOp):
    """`Y = alpha * A' B' + beta * C` (A' = A^T when transA, B' likewise)."""

    name = "onnx.Gemm"
    A = operand_def()
    B = operand_def()
    C = operand_def()
    alpha = opt_prop_def(FloatAttr)
    beta = opt_prop_def(FloatAttr)
    transA = opt_prop_def(IntegerAttr)
    transB = opt_prop_def(IntegerAttr)
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Gemm", (1, 6, 7, 9, 11, 13), ("A", "B", "C?"), ("Y",),
        {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0}))

    def check(self) -> None:
        elements_in(self, self.A, "operand #0", MATMUL_T)
        elements_in(self, self.B, "operand #1", MATMUL_T)
        elements_in(self, self.C, "operand #2", MATMUL_T, optional=True)
        verify_int_attr(self, "transA", (0, 1))
        verify_int_attr(self, "transB", (0, 1))
        _same_element(self, [v for v in (self.A, self.B, self.C, self.Y) if not is_none(v)])

    def infer(self):
        s = _shapes(self.A, self.B)
        if s is None:
            return None
        out = fs.gemm(*s, attr(self, "transA"), attr(self, "transB"))
        c = None if is_none(self.C) else static_shape(self.C)
        if c is not None and not fs.unidirectional(c, out):
            raise fs.ShapeError(f"C of shape {c} does not broadcast to {list(out)}")
        return out


# -- elementwise ----------------------------------------------------------------------------

class BinaryOp(OnnxOp):
    """`C = A op B`, NumPy broadcasting."""

    A = operand_def()
    B = operand_def()
    C = result_def()

    def check(self) -> None:
        elements_in(self, self.A, "operand #0", ARITH_T)
        elements_in(self, self.B, "operand #1", ARITH_T)
        _same_element(self, [self.A, self.B, self.C])

    def infer(self):
        s = _shapes(self.A, self.B)
        return None if s is None else fs.broadcast(*s)


_BINARY_SINCE = (1, 6, 7, 13, 14)


@irdl_op_definition
class AddOp(BinaryOp):
    """`C = A + B`."""

    name = "onnx.Add"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Add", _BINARY_SINCE, ("A", "B"), ("C",)))


@irdl_op_definition
class SubOp(BinaryOp):
    """`C = A - B`."""

    name = "onnx.Sub"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Sub", _BINARY_SINCE, ("A", "B"), ("C",)))


@irdl_op_definition
class MulOp(BinaryOp):
    """`C = A * B`."""

    name = "onnx.Mul"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Mul", _BINARY_SINCE, ("A", "B"), ("C",)))


@irdl_op_definition
class DivOp(BinaryOp):
    """`C = A / B` (integers: truncated toward zero)."""

    name = "onnx.Div"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Div", _BINARY_SINCE, ("A", "B"), ("C",)))


class UnaryOp(OnnxOp):
    ALLOWED: ClassVar[tuple[str, ...]] = FLOAT_T

    def check(self) -> None:
        elements_in(self, self.operands[0], "operand #0", self.ALLOWED)
        _same_element(self, [self.operands[0], self.results[0]])

    def infer(self):
        return static_shape(self.operands[0])


@irdl_op_definition
class ReluOp(UnaryOp):
    """`Y = max(X, 0)`."""

    name = "onnx.Relu"
    ALLOWED: ClassVar[tuple[str, ...]] = RELU_T
    X = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Relu", (1, 6, 13, 14), ("X",), ("Y",)))


@irdl_op_definition
class SigmoidOp(UnaryOp):
    """`Y = 1 / (1 + exp(-X))`."""

    name = "onnx.Sigmoid"
    X = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Sigmoid", (1, 6, 13), ("X",), ("Y",)))


@irdl_op_definition
class TanhOp(UnaryOp):
    """`output = tanh(input)`."""

    name = "onnx.Tanh"
    input = operand_def()
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Tanh", (1, 6, 13), ("input",), ("output",)))


@irdl_op_definition
class IdentityOp(UnaryOp):
    """`output = input`."""

    name = "onnx.Identity"
    ALLOWED: ClassVar[tuple[str, ...]] = MOVE_T
    input = operand_def()
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Identity", (1, 13, 14, 16, 19, 21, 23, 24, 25), ("input",), ("output",)))


@irdl_op_definition
class ClipOp(OnnxOp):
    """`output = min(max(input, min), max)`; an absent bound is the type's lowest / highest
    value."""

    name = "onnx.Clip"
    input = operand_def()
    min = operand_def()
    max = operand_def()
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Clip", (1, 6, 11, 12, 13), ("input", "min?", "max?"), ("output",)))

    def check(self) -> None:
        elements_in(self, self.input, "operand #0", ARITH_T)
        for i, v in ((1, self.min), (2, self.max)):
            if elements_in(self, v, f"operand #{i}", ARITH_T, optional=True) is None:
                continue
            s = static_shape(v)
            if s is not None and s not in ([], [1]):
                fail(f"'{self.name}' op {('min', 'max')[i - 1]} must be a scalar, got "
                     f"'{type_str(v.type)}'")
        _same_element(self, [v for v in (self.input, self.min, self.max, self.output)
                             if not is_none(v)])

    def infer(self):
        return static_shape(self.input)


@irdl_op_definition
class SoftmaxOp(OnnxOp):
    """`output = exp(input) / sum_axis(exp(input))` along `axis` (opset 13)."""

    name = "onnx.Softmax"
    input = operand_def()
    axis = opt_prop_def(IntegerAttr)
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Softmax", (1, 11, 13), ("input",), ("output",), {"axis": -1}))

    def check(self) -> None:
        elements_in(self, self.input, "operand #0", FLOAT_T)
        verify_int_attr(self, "axis")
        _same_element(self, [self.input, self.output])

    def infer(self):
        s = static_shape(self.input)
        if s is not None:
            fs.axis_in(attr(self, "axis"), len(s), "axis")
        return s


# -- pooling --------------------------------------------------------------------------------

class PoolOp(OnnxOp):
    X = operand_def()
    Y = result_def()
    ALLOWED: ClassVar[tuple[str, ...]] = FLOAT_T

    def check(self) -> None:
        elements_in(self, self.X, "operand #0", self.ALLOWED)
        _window_attrs(self)
        verify_int_attr(self, "ceil_mode", (0, 1))
        _same_element(self, [self.X, self.Y])
        if not ints_attr(self, "kernel_shape"):
            fail(f"'{self.name}' op requires attribute 'kernel_shape'")

    def infer(self):
        x = static_shape(self.X)
        if x is None:
            return None
        if len(x) < 3:
            raise fs.ShapeError("X must have rank >= 3 (N x C x D1 x ...)")
        return (x[0], x[1], *window_of(self, x).out)


@irdl_op_definition
class MaxPoolSingleOutOp(PoolOp):
    """`Y[n, c, o] = max over the window at o` (padding never wins)."""

    name = "onnx.MaxPoolSingleOut"
    ALLOWED: ClassVar[tuple[str, ...]] = (*FLOAT_T, "int8", "uint8")  # MaxPool-12
    auto_pad = opt_prop_def(StringAttr)
    ceil_mode = opt_prop_def(IntegerAttr)
    dilations = opt_prop_def(ArrayAttr)
    kernel_shape = opt_prop_def(ArrayAttr)
    pads = opt_prop_def(ArrayAttr)
    storage_order = opt_prop_def(IntegerAttr)
    strides = opt_prop_def(ArrayAttr)
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "MaxPool", (1, 8, 10, 11, 12, 22), ("X",), ("Y",),
        {"auto_pad": "NOTSET", "ceil_mode": 0, "storage_order": 0}))

    def check(self) -> None:
        super().check()
        verify_int_attr(self, "storage_order", (0, 1))


@irdl_op_definition
class AveragePoolOp(PoolOp):
    """`Y[n, c, o] = sum(window) / count`, count the window's size when
    count_include_pad, else the number of input elements in it."""

    name = "onnx.AveragePool"
    auto_pad = opt_prop_def(StringAttr)
    ceil_mode = opt_prop_def(IntegerAttr)
    count_include_pad = opt_prop_def(IntegerAttr)
    dilations = opt_prop_def(ArrayAttr)
    kernel_shape = opt_prop_def(ArrayAttr)
    pads = opt_prop_def(ArrayAttr)
    strides = opt_prop_def(ArrayAttr)
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "AveragePool", (1, 7, 10, 11, 19, 22), ("X",), ("Y",),
        {"auto_pad": "NOTSET", "ceil_mode": 0, "count_include_pad": 0}))

    def check(self) -> None:
        super().check()
        verify_int_attr(self, "count_include_pad", (0, 1))


@irdl_op_definition
class GlobalAveragePoolOp(OnnxOp):
    """`Y[n, c, 1, ..., 1] = mean(X[n, c, ...])`."""

    name = "onnx.GlobalAveragePool"
    X = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("GlobalAveragePool", (1, 22), ("X",), ("Y",)))

    def check(self) -> None:
        elements_in(self, self.X, "operand #0", FLOAT_T)
        _same_element(self, [self.X, self.Y])

    def infer(self):
        x = static_shape(self.X)
        if x is None:
            return None
        if len(x) < 3:
            raise fs.ShapeError("X must have rank >= 3 (N x C x D1 x ...)")
        return (x[0], x[1], *([1] * (len(x) - 2)))


# -- moving data ------------------------------------------------------------------------------

@irdl_op_definition
class ReshapeOp(OnnxOp):
    """`reshaped = data` in the shape `shape` (0 copies data's size unless allowzero, -1 is
    inferred)."""

    name = "onnx.Reshape"
    data = operand_def()
    shape = operand_def()
    allowzero = opt_prop_def(IntegerAttr)
    reshaped = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Reshape", (1, 5, 13, 14, 19, 21, 23, 24, 25), ("data", "shape"), ("reshaped",),
        {"allowzero": 0}))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", MOVE_T)
        elements_in(self, self.shape, "operand #1", ("int64",))
        verify_int_attr(self, "allowzero", (0, 1))
        _same_element(self, [self.data, self.reshaped])
        s = static_shape(self.shape)
        if s is not None and len(s) != 1:
            fail(f"'{self.name}' op shape must be a 1-D tensor, got '{type_str(self.shape.type)}'")

    def infer(self):
        d, t = static_shape(self.data), const_ints(self.shape)
        return None if d is None or t is None else fs.reshape(d, t, attr(self, "allowzero"))


@irdl_op_definition
class FlattenOp(OnnxOp):
    """`output` = `input` as a 2-D matrix `(prod(d[:axis]), prod(d[axis:]))`."""

    name = "onnx.Flatten"
    input = operand_def()
    axis = opt_prop_def(IntegerAttr)
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Flatten", (1, 9, 11, 13, 21, 23, 24, 25), ("input",), ("output",), {"axis": 1}))

    def check(self) -> None:
        elements_in(self, self.input, "operand #0", MOVE_T)
        verify_int_attr(self, "axis")
        _same_element(self, [self.input, self.output])

    def infer(self):
        s = static_shape(self.input)
        return None if s is None else fs.flatten(s, attr(self, "axis"))


@irdl_op_definition
class TransposeOp(OnnxOp):
    """`transposed[i_perm[0], ...] = data[i_0, ...]`; perm defaults to the reversed axes."""

    name = "onnx.Transpose"
    data = operand_def()
    perm = opt_prop_def(ArrayAttr)
    transposed = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Transpose", (1, 13, 21, 23, 24, 25), ("data",), ("transposed",), {"perm": None}))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", MOVE_T)
        _verify_ints_attr(self, "perm")
        _same_element(self, [self.data, self.transposed])

    def infer(self):
        s = static_shape(self.data)
        return None if s is None else fs.transpose(s, ints_attr(self, "perm"))


@irdl_op_definition
class ConcatOp(OnnxOp):
    """`concat_result` = the inputs joined along `axis`."""

    name = "onnx.Concat"
    inputs = var_operand_def()
    axis = opt_prop_def(IntegerAttr)
    concat_result = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Concat", (1, 4, 11, 13), ("inputs*",), ("concat_result",)))

    def check(self) -> None:
        if self.axis is None:
            fail(f"'{self.name}' op requires attribute 'axis'")
        verify_int_attr(self, "axis")
        for i, v in enumerate(self.inputs):
            elements_in(self, v, f"operand #{i}", DATA_T)
        _same_element(self, [*self.inputs, self.concat_result])

    def infer(self):
        s = _shapes(*self.inputs)
        return None if s is None else fs.concat(s, attr(self, "axis"))


def _axes(op: OnnxOp, v: SSAValue) -> tuple[int, ...] | None:
    elements_in(op, v, "operand #1", ("int64",))
    s = static_shape(v)
    if s is not None and len(s) != 1:
        fail(f"'{op.name}' op axes must be a 1-D tensor, got '{type_str(v.type)}'")
    return const_ints(v)


@irdl_op_definition
class SqueezeOp(OnnxOp):
    """`squeezed` = `data` without the size-1 dimensions in `axes` (all of them when
    `axes` is absent)."""

    name = "onnx.Squeeze"
    data = operand_def()
    axes = operand_def()
    squeezed = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Squeeze", (1, 11, 13, 21, 23, 24, 25), ("data", "axes?"), ("squeezed",)))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", MOVE_T)
        _same_element(self, [self.data, self.squeezed])

    def infer(self):
        s = static_shape(self.data)
        if is_none(self.axes):
            return None if s is None or -1 in s else fs.squeeze(s, None)
        axes = _axes(self, self.axes)
        return None if s is None or axes is None else fs.squeeze(s, axes)


@irdl_op_definition
class UnsqueezeOp(OnnxOp):
    """`expanded` = `data` with size-1 dimensions inserted at `axes` (of the result)."""

    name = "onnx.Unsqueeze"
    data = operand_def()
    axes = operand_def()
    expanded = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Unsqueeze", (1, 11, 13, 21, 23, 24, 25), ("data", "axes"), ("expanded",)))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", MOVE_T)
        _same_element(self, [self.data, self.expanded])

    def infer(self):
        s = static_shape(self.data)
        axes = _axes(self, self.axes)
        return None if s is None or axes is None else fs.unsqueeze(s, axes)


@irdl_op_definition
class GatherOp(OnnxOp):
    """`output[i..., j..., k...] = data[i..., indices[j...], k...]` (axis = len(i...));
    negative indices count from the end."""

    name = "onnx.Gather"
    data = operand_def()
    indices = operand_def()
    axis = opt_prop_def(IntegerAttr)
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Gather", (1, 11, 13), ("data", "indices"), ("output",), {"axis": 0}))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", DATA_T)
        elements_in(self, self.indices, "operand #1", ("int32", "int64"))
        verify_int_attr(self, "axis")
        _same_element(self, [self.data, self.output])
        d, idx = static_shape(self.data), const_ints(self.indices)
        if d is None or idx is None or not -len(d) <= attr(self, "axis") < len(d):
            return
        n = d[attr(self, "axis")]
        if n >= 0:
            bad = [i for i in idx if not -n <= i < n]
            if bad:
                fail(f"'{self.name}' op indices value {bad[0]} is out of bound [-{n}, {n - 1}]")

    def infer(self):
        s = _shapes(self.data, self.indices)
        return None if s is None else fs.gather(s[0], s[1], attr(self, "axis"))


FLOAT_OPS: list[type[IRDLOperation]] = [
    ConvOp, MatMulOp, GemmOp, AddOp, SubOp, MulOp, DivOp, ReluOp, ClipOp, SigmoidOp, TanhOp,
    SoftmaxOp, MaxPoolSingleOutOp, AveragePoolOp, GlobalAveragePoolOp, ReshapeOp, FlattenOp,
    TransposeOp, ConcatOp, SqueezeOp, UnsqueezeOp, GatherOp, IdentityOp]
"""onnx-mlir's float ops of QDQ models."""

