"""The MLIR quant passes compute what the program computed before them: every function
of each lit test runs before and after the pass on drawn inputs, with bit-exact results."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType

from qcomp.dialects.quant import quantized_element
from qcomp.passes.lower_quant_ops import LowerQuantOpsPass
from qcomp.passes.normalize_quant_types import NormalizeQuantTypesPass
from qcomp.passes.strip_func_quant_types import StripFuncQuantTypesPass
from tests.passes.numerics import draw, functions_with_bodies, run_function, same
from tests.passes.pass_helpers import case_id, lit_cases, parse, run_pass


def _tensor_cases(pass_name: str, file: str) -> list[str]:
    """Cases whose functions take and return tensors only (what the interpreter runs)."""
    out = []
    for case in lit_cases(pass_name, file):
        fs = functions_with_bodies(parse(case))
        if '"test.' in case:
            continue
        if fs and all(isinstance(t, TensorType) for f in fs
                      for t in (*f.function_type.inputs.data, *f.function_type.outputs.data)):
            out.append(case)
    return out


def _check_same(case: str, p, seeds=range(3)):
    before = parse(case)
    after = run_pass(p, case)
    for f in functions_with_bodies(before):
        name = f.sym_name.data
        # the quantized type the floats are quantized to, for drawing ties and saturation
        like = next((quantized_element(t) for t in f.function_type.outputs.data
                     if quantized_element(t) is not None), None)
        g = next(x for x in functions_with_bodies(after) if x.sym_name.data == name)
        for seed in seeds:
            rng = np.random.default_rng(seed)
            args = [draw(t, rng, like) for t in f.function_type.inputs.data]
            want = run_function(before, name, args)
            got = run_function(after, name, args)
            for w, o in zip(want, got):
                assert same(w, o), (name, seed, args, w, o)


LOWER = [c for f in ("per-tensor.mlir", "per-axis.mlir", "sub-channel.mlir")
         for c in _tensor_cases("lower-quant-ops", f)]


@pytest.mark.parametrize("case", LOWER, ids=case_id)
def test_lower_quant_ops_matches_spec(case: str):
    _check_same(case, LowerQuantOpsPass())


NORMALIZE = """
func.func @per_tensor(%q: tensor<2x4x!quant.uniform<i8:f32:{0:2, 1:4}, {{0.5:3}}>>) -> tensor<2x4xf32> {
  %0 = quant.dcast %q : tensor<2x4x!quant.uniform<i8:f32:{0:2, 1:4}, {{0.5:3}}>> to tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
func.func @per_axis(%x: tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i8<-100:100>:f32:{0:1, 1:4}, {{2.0:12}, {0.25:-1}}>> {
  %0 = quant.qcast %x : tensor<2x4xf32> to tensor<2x4x!quant.uniform<i8<-100:100>:f32:{0:1, 1:4}, {{2.0:12}, {0.25:-1}}>>
  return %0 : tensor<2x4x!quant.uniform<i8<-100:100>:f32:{0:1, 1:4}, {{2.0:12}, {0.25:-1}}>>
}
"""


def test_normalize_keeps_values():
    after = run_pass(NormalizeQuantTypesPass(), NORMALIZE)
    assert "{0:" not in str(after)  # both types were normalized
    _check_same(NORMALIZE, NormalizeQuantTypesPass(), seeds=range(5))


def test_lower_quant_ops_exact_values():
    """Hand-computed: scale 0.5, zero point -3, i8. x / 0.5 - 3 for x = 0.25 is -2.5 ->
    -2 (ties to even; upstream's fptosi truncation also gives -2), 0.75 -> -1.5 -> -2
    (upstream: -1), 100 -> 197 -> 127 (clamped), -100 -> -203 -> -128, NaN -> 0."""
    src = """
    func.func @q(%x: tensor<6xf32>) -> tensor<6x!quant.uniform<i8:f32, 0.5:-3>> {
      %0 = quant.qcast %x : tensor<6xf32> to tensor<6x!quant.uniform<i8:f32, 0.5:-3>>
      return %0 : tensor<6x!quant.uniform<i8:f32, 0.5:-3>>
    }"""
    x = np.array([0.25, 0.75, 100.0, -100.0, np.nan, 1.25], dtype=np.float32)
    out = run_function(run_pass(LowerQuantOpsPass(), src), "q", [x])[0]
    assert out.dtype == np.int8
    assert out.tolist() == [-2, -2, 127, -128, 0, 0]


def test_lower_quant_ops_dequantize_i32_exact():
    """i32 storage: q - zero_point computed in i64, so 2^31 - 1 - (-7) does not wrap."""
    src = """
    func.func @d(%q: tensor<2x!quant.uniform<i32:f64, 1.0:-7>>) -> tensor<2xf64> {
      %0 = quant.dcast %q : tensor<2x!quant.uniform<i32:f64, 1.0:-7>> to tensor<2xf64>
      return %0 : tensor<2xf64>
    }"""
    q = np.array([2**31 - 1, -2**31], dtype=np.int32)
    out = run_function(run_pass(LowerQuantOpsPass(), src), "d", [q])[0]
    assert out.tolist() == [2**31 + 6, -2**31 + 7]


def test_strip_keeps_values():
    src = """
    func.func @f(%a: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:3>> {
      %0 = "stablehlo.abs"(%a) : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:3>>
      return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:3>>
    }"""
    a = np.array([-128, -1, 3, 127], dtype=np.int8)
    want = run_function(parse(src), "f", [a])[0]
    got = run_function(run_pass(StripFuncQuantTypesPass(), src), "f", [a])[0]
    # |(q - 3) * 0.5| / 0.5 + 3: -128 -> 65.5 -> 134 -> 127 (clamped), -1 -> 7
    assert want.tolist() == got.tolist() == [127, 7, 3, 127]


def test_quant_functions_per_axis_exact_values():
    """The interpreter's quant.qcast (the reference the lowering is checked against):
    axis 1, scales [0.5, 0.25], zero points [0, 1]. Column 0: 0.25 / 0.5 = 0.5 -> 0,
    1.0 / 0.5 = 2; column 1: 0.125 / 0.25 + 1 = 1.5 -> 2, -0.375 / 0.25 + 1 = -0.5 -> 0."""
    src = """
    func.func @q(%x: tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25:1}>> {
      %0 = quant.qcast %x : tensor<2x2xf32> to tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25:1}>>
      return %0 : tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25:1}>>
    }"""
    x = np.array([[0.25, 0.125], [1.0, -0.375]], dtype=np.float32)
    for module in (parse(src), run_pass(LowerQuantOpsPass(), src)):
        assert run_function(module, "q", [x])[0].tolist() == [[0, 2], [2, 0]]
