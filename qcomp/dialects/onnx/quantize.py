"""onnx-mlir's QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, Cast, CastLike.

    QuantizeLinear:   y = saturate(round_half_even(x / y_scale) + y_zero_point)
    DequantizeLinear: y = (x - x_zero_point) * x_scale
    Cast:             y = x converted to `to` (float8 with `saturate`, e8m0 with `round_mode`)

The scale's shape picks the granularity: a scalar (per tensor), a 1-D tensor of length
D[axis] (per axis), or x's shape with D[axis] replaced by ceil(D[axis] / block_size)
(blocked). The verifiers hold ONNX's newest opset's type constraints (opset 25); the
importer checks each node against its own opset. Formulas: `qcomp.quant.onnx_quant`,
`qcomp.quant.onnx_cast`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect

from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx import integer_lowering as il
from qcomp.dialects.onnx.core import (
    Lowering,
    OnnxFacts,
    attr,
    elements_in,
    fail,
    is_none,
    raw_attr,
    same_shape,
    static_shape,
    type_str,
    verify_int_attr,
)
from qcomp.dialects.onnx.types import ALL, DTYPE_OF_NAME, FLOAT8, FLOATS, NAME_OF_DTYPE, mlir_type
from qcomp.quant.onnx_quant import LayoutError, scale_layout

Q_INPUT = (*FLOATS, "int32")
Q_SCALE = (*FLOATS, "int32", "float8e8m0")
Q_STORAGE = ("uint8", "int8", "uint16", "int16", "uint4", "int4", "uint2", "int2",
             *FLOAT8, "float4e2m1")
DQ_STORAGE = (*Q_STORAGE, "int32")
DQ_SCALE = (*FLOATS, "float8e8m0")


def _verify_layout(op, x, scale, zp) -> None:
    """Scale and zero point of one shape, a granularity x's shape admits."""
    if zp is not None and not is_none(zp):
        ss, zs = static_shape(scale), static_shape(zp)
        # a scalar and a one-element 1-D tensor are both per tensor
        if not (ss is not None and zs is not None and len(ss) <= 1 and len(zs) <= 1
                and ss in ([], [1]) and zs in ([], [1])):
            same_shape(op, scale, zp, "scale and zero point")
    xs, ss = static_shape(x), static_shape(scale)
    if xs is None or ss is None or -1 in xs or -1 in ss:
        return
    try:
        scale_layout(tuple(xs), tuple(ss), attr(op, "axis"), attr(op, "block_size") or 0)
    except LayoutError as e:
        fail(f"'{op.name}' op {e}")


def _verify_output_dtype(op, zp, y, default: str | None) -> None:
    """`output_dtype`, the zero point's type and the result's type agree (ONNX:
    output_dtype if given, else the zero point's type, else `default`)."""
    verify_int_attr(op, "output_dtype")
    od = attr(op, "output_dtype") or 0
    y_name = elements_in(op, y, "result #0", ALL)
    if od:
        if od not in NAME_OF_DTYPE:
            fail(f"'{op.name}' op output_dtype {od} is not an ONNX data type")
        want = NAME_OF_DTYPE[od]
        if zp is not None and not is_none(zp):
            zn = elements_in(op, zp, "operand #2", ALL)
            if zn != want:
                fail(f"'{op.name}' op output_dtype ({want}) and the zero point's type "
                     f"({zn}) must agree")
        if y_name != want:
            fail(f"'{op.name}' op result type '{type_str(y.type)}' does not match "
                 f"output_dtype ({want})")
    elif zp is not None and not is_none(zp):
        if elements_in(op, zp, "operand #2", ALL) != y_name:
            fail(f"'{op.name}' op zero point and result must have the same element type")
    elif default is not None and y_name != default:
        fail(f"'{op.name}' op without a zero point or output_dtype the result is "
             f"{default}, got '{type_str(y.type)}'")


