"""StableHLO's dynamic-shape ops: shapes, sizes and starts given as tensor operands.

    %r = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [1] : (t, tensor<2xi64>) -> u
    %r = stablehlo.dynamic_iota %shape, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
    %r = stablehlo.dynamic_reshape %x, %shape : (t, tensor<2xi64>) -> u
    %r = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (t, tensor<i64>, tensor<i64>) -> u
    %r = stablehlo.dynamic_update_slice %x, %upd, %i, %j : (t, u, tensor<i64>, tensor<i64>) -> t
    %r = stablehlo.real_dynamic_slice %x, %start, %limit, %strides : (...) -> u
    %r = stablehlo.dynamic_pad %x, %v, %low, %high, %interior : (...) -> u
    %r = stablehlo.get_dimension_size %x, dim = 0 : (t) -> tensor<i32>
    "stablehlo.dynamic_gather" / "stablehlo.dynamic_conv" in the generic form

Quantization facts follow the spec: the ops that move elements are type-only.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, BoolAttr, DenseArrayBase, IntegerAttr
from xdsl.irdl import (
    IRDLOperation,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.irdl.operations import ParsePropInAttrDict
from xdsl.traits import NoMemoryEffect, Pure

from qcomp.dialects.facts import NO_QUANTIZATION, UpstreamGeneric, own_lowering, type_only
from qcomp.dialects.stablehlo import verify_dynamic as check
from qcomp.dialects.stablehlo.assembly import FIELD_DIRECTIVES, FUNCTIONAL, FUNCTIONAL_TAIL
from qcomp.dialects.stablehlo.attrs import (
    ConvDimensionNumbersAttr,
    GatherDimensionNumbersAttr,
    PrecisionAttr,
)
from qcomp.dialects.stablehlo.format import array_values, int_value
from qcomp.dialects.stablehlo.kinds import (
    INT,
    ONE_D,
    RANKED,
    TENSOR,
    TENSOR_PA,
    ZERO_D,
    ElementKinds,
)
from qcomp.ir.lazy_format import irdl_op_definition

NOT_GENERIC = UpstreamGeneric.NEVER
"""Not in upstream quant-to-math's ConvertGenericOp list."""

SHAPE = (ONE_D, INT)
"""HLO_StaticDimensionTensor: a 1-D tensor of integers."""


@irdl_op_definition
class DynamicBroadcastInDimOp(IRDLOperation):
    """broadcast_in_dim to the shape `output_dimensions` holds."""

    name = "stablehlo.dynamic_broadcast_in_dim"
    assembly_format = ("$operand `,` $output_dimensions `,` `dims` `=` "
                       "custom<I64List>($broadcast_dimensions) " + FUNCTIONAL_TAIL)
    custom_directives = FIELD_DIRECTIVES
    irdl_options = (ParsePropInAttrDict(),)
    operand = operand_def()
    output_dimensions = operand_def()
    result = result_def()
    broadcast_dimensions_attr = prop_def(DenseArrayBase, prop_name="broadcast_dimensions")
    known_expanding_dimensions = opt_prop_def(DenseArrayBase)
    known_nonexpanding_dimensions = opt_prop_def(DenseArrayBase)
    traits = traits_def(
        NoMemoryEffect(), ElementKinds(((RANKED, TENSOR_PA), SHAPE), (RANKED, TENSOR_PA)),
        type_only(per_axis=True))

    @property
    def broadcast_dimensions(self) -> tuple[int, ...]:
        return array_values(self.broadcast_dimensions_attr) or ()

    def verify_(self) -> None:
        check.verify_dynamic_broadcast_in_dim(self)


@irdl_op_definition
class DynamicIotaOp(IRDLOperation):
    """iota of the shape `output_shape` holds."""

    name = "stablehlo.dynamic_iota"
    assembly_format = "$output_shape `,` `dim` `=` custom<I64>($iota_dimension) " + FUNCTIONAL_TAIL
    custom_directives = FIELD_DIRECTIVES
    output_shape = operand_def()
    result = result_def()
    iota_dimension_attr = prop_def(IntegerAttr, prop_name="iota_dimension")
    traits = traits_def(NoMemoryEffect(), ElementKinds((SHAPE,), (RANKED, TENSOR)),
                        NO_QUANTIZATION)

    @property
    def iota_dimension(self) -> int:
        return int_value(self.iota_dimension_attr)

    def verify_(self) -> None:
        check.verify_dynamic_iota(self)


class _FunctionalOp(IRDLOperation):
    assembly_format = FUNCTIONAL
    irdl_options = (ParsePropInAttrDict(),)


@irdl_op_definition
class DynamicReshapeOp(_FunctionalOp):
    """reshape to the shape `output_shape` holds."""

    name = "stablehlo.dynamic_reshape"
    operand = operand_def()
    output_shape = operand_def()
    result = result_def()
    traits = traits_def(
        NoMemoryEffect(), ElementKinds(((RANKED, TENSOR_PA), SHAPE), (RANKED, TENSOR_PA)),
        type_only(per_axis=True))

    def verify_(self) -> None:
        check.verify_dynamic_reshape(self)


@irdl_op_definition
class RealDynamicSliceOp(_FunctionalOp):
    """`operand[start:limit:stride]` per dimension, all three as 1-D tensors."""

    name = "stablehlo.real_dynamic_slice"
    operand = operand_def()
    start_indices = operand_def()
    limit_indices = operand_def()
    strides = operand_def()
    result = result_def()
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds(((RANKED, TENSOR), SHAPE, SHAPE, SHAPE), (RANKED, TENSOR)), type_only(upstream_generic=NOT_GENERIC))

    def verify_(self) -> None:
        check.verify_real_dynamic_slice(self)


