"""`.tflite` import, then `litert-verify-int8`: the spec-conforming int8 models of every
supported operator (`litert_cases`, the ones the LiteRT differential tests run) pass
with no diagnostic, and deliberately broken ones fail on the op of the broken operator
with the rule broken: asymmetric weights, a wrong bias scale, softmax / logistic
output parameters off, per-axis weights on the wrong dimension. Where LiteRT's own
kernels refuse the broken model too (at `allocate_tensors`), the test says so.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.interpreter")

from qcomp.importers.tflite import import_tflite  # noqa: E402
from qcomp.passes.litert_verify_int8 import problems  # noqa: E402
from qcomp.registry import make_context, parse_module  # noqa: E402
from tests.importers.litert_cases import CASES, OPS, OPTS  # noqa: E402
from tests.importers.litert_cases_int8 import CASES as INT8  # noqa: E402
from tests.importers.litert_cases_more import CASES as MORE  # noqa: E402
from tests.importers.litert_cases_more2 import CASES as MORE2  # noqa: E402
from tests.importers.tflite_models import Model, run_litert, schema  # noqa: E402


def diagnostics(model: bytes) -> list[tuple[str, str]]:
    """(op name, message) of every `litert-verify-int8` violation of the imported model."""
    module = parse_module(import_tflite(model), make_context())
    module.verify()
    return [(p[0].name, p[1]) for p in problems(module)]


def litert_accepts(model: bytes, feeds) -> bool:
    try:
        run_litert(model, feeds)
    except (RuntimeError, ValueError):
        return False
    return True


@pytest.mark.parametrize("op", sorted({**CASES, **MORE, **INT8, **MORE2}))
def test_valid_models_pass(op):
    for seed in range(3):
        model, feeds = {**CASES, **MORE, **INT8, **MORE2}[op](np.random.default_rng(seed))
        assert litert_accepts(model, feeds)
        assert diagnostics(model) == [], f"{op} seed {seed}"


# -- broken models -------------------------------------------------------------------
def _fc(w_zero_point: int = 0, bias_factor: float = 1.0, w_axis: int = 0, per_axis=False):
    """x [2, 4] (0.5, 3) . w [3, 4] + bias -> y [2, 3] (0.25, -1)."""
    m = Model()
    x = m.tensor([2, 4], scale=0.5, zero_point=3)
    n = (3 if w_axis == 0 else 4) if per_axis else 1
    w_scales = [0.125 * (i + 1) for i in range(n)]
    w = m.tensor([3, 4], scale=w_scales, zero_point=[w_zero_point] * n, axis=w_axis,
                 data=np.arange(-6, 6, dtype=np.int8).reshape(3, 4))
    b_scales = [0.5 * s * bias_factor for s in (w_scales if w_axis == 0 else [0.125] * 3)]
    bias = m.tensor([3], np.int32, scale=b_scales if per_axis else b_scales[0],
                    zero_point=[0] * (len(b_scales) if per_axis else 1),
                    data=np.array([5, -7, 9], np.int32))
    y = m.tensor([2, 3], scale=0.25, zero_point=-1)
    m.inputs, m.outputs = [x], [y]
    m.op(OPS.FULLY_CONNECTED, [x, w, bias], [y], schema.FullyConnectedOptionsT(),
         OPTS.FullyConnectedOptions)
    return m.build(), [np.arange(8, dtype=np.int8).reshape(2, 4)]


def _conv(depthwise: bool, w_axis: int, w_zero_point: int = 0):
    """x [1, 4, 4, 2] . w (OHWI [3, 2, 2, 2] / depthwise [1, 2, 2, 2]) per-axis on
    `w_axis`, VALID, bias per channel."""
    m = Model()
    x = m.tensor([1, 4, 4, 2], scale=0.5, zero_point=0)
    shape = [1, 2, 2, 2] if depthwise else [3, 2, 2, 2]
    cout = shape[3] if depthwise else shape[0]
    n = shape[w_axis]
    w = m.tensor(shape, scale=[0.1] * n, zero_point=[w_zero_point] * n, axis=w_axis,
                 data=np.ones(shape, np.int8))
    bias = m.tensor([cout], np.int32, scale=[0.05] * cout, zero_point=[0] * cout,
                    data=np.zeros(cout, np.int32))
    y = m.tensor([1, 3, 3, cout], scale=1.0, zero_point=0)
    o = schema.DepthwiseConv2DOptionsT() if depthwise else schema.Conv2DOptionsT()
    o.padding, o.strideH, o.strideW = 1, 1, 1
    o.dilationHFactor = o.dilationWFactor = 1
    if depthwise:
        o.depthMultiplier = 1
    m.inputs, m.outputs = [x], [y]
    m.op(OPS.DEPTHWISE_CONV_2D if depthwise else OPS.CONV_2D, [x, w, bias], [y], o,
         OPTS.DepthwiseConv2DOptions if depthwise else OPTS.Conv2DOptions)
    return m.build(), [np.ones((1, 4, 4, 2), np.int8)]


def _fixed(op: int, scale: float, zero_point: int):
    m = Model()
    x = m.tensor([2, 5], scale=0.05, zero_point=4)
    y = m.tensor([2, 5], scale=scale, zero_point=zero_point)
    m.inputs, m.outputs = [x], [y]
    if op == OPS.SOFTMAX:
        o = schema.SoftmaxOptionsT()
        o.beta = 1.0
        m.op(op, [x], [y], o, OPTS.SoftmaxOptions)
    else:
        m.op(op, [x], [y])
    return m.build(), [np.zeros((2, 5), np.int8)]


BROKEN = {
    # name: (model, the op the error is at, operator and rule in its message,
    #        whether LiteRT 2.3's reference kernels run the model anyway)
    "asymmetric weights": (_fc(w_zero_point=2), "stablehlo.composite",
                           "FULLY_CONNECTED weight [weight-zero-point]", True),
    "asymmetric conv weights": (_conv(False, 0, w_zero_point=1), "stablehlo.composite",
                                "CONV_2D weight [weight-zero-point]", False),
    "wrong bias scale": (_fc(bias_factor=1.5), "stablehlo.add",
                         "FULLY_CONNECTED bias [bias-scale]", False),
    "wrong per-channel bias scale": (_fc(bias_factor=1.5, per_axis=True), "stablehlo.add",
                                     "FULLY_CONNECTED bias [bias-scale]", True),
    "softmax output scale": (_fixed(OPS.SOFTMAX, 1 / 128, -128), "stablehlo.composite",
                             "SOFTMAX output [fixed-output]", False),
    "softmax output zero point": (_fixed(OPS.SOFTMAX, 1 / 256, 0), "stablehlo.composite",
                                  "SOFTMAX output [fixed-output]", False),
    "logistic output scale": (_fixed(OPS.LOGISTIC, 1 / 128, -128), "stablehlo.logistic",
                              "LOGISTIC output [fixed-output]", False),
    "fully-connected per-axis on the input dimension": (
        _fc(w_axis=1, per_axis=True), "stablehlo.composite",
        "FULLY_CONNECTED weight [weight-axis]", False),
    "conv per-axis on the input channel": (_conv(False, 3), "stablehlo.composite",
                                           "CONV_2D weight [weight-axis]", False),
    "depthwise per-axis on dimension 1": (_conv(True, 1), "stablehlo.composite",
                                          "DEPTHWISE_CONV_2D weight [weight-axis]", True),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_models_fail_on_the_op_with_the_rule(name):
    (model, feeds), op_name, expected, litert_runs = BROKEN[name]
    found = diagnostics(model)
    assert any(op == op_name and expected in msg for op, msg in found), found
    if litert_runs is not None:
        assert litert_accepts(model, feeds) is litert_runs


def test_the_broken_models_differ_from_valid_ones_only_in_the_broken_part():
    """The same builders without the fault pass (so each failure is the fault's)."""
    for model, _ in (_fc(), _fc(per_axis=True), _conv(False, 0), _conv(True, 3),
                     _fixed(OPS.SOFTMAX, 1 / 256, -128), _fixed(OPS.LOGISTIC, 1 / 256, -128)):
        assert diagnostics(model) == []


def test_a_bias_with_its_own_scale_adds_its_integers_as_litert_does():
    """A per-channel bias declaring 1.5x the spec's scale: LiteRT runs it (adding the
    stored integers), the verifier refuses it, and the imported program (the bias
    reinterpreted with quant.scast) computes LiteRT's outputs bit for bit."""
    from tests.importers.test_tflite_against_litert import qcomp_run

    model, feeds = _fc(bias_factor=1.5, per_axis=True)
    want = run_litert(model, feeds)
    assert "quant.scast" in import_tflite(model)
    for g, w in zip(qcomp_run(model, feeds), want, strict=True):
        np.testing.assert_array_equal(np.asarray(g).reshape(w.shape), w)


def test_a_violation_names_its_operator():
    """`import_module(..., origins)` maps each op the import built to its operator, so a
    `litert-verify-int8` violation can name `operator N (NAME)` besides the rule."""
    from qcomp.importers.tflite import import_module

    m = Model()
    x = m.tensor([2, 4], scale=0.5, zero_point=3)
    y = m.tensor([2, 4], scale=0.5, zero_point=3)
    m.op(OPS.RESHAPE, [x], [y])
    z = m.tensor([2, 4], scale=0.25, zero_point=0)  # LOGISTIC's output must be (1/256, -128)
    m.op(OPS.LOGISTIC, [y], [z])
    m.inputs, m.outputs = [x], [z]
    origins: dict = {}
    module = import_module(m.build(), origins)
    (problem,) = problems(module)
    assert origins[problem[0]] == "operator 1 (LOGISTIC)"
    assert "[fixed-output]" in problem[1] and "LOGISTIC" in problem[1]
