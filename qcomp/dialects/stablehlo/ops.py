"""The `stablehlo` dialect: the ops qcomp reads, rewrites and interprets.

Every op parses and prints in upstream's pretty form (`stablehlo-opt` output) and in
the generic form. Inherent attributes are properties, as in MLIR. Op families:

- unary elementwise `%r = stablehlo.negate %x : tensor<4xi8>` (functional type when
  operand and result types differ), binary `%r = stablehlo.add %a, %b : t`
- shape ops with functional types (`reshape`, `transpose ..., dims = [1, 0]`, ...)
- contractions (`dot_general`, `convolution`) with their compact dimension syntax
- `reduce` (compact `applies` form or `reducer` body), `reduce_window`, `gather` and
  `batch_norm_inference` in the generic form, as upstream prints them

Modules: `stablehlo_elementwise` (elementwise ops), `stablehlo_attrs` (attributes),
`stablehlo_syntax`/`stablehlo_syntax_nn`/`stablehlo_reduce` (custom syntax),
`stablehlo_format` (shared syntax helpers), `stablehlo_types` (operand/result kinds),
`stablehlo_verify`/`stablehlo_verify_nn`/`stablehlo_quant_verify` (verifiers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.traits import IsTerminator, NoMemoryEffect, Pure

from qcomp.dialects.facts import (
    NO_QUANTIZATION,
    XLA_SUM_ORDER,
    UpstreamGeneric,
    WorkingMemory,
    dq_op_q,
    own_lowering,
    type_only,
)
from qcomp.dialects.stablehlo import syntax as syntax
from qcomp.dialects.stablehlo import syntax_nn as syntax_nn
from qcomp.dialects.stablehlo import verify as check
from qcomp.dialects.stablehlo.assembly import FUNCTIONAL
from qcomp.dialects.stablehlo.attrs import (
    ConvDimensionNumbersAttr,
    DotAlgorithmAttr,
    DotDimensionNumbersAttr,
    GatherDimensionNumbersAttr,
    PrecisionAttr,
)
from qcomp.dialects.stablehlo.format import (
    array_values,
    i64_array,
    i64_attr,
    int_value,
    padding_values,
)
from qcomp.dialects.stablehlo.kinds import (
    FP_Q,
    INT,
    INT_FP_COMPLEX_Q,
    ONE_D,
    RANKED,
    STATIC,
    STATIC_OR_BOUNDED,
    TENSOR,
    TENSOR_PA,
    TENSOR_PA_SUB,
    ZERO_D,
    ElementKinds,
)
from qcomp.dialects.stablehlo.working_memory import contraction_scratch, convolution_scratch
from qcomp.ir.lazy_format import irdl_op_definition

_Prec = ArrayAttr[PrecisionAttr]  # precision_config

CONTRACTION_KINDS = ElementKinds(((RANKED, TENSOR), (RANKED, TENSOR_PA)), (RANKED, TENSOR_PA))
DOT_GENERAL_KINDS = ElementKinds(((RANKED, TENSOR), (RANKED, TENSOR_PA_SUB)), (RANKED, TENSOR_PA))
"""dot_general's rhs may also be sub-channel quantized (blockwise weights, a qcomp extension)."""
CONVOLUTION_KINDS = DOT_GENERAL_KINDS
"""convolution's rhs (the kernel) likewise (docs/blockwise.md)."""
CONTRACTION = own_lowering(per_axis=True, upstream_qdq=True)
"""dot, dot_general, convolution: integer contractions with their own rescale (per-axis
rhs and result as the spec allows), hybrid float x quantized forms."""


