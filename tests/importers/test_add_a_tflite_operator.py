"""docs/design.md's recipe for adding a TFLite operator, followed in this file alone:
RELU_0_TO_1, declared here as one `Operator` (its operands, its import as
`stablehlo.composite "tfl.relu_0_to_1"` with an f32 decomposition, its LiteRT 8-bit spec
rule, its `rescale=fixed-point` kernel: TFLite's ReluX), is imported, accepted by
`litert-verify-int8` and lowered to integer arithmetic that agrees with LiteRT's
reference kernel bit for bit, with nothing else in qcomp edited."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.interpreter")

from xdsl.dialects.builtin import f32, i64
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.importers.tflite import import_module
from qcomp.interpreter import run
from qcomp.passes.litert_verify_int8 import problems
from qcomp.passes.quant_to_math.emit import mbqm_ir
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
from qcomp.passes.utils.builder import Builder, shape_of
from qcomp.quant.tflite import quantize_multiplier, round_half_away
from qcomp.registry import make_context
from qcomp.tflite.common import need_quantized, op_in
from qcomp.tflite.context import OpContext, f32_tensor
from qcomp.tflite.kernels import centred, int8, quantized_type
from qcomp.tflite.operator import OPERATORS, Operand, Operator
from qcomp.tools.qcomp_opt import main as qcomp_opt
from tests.importers.tflite_models import Model, run_litert, schema


# -- the recipe: one declaration (import, spec rule, fixed-point kernel) ------------------
def build_relu(ctx: OpContext) -> list[SSAValue]:
    """RELU_0_TO_1 as `stablehlo.composite "tfl.relu_0_to_1"`: dequantize,
    min(max(x, 0), 1), quantize."""
    x, out = ctx.inputs[0], ctx.outputs[0]
    need_quantized(ctx, x, out)

    def body(b: Builder, args: list[SSAValue]) -> SSAValue:
        t = f32_tensor(x.shape)
        f = op_in(b, sh.UniformDequantizeOp, [args[0]], t)
        m = op_in(b, sh.MaximumOp, [f, b.full(np.float32(0), f32, x.shape)], t)
        m = op_in(b, sh.MinimumOp, [m, b.full(np.float32(1), f32, x.shape)], t)
        return op_in(b, sh.UniformQuantizeOp, [m], out.type())
    return [ctx.composite("tfl.relu_0_to_1", {}, [ctx.value(x)], out.type(), body)]


def lower_relu(op: sh.CompositeOp, b: Builder, st) -> SSAValue | None:
    """TFLite's int8 ReluX: clamp(MBQM(q - z_in, s_in / s_out) + z_out, max(-128, z_out),
    min(127, z_out + round(1 / s_out))) (reference_ops::ReluX with
    QuantizeMultiplier(f32(s_in / s_out)))."""
    x, qi, qo = op.operands[0], quantized_type(op.operands[0]), quantized_type(op.results[0])
    if not int8(qi, qo):
        return None
    m, s = quantize_multiplier(float(np.float32(qi.scale) / np.float32(qo.scale)))
    v = mbqm_ir(b, centred(b, st(x), qi), np.int64(m), np.int64(s), None)
    v = b.binary(sh.AddOp, v, b.full(np.int64(qo.zero_point), i64, shape_of(x)))
    one = qo.zero_point + int(round_half_away(np.float32(1) / np.float32(qo.scale)))
    return b.convert(b.clamp(v, max(-128, qo.zero_point), min(127, one)), qo.storage)


RELU = Operator("RELU_0_TO_1", how='composite "tfl.relu_0_to_1"',
                inputs=(Operand("input", ("INT8",)),),
                build=build_relu, kernels={"tfl.relu_0_to_1": lower_relu})


# -- the test ---------------------------------------------------------------------------
@pytest.fixture
def relu_declared(monkeypatch):
    monkeypatch.setitem(OPERATORS, "RELU_0_TO_1", RELU)


def _relu_model(rng) -> tuple[bytes, np.ndarray]:
    m = Model()
    s_in = float(np.float32(np.exp(rng.uniform(np.log(1e-3), np.log(1.0)))))
    s_out = float(np.float32(s_in * np.exp(rng.uniform(np.log(0.2), np.log(5.0)))))
    x = m.tensor([2, 16], scale=s_in, zero_point=int(rng.integers(-128, 128)))
    y = m.tensor([2, 16], scale=s_out, zero_point=int(rng.integers(-128, 128)))
    m.op(schema.BuiltinOperator.RELU_0_TO_1, [x], [y])
    m.inputs, m.outputs = [x], [y]
    feed = rng.integers(-128, 128, (2, 16)).astype(np.int8)
    feed[0, :2] = (-128, 127)
    return m.build(), feed


def test_without_the_declaration_relu_is_not_supported(tmp_path):
    model, _ = _relu_model(np.random.default_rng(0))
    path = tmp_path / "relu.tflite"
    path.write_bytes(model)
    err = io.StringIO()
    assert qcomp_opt([str(path)], io.StringIO(), io.StringIO(), err) == 1
    assert "operator 0 (RELU_0_TO_1): operator not supported by the qcomp importer" in err.getvalue()


def test_declared_relu_imports_verifies_and_matches_litert(relu_declared):
    for seed in range(5):
        model, feed = _relu_model(np.random.default_rng(seed))
        module = import_module(model)
        names = [op.name for op in module.walk()]
        assert "stablehlo.composite" in names and "stablehlo.maximum" in names
        assert problems(module) == []  # the spec's rule: an int8 activation
        LegalizeQuantToMathPass(rescale="fixed-point").apply(make_context(), module)
        module.verify()
        assert "func.call" not in [op.name for op in module.walk()]  # the kernel, not a call
        (fr,) = run(module, [feed], semantics="spec")[:1]
        assert fr.error is None, fr.error
        (want,) = run_litert(model, [feed], "BUILTIN_REF")
        np.testing.assert_array_equal(np.asarray(fr.results[0]).reshape(want.shape), want)


def test_litert_verify_int8_knows_relu_only_while_declared(monkeypatch):
    model, _ = _relu_model(np.random.default_rng(1))
    monkeypatch.setitem(OPERATORS, "RELU_0_TO_1", RELU)
    module = import_module(model)
    assert problems(module) == []
    monkeypatch.delitem(OPERATORS, "RELU_0_TO_1")
    assert len(problems(module)) == 1  # a quantized op no operator of the table accounts for
