"""`stablehlo.sort`: sorts its inputs together along `dimension` by a comparator region
(generic form, as upstream prints it):

    %r:2 = "stablehlo.sort"(%keys, %values) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
      %lt = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    }) : (tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>)

The comparator takes two scalars per input (`lhs`, `rhs` of input 0, then of input 1,
...) and returns whether `lhs` goes first. Quantization (spec): per-tensor quantized
inputs are sorted as stored (the comparator sees the quantized scalars).
"""

from __future__ import annotations

from xdsl.dialects.builtin import BoolAttr, IntegerAttr
from xdsl.irdl import (
    IRDLOperation,
    opt_prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import RecursiveMemoryEffect

from qcomp.dialects.facts import UpstreamGeneric, type_only
from qcomp.dialects.stablehlo.format import int_value
from qcomp.dialects.stablehlo.kinds import TENSOR, ElementKinds
from qcomp.dialects.stablehlo.verify_regions import check_group_kinds, types_text, verify_sort
from qcomp.dialects.stablehlo.verify_shapes import fail, shape
from qcomp.ir.lazy_format import irdl_op_definition


@irdl_op_definition
class SortOp(IRDLOperation):
    """Sorts `inputs` along `dimension` (default -1) by `comparator`; `is_stable` keeps
    the order of elements the comparator does not tell apart."""

    name = "stablehlo.sort"
    inputs = var_operand_def()
    results_ = var_result_def()
    dimension_attr = opt_prop_def(IntegerAttr, prop_name="dimension")
    is_stable_attr = opt_prop_def(BoolAttr, prop_name="is_stable")
    comparator = region_def("single_block")
    traits = traits_def(RecursiveMemoryEffect(), ElementKinds.same(TENSOR, 1),
                        type_only(fusable=False, upstream_generic=UpstreamGeneric.NEVER))

    @property
    def dimension(self) -> int:
        return int_value(self.dimension_attr, -1)

    @property
    def is_stable(self) -> bool:
        return bool(self.is_stable_attr.value.data) if self.is_stable_attr is not None else False

    def verify_(self) -> None:
        check_group_kinds(self, [(self.inputs, True)], True)
        types = [v.type for v in self.inputs]
        if not types:
            fail("expected at least 1 operand")
        for t in types:
            if shape(t) != shape(types[0]):
                fail("requires the same shape for all operands and results")
        for v, r in zip(self.inputs, self.results):
            if v.type != r.type:
                fail(f"inferred type(s) {types_text(types)} are "
                     "incompatible with return type(s) of operation "
                     f"{types_text([v.type for v in self.results])}")
        if len(self.results) != len(types):
            fail("requires the same number of operands and results")
        verify_sort(types, self.dimension, self.comparator)
