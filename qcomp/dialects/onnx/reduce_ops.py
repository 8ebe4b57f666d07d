"""onnx-mlir's ReduceMin and ReduceMax, and the elementwise Min, Max and Round that
DynamicQuantizeLinear's function body uses beside them.

    ReduceMin / ReduceMax: reduced = min / max of data over `axes` (all axes when none are
        given, unless noop_with_empty_axes = 1: then data unchanged); a reduced axis stays
        with size 1 when keepdims = 1 (the default); over an empty set the type's largest
        (ReduceMin) / smallest (ReduceMax) value, +-inf for floats (opset 20)
    Min / Max:  elementwise min / max of 1 or more inputs, NumPy broadcasting, NaN wins
    Round:      round half to even

`axes` is an input from opset 18 (onnx-mlir's `onnx.ReduceMin`) and an attribute before
(onnx-mlir's `onnx.ReduceMinV13`); qcomp keeps one op that takes either (the importer
passes a node's own form). Formulas: `qcomp.quant.onnx_reduce`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr
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
from qcomp.dialects.onnx.core import OnnxFacts, elements_in, fail, is_none, raw_attr, same_shape, verify_int_attr
from qcomp.dialects.onnx.types import FLOATS, INTS

REDUCE_T = (*FLOATS, "double", *INTS, "bool")
MINMAX_T = (*FLOATS, "double", *INTS)
ROUND_T = (*FLOATS, "double")


class _Reduce(IRDLOperation):
    data = operand_def()
    axes = operand_def()
    keepdims = opt_prop_def(IntegerAttr)
    noop_with_empty_axes = opt_prop_def(IntegerAttr)
    axes_attr = opt_prop_def(ArrayAttr, prop_name="axes")
    reduced = result_def()

    def verify_(self) -> None:
        t = elements_in(self, self.data, "operand #0", REDUCE_T)
        if elements_in(self, self.reduced, "result #0", REDUCE_T) != t:
            fail(f"'{self.name}' op result must have the input's element type")
        elements_in(self, self.axes, "operand #1", ("int64",), optional=True)
        verify_int_attr(self, "keepdims", (0, 1))
        verify_int_attr(self, "noop_with_empty_axes", (0, 1))
        if not is_none(self.axes) and raw_attr(self, "axes") is not None:
            fail(f"'{self.name}' op takes axes as an input or as an attribute, not both")


_REDUCE_FACTS = dict(since=(1, 11, 12, 13, 18, 20), inputs=("data", "axes?"),
                     outputs=("reduced",), defaults={"keepdims": 1, "noop_with_empty_axes": 0})


@irdl_op_definition
class ReduceMinOp(_Reduce):
    """`reduced = min(data) over axes` (see the module docstring)."""

    name = "onnx.ReduceMin"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts("ReduceMin", **_REDUCE_FACTS))


@irdl_op_definition
class ReduceMaxOp(_Reduce):
    """`reduced = max(data) over axes` (see the module docstring)."""

    name = "onnx.ReduceMax"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts("ReduceMax", **_REDUCE_FACTS))


class _Variadic(IRDLOperation):
    data_0 = var_operand_def()
    result = result_def()

    def verify_(self) -> None:
        if not self.data_0:
            fail(f"'{self.name}' op takes at least one input")
        ts = {elements_in(self, v, f"operand #{i}", MINMAX_T) for i, v in enumerate(self.data_0)}
        if len(ts) != 1 or elements_in(self, self.result, "result #0", MINMAX_T) not in ts:
            fail(f"'{self.name}' op inputs and result must have one element type")


@irdl_op_definition
class MinOp(_Variadic):
    """`min = elementwise min(data_0, ...)` with broadcasting."""

    name = "onnx.Min"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Min", (1, 6, 8, 12, 13), ("data_0*",), ("min",)))


@irdl_op_definition
class MaxOp(_Variadic):
    """`max = elementwise max(data_0, ...)` with broadcasting."""

    name = "onnx.Max"
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts(
        "Max", (1, 6, 8, 12, 13), ("data_0*",), ("max",)))


@irdl_op_definition
class RoundOp(IRDLOperation):
    """`Y = round_half_even(X)`."""

    name = "onnx.Round"
    X = operand_def()
    Y = result_def()
    traits = traits_def(NoMemoryEffect(), NO_QUANTIZATION, OnnxFacts("Round", (11, 22), ("X",), ("Y",)))

    def verify_(self) -> None:
        t = elements_in(self, self.X, "operand #0", ROUND_T)
        if elements_in(self, self.Y, "result #0", ROUND_T) != t:
            fail(f"'{self.name}' op result must have the input's element type")
        same_shape(self, self.X, self.Y, "input and result")


REDUCE_OPS: list[type[IRDLOperation]] = [ReduceMinOp, ReduceMaxOp, MinOp, MaxOp, RoundOp]