@irdl_op_definition
class QuantizeLinearOp(IRDLOperation):
    """`y = saturate(round_half_even(x / y_scale) + y_zero_point)`; float8 / float4
    storage: `y = cast(x / y_scale + y_zero_point)` (float8 saturating when `saturate`)."""

    name = "onnx.QuantizeLinear"
    x = operand_def()
    y_scale = operand_def()
    y_zero_point = operand_def()
    axis = opt_prop_def(IntegerAttr)
    block_size = opt_prop_def(IntegerAttr)
    output_dtype = opt_prop_def(IntegerAttr)
    saturate = opt_prop_def(IntegerAttr)
    precision = opt_prop_def(IntegerAttr)
    y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "QuantizeLinear", (10, 13, 19, 21, 23, 24, 25), ("x", "y_scale", "y_zero_point?"),
        ("y",), {"axis": 1, "block_size": 0, "output_dtype": 0, "saturate": 1, "precision": 0}))

    def verify_(self) -> None:
        elements_in(self, self.x, "operand #0", Q_INPUT)
        elements_in(self, self.y_scale, "operand #1", Q_SCALE)
        elements_in(self, self.y_zero_point, "operand #2", Q_STORAGE, optional=True)
        elements_in(self, self.y, "result #0", Q_STORAGE)
        for a in ("axis", "block_size", "precision"):
            verify_int_attr(self, a)
        verify_int_attr(self, "saturate", (0, 1))
        p = attr(self, "precision") or 0
        if p and NAME_OF_DTYPE.get(p) not in (*FLOATS, "int32"):
            fail(f"'{self.name}' op precision must be float, float16, bfloat16 or int32, "
                 f"got {p}")
        _verify_output_dtype(self, self.y_zero_point, self.y, "uint8")
        same_shape(self, self.x, self.y, "input and result")
        _verify_layout(self, self.x, self.y_scale, self.y_zero_point)


@irdl_op_definition
class DequantizeLinearOp(IRDLOperation):
    """`y = (x - x_zero_point) * x_scale`, in the scale's type (or `output_dtype`)."""

    name = "onnx.DequantizeLinear"
    x = operand_def()
    x_scale = operand_def()
    x_zero_point = operand_def()
    axis = opt_prop_def(IntegerAttr)
    block_size = opt_prop_def(IntegerAttr)
    output_dtype = opt_prop_def(IntegerAttr)
    y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "DequantizeLinear", (10, 13, 19, 21, 23, 24, 25), ("x", "x_scale", "x_zero_point?"),
        ("y",), {"axis": 1, "block_size": 0, "output_dtype": 0}))

    def verify_(self) -> None:
        xn = elements_in(self, self.x, "operand #0", DQ_STORAGE)
        sn = elements_in(self, self.x_scale, "operand #1", DQ_SCALE)
        zn = elements_in(self, self.x_zero_point, "operand #2", DQ_STORAGE, optional=True)
        yn = elements_in(self, self.y, "result #0", FLOATS)
        for a in ("axis", "block_size", "output_dtype"):
            verify_int_attr(self, a)
        if zn is not None and zn != xn:
            fail(f"'{self.name}' op x and x_zero_point must have the same element type")
        od = attr(self, "output_dtype") or 0
        if od:
            if NAME_OF_DTYPE.get(od) != yn:
                fail(f"'{self.name}' op result type '{type_str(self.y.type)}' does not "
                     f"match output_dtype ({NAME_OF_DTYPE.get(od, od)})")
        elif sn != yn:
            fail(f"'{self.name}' op result must have the scale's element type ({sn}) "
                 "when output_dtype is not given")
        same_shape(self, self.x, self.y, "input and result")
        _verify_layout(self, self.x, self.x_scale, self.x_zero_point)


