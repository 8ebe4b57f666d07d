"""normalize-quant-types keeps the storage as written, float storage included (a
sub-channel type with float storage is not a lit input: upstream MLIR, which the lit
inputs are printed against, aborts on reading one)."""

from __future__ import annotations

from qcomp.ir import print_module
from qcomp.passes.normalize_quant_types import NormalizeQuantTypesPass
from qcomp.registry import make_context, parse_module


def _normalized(text: str) -> str:
    ctx = make_context()
    module = parse_module(text, ctx)
    NormalizeQuantTypesPass().apply(ctx, module)
    module.verify()
    return print_module(module)


def test_float_storage_sub_channel_normalizes():
    out = _normalized(
        "func.func @f(%a: tensor<4x!quant.uniform<f8E5M2<-8:8>:f32:{0:4}, {2.0:3}>>, "
        "%b: tensor<2x3x!quant.uniform<f4E2M1FN:bf16:{1:1}, {{0.5, 0.25, 1.0:-9}}>>) {\n"
        "  return\n}\n")
    assert "tensor<4x!quant.uniform<f8E5M2<-8:8>:f32, 2.000000e+00:3>>" in out
    assert ("tensor<2x3x!quant.uniform<f4E2M1FN:bf16:1, "
            "{5.000000e-01,2.500000e-01,1.000000e+00:-9}>>") in out


def test_spellings_survive_normalization():
    out = _normalized(
        "func.func @f(%a: tensor<4x!quant.uniform<ui8<1:200>:f32:{0:4}, {2.0:300}>>, "
        "%b: tensor<4x!quant.uniform<u8:f32:{0:4}, {2.0:-3}>>, "
        "%c: tensor<4x!quant.uniform<si16:f32:{}, {{2.0}}>>) {\n  return\n}\n")
    assert "tensor<4x!quant.uniform<ui8<1:200>:f32, 2.000000e+00:300>>" in out
    assert "tensor<4x!quant.uniform<u8:f32, 2.000000e+00:-3>>" in out
    assert "tensor<4x!quant.uniform<si16:f32, 2.000000e+00>>" in out
