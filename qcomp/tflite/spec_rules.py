"""The LiteRT 8-bit quantization spec's operators qcomp's importer does not take yet
(their `litert-verify-int8` rule only: no `build`), and the StableHLO glue a TFLite
graph hides (implicit broadcasting, fused activations; `spec=False`)."""

from __future__ import annotations

from qcomp.dialects import stablehlo as sh
from qcomp.tflite.elementwise import lower_clamp
from qcomp.tflite.operator import Operator, declare

_SAME = {"output": "same", "int16": True}
_NONE = {"output": "none", "int16": True}

declare(Operator(
    "L2_NORMALIZATION", (sh.DivideOp, sh.MultiplyOp), ("LpNormalization",),
    output="fixed", fixed=(1.0 / 128.0, 0),
    how="divide(x, sqrt(reduce_add(x*x))) or multiply(x, rsqrt(reduce_add(x*x))), "
        "broadcasts between"))
declare(Operator(
    "SPACE_TO_DEPTH", (), ("SpaceToDepth",), output="same",
    how="composite \"tfl.space_to_depth\"; as reshape/transpose chains each op is "
        "checked as RESHAPE / TRANSPOSE, with the same rule"))
declare(Operator(
    "BATCH_TO_SPACE_ND", (), (), output="same",
    how="composite \"tfl.batch_to_space_nd\"; as reshape/transpose/slice chains each "
        "op is checked with the same rule"))
declare(Operator(
    "SPACE_TO_BATCH_ND", (), (), output="same",
    how="composite \"tfl.space_to_batch_nd\"; as pad/reshape/transpose chains each "
        "op is checked with the same rule"))
declare(Operator(
    "LOG_SOFTMAX", (sh.SubtractOp,), ("LogSoftmax",), output="fixed",
    fixed=(16.0 / 256.0, 127),
    how="subtract(x, broadcast(log(reduce_add(exponential(x)))))"))
declare(Operator("PADV2", (sh.PadOp,), ("Pad",), **_SAME,
                 how="pad: the same rule as PAD, reported as PAD"))
# not in the spec's table: the StableHLO forms of what a TFLite graph does implicitly
declare(Operator(
    "BROADCAST (implicit)", (sh.BroadcastInDimOp,), ("Expand",), **_SAME, spec=False,
    how="broadcast_in_dim: TFLite's binary ops broadcast implicitly; moves data"))
declare(Operator(
    "FUSED_ACTIVATION", (sh.ClampOp,), ("Clip", "Relu"), **_SAME, spec=False,
    how="clamp (RELU, RELU6, RELU_N1_TO_1 fused into the op before): bounds and "
        "result in the operand's parameters", kernels={sh.ClampOp: lower_clamp}))