@irdl_op_definition
class DynamicQuantizeLinearOp(IRDLOperation):
    """`y_scale = (max(0, max(x)) - min(0, min(x))) / 255`,
    `y_zero_point = saturate(round_half_even(0 - min(0, min(x)) / y_scale))`,
    `y = saturate(round_half_even(x / y_scale) + y_zero_point)` (uint8)."""

    name = "onnx.DynamicQuantizeLinear"
    x = operand_def()
    y = result_def()
    y_scale = result_def()
    y_zero_point = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "DynamicQuantizeLinear", (11,), ("x",), ("y", "y_scale", "y_zero_point")),
        Lowering(il.dynamic_quantize_linear))

    def verify_(self) -> None:
        elements_in(self, self.x, "operand #0", ("float",))
        elements_in(self, self.y, "result #0", ("uint8",))
        elements_in(self, self.y_scale, "result #1", ("float",))
        elements_in(self, self.y_zero_point, "result #2", ("uint8",))
        same_shape(self, self.x, self.y, "input and result")
        for v in (self.y_scale, self.y_zero_point):
            s = static_shape(v)
            if s is not None and s != []:
                fail(f"'{self.name}' op y_scale and y_zero_point must be scalars, got "
                     f"'{type_str(v.type)}'")


def _verify_cast_attrs(op) -> None:
    verify_int_attr(op, "saturate", (0, 1))
    rm = raw_attr(op, "round_mode")
    if rm is not None and (not isinstance(rm, StringAttr)
                           or rm.data not in ("up", "down", "nearest")):
        fail(f"'{op.name}' op round_mode must be \"up\", \"down\" or \"nearest\"")


@irdl_op_definition
class CastOp(IRDLOperation):
    """`output = input converted to the ONNX data type `to``."""

    name = "onnx.Cast"
    input = operand_def()
    saturate = opt_prop_def(IntegerAttr)
    round_mode = opt_prop_def(StringAttr)
    to = opt_prop_def(Attribute)
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Cast", (1, 6, 9, 13, 19, 21, 23, 24, 25), ("input",), ("output",),
        {"saturate": 1, "round_mode": "up"}), Lowering(il.cast))

    def verify_(self) -> None:
        elements_in(self, self.input, "operand #0", ALL)
        out = elements_in(self, self.output, "result #0", ALL)
        _verify_cast_attrs(self)
        to = raw_attr(self, "to")
        if to is None:
            fail("'onnx.Cast' op requires attribute 'to'")
        # onnx-mlir writes `to` as a TypeAttr (`to = f32`); an ONNX DataType number reads too
        if isinstance(to, IntegerAttr):
            want = NAME_OF_DTYPE.get(int(to.value.data))
        else:
            from qcomp.dialects.onnx.types import onnx_name

            want = onnx_name(getattr(to, "type", to))
        if want is None:
            fail(f"'onnx.Cast' op attribute 'to' is not an ONNX data type: {type_str(to)}")
        if want != out:
            fail(f"'onnx.Cast' op result type '{type_str(self.output.type)}' does not match "
                 f"'to' ({type_str(mlir_type(want))})")
        same_shape(self, self.input, self.output, "input and result")


@irdl_op_definition
class CastLikeOp(IRDLOperation):
    """`output = input converted to target_type's element type`."""

    name = "onnx.CastLike"
    input = operand_def()
    target_type = operand_def()
    saturate = opt_prop_def(IntegerAttr)
    round_mode = opt_prop_def(StringAttr)
    output = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "CastLike", (15, 19, 21, 23, 24, 25), ("input", "target_type"), ("output",),
        {"saturate": 1, "round_mode": "up"}), Lowering(il.cast))

    def verify_(self) -> None:
        elements_in(self, self.input, "operand #0", ALL)
        t = elements_in(self, self.target_type, "operand #1", ALL)
        if elements_in(self, self.output, "result #0", ALL) != t:
            fail(f"'{self.name}' op result must have target_type's element type")
        _verify_cast_attrs(self)
        same_shape(self, self.input, self.output, "input and result")


QUANTIZE_OPS: list[type[IRDLOperation]] = [
    QuantizeLinearOp, DequantizeLinearOp, DynamicQuantizeLinearOp, CastOp, CastLikeOp]

__all__ = ["DTYPE_OF_NAME", "QUANTIZE_OPS", *[op.__name__ for op in QUANTIZE_OPS]]
