"""The LiteRT 8-bit quantization spec's operators qcomp's importer does not take yet
(their `litert-verify-int8` rule only: no `build`), and the StableHLO glue a TFLite
graph hides (implicit broadcasting, fused activations; `spec=False`)."""

from __future__ import annotations

from qcomp.dialects import stablehlo as sh
from qcomp.tflite.elementwise import lower_clamp
from qcomp.tflite.operator import Operator, declare

_SAME = {"output": "same", "int16": True}

declare(Operator(
    "LOG_SOFTMAX", (sh.SubtractOp,), ("LogSoftmax",), output="fixed",
    fixed=(16.0 / 256.0, 127),
    how="subtract(x, broadcast(log(reduce_add(exponential(x)))))"))
# not in the spec's table: the StableHLO forms of what a TFLite graph does implicitly
declare(Operator(
    "BROADCAST (implicit)", (sh.BroadcastInDimOp,), ("Expand",), **_SAME, spec=False,
    how="broadcast_in_dim: TFLite's binary ops broadcast implicitly; moves data"))
declare(Operator(
    "FUSED_ACTIVATION", (sh.ClampOp,), ("Clip", "Relu"), **_SAME, spec=False,
    how="clamp (RELU, RELU6, RELU_N1_TO_1 fused into the op before): bounds and "
        "result in the operand's parameters", kernels={sh.ClampOp: lower_clamp}))
