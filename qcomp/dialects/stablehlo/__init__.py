"""The `stablehlo` dialect: every op qcomp defines, one class each.

Modules: `elementwise` (unary/binary/clamp/select/compare ops), `ops` (constants, shape,
contraction and structural ops), `reduce` (reduce, reduce_window), `attrs` (attributes),
`syntax` / `syntax_nn` (custom assembly), `format` (shared assembly helpers), `kinds`
(operand/result element kinds), `verify` / `verify_nn` / `quant_verify` (verifiers).
"""

from xdsl.ir import Dialect

from qcomp.dialects.stablehlo.attrs import STABLEHLO_ATTRS
from qcomp.dialects.stablehlo.elementwise import *  # noqa: F403
from qcomp.dialects.stablehlo.elementwise import ELEMENTWISE_OPS
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

StableHLO = Dialect(
    "stablehlo",
    [
        ConstantOp, IotaOp, *ELEMENTWISE_OPS,
        BitcastConvertOp, ReshapeOp, TransposeOp, BroadcastInDimOp, ConcatenateOp, SliceOp,
        PadOp, GatherOp,
        DotOp, DotGeneralOp, ConvolutionOp, BatchNormInferenceOp,
        ReduceOp, ReduceWindowOp, ReturnOp, OptimizationBarrierOp, CustomCallOp,
    ],
    list(STABLEHLO_ATTRS),
)
