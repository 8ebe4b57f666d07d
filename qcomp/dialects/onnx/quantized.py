"""onnx-mlir's QLinearMatMul, QLinearConv, MatMulInteger, ConvInteger, and onnxruntime's
com.microsoft quantized ops as `onnx.Custom` (verified by `function_name`).

    MatMulInteger: y = (a - a_zp) @ (b - b_zp) (int32); ConvInteger likewise with conv
    QLinearMatMul: y = saturate(round((a - a_zp) @ (b - b_zp) * a_s * b_s / y_s) + y_zp)
    QLinearConv:   y = saturate(round((conv(x - x_zp, w - w_zp) + B) * x_s * w_s / y_s) + y_zp)

Formulas: `qcomp.quant.onnx_qlinear`. Verifiers hold each op's newest opset's types.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import NoMemoryEffect

from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx import integer_lowering as il
from qcomp.dialects.onnx.core import (
    CONTRIB_VERIFIERS,
    Lowering,
    OnnxFacts,
    elements_in,
    fail,
    is_none,
    verify_int_attr,
)
from qcomp.dialects.onnx.types import FLOAT8, FLOATS

I8 = ("int8", "uint8")
QLMM_T = (*I8, *FLOAT8)
CONV_DEFAULTS = {"auto_pad": "NOTSET", "group": 1}


def _verify_conv_attrs(op) -> None:
    verify_int_attr(op, "group")
    ap = op.properties.get("auto_pad")
    if ap is not None and (not isinstance(ap, StringAttr) or ap.data not in (
            "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID")):
        fail(f"'{op.name}' op auto_pad must be NOTSET, SAME_UPPER, SAME_LOWER or VALID")


@irdl_op_definition
class MatMulIntegerOp(IRDLOperation):
    """`Y = (A - a_zero_point) @ (B - b_zero_point)` in int32."""

    name = "onnx.MatMulInteger"
    A = operand_def()
    B = operand_def()
    a_zero_point = operand_def()
    b_zero_point = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "MatMulInteger", (10,), ("A", "B", "a_zero_point?", "b_zero_point?"), ("Y",)),
        Lowering(il.matmul_integer))

    def verify_(self) -> None:
        a = elements_in(self, self.A, "operand #0", I8)
        b = elements_in(self, self.B, "operand #1", I8)
        if elements_in(self, self.a_zero_point, "operand #2", I8, optional=True) not in (None, a):
            fail(f"'{self.name}' op A and a_zero_point must have the same element type")
        if elements_in(self, self.b_zero_point, "operand #3", I8, optional=True) not in (None, b):
            fail(f"'{self.name}' op B and b_zero_point must have the same element type")
        elements_in(self, self.Y, "result #0", ("int32",))


@irdl_op_definition
class ConvIntegerOp(IRDLOperation):
    """`y = conv(x - x_zero_point, w - w_zero_point)` in int32."""

    name = "onnx.ConvInteger"
    x = operand_def()
    w = operand_def()
    x_zero_point = operand_def()
    w_zero_point = operand_def()
    auto_pad = opt_prop_def(StringAttr)
    dilations = opt_prop_def(ArrayAttr)
    group = opt_prop_def(IntegerAttr)
    kernel_shape = opt_prop_def(ArrayAttr)
    pads = opt_prop_def(ArrayAttr)
    strides = opt_prop_def(ArrayAttr)
    y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "ConvInteger", (10,), ("x", "w", "x_zero_point?", "w_zero_point?"), ("y",),
        CONV_DEFAULTS), Lowering(il.conv_integer))

    def verify_(self) -> None:
        x = elements_in(self, self.x, "operand #0", I8)
        w = elements_in(self, self.w, "operand #1", I8)
        if elements_in(self, self.x_zero_point, "operand #2", I8, optional=True) not in (None, x):
            fail(f"'{self.name}' op x and x_zero_point must have the same element type")
        if elements_in(self, self.w_zero_point, "operand #3", I8, optional=True) not in (None, w):
            fail(f"'{self.name}' op w and w_zero_point must have the same element type")
        elements_in(self, self.y, "result #0", ("int32",))
        _verify_conv_attrs(self)


@irdl_op_definition
class QLinearMatMulOp(IRDLOperation):
    """`y = saturate(round((a - a_zp) @ (b - b_zp) * a_scale * b_scale / y_scale) + y_zp)`."""

    name = "onnx.QLinearMatMul"
    a = operand_def()
    a_scale = operand_def()
    a_zero_point = operand_def()
    b = operand_def()
    b_scale = operand_def()
    b_zero_point = operand_def()
    y_scale = operand_def()
    y_zero_point = operand_def()
    y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "QLinearMatMul", (10, 21), ("a", "a_scale", "a_zero_point", "b", "b_scale",
                                    "b_zero_point", "y_scale", "y_zero_point"), ("y",)))

    def verify_(self) -> None:
        for v, zp, i in ((self.a, self.a_zero_point, 0), (self.b, self.b_zero_point, 3),
                         (self.y, self.y_zero_point, 6)):
            label = "result #0" if v is self.y else f"operand #{i}"
            t = elements_in(self, v, label, QLMM_T)
            if elements_in(self, zp, f"operand #{i + 2 if i < 6 else 7}", QLMM_T) != t:
                fail(f"'{self.name}' op a value and its zero point must have the same "
                     "element type")
        s = [elements_in(self, v, f"operand #{i}", FLOATS)
             for v, i in ((self.a_scale, 1), (self.b_scale, 4), (self.y_scale, 6))]
        if len(set(s)) != 1:
            fail(f"'{self.name}' op the scales must have one element type")


@irdl_op_definition
class QLinearConvOp(IRDLOperation):
    """`y = saturate(round((conv(x - x_zp, w - w_zp) + B) * x_scale * w_scale / y_scale) + y_zp)`."""

    name = "onnx.QLinearConv"
    x = operand_def()
    x_scale = operand_def()
    x_zero_point = operand_def()
    w = operand_def()
    w_scale = operand_def()
    w_zero_point = operand_def()
    y_scale = operand_def()
    y_zero_point = operand_def()
    B = operand_def()
    auto_pad = opt_prop_def(StringAttr)
    dilations = opt_prop_def(ArrayAttr)
    group = opt_prop_def(IntegerAttr)
    kernel_shape = opt_prop_def(ArrayAttr)
    pads = opt_prop_def(ArrayAttr)
    strides = opt_prop_def(ArrayAttr)
    y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "QLinearConv", (10,), ("x", "x_scale", "x_zero_point", "w", "w_scale", "w_zero_point",
                               "y_scale", "y_zero_point", "B?"), ("y",), CONV_DEFAULTS))

    def verify_(self) -> None:
        for v, zp, i in ((self.x, self.x_zero_point, 0), (self.w, self.w_zero_point, 3),
                         (self.y, self.y_zero_point, 6)):
            label = "result #0" if v is self.y else f"operand #{i}"
            t = elements_in(self, v, label, I8)
            if elements_in(self, zp, f"operand #{i + 2 if i < 6 else 7}", I8) != t:
                fail(f"'{self.name}' op a value and its zero point must have the same "
                     "element type")
        for v, i in ((self.x_scale, 1), (self.w_scale, 4), (self.y_scale, 6)):
            elements_in(self, v, f"operand #{i}", ("float",))
        elements_in(self, self.B, "operand #8", ("int32",), optional=True)
        _verify_conv_attrs(self)


_ATTR_KINDS = {IntegerAttr: "INT", FloatAttr: "FLOAT", StringAttr: "STRING",
               ArrayAttr: "a list", DenseIntOrFPElementsAttr: "TENSOR"}


def _contrib(n_in: tuple[int, int], pairs: tuple[tuple[int, int], ...],
             required: tuple[int, ...] = (), attrs: dict[str, tuple[str, bool]] = {},
             triples_from: int | None = None, scales: tuple[int, ...] = ()) -> Callable:
    """A com.microsoft op's check, as onnxruntime's schema states it: `n_in` = (min,
    max) inputs, each (value, zero point) pair of operand indices of one element type
    (int8 / uint8), the `required` inputs present, the `scales` inputs float32, each
    attribute of `attrs` (name: (INT, FLOAT, STRING or INTS, required)) of its type;
    `triples_from`: the inputs from that index on are (value, scale, zero point) triples
    (QLinearConcat: their scales float32 too)."""

    def check(op) -> None:
        fn = op.function_name.data
        n = len(op.inputs)
        if not n_in[0] <= n <= n_in[1]:
            fail(f"'onnx.Custom' op {fn} takes {n_in[0]} to {n_in[1]} inputs, got {n}")
        if triples_from is not None and (n - triples_from) % 3:
            fail(f"'onnx.Custom' op {fn} takes {triples_from} inputs then (value, scale, "
                 f"zero point) triples, got {n} inputs")
        # every input of a triples op (QLinearConcat) is required
        for i in required if triples_from is None else range(n):
            if i < n and is_none(op.inputs[i]):
                fail(f"'onnx.Custom' op {fn}: input #{i} is required")
        for name, (kind, needed) in attrs.items():
            a = op.attributes.get(name)
            if a is None:
                if needed:
                    fail(f"'onnx.Custom' op {fn} requires attribute '{name}'")
                continue
            got = next((k for c, k in _ATTR_KINDS.items() if isinstance(a, c)), "another kind")
            if got == "a list" and all(isinstance(v, IntegerAttr) for v in a.data):
                got = "INTS"
            if got != kind:
                fail(f"'onnx.Custom' op {fn} attribute '{name}' must be {kind}, got {got}")
        triple_scales = range(triples_from + 1, n, 3) if triples_from is not None else ()
        for i in (*scales, *triple_scales):
            if i < n:
                elements_in(op, op.inputs[i], f"operand #{i}", ("float",), optional=True)
        for v, z in pairs:
            if z < n and not isinstance(op.inputs[z].type, type(None)):
                t = elements_in(op, op.inputs[v], f"operand #{v}", I8)
                zt = elements_in(op, op.inputs[z], f"operand #{z}", I8, optional=True)
                if zt not in (None, t):
                    fail(f"'onnx.Custom' op {fn}: operand #{v} and its zero point "
                         f"#{z} must have the same element type")
    return check


CONTRIB_VERIFIERS.update({  # onnxruntime's com.microsoft schemas (version 1)
    "QLinearAdd": _contrib((7, 8), ((0, 2), (3, 5)), required=(0, 1, 3, 4, 6),
                          scales=(1, 4, 6)),
    "QLinearMul": _contrib((7, 8), ((0, 2), (3, 5)), required=(0, 1, 3, 4, 6),
                          scales=(1, 4, 6)),
    "QLinearSigmoid": _contrib((4, 5), ((0, 2),), required=(0, 1, 3), scales=(1, 3)),
    "QLinearLeakyRelu": _contrib((4, 5), ((0, 2),), required=(0, 1, 3), scales=(1, 3),
                                 attrs={"alpha": ("FLOAT", False)}),
    "QLinearGlobalAveragePool": _contrib((5, 5), ((0, 2),), required=(0, 1, 2, 3, 4),
                                         scales=(1, 3),
                                         attrs={"channels_last": ("INT", False)}),
    "QLinearConcat": _contrib((5, 1 << 20), (), required=(0, 1), scales=(0,),
                              attrs={"axis": ("INT", True)}, triples_from=2),
    "MatMulNBits": _contrib((3, 6), (), required=(0, 1, 2), attrs={
        "K": ("INT", True), "N": ("INT", True), "block_size": ("INT", True),
        "bits": ("INT", False), "accuracy_level": ("INT", False),
        "weight_prepacked": ("INT", False)}),
    "QGemm": _contrib((6, 9), ((0, 2), (3, 5)), required=(0, 1, 3, 4), scales=(1, 4, 7)),
    "QLinearSoftmax": _contrib((4, 5), ((0, 2),), required=(0, 1, 3), scales=(1, 3)),
    "QLinearAveragePool": _contrib((4, 5), ((0, 2),), required=(0, 1, 3), scales=(1, 3), attrs={
        "kernel_shape": ("INTS", True), "strides": ("INTS", False), "pads": ("INTS", False),
        "auto_pad": ("STRING", False), "ceil_mode": ("INT", False),
        "count_include_pad": ("INT", False), "channels_last": ("INT", False)}),
    "QLinearReduceMean": _contrib((4, 5), ((0, 2),), required=(0, 1, 3), scales=(1, 3), attrs={
        "axes": ("INTS", True), "keepdims": ("INT", True)}),
    "QLinearWhere": _contrib((9, 9), ((1, 3), (4, 6), (1, 8)), required=tuple(range(9)),
                            scales=(2, 5, 7)),
})


def _where_condition(op) -> None:
    """QLinearWhere's condition is bool (its type constraint B)."""
    _where(op)
    elements_in(op, op.inputs[0], "operand #0", ("bool",))


_where = CONTRIB_VERIFIERS["QLinearWhere"]
CONTRIB_VERIFIERS["QLinearWhere"] = _where_condition  # onnx.Custom's verifiers of onnxruntime's com.microsoft ops

QUANTIZED_OPS: list[type[IRDLOperation]] = [
    MatMulIntegerOp, ConvIntegerOp, QLinearMatMulOp, QLinearConvOp]
