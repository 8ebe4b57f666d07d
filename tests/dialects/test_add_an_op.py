"""docs/design.md's recipe for adding an op, followed in this file alone: a throwaway
elementwise op, defined here and loaded into a context, is parsed, verified, fused from
QDQ form, decomposed back, lowered to integer math in every rescale mode and run, with
nothing else in qcomp edited."""

from __future__ import annotations

import numpy as np
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import NoMemoryEffect

from qcomp.dialects.facts import Elementwise, dq_op_q
from qcomp.dialects.stablehlo.elementwise import UnaryElementwiseOp
from qcomp.dialects.stablehlo.kinds import FP_Q, ElementKinds
from qcomp.interpreter import run
from qcomp.passes.stablehlo_legalize_qdq_to_quantized_op import (
    StablehloLegalizeQDQToQuantizedOpPass,
)
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
from qcomp.passes.stablehlo_legalize_quantized_op_to_qdq import (
    StablehloLegalizeQuantizedOpToQDQPass,
)
from qcomp.registry import make_context, parse_module


@irdl_op_definition
class HalveOp(UnaryElementwiseOp):
    """`x / 2`, a throwaway op for this test."""

    name = "stablehlo.test_halve"
    traits = traits_def(NoMemoryEffect(), ElementKinds.unary(FP_Q, FP_Q), dq_op_q(),
                        Elementwise(float=lambda x: x / 2))


Q = "!quant.uniform<i8:f32, 5.000000e-01:1>"
QDQ = f"""func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x{Q}>
  %d = stablehlo.uniform_dequantize %q : (tensor<4x{Q}>) -> tensor<4xf32>
  %h = stablehlo.test_halve %d : tensor<4xf32>
  %r = stablehlo.uniform_quantize %h : (tensor<4xf32>) -> tensor<4x{Q}>
  %o = stablehlo.uniform_dequantize %r : (tensor<4x{Q}>) -> tensor<4xf32>
  func.return %o : tensor<4xf32>
}}
"""
X = np.array([-3.0, 0.75, 2.5, 9.0], np.float32)
# q = round_even(x / 0.5 + 1) = [-5, 2 (2.5 -> 2), 6, 19], real (q - 1) * 0.5 =
# [-3, 0.5, 2.5, 9]; halved [-1.5, 0.25, 1.25, 4.5] -> q = [-2, 2 (1.5 -> 2), 4 (3.5 -> 4), 10]
EXPECTED = np.array([-1.5, 0.5, 1.5, 4.5], np.float32)


def _ctx():
    ctx = make_context()
    ctx.load_registered_dialect("stablehlo")
    ctx.load_op(HalveOp)
    return ctx


def _names(module) -> list[str]:
    return [op.name for op in module.walk()][1:]


def test_parsed_verified_and_run():
    ctx = _ctx()
    module = parse_module(QDQ, ctx)
    module.verify()
    (result,) = run(module, [X])
    np.testing.assert_array_equal(result.results[0], EXPECTED)


def test_verifier_uses_the_declared_kinds():
    ctx = _ctx()
    bad = QDQ.replace("%h = stablehlo.test_halve %d : tensor<4xf32>",
                      "%i = stablehlo.convert %d : (tensor<4xf32>) -> tensor<4xi32>\n"
                      "  %h0 = stablehlo.test_halve %i : tensor<4xi32>\n"
                      "  %h = stablehlo.convert %h0 : (tensor<4xi32>) -> tensor<4xf32>")
    module = parse_module(bad, ctx)
    try:
        module.verify()
    except Exception as e:  # noqa: BLE001 - xDSL wraps the VerifyException
        assert "operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor " \
               "integer quantized values, but got 'tensor<4xi32>'" in str(e)
    else:
        raise AssertionError("the declared kinds were not checked")


def test_fused_decomposed_lowered_and_run():
    ctx = _ctx()
    module = parse_module(QDQ, ctx)
    StablehloLegalizeQDQToQuantizedOpPass().apply(ctx, module)
    fused = [op for op in module.walk() if isinstance(op, HalveOp)]
    assert len(fused) == 1 and "quant.uniform" in str(fused[0].operands[0].type)
    np.testing.assert_array_equal(run(module, [X])[0].results[0], EXPECTED)

    decomposed = module.clone()
    StablehloLegalizeQuantizedOpToQDQPass().apply(ctx, decomposed)
    halves = [op for op in decomposed.walk() if isinstance(op, HalveOp)]
    assert len(halves) == 1 and str(halves[0].operands[0].type) == "tensor<4xf32>"
    np.testing.assert_array_equal(run(decomposed, [X])[0].results[0], EXPECTED)

    for mode in ("float", "fixed-point", "stablehlo"):
        lowered = module.clone()
        LegalizeQuantToMathPass(rescale=mode).apply(ctx, lowered)
        lowered.verify()
        assert not any("quant.uniform" in str(r.type) for op in lowered.walk()
                       for r in op.results), mode
        np.testing.assert_array_equal(run(lowered, [X])[0].results[0], EXPECTED, err_msg=mode)
