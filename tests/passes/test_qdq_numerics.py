"""The QDQ passes keep the program's values under the spec's semantics: each fusion
and each decomposition in the lit tests runs before and after the pass in qcomp's
interpreter on drawn inputs, with bit-exact quantized results.

Scales in these tests are powers of two, so float dot products of dequantized values
are exact and the fused (integer-accumulating) and QDQ forms must agree exactly."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.dialects.quant import quantized_element
from qcomp.passes.stablehlo_legalize_qdq_to_quantized_op import StablehloLegalizeQDQToQuantizedOpPass
from qcomp.passes.stablehlo_legalize_quantized_op_to_qdq import StablehloLegalizeQuantizedOpToQDQPass
from tests.passes.numerics import draw, functions_with_bodies, run_function, same
from tests.passes.pass_helpers import case_id, lit_cases, parse, run_pass

# ops qcomp's interpreter has no implementation of (generic-form ops of other dialects)
_UNRUNNABLE = ('"stablehlo.cholesky"', '"stablehlo.batch_norm_training"', "custom_call", '"stablehlo.reduce"')


def _runnable(pass_name: str, file: str) -> list[str]:
    return [c for c in lit_cases(pass_name, file)
            if functions_with_bodies(parse(c)) and not any(u in c for u in _UNRUNNABLE)]


def _check_same(case: str, p, seeds=range(4)):
    before = parse(case)
    after = run_pass(p, case)
    for f in functions_with_bodies(before):
        name = f.sym_name.data
        like = next((quantized_element(t) for t in f.function_type.outputs.data
                     if quantized_element(t) is not None), None)
        for seed in seeds:
            rng = np.random.default_rng(seed)
            args = [draw(t, rng, like) for t in f.function_type.inputs.data]
            want = run_function(before, name, args)
            got = run_function(after, name, args)
            assert len(want) == len(got)
            for w, o in zip(want, got):
                assert same(w, o), (name, seed, args, w, o)


@pytest.mark.parametrize("case", _runnable("stablehlo-legalize-qdq-to-quantized-op", "fuse.mlir"),
                         ids=case_id)
def test_fusion_keeps_values(case: str):
    _check_same(case, StablehloLegalizeQDQToQuantizedOpPass())


@pytest.mark.parametrize("case", _runnable("stablehlo-legalize-quantized-op-to-qdq", "decompose.mlir"),
                         ids=case_id)
def test_decomposition_keeps_values(case: str):
    _check_same(case, StablehloLegalizeQuantizedOpToQDQPass())


def test_round_trip_decompose_then_fuse():
    """quantized op -> QDQ -> fused again gives back the quantized op, same values."""
    src = """
    func.func @f(%a: tensor<3x4x!quant.uniform<i8:f32, 0.5:-2>>, %b: tensor<3x4x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<3x4x!quant.uniform<i8:f32, 1.0:5>> {
      %0 = stablehlo.subtract %a, %b : (tensor<3x4x!quant.uniform<i8:f32, 0.5:-2>>, tensor<3x4x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<3x4x!quant.uniform<i8:f32, 1.0:5>>
      return %0 : tensor<3x4x!quant.uniform<i8:f32, 1.0:5>>
    }"""
    from tests.passes.pass_helpers import text

    decomposed = run_pass(StablehloLegalizeQuantizedOpToQDQPass(), src)
    assert "uniform_dequantize" in text(decomposed)
    fused = run_pass(StablehloLegalizeQDQToQuantizedOpPass(), text(decomposed))
    assert text(fused) == text(parse(src))
    _check_same(src, StablehloLegalizeQuantizedOpToQDQPass())
