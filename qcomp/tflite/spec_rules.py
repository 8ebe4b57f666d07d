"""The `litert-verify-int8` rows of the StableHLO glue a TFLite graph hides (implicit
broadcasting, fused activations; `spec=False`): no TFLite operator of their own. (Every
operator of the LiteRT 8-bit spec's table is imported: LOG_SOFTMAX, the last, is in
`qcomp.tflite.log_softmax`.)"""

from __future__ import annotations

from qcomp.dialects import stablehlo as sh
from qcomp.tflite.elementwise import lower_clamp
from qcomp.tflite.operator import Operator, declare

_SAME = {"output": "same", "int16": True}

# not in the spec's table: the StableHLO forms of what a TFLite graph does implicitly
declare(Operator(
    "BROADCAST (implicit)", (sh.BroadcastInDimOp,), ("Expand",), **_SAME, spec=False,
    how="broadcast_in_dim: TFLite's binary ops broadcast implicitly; moves data"))
declare(Operator(
    "FUSED_ACTIVATION", (sh.ClampOp,), ("Clip", "Relu"), **_SAME, spec=False,
    how="clamp (RELU, RELU6, RELU_N1_TO_1 fused into the op before): bounds and "
        "result in the operand's parameters", kernels={sh.ClampOp: lower_clamp}))
