"""onnx-mlir's data-movement ops of QDQ models (Reshape, Flatten, Transpose, Concat,
Squeeze, Unsqueeze, Gather), in its generic text with the ONNX attributes as
properties; `float_ops` holds the rest and the list of all of them."""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr
from xdsl.ir import SSAValue
from xdsl.irdl import (
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
from qcomp.dialects.onnx.float_common import (
    DATA_T,
    MOVE_T,
    OnnxOp,
    _same_element,
    _shapes,
    _verify_ints_attr,
    const_ints,
    ints_attr,
)


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
        {"allowzero": 0}),
        Lowering(ts.reshape, check=ts.reshape_target),
        QdqRole("drop", data_inputs=(0,)))

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
        "Flatten", (1, 9, 11, 13, 21, 23, 24, 25), ("input",), ("output",), {"axis": 1}),
        Lowering(ts.reshape), QdqRole("drop"))

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
        "Transpose", (1, 13, 21, 23, 24, 25), ("data",), ("transposed",), {"perm": None}),
        Lowering(ts.transpose), QdqRole("drop"), QuantizerForms(dynamic="integers"))

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
        "Concat", (1, 4, 11, 13), ("inputs*",), ("concat_result",)),
        Lowering(ts.concat), QdqRole("variadic", "QLinearConcat"))

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
        "Squeeze", (1, 11, 13, 21, 23, 24, 25), ("data", "axes?"), ("squeezed",)),
        Lowering(ts.reshape, check=ts.squeeze_axes), QdqRole("drop", data_inputs=(0,)))

    def check(self) -> None:
        elements_in(self, self.data, "operand #0", MOVE_T)
        _same_element(self, [self.data, self.squeezed])

    def infer(self):
        s = static_shape(self.data)
        if is_none(self.axes):
            return None if s is None or any(d < 0 for d in s) else fs.squeeze(s, None)
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
        "Unsqueeze", (1, 11, 13, 21, 23, 24, 25), ("data", "axes"), ("expanded",)),
        Lowering(ts.reshape), QdqRole("drop", data_inputs=(0,)))

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
        "Gather", (1, 11, 13), ("data", "indices"), ("output",), {"axis": 0}),
        Lowering(ts.gather, check=ts.gather_bounds), QdqRole("drop", data_inputs=(0,)),
        QuantizerForms(dynamic="integers"))

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
