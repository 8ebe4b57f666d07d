"""The `litert-verify-int8` pass."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from qcomp.dialects import stablehlo as sh
from qcomp.passes.litert.recognise import recognise
from qcomp.passes.litert.rules import Checker, Problem, check_unknown
from qcomp.passes.utils.diagnostics import PassDiagnostics


def _callee(op: sh.CompositeOp) -> str:
    d = op.decomposition
    return d.string_value() if hasattr(d, "string_value") else d.root_reference.data


def problems(module: ModuleOp) -> list[Problem]:
    """Every violation of the LiteRT int8 spec in `module`, in program order."""
    checker = Checker()
    found: list[Problem] = []
    # a composite is its TFLite operator; its decomposition is its kernel's business
    kernels = {_callee(op) for op in module.walk() if isinstance(op, sh.CompositeOp)}
    for f in module.walk():
        if not isinstance(f, func.FuncOp) or not f.body.blocks or f.sym_name.data in kernels:
            continue
        for block in f.body.blocks:
            matches, unknown = recognise(list(block.ops))
            for m in matches:
                checker.check(m)
            found.extend(check_unknown(op) for op in unknown)
    found.extend(checker.problems)
    order = {op: i for i, op in enumerate(module.walk())}
    return sorted(found, key=lambda p: order.get(p[0], 0))


@dataclass(frozen=True)
class LitertVerifyInt8Pass(ModulePass):
    """Check a quantized program against the LiteRT 8-bit quantization spec.

    Each quantized op of a function body is recognised as a TFLite operator of the
    spec's table (`qcomp/passes/litert/op_table.py`; e.g. FULLY_CONNECTED is
    `dot_general` -> i32 accumulator -> `add` of the bias -> `uniform_quantize`,
    LOGISTIC is `stablehlo.logistic`, SOFTMAX is `divide(exponential(x),
    broadcast(reduce_add(exponential(x))))`, any `stablehlo.composite "tfl.<op>"` is
    that op) and checked against the spec's rules, every violation an error at its op
    naming the operator, the part and the rule (`[weight-zero-point]`):

    - activations: i8, per-tensor, storage range [-128, 127], zero point in
      [-128, 127]; in 16x8 mode (the op's activations are i16, for the ops TFLite runs
      so) i16 with zero point 0;
    - weights of FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D: i8, zero point 0,
      stored values in [-127, 127], per-tensor or per-axis on the output channel
      (dot_general: the rhs dimension that is neither contracting nor batching;
      convolution: kernel_output_feature_dimension, which for a depthwise kernel
      [H, W, 1, C*M] is TFLite's dimension 3);
    - bias (and an i32 accumulator): i32 (i64 too in 16x8 mode), zero point 0,
      scale[c] = input scale * weight scale[c] (relative tolerance 1e-6);
    - fixed outputs: LOGISTIC and SOFTMAX (1/256, -128), TANH and L2_NORMALIZATION
      (1/128, 0), LOG_SOFTMAX (16/256, 127); in 16x8 mode (1/32768, 0);
    - equal (scale, zero point) in and out: pooling, CONCATENATION, RESHAPE,
      SQUEEZE, PAD, SLICE, TRANSPOSE, GATHER, MAXIMUM, MINIMUM, broadcast_in_dim
      and clamp (a fused activation);
    - a quantized op that is no operator of the table is an error too.

    A composite's decomposition function is not checked: the composite is the operator
    (its decomposition may dequantize an i32 bias, which no int8 op does).

    The program is left unchanged; the pass fails when it reported anything.
    """

    name = "litert-verify-int8"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        found = problems(op)
        if found:
            raise PassDiagnostics(found)
