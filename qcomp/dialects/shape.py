"""The ops of MLIR's `shape` dialect that `lower-quant-ops` emits for unranked tensors
(as upstream's LowerQuantOps.cpp does), with MLIR's text:

    %0 = shape.shape_of %arg0 : tensor<*xf32> -> tensor<?xindex>
    %1 = shape.num_elements %0 : tensor<?xindex> -> index
    %head, %tail = "shape.split_at"(%0, %c1) : (tensor<?xindex>, index) -> (tensor<?xindex>, tensor<?xindex>)

Shapes are extent tensors (`tensor<?xindex>`); MLIR's `!shape.shape` values are not
supported. `shape.split_at` has no custom form upstream, so it prints generically.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType, UnrankedTensorType
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.facts import NO_QUANTIZATION


def is_extent_tensor(t: Attribute, size: int | None = None) -> bool:
    """`tensor<?xindex>` (or `tensor<Nxindex>`, N = `size` when given)."""
    return (isinstance(t, TensorType) and isinstance(t.element_type, IndexType)
            and len(t.get_shape()) == 1 and (size is None or t.get_shape()[0] < 0
                                                      or t.get_shape()[0] == size))


def _require_extent_tensor(what: str, t: Attribute) -> None:
    if not is_extent_tensor(t):
        raise VerifyException(f"{what} must be an extent tensor (tensor<?xindex>), got {t}")


@irdl_op_definition
class ShapeOfOp(IRDLOperation):
    """`shape.shape_of`: the extents of a tensor, ranked or not."""

    name = "shape.shape_of"
    arg = operand_def(TensorType | UnrankedTensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION)
    assembly_format = "$arg attr-dict `:` type($arg) `->` type($result)"

    def __init__(self, arg):
        super().__init__(operands=[arg], result_types=[TensorType(IndexType(), [DYNAMIC_INDEX])])

    def verify_(self) -> None:
        t = self.arg.type
        rank = len(t.get_shape()) if isinstance(t, TensorType) else None
        if not is_extent_tensor(self.result.type, rank):
            raise VerifyException(
                f"result must be an extent tensor of the operand's rank, got "
                f"{self.result.type}")


@irdl_op_definition
class NumElementsOp(IRDLOperation):
    """`shape.num_elements`: the product of the extents."""

    name = "shape.num_elements"
    shape = operand_def(TensorType)
    result = result_def(IndexType)
    traits = traits_def(Pure(), NO_QUANTIZATION)
    assembly_format = "$shape attr-dict `:` type($shape) `->` type($result)"

    def __init__(self, shape):
        super().__init__(operands=[shape], result_types=[IndexType()])

    def verify_(self) -> None:
        _require_extent_tensor("operand", self.shape.type)


@irdl_op_definition
class SplitAtOp(IRDLOperation):
    """`shape.split_at`: the extents before `index` (`head`) and from it on (`tail`)."""

    name = "shape.split_at"
    operand = operand_def(TensorType)
    index = operand_def(IndexType)
    head = result_def(TensorType)
    tail = result_def(TensorType)
    traits = traits_def(Pure(), NO_QUANTIZATION)

    def __init__(self, operand, index):
        extents = TensorType(IndexType(), [DYNAMIC_INDEX])
        super().__init__(operands=[operand, index], result_types=[extents, extents])

    def asm_result_names(self) -> list[str]:
        return ["head", "tail"]

    def verify_(self) -> None:
        for what, t in (("operand", self.operand.type), ("head", self.head.type),
                        ("tail", self.tail.type)):
            _require_extent_tensor(what, t)


Shape = Dialect("shape", [ShapeOfOp, NumElementsOp, SplitAtOp], [])
