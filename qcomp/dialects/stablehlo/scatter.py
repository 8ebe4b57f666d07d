"""`stablehlo.scatter`, `stablehlo.select_and_scatter` and `#stablehlo.scatter<...>`.

Both ops are printed by upstream in the generic form:

    %r = "stablehlo.scatter"(%operand, %indices, %updates) <{scatter_dimension_numbers =
           #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0],
           scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>): ... stablehlo.return %s : tensor<f32>
    }) : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>

Quantization (spec): scatter and select_and_scatter take per-tensor quantized types only;
they move stored integers and their regions compute with their own ops' quantized
semantics (see `MOVES_STORAGE`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntAttr,
    TensorType,
)
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import (
    IRDLOperation,
    SameVariadicOperandSize,
    irdl_attr_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect

from qcomp.dialects.facts import Quantization, QuantSemantics
from qcomp.dialects.quant import element_type
from qcomp.dialects.stablehlo.attrs import format_struct, int_tuple, ints, parse_struct
from qcomp.dialects.stablehlo.format import array_values, padding_values
from qcomp.dialects.stablehlo.kinds import (
    TENSOR,
    ElementKinds,
    element_kinds,
    type_text,
    verify_value_kinds,
)
from qcomp.dialects.stablehlo.verify_regions import (
    check_dim_in_bounds,
    check_dims_distinct,
    check_dims_in_bounds,
    check_dims_sorted_unique,
    check_group_kinds,
    check_reducer_shape,
    terminator_types,
    types_text,
    window_output_shape,
)
from qcomp.dialects.stablehlo.verify_shapes import (
    compatible_types,
    dims_compatible,
    fail,
    shape,
    shapes_compatible,
)
from qcomp.ir.lazy_format import irdl_op_definition

MOVES_STORAGE = Quantization(QuantSemantics.TYPE_ONLY)
"""Per-tensor quantized scatter / select_and_scatter move stored integers: the spec gives
them no dequantize step of their own, their regions take the quantized element types, and
the ops in a region compute with their own quantized semantics (a quantized `add` body
dequantizes, adds and quantizes once per update). Upstream's quantized-op-to-qdq and
quant-to-math generic lists do not name these ops."""

_SCATTER_FIELDS = {
    "update_window_dims": True,
    "inserted_window_dims": True,
    "input_batching_dims": True,
    "scatter_indices_batching_dims": True,
    "scatter_dims_to_operand_dims": True,
    "index_vector_dim": False,
}


@irdl_attr_definition
class ScatterDimensionNumbersAttr(ParametrizedAttribute):
    """`#stablehlo.scatter<...>`: how scatter's updates map to operand and indices."""

    name = "stablehlo.scatter"

    update_window_dims_attr: ArrayAttr[IntAttr]
    inserted_window_dims_attr: ArrayAttr[IntAttr]
    input_batching_dims_attr: ArrayAttr[IntAttr]
    scatter_indices_batching_dims_attr: ArrayAttr[IntAttr]
    scatter_dims_to_operand_dims_attr: ArrayAttr[IntAttr]
    index_vector_dim_attr: IntAttr

    @staticmethod
    def get(update_window_dims: Sequence[int] = (), inserted_window_dims: Sequence[int] = (),
            input_batching_dims: Sequence[int] = (),
            scatter_indices_batching_dims: Sequence[int] = (),
            scatter_dims_to_operand_dims: Sequence[int] = (), index_vector_dim: int = 0,
            ) -> ScatterDimensionNumbersAttr:
        return ScatterDimensionNumbersAttr(
            ints(update_window_dims), ints(inserted_window_dims), ints(input_batching_dims),
            ints(scatter_indices_batching_dims), ints(scatter_dims_to_operand_dims),
            IntAttr(index_vector_dim))

    update_window_dims = property(lambda self: int_tuple(self.update_window_dims_attr))
    inserted_window_dims = property(lambda self: int_tuple(self.inserted_window_dims_attr))
    input_batching_dims = property(lambda self: int_tuple(self.input_batching_dims_attr))
    scatter_indices_batching_dims = property(
        lambda self: int_tuple(self.scatter_indices_batching_dims_attr))
    scatter_dims_to_operand_dims = property(
        lambda self: int_tuple(self.scatter_dims_to_operand_dims_attr))
    index_vector_dim = property(lambda self: self.index_vector_dim_attr.data)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        f = parse_struct(parser, "scatter", _SCATTER_FIELDS)
        return ScatterDimensionNumbersAttr.get(
            *(f.get(k, ()) for k in list(_SCATTER_FIELDS)[:5]),  # type: ignore[misc]
            f.get("index_vector_dim", 0),  # type: ignore[arg-type]
        ).parameters

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(format_struct([(k, getattr(self, k)) for k in _SCATTER_FIELDS]))


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """`results = inputs` with `update_computation(results[i], updates[j])` written at
    every index that `scatter_indices` and the dimension numbers give update `j`
    (updates whose index falls outside the operand are skipped)."""

    name = "stablehlo.scatter"
    inputs = var_operand_def()
    scatter_indices = operand_def()
    updates = var_operand_def()
    results_ = var_result_def()
    scatter_dimension_numbers = prop_def(ScatterDimensionNumbersAttr)
    indices_are_sorted = opt_prop_def(BoolAttr)
    unique_indices = opt_prop_def(BoolAttr)
    update_computation = region_def("single_block")
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(
        RecursiveMemoryEffect(),
        ElementKinds.same(TENSOR, 1), MOVES_STORAGE)

    def verify_(self) -> None:
        check_group_kinds(self, [(self.inputs, True), ((), False), (self.updates, True)], True)
        t = self.scatter_indices.type
        if not (isinstance(t, TensorType) and "I" in element_kinds(t)):
            fail(f"operand #1 must be ranked tensor of integer or index values, "
                 f"but got '{type_text(t)}'")
        verify_scatter(self)


