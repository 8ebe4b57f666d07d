"""The `stablehlo` dialect: every op qcomp defines, one class each.

Modules: `elementwise` (op families, unary ops), `binary` (binary ops, clamp, select,
compare), `ops` (constants, shape,
contraction and structural ops), `reduce` (reduce, reduce_window), `attrs` (attributes),
`control` (while, if, case, map, tuple, token, composite), `scatter` (scatter,
select_and_scatter), `sort`, `syntax` / `syntax_nn` (custom assembly), `format` (shared assembly helpers), `kinds`
(operand/result element kinds), `verify` / `verify_nn` / `quant_verify` (verifiers).
"""

from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation

from qcomp.dialects.stablehlo import binary, elementwise
from qcomp.dialects.stablehlo.attrs import STABLEHLO_ATTRS
from qcomp.dialects.stablehlo.binary import *  # noqa: F403
from qcomp.dialects.stablehlo.collectives import *  # noqa: F403
from qcomp.dialects.stablehlo.collectives import COLLECTIVE_OPS
from qcomp.dialects.stablehlo.complex import *  # noqa: F403
from qcomp.dialects.stablehlo.complex import COMPLEX_OPS
from qcomp.dialects.stablehlo.control import *  # noqa: F403
from qcomp.dialects.stablehlo.control import CONTROL_OPS, CONTROL_TYPES
from qcomp.dialects.stablehlo.dynamic import *  # noqa: F403
from qcomp.dialects.stablehlo.dynamic import DYNAMIC_OPS
from qcomp.dialects.stablehlo.elementwise import *  # noqa: F403
from qcomp.dialects.stablehlo.linalg import *  # noqa: F403
from qcomp.dialects.stablehlo.linalg import LINALG_OPS
from qcomp.dialects.stablehlo.op_attrs import OP_ATTRS
from qcomp.dialects.stablehlo.ops import *  # noqa: F403
from qcomp.dialects.stablehlo.ops import (
    BatchNormInferenceOp,
    BitcastConvertOp,
    BroadcastInDimOp,
    ConcatenateOp,
    ConstantOp,
    ConvolutionOp,
    CustomCallOp,
    DotGeneralOp,
    DotOp,
    GatherOp,
    IotaOp,
    OptimizationBarrierOp,
    PadOp,
    ReshapeOp,
    ReturnOp,
    SliceOp,
    TransposeOp,
)
from qcomp.dialects.stablehlo.reduce import ReduceOp, ReduceWindowOp
from qcomp.dialects.stablehlo.scatter import (
    ScatterDimensionNumbersAttr,
    ScatterOp,
    SelectAndScatterOp,
)
from qcomp.dialects.stablehlo.sort import SortOp

ELEMENTWISE_OPS = [
    cls for module in (elementwise, binary) for cls in vars(module).values()
    if isinstance(cls, type) and issubclass(cls, IRDLOperation) and cls.__module__ ==
    module.__name__ and hasattr(cls, "name") and isinstance(cls.name, str)]
"""The ops defined in `elementwise.py` and `binary.py`, in definition order."""

StableHLO = Dialect(
    "stablehlo",
    [
        ConstantOp, IotaOp, *ELEMENTWISE_OPS,
        BitcastConvertOp, ReshapeOp, TransposeOp, BroadcastInDimOp, ConcatenateOp, SliceOp,
        PadOp, GatherOp,
        DotOp, DotGeneralOp, ConvolutionOp, BatchNormInferenceOp,
        ReduceOp, ReduceWindowOp, ReturnOp, OptimizationBarrierOp, CustomCallOp,
        *CONTROL_OPS, ScatterOp, SelectAndScatterOp, SortOp,
        *DYNAMIC_OPS, *COMPLEX_OPS, *LINALG_OPS, *COLLECTIVE_OPS,
    ],
    [*STABLEHLO_ATTRS, *CONTROL_TYPES, ScatterDimensionNumbersAttr, *OP_ATTRS],
)
