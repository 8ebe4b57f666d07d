"""`rescale=fixed-point` lowerings that follow TFLite's int8 reference kernels
(tensorflow/lite/kernels/internal/reference/integer_ops), integer only at run time.

The kernels are declared with their operators (`qcomp.tflite`: each `Operator`'s
`kernels`, by the StableHLO op class it imports as or by its `tfl.*` composite name);
this module finds the one for an op. Every MBQM is `emit.mbqm_ir` (TFLite's
MultiplyByQuantizedMultiplier); other `tfl.*` composites, and every composite in the
other modes, call their decomposition. All integer except two, where LiteRT 2.3's
reference kernels are not: int8 SOFTMAX is a float table kernel
(`qcomp.quant.tflite.softmax_int8`), and FULLY_CONNECTED rescales its accumulator in
f64 (`qcomp.quant.tflite.fully_connected_rescale`); the importer marks that requantize.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.passes.quant_to_math.mode import RescaleMode
from qcomp.passes.utils.builder import Builder
from qcomp.tflite.contractions import FC_KERNEL
from qcomp.tflite.operators import kernel_for


def lower_composite(op: sh.CompositeOp, b: Builder, mode: RescaleMode, st) -> list[SSAValue]:
    """A TFLite kernel for a `tfl.*` composite under `fixed-point`; otherwise a call of
    the decomposition (lowered with the rest of the module)."""
    kernel = kernel_for(op.composite_name.data) if mode.integer_only else None
    if kernel is not None and (v := kernel(op, b, st)) is not None:
        return [v]
    call = func.CallOp(op.decomposition.string_value() if hasattr(op.decomposition,
                                                                   "string_value")
                       else op.decomposition.root_reference.data,
                       [st(v) for v in op.operands],
                       [mode.storage_type(r.type) for r in op.results])
    b.insert(call)
    return list(call.results)


def lower_fc_requantize(op: Operation, b: Builder, st) -> SSAValue | None:
    """A uniform_quantize the importer marked `tfl.kernel = "fully_connected"` as
    TFLite's FULLY_CONNECTED rescale (None: not marked, or not its types)."""
    kernel = kernel_for(sh.UniformQuantizeOp)
    return None if kernel is None else kernel(op, b, st)


def lower_tflite(op: Operation, b: Builder, st) -> SSAValue | None:
    """The TFLite kernel of `op` under `fixed-point`, or None for the generic lowering
    (also for dynamic shapes)."""
    if any(isinstance(v.type, TensorType) and any(d < 0 for d in v.type.get_shape())
           for v in (*op.operands, *op.results)):
        return None
    if isinstance(op, sh.UniformQuantizeOp):
        return None  # the requantize: `lower_fc_requantize`, from the quantize lowering
    kernel = kernel_for(type(op))
    return None if kernel is None else kernel(op, b, st)


__all__ = ["FC_KERNEL", "lower_composite", "lower_fc_requantize", "lower_tflite"]