@irdl_op_definition
class SelectAndScatterOp(IRDLOperation):
    """For each window of `operand`, `select` picks one element; `source`'s value for
    that window is combined into the result at the picked position with `scatter`
    (positions picked by no window keep `init_value`)."""

    name = "stablehlo.select_and_scatter"
    operand = operand_def()
    source = operand_def()
    init_value = operand_def()
    result = result_def()
    window_dimensions_attr = opt_prop_def(DenseArrayBase, prop_name="window_dimensions")
    window_strides_attr = opt_prop_def(DenseArrayBase, prop_name="window_strides")
    padding_attr = opt_prop_def(DenseIntOrFPElementsAttr, prop_name="padding")
    select = region_def("single_block")
    scatter = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), ElementKinds.same(TENSOR, 3),
                        MOVES_STORAGE)

    def _rank(self) -> int:
        return len(shape(self.operand.type))

    window_dimensions = property(lambda self: array_values(self.window_dimensions_attr) or ())
    window_strides = property(
        lambda self: array_values(self.window_strides_attr) or (1,) * self._rank())
    padding = property(
        lambda self: padding_values(self.padding_attr) or ((0, 0),) * self._rank())

    def verify_(self) -> None:
        verify_value_kinds(self)
        verify_select_and_scatter(self)


def verify_scatter(op: ScatterOp) -> None:
    """Upstream's verifyScatterOp (the checks that apply to ranked types)."""
    d = op.scatter_dimension_numbers
    inputs = [v.type for v in op.inputs]
    updates = [v.type for v in op.updates]
    idx_shape = list(shape(op.scatter_indices.type))
    for t in inputs:
        if not shapes_compatible(shape(inputs[0]), shape(t)):
            fail("Not all inputs have compatible shapes.")
    for t in updates:
        if not shapes_compatible(shape(updates[0]), shape(t)):
            fail("Not all updates have compatible shapes.")
    ivd = d.index_vector_dim
    check_dim_in_bounds(ivd, len(idx_shape), "index_vector_dim",
                        "rank-of('scatter_indices')", inclusive=True)
    check_reducer_shape(op.update_computation.block, inputs,
                        [TensorType(element_type(u), []) for u in updates])
    if len(idx_shape) == ivd:
        idx_shape.append(1)
    uwd = d.update_window_dims
    for u in updates:
        want = len(idx_shape) - 1 + len(uwd)
        if len(shape(u)) != want:
            fail(f"expects updates tensor must be of rank {want} ( == rank-of('scatter_indices')"
                 " - 1 + size-of('update_window_dims'), where 'scatter_indices' is expanded by "
                 "a trailing 1 dimension if 'index_vector_dim' == rank-of('scatter_indices')),"
                 f" but got {len(shape(u))}.")
    for t, u in zip(inputs, updates):
        _check_scatter_dims(d, shape(t), idx_shape, shape(u))
        _check_scatter_bounds(d, shape(t), idx_shape, shape(u))
    for i, (t, r) in enumerate(zip(inputs, op.results)):
        if not compatible_types(t, r.type):
            fail(f"inferred type(s) {types_text(inputs)} are incompatible "
                 f"with return type(s) of operation "
                 f"{types_text([v.type for v in op.results])}")