@irdl_op_definition
class DynamicPadOp(_FunctionalOp):
    """pad with low/high/interior amounts as 1-D tensors."""

    name = "stablehlo.dynamic_pad"
    operand = operand_def()
    padding_value = operand_def()
    edge_padding_low = operand_def()
    edge_padding_high = operand_def()
    interior_padding = operand_def()
    result = result_def()
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds(((RANKED, TENSOR), (ZERO_D, TENSOR), SHAPE, SHAPE, SHAPE),
                     (RANKED, TENSOR)), type_only(upstream_generic=NOT_GENERIC))

    def verify_(self) -> None:
        check.verify_dynamic_pad(self)


@irdl_op_definition
class DynamicSliceOp(IRDLOperation):
    """`operand[start_i : start_i + size_i]`, each start clamped into the operand."""

    name = "stablehlo.dynamic_slice"
    assembly_format = ("$operand `,` custom<VariadicOperandWithAttribute>($start_indices) "
                       "`sizes` `=` custom<I64List>($slice_sizes) " + FUNCTIONAL_TAIL)
    custom_directives = FIELD_DIRECTIVES
    operand = operand_def()
    start_indices = var_operand_def()
    result = result_def()
    slice_sizes_attr = prop_def(DenseArrayBase, prop_name="slice_sizes")
    traits = traits_def(Pure(), ElementKinds(((RANKED, TENSOR), (ZERO_D, INT)),
                                             (RANKED, TENSOR)), type_only())

    @property
    def slice_sizes(self) -> tuple[int, ...]:
        return array_values(self.slice_sizes_attr) or ()

    def verify_(self) -> None:
        check.verify_dynamic_slice(self)


@irdl_op_definition
class DynamicUpdateSliceOp(_FunctionalOp):
    """`operand` with `update` written at the (clamped) start indices."""

    name = "stablehlo.dynamic_update_slice"
    operand = operand_def()
    update = operand_def()
    start_indices = var_operand_def()
    result = result_def()
    traits = traits_def(
        Pure(),
        ElementKinds(((RANKED, TENSOR), (RANKED, TENSOR), (ZERO_D, INT)), (RANKED, TENSOR)),
        type_only(upstream_generic=NOT_GENERIC))

    def verify_(self) -> None:
        check.verify_dynamic_update_slice(self)


@irdl_op_definition
class GetDimensionSizeOp(IRDLOperation):
    """The size of dimension `dimension` of `operand`, as `tensor<i32>`."""

    name = "stablehlo.get_dimension_size"
    assembly_format = "$operand `,` `dim` `=` custom<I64>($dimension) " + FUNCTIONAL_TAIL
    custom_directives = FIELD_DIRECTIVES
    operand = operand_def()
    result = result_def()
    dimension_attr = prop_def(IntegerAttr, prop_name="dimension")
    traits = traits_def(Pure(), ElementKinds(((RANKED, TENSOR_PA),)), type_only(fusable=False))

    @property
    def dimension(self) -> int:
        return int_value(self.dimension_attr)

    def verify_(self) -> None:
        check.verify_get_dimension_size(self)


@irdl_op_definition
class DynamicGatherOp(IRDLOperation):
    """gather with `slice_sizes` as a 1-D tensor operand (generic form)."""

    name = "stablehlo.dynamic_gather"
    operand = operand_def()
    start_indices = operand_def()
    slice_sizes = operand_def()
    result = result_def()
    dimension_numbers = prop_def(GatherDimensionNumbersAttr)
    indices_are_sorted_attr = opt_prop_def(BoolAttr, prop_name="indices_are_sorted")
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds(((RANKED, TENSOR), (RANKED, INT), SHAPE), (RANKED, TENSOR)), type_only(upstream_generic=NOT_GENERIC))

    def verify_(self) -> None:
        check.verify_dynamic_gather(self)


@irdl_op_definition
class DynamicConvOp(IRDLOperation):
    """convolution with `padding` as a `tensor<Nx2xi64>` operand (generic form)."""

    name = "stablehlo.dynamic_conv"
    lhs = operand_def()
    rhs = operand_def()
    d_padding = operand_def()
    result = result_def()
    window_strides_attr = opt_prop_def(DenseArrayBase, prop_name="window_strides")
    lhs_dilation_attr = opt_prop_def(DenseArrayBase, prop_name="lhs_dilation")
    rhs_dilation_attr = opt_prop_def(DenseArrayBase, prop_name="rhs_dilation")
    window_reversal_attr = opt_prop_def(DenseArrayBase, prop_name="window_reversal")
    dimension_numbers = prop_def(ConvDimensionNumbersAttr)
    feature_group_count_attr = prop_def(IntegerAttr, prop_name="feature_group_count")
    batch_group_count_attr = prop_def(IntegerAttr, prop_name="batch_group_count")
    precision_config = opt_prop_def(ArrayAttr[PrecisionAttr])
    traits = traits_def(
        NoMemoryEffect(),
        ElementKinds(((RANKED, TENSOR), (RANKED, TENSOR), (RANKED, INT)),
                     (RANKED, TENSOR)),
        own_lowering(per_axis=True))

    def verify_(self) -> None:
        check.verify_dynamic_conv(self)


DYNAMIC_OPS = [DynamicBroadcastInDimOp, DynamicIotaOp, DynamicReshapeOp, RealDynamicSliceOp,
               DynamicPadOp, DynamicSliceOp, DynamicUpdateSliceOp, GetDimensionSizeOp,
               DynamicGatherOp, DynamicConvOp]