# ---------------------------------------------------------------------------
# Constants and type-only ops
# ---------------------------------------------------------------------------
@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`stablehlo.constant dense<...> : t`; quantized: the generic body with storage values."""

    name = "stablehlo.constant"
    value = prop_def(Attribute)
    output = result_def()
    traits = traits_def(
        Pure(), ElementKinds((), (STATIC, TENSOR_PA_SUB)),
        type_only(per_axis=True, fusable=False))

    def __init__(self, value: Attribute, result_type: Attribute | None = None):
        super().__init__(properties={"value": value},
                         result_types=[result_type or value.type])  # type: ignore[attr-defined]

    parse = classmethod(syntax.parse_constant)
    print = syntax.print_constant

    def asm_result_names(self) -> list[str]:
        """`%c` for integer elements, `%cst` for the rest (StableHLO's getAsmResultNames)."""
        element = getattr(self.output.type, "element_type", None)
        return ["c" if isinstance(element, IntegerType) else "cst"]

    def verify_(self) -> None:
        check.verify_constant(self)


@irdl_op_definition
class IotaOp(IRDLOperation):
    """`stablehlo.iota dim = 0 : t`: indices along one dimension."""

    name = "stablehlo.iota"
    iota_dimension_attr = prop_def(IntegerAttr, prop_name="iota_dimension")
    output = result_def()
    traits = traits_def(Pure(), ElementKinds((), (STATIC, INT_FP_COMPLEX_Q)), NO_QUANTIZATION)

    def __init__(self, iota_dimension: int, result_type: Attribute):
        super().__init__(result_types=[result_type],
                         properties={"iota_dimension": i64_attr(iota_dimension)})

    parse = classmethod(syntax.parse_iota)
    print = syntax.print_iota

    @property
    def iota_dimension(self) -> int:
        return int_value(self.iota_dimension_attr)

    def verify_(self) -> None:
        check.verify_iota(self)


class _FunctionalTypeOp(IRDLOperation):
    """`operands attr-dict : functional-type(operands, results)`."""

    operand = operand_def()
    result = result_def()
    traits = traits_def(NoMemoryEffect())

    def __init__(self, operand, result_type: Attribute):
        super().__init__(operands=[operand], result_types=[result_type])

    assembly_format = FUNCTIONAL
    irdl_options = (ParsePropInAttrDict(),)


@irdl_op_definition
class BitcastConvertOp(_FunctionalTypeOp):
    """`stablehlo.bitcast_convert %x : (t) -> u`: reinterpret the bits."""

    name = "stablehlo.bitcast_convert"
    traits = traits_def(NoMemoryEffect(), ElementKinds(((RANKED, TENSOR_PA),), (RANKED, TENSOR_PA)),
                        type_only(per_axis=True, fusable=False))

    def verify_(self) -> None:
        check.verify_bitcast_convert(self)


@irdl_op_definition
class ReshapeOp(_FunctionalTypeOp):
    """`stablehlo.reshape %x : (t) -> u`: same elements, new static shape."""

    name = "stablehlo.reshape"
    traits = traits_def(
        NoMemoryEffect(), ElementKinds(((RANKED, TENSOR_PA),), (STATIC_OR_BOUNDED, TENSOR_PA)),
        type_only(per_axis=True))

    def verify_(self) -> None:
        check.verify_reshape(self)


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """`stablehlo.transpose %x, dims = [1, 0] : (t) -> u`: `result[i] = x[perm(i)]`."""

    name = "stablehlo.transpose"
    DIMS_PROPERTY: ClassVar[str] = "permutation"
    operand = operand_def()
    result = result_def()
    permutation_attr = prop_def(DenseArrayBase, prop_name="permutation")
    traits = traits_def(
        NoMemoryEffect(), ElementKinds(((RANKED, TENSOR_PA),), (RANKED, TENSOR_PA)),
        type_only(per_axis=True))

    def __init__(self, operand, permutation: Sequence[int], result_type: Attribute | None = None):
        """`result_type` defaults to the operand type with permuted dimensions."""
        if result_type is None:
            t = operand.type
            result_type = TensorType(t.element_type, [t.get_shape()[d] for d in permutation])
        super().__init__(operands=[operand], result_types=[result_type],
                         properties={"permutation": i64_array(permutation)})

    parse = classmethod(syntax.parse_dims_op)
    print = syntax.print_dims_op

    @property
    def permutation(self) -> tuple[int, ...]:
        return array_values(self.permutation_attr) or ()

    def verify_(self) -> None:
        check.verify_transpose(self)


@irdl_op_definition
class BroadcastInDimOp(IRDLOperation):
    """`stablehlo.broadcast_in_dim %x, dims = [1] : (t) -> u`: operand dim i → result dim dims[i]."""

    name = "stablehlo.broadcast_in_dim"
    DIMS_PROPERTY: ClassVar[str] = "broadcast_dimensions"
    operand = operand_def()
    result = result_def()
    broadcast_dimensions_attr = prop_def(DenseArrayBase, prop_name="broadcast_dimensions")
    traits = traits_def(
        NoMemoryEffect(), ElementKinds(((RANKED, TENSOR_PA),), (STATIC_OR_BOUNDED, TENSOR_PA)),
        type_only(per_axis=True))

    def __init__(self, operand, broadcast_dimensions: Sequence[int], result_type: Attribute):
        super().__init__(operands=[operand], result_types=[result_type],
                         properties={"broadcast_dimensions": i64_array(broadcast_dimensions)})

    parse = classmethod(syntax.parse_dims_op)
    print = syntax.print_dims_op

    @property
    def broadcast_dimensions(self) -> tuple[int, ...]:
        return array_values(self.broadcast_dimensions_attr) or ()

    def verify_(self) -> None:
        check.verify_broadcast_in_dim(self)


@irdl_op_definition
class ConcatenateOp(IRDLOperation):
    """`stablehlo.concatenate %a, %b, dim = 0 : (t, t) -> u`."""

    name = "stablehlo.concatenate"
    inputs = var_operand_def()
    result = result_def()
    dimension_attr = prop_def(IntegerAttr, prop_name="dimension")
    traits = traits_def(NoMemoryEffect(), ElementKinds.same(TENSOR, 1), type_only())

    def __init__(self, inputs: Sequence, dimension: int, result_type: Attribute | None = None):
        """`result_type` defaults to the inputs' type with `dimension` summed (static sizes)."""
        if result_type is None:
            t = inputs[0].type
            shape = list(t.get_shape())
            shape[dimension] = sum(v.type.get_shape()[dimension] for v in inputs)
            result_type = TensorType(t.element_type, shape)
        super().__init__(operands=[list(inputs)], result_types=[result_type],
                         properties={"dimension": i64_attr(dimension)})

    parse = classmethod(syntax.parse_concatenate)
    print = syntax.print_concatenate

    @property
    def dimension(self) -> int:
        return int_value(self.dimension_attr)

    def verify_(self) -> None:
        check.verify_concatenate(self)


@irdl_op_definition
class SliceOp(IRDLOperation):
    """`stablehlo.slice %x [0:2, 1:4:2] : (t) -> u`: `start:limit[:stride]` per dimension."""

    name = "stablehlo.slice"
    operand = operand_def()
    result = result_def()
    start_indices_attr = prop_def(DenseArrayBase, prop_name="start_indices")
    limit_indices_attr = prop_def(DenseArrayBase, prop_name="limit_indices")
    strides_attr = prop_def(DenseArrayBase, prop_name="strides")
    traits = traits_def(NoMemoryEffect(), ElementKinds.same(TENSOR, 1), type_only())

    def __init__(self, operand, start_indices: Sequence[int], limit_indices: Sequence[int],
                 strides: Sequence[int] | None = None, result_type: Attribute | None = None):
        """`result_type` defaults to `ceil((limit - start) / stride)` per dimension."""
        strides = list(strides) if strides is not None else [1] * len(start_indices)
        if result_type is None:
            shape = [-(-(b - a) // c) for a, b, c in zip(start_indices, limit_indices, strides)]
            result_type = TensorType(operand.type.element_type, shape)
        super().__init__(operands=[operand], result_types=[result_type], properties={
            "start_indices": i64_array(start_indices), "limit_indices": i64_array(limit_indices),
            "strides": i64_array(strides)})

    parse = classmethod(syntax.parse_slice)
    print = syntax.print_slice

    start_indices = property(lambda self: array_values(self.start_indices_attr) or ())
    limit_indices = property(lambda self: array_values(self.limit_indices_attr) or ())
    strides = property(lambda self: array_values(self.strides_attr) or ())

    def verify_(self) -> None:
        check.verify_slice(self)


@irdl_op_definition
class PadOp(IRDLOperation):
    """`stablehlo.pad %x, %v, low = [..], high = [..], interior = [..] : (t, s) -> u`."""

    name = "stablehlo.pad"
    operand = operand_def()
    padding_value = operand_def()
    result = result_def()
    edge_padding_low_attr = prop_def(DenseArrayBase, prop_name="edge_padding_low")
    edge_padding_high_attr = prop_def(DenseArrayBase, prop_name="edge_padding_high")
    interior_padding_attr = prop_def(DenseArrayBase, prop_name="interior_padding")
    traits = traits_def(
        NoMemoryEffect(), ElementKinds(((RANKED, TENSOR), (ZERO_D, TENSOR)), (RANKED, TENSOR)),
        type_only())

    parse = classmethod(syntax.parse_pad)
    print = syntax.print_pad

    edge_padding_low = property(lambda self: array_values(self.edge_padding_low_attr) or ())
    edge_padding_high = property(lambda self: array_values(self.edge_padding_high_attr) or ())
    interior_padding = property(lambda self: array_values(self.interior_padding_attr) or ())

    def verify_(self) -> None:
        check.verify_pad(self)


@irdl_op_definition
class GatherOp(IRDLOperation):
    """`"stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<...>, slice_sizes = array<i64: ..>}>`."""

    name = "stablehlo.gather"
    operand = operand_def()
    start_indices = operand_def()
    result = result_def()
    dimension_numbers = prop_def(GatherDimensionNumbersAttr)
    slice_sizes_attr = prop_def(DenseArrayBase, prop_name="slice_sizes")
    indices_are_sorted_attr = opt_prop_def(BoolAttr, prop_name="indices_are_sorted")
    traits = traits_def(
        NoMemoryEffect(), ElementKinds(((RANKED, TENSOR), (RANKED, INT)), (RANKED, TENSOR)),
        type_only())

    @property
    def slice_sizes(self) -> tuple[int, ...]:
        return array_values(self.slice_sizes_attr) or ()

    @property
    def indices_are_sorted(self) -> bool:
        a = self.indices_are_sorted_attr
        return bool(a.value.data) if a is not None else False

    def verify_(self) -> None:
        check.verify_gather(self)


# ---------------------------------------------------------------------------
# Contractions
# ---------------------------------------------------------------------------
@irdl_op_definition
class DotOp(IRDLOperation):
    """`stablehlo.dot %a, %b[, precision = [..]] : (t, u) -> v`."""

    name = "stablehlo.dot"
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    precision_config = opt_prop_def(_Prec)
    traits = traits_def(Pure(), CONTRACTION_KINDS, CONTRACTION, XLA_SUM_ORDER,
                        WorkingMemory(contraction_scratch))

    parse = classmethod(syntax_nn.parse_dot)
    print = syntax_nn.print_dot

    def verify_(self) -> None:
        check.verify_dot(self)


@irdl_op_definition
class DotGeneralOp(IRDLOperation):
    """`stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1]`."""

    name = "stablehlo.dot_general"
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    dot_dimension_numbers = prop_def(DotDimensionNumbersAttr)
    precision_config = opt_prop_def(_Prec)
    algorithm = opt_prop_def(DotAlgorithmAttr)
    traits = traits_def(NoMemoryEffect(), DOT_GENERAL_KINDS, CONTRACTION, XLA_SUM_ORDER,
                        WorkingMemory(contraction_scratch))

    def __init__(self, lhs, rhs, dot_dimension_numbers: DotDimensionNumbersAttr,
                 result_type: Attribute, precision_config: ArrayAttr | None = None):
        props: dict[str, Attribute] = {"dot_dimension_numbers": dot_dimension_numbers}
        if precision_config is not None:
            props["precision_config"] = precision_config
        super().__init__(operands=[lhs, rhs], result_types=[result_type], properties=props)

    parse = classmethod(syntax_nn.parse_dot_general)
    print = syntax_nn.print_dot_general

    lhs_batching_dimensions = property(lambda self: self.dot_dimension_numbers.lhs_batching_dimensions)
    rhs_batching_dimensions = property(lambda self: self.dot_dimension_numbers.rhs_batching_dimensions)
    lhs_contracting_dimensions = property(
        lambda self: self.dot_dimension_numbers.lhs_contracting_dimensions)
    rhs_contracting_dimensions = property(
        lambda self: self.dot_dimension_numbers.rhs_contracting_dimensions)

    def verify_(self) -> None:
        check.verify_dot_general(self)


@irdl_op_definition
class ConvolutionOp(IRDLOperation):
    """`stablehlo.convolution(%x, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {...}`."""

    name = "stablehlo.convolution"
    lhs = operand_def()
    rhs = operand_def()
    result = result_def()
    window_strides_attr = opt_prop_def(DenseArrayBase, prop_name="window_strides")
    padding_attr = opt_prop_def(DenseIntOrFPElementsAttr, prop_name="padding")
    lhs_dilation_attr = opt_prop_def(DenseArrayBase, prop_name="lhs_dilation")
    rhs_dilation_attr = opt_prop_def(DenseArrayBase, prop_name="rhs_dilation")
    window_reversal_attr = opt_prop_def(DenseArrayBase, prop_name="window_reversal")
    dimension_numbers = prop_def(ConvDimensionNumbersAttr)
    feature_group_count_attr = prop_def(IntegerAttr, prop_name="feature_group_count")
    batch_group_count_attr = prop_def(IntegerAttr, prop_name="batch_group_count")
    precision_config = opt_prop_def(_Prec)
    traits = traits_def(NoMemoryEffect(), CONVOLUTION_KINDS, CONTRACTION, XLA_SUM_ORDER,
                        WorkingMemory(convolution_scratch))

    parse = classmethod(syntax_nn.parse_convolution)
    print = syntax_nn.print_convolution

    @property
    def num_spatial_dims(self) -> int:
        return len(self.dimension_numbers.input_spatial_dimensions)

    @property
    def window_strides(self) -> tuple[int, ...]:
        """Defaults to 1 per spatial dimension."""
        return array_values(self.window_strides_attr) or (1,) * self.num_spatial_dims

    @property
    def padding(self) -> tuple[tuple[int, int], ...]:
        """(low, high) per spatial dimension; defaults to zeros."""
        return padding_values(self.padding_attr) or ((0, 0),) * self.num_spatial_dims

    @property
    def lhs_dilation(self) -> tuple[int, ...]:
        return array_values(self.lhs_dilation_attr) or (1,) * self.num_spatial_dims

    @property
    def rhs_dilation(self) -> tuple[int, ...]:
        return array_values(self.rhs_dilation_attr) or (1,) * self.num_spatial_dims

    @property
    def window_reversal(self) -> tuple[bool, ...]:
        vals = array_values(self.window_reversal_attr)
        return tuple(bool(v) for v in vals) if vals else (False,) * self.num_spatial_dims

    @property
    def feature_group_count(self) -> int:
        return int_value(self.feature_group_count_attr)

    @property
    def batch_group_count(self) -> int:
        return int_value(self.batch_group_count_attr)

    input_batch_dimension = property(lambda self: self.dimension_numbers.input_batch_dimension)
    input_feature_dimension = property(lambda self: self.dimension_numbers.input_feature_dimension)
    input_spatial_dimensions = property(lambda self: self.dimension_numbers.input_spatial_dimensions)
    kernel_input_feature_dimension = property(
        lambda self: self.dimension_numbers.kernel_input_feature_dimension)
    kernel_output_feature_dimension = property(
        lambda self: self.dimension_numbers.kernel_output_feature_dimension)
    kernel_spatial_dimensions = property(lambda self: self.dimension_numbers.kernel_spatial_dimensions)
    output_batch_dimension = property(lambda self: self.dimension_numbers.output_batch_dimension)
    output_feature_dimension = property(lambda self: self.dimension_numbers.output_feature_dimension)
    output_spatial_dimensions = property(lambda self: self.dimension_numbers.output_spatial_dimensions)

    def verify_(self) -> None:
        check.verify_convolution(self)


@irdl_op_definition
class BatchNormInferenceOp(IRDLOperation):
    """`(x - mean) / sqrt(variance + epsilon) * scale + offset` along `feature_index`."""

    name = "stablehlo.batch_norm_inference"
    operand = operand_def()
    scale = operand_def()
    offset = operand_def()
    mean = operand_def()
    variance = operand_def()
    result = result_def()
    epsilon = prop_def(Attribute)
    feature_index_attr = prop_def(IntegerAttr, prop_name="feature_index")
    traits = traits_def(
        NoMemoryEffect(), ElementKinds(((RANKED, FP_Q), (ONE_D, FP_Q)), (RANKED, FP_Q)),
        dq_op_q())

    @property
    def feature_index(self) -> int:
        return int_value(self.feature_index_attr)

    def verify_(self) -> None:
        check.verify_batch_norm_inference(self)


# ---------------------------------------------------------------------------
# Region ops and terminators
# ---------------------------------------------------------------------------
@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`stablehlo.return %x : t`: terminator of stablehlo regions."""

    name = "stablehlo.return"
    results_ = var_operand_def()
    traits = traits_def(Pure(), IsTerminator(), ElementKinds(), type_only(fusable=False))

    def __init__(self, *values):
        super().__init__(operands=[list(values)])

    parse = classmethod(syntax.parse_return)
    print = syntax.print_return


@irdl_op_definition
class OptimizationBarrierOp(IRDLOperation):
    """`stablehlo.optimization_barrier %a, %b : t, u` (identity that blocks optimisation)."""

    name = "stablehlo.optimization_barrier"
    operand = var_operand_def()
    result = var_result_def()
    traits = traits_def(
        Pure(), ElementKinds(),
        type_only(fusable=False, upstream_generic=UpstreamGeneric.NEVER))

    parse = classmethod(syntax.parse_optimization_barrier)
    print = syntax.print_optimization_barrier

    def verify_(self) -> None:
        check.verify_optimization_barrier(self)


@irdl_op_definition
class CustomCallOp(IRDLOperation):
    """`stablehlo.custom_call @target(%a, %b) {...} : (t, u) -> v`."""

    name = "stablehlo.custom_call"
    traits = traits_def(ElementKinds(), NO_QUANTIZATION)
    inputs = var_operand_def()
    results_ = var_result_def()
    call_target_name_attr = prop_def(StringAttr, prop_name="call_target_name")
    has_side_effect = opt_prop_def(BoolAttr)
    backend_config = opt_prop_def(Attribute)
    api_version = opt_prop_def(IntegerAttr)
    called_computations = opt_prop_def(ArrayAttr)
    operand_layouts = opt_prop_def(ArrayAttr)
    result_layouts = opt_prop_def(ArrayAttr)
    output_operand_aliases = opt_prop_def(ArrayAttr)
    result_tilings = opt_prop_def(ArrayAttr)

    parse = classmethod(syntax.parse_custom_call)
    print = syntax.print_custom_call

    @property
    def call_target_name(self) -> str:
        return self.call_target_name_attr.data