def _check_scatter_dims(d, operand: Sequence[int], idx: Sequence[int],
                        update: Sequence[int]) -> None:
    """Upstream's validateScatterDimensionNumbers."""
    uwd, iwd, ibd = d.update_window_dims, d.inserted_window_dims, d.input_batching_dims
    sibd, sdod, ivd = d.scatter_indices_batching_dims, d.scatter_dims_to_operand_dims, \
        d.index_vector_dim
    size = len(uwd) + len(iwd) + len(ibd)
    if len(operand) != size:
        fail("Expects rank-of operand to match size-of('update_window_dims') + "
             "size-of('inserted_window_dims') + size-of('input_batching_dims') i.e. "
             f"{size} but got {len(operand)}.")
    check_dims_sorted_unique(uwd, "update_window_dims")
    check_dims_in_bounds(uwd, len(update), "update_window_dims", "rank-of('updates')")
    check_dims_distinct(iwd, ibd, "inserted_window_dims", "input_batching_dims")
    check_dims_sorted_unique(iwd, "inserted_window_dims", unique=False)
    check_dims_in_bounds(iwd, len(operand), "inserted_window_dims", "rank-of('operand')")
    check_dims_sorted_unique(ibd, "input_batching_dims", unique=False)
    check_dims_in_bounds(ibd, len(operand), "input_batching_dims", "rank-of('operand')")
    if len(set(sibd)) != len(sibd):
        fail("Expects scatter_indices_batching_dims to not repeat; got: "
             f"[{', '.join(map(str, sibd))}].")
    check_dims_in_bounds(sibd, len(idx), "scatter_indices_batching_dims",
                         "rank-of('scatter_indices')")
    if ivd in sibd:
        fail(f"expects scatter_indices_batching_dims not to include index_vector_dim {ivd}.")
    if len(ibd) != len(sibd):
        fail("input_batching_dims and scatter_indices_batching_dims should have the same size.")
    for k, (a, b) in enumerate(zip(ibd, sibd)):
        if not dims_compatible(operand[a], idx[b]):
            fail(f"input_batching_dims[{k}] and scatter_indices_batching_dims[{k}] must have "
                 f"compatible sizes, but got {operand[a]} and {idx[b]}.")
    if idx[ivd] >= 0 and len(sdod) != idx[ivd]:
        fail(f"Scatter op has {len(sdod)} elements in scatter_dims_to_operand_dims and the "
             f"bound of dimension index_vector_dim={ivd} of scatter_indices is {idx[ivd]}. "
             "These two numbers must be equal.")
    check_dims_distinct(sdod, ibd, "scatter_dims_to_operand_dims", "input_batching_dims")
    check_dims_in_bounds(sdod, len(operand), "scatter_dims_to_operand_dims",
                         "rank-of('operand')")


def _check_scatter_bounds(d, operand: Sequence[int], idx: Sequence[int],
                          update: Sequence[int]) -> None:
    uwd = d.update_window_dims
    window_sizes = [s for i, s in enumerate(operand)
                    if i not in d.inserted_window_dims and i not in d.input_batching_dims]
    for k, ud in enumerate(uwd):
        if update[ud] >= 0 and window_sizes[k] >= 0 and update[ud] > window_sizes[k]:
            fail("expects bounds of the window dimensions of updates to not exceed the bounds "
                 f"of the corresponding dimensions of operand. For dimension {ud}, updates "
                 f"bound is {update[ud]}, operand bound is {window_sizes[k]}.")
    seen = 0
    for i, size in enumerate(update):
        if i in uwd:
            continue
        if seen == d.index_vector_dim:
            seen += 1
        if not dims_compatible(size, idx[seen]):
            fail("expects bounds of the scatter dimensions of updates to be same as the bounds "
                 f"of the corresponding dimensions of scatter indices. For scatter dimension "
                 f"{i}, updates bound is {size} , scatter_indices bound is {idx[seen]}.")
        seen += 1


def verify_select_and_scatter(op: SelectAndScatterOp) -> None:
    """Upstream's verifySelectAndScatterOp."""
    operand, source = op.operand.type, op.source.type
    block = op.select.block
    if len(block.args) != 2:
        fail(f"expects the select-region to take 2 parameters, but takes {len(block.args)}")
    want = TensorType(element_type(operand), [])
    for i, a in enumerate(block.args):
        if shape(a.type) != () or element_type(a.type) != element_type(operand):
            fail(f"expects the type of select-region's parameter at index {i} to be "
                 f"'{type_text(want)}', but got '{type_text(a.type)}'")
    rets = terminator_types(block)
    if len(rets) != 1:
        fail(f"expects select-region to return single value, but got: {len(rets)}")
    r = rets[0]
    e = element_type(r)
    if shape(r) != () or getattr(getattr(e, "width", None), "data", None) != 1:
        fail(f"expects the return-type of select-region to be tensor<i1>, but got: "
             f"'{type_text(r)}'")
    check_reducer_shape(op.scatter.block, [TensorType(element_type(source), [])],
                        [op.init_value.type])
    rank = len(shape(operand))
    window = op.window_dimensions
    if len(window) != rank:
        fail(f"expects window-dimensions size == operand rank, but got window-dimensions size: "
             f"{len(window)} and operand-type: '{type_text(operand)}' with rank = {rank}.")
    strides, pads = op.window_strides, op.padding
    if len(strides) != rank:
        fail(f"expects window-strides to have same dimension-size as size of window dimensions "
             f"({rank}), but got: {len(strides)}.")
    if len(pads) != rank:
        fail(f"expects padding-entries to have same dimension-size as size of window "
             f"dimensions ({rank}), but got: {len(pads)}.")
    for i, w in enumerate(window):
        if w <= 0:
            fail(f"expects window to have positive value for {i}-th window dimension, but got "
                 f"{w}.")
    for i, s in enumerate(strides):
        if s <= 0:
            fail(f"expects window to have positive stride for {i}-th window dimension, but got "
                 f"{s}.")
    out = window_output_shape(shape(operand), window, strides, pads)
    inferred = TensorType(element_type(operand), out)
    if not compatible_types(inferred, source):
        fail(f"expects source-type to be '{type_text(inferred)}', but got'{type_text(source)}'")
