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

Each op also declares its StableHLO lowering (`Lowering`, with the builders of
`to_stablehlo`) and, when onnxruntime's QDQ transformers fuse it, its `QdqRole`
(docs/design.md, "Adding an ONNX op").
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, StringAttr
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx import float_shapes as fs
from qcomp.dialects.onnx import to_stablehlo as ts
from qcomp.dialects.onnx.core import (
    Lowering,
    OnnxFacts,
    QdqRole,
    QuantizerForms,
    attr,
    elements_in,
    fail,
    is_none,
    static_shape,
    type_str,
    verify_int_attr,
)
from qcomp.dialects.onnx.float_common import (  # noqa: F401 (re-exported)
    ARITH_T,
    AUTO_PAD,
    DATA_T,
    FLOAT_T,
    MATMUL_T,
    MOVE_T,
    RELU_T,
    OnnxOp,
    _result_shape,
    _same_element,
    _shapes,
    _verify_ints_attr,
    _verify_str_attr,
    _window_attrs,
    const_ints,
    ints_attr,
    window_of,
)
from qcomp.dialects.onnx.float_data_ops import (  # re-exported
    ConcatOp,
    FlattenOp,
    GatherOp,
    ReshapeOp,
    SqueezeOp,
    TransposeOp,
    UnsqueezeOp,
)

# -- contractions and windows -----------------------------------------------------------

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
         "pads": None, "strides": None}),
        Lowering(ts.conv), QdqRole("conv", "QLinearConv"), QuantizerForms(dynamic="ConvInteger"))

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
                        OnnxFacts("MatMul", (1, 9, 13), ("A", "B"), ("Y",)),
                        Lowering(ts.matmul), QdqRole("matmul", "QLinearMatMul"),
                        QuantizerForms(dynamic="MatMulInteger"))

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
        {"alpha": 1.0, "beta": 1.0, "transA": 0, "transB": 0}),
        Lowering(ts.gemm), QdqRole("gemm", "QGemm"))

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
                        OnnxFacts("Add", _BINARY_SINCE, ("A", "B"), ("C",)),
                        Lowering(ts.binary(sh.AddOp)),
                        QdqRole("binary", "QLinearAdd"))


@irdl_op_definition
class SubOp(BinaryOp):
    """`C = A - B`."""

    name = "onnx.Sub"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Sub", _BINARY_SINCE, ("A", "B"), ("C",)),
                        Lowering(ts.binary(sh.SubtractOp)))


@irdl_op_definition
class MulOp(BinaryOp):
    """`C = A * B`."""

    name = "onnx.Mul"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Mul", _BINARY_SINCE, ("A", "B"), ("C",)),
                        Lowering(ts.binary(sh.MultiplyOp)),
                        QdqRole("binary", "QLinearMul"))


@irdl_op_definition
class DivOp(BinaryOp):
    """`C = A / B` (integers: truncated toward zero)."""

    name = "onnx.Div"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Div", _BINARY_SINCE, ("A", "B"), ("C",)),
                        Lowering(ts.binary(sh.DivideOp), check=ts.integer_division_by_zero))


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
                        OnnxFacts("Relu", (1, 6, 13, 14), ("X",), ("Y",)),
                        Lowering(ts.relu), QdqRole("clip_by_q"),
                        QuantizerForms(qoperator="removed"))


@irdl_op_definition
class SigmoidOp(UnaryOp):
    """`Y = 1 / (1 + exp(-X))`."""

    name = "onnx.Sigmoid"
    X = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Sigmoid", (1, 6, 13), ("X",), ("Y",)),
                        Lowering(ts.unary(sh.LogisticOp)),
                        QdqRole("unary", "QLinearSigmoid"))


@irdl_op_definition
class TanhOp(UnaryOp):
    """`output = tanh(input)`."""

    name = "onnx.Tanh"
    input = operand_def()
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION,
                        OnnxFacts("Tanh", (1, 6, 13), ("input",), ("output",)),
                        Lowering(ts.unary(sh.TanhOp)))


@irdl_op_definition
class IdentityOp(UnaryOp):
    """`output = input`."""

    name = "onnx.Identity"
    ALLOWED: ClassVar[tuple[str, ...]] = MOVE_T
    input = operand_def()
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Identity", (1, 13, 14, 16, 19, 21, 23, 24, 25), ("input",), ("output",)),
        Lowering(ts.identity, static_shapes=False))


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
        "Clip", (1, 6, 11, 12, 13), ("input", "min?", "max?"), ("output",)),
        Lowering(ts.clip), QdqRole("clip_by_q", data_inputs=(0,)),
        QuantizerForms(qoperator="removed"))

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
        "Softmax", (1, 11, 13), ("input",), ("output",), {"axis": -1}),
        Lowering(ts.softmax), QuantizerForms(qoperator="QLinearSoftmax"))

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
        {"auto_pad": "NOTSET", "ceil_mode": 0, "storage_order": 0}),
        Lowering(ts.max_pool), QdqRole("drop"))

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
        {"auto_pad": "NOTSET", "ceil_mode": 0, "count_include_pad": 0}),
        Lowering(ts.average_pool),
        QdqRole("unary", "QLinearAveragePool", {"channels_last": 0}))

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
                        OnnxFacts("GlobalAveragePool", (1, 22), ("X",), ("Y",)),
                        Lowering(ts.global_average_pool),
                        QdqRole("unary", "QLinearGlobalAveragePool", {"channels_last": 0}))

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


FLOAT_OPS: list[type[IRDLOperation]] = [
    ConvOp, MatMulOp, GemmOp, AddOp, SubOp, MulOp, DivOp, ReluOp, ClipOp, SigmoidOp, TanhOp,
    SoftmaxOp, MaxPoolSingleOutOp, AveragePoolOp, GlobalAveragePoolOp, ReshapeOp, FlattenOp,
    TransposeOp, ConcatOp, SqueezeOp, UnsqueezeOp, GatherOp, IdentityOp]
"""onnx-mlir's float ops of QDQ models."""

