"""The ONNX model zoo (tests/models/onnx/, tools/make_onnx_models.py: onnxruntime's own
quantizer wrote every quantized model) through import, the documented pipeline
(`tests/importers/onnx_zoo.py`) and qcomp's interpreter, against onnxruntime's unoptimized
session on seeded inputs.

A model that works matches onnxruntime:
- a quantized output (made by a DequantizeLinear): equal, 0 steps of its scale (both
  quantize `x / s` in float32, round half to even, and the float ops between are the
  same ops on the same values);
- a float output (float models, MatMulNBits' float MatMul, `quantize_dynamic`'s float
  results): within `FLOAT_TOLERANCE`, float sums taken in another order (qcomp's
  `dot_general` / `reduce` in NumPy vs onnxruntime's MLAS kernels).

The lowered program runs on XLA too (`qcomp.backends.xla`, compiled once per model) for
`XLA_SAMPLE` in CI and for every model with `QCOMP_ZOO=all`, held to the same bounds.

`STATUS` is the one table of what does not work yet: each entry the exact diagnostic
the model stops with, or (for a model that runs but does not lower fully) the onnx ops
`onnx-legalize-to-stablehlo` leaves. The test fails when a listed model starts working
(shrink the table) or a working one breaks. CI runs `SAMPLE` and the models that stop
at import; `QCOMP_ZOO=all` runs every model.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from tests.importers.onnx_zoo import lower, measure, models

FLOAT_TOLERANCE = 1e-5
STATUS: dict[str, str] = {
    # MatMulNBitsQuantizer (QDQ) lifts the opset to 21 and keeps ReduceMean-13's axes
    # attribute: an invalid model (its own warning says it "may not be a valid model").
    # onnxruntime 1.32 refuses it too, unoptimized and optimized alike, at load
    # (`INVALID_GRAPH ... Error Unrecognized attribute: axes for operator ReduceMean`),
    # as does onnx.checker: qcomp keeps its diagnostic rather than guess.
    "gpt_block.nbits_qdq": "node 'reducemean5' (ReduceMean): attribute 'axes' is not in "
                           "ReduceMean-18",
}
SAMPLE = ("cnn_bn_raw.qdq_u8", "mlp.qop", "resnet_block.qop", "mobilenet_v2.qdq_s8",
          "squeeze_excite.qop", "bert_layer.qdq_s8", "gpt_block.qdq_u8", "mlp.dyn",
          "mlp.float")
XLA_SAMPLE = ("mlp.dyn", "cnn_bn.dyn", "mlp.qop")
"""Run on XLA too in CI (`QCOMP_ZOO=all`: every model that lowers fully)."""
MODELS = models()


def _in_ci(path) -> bool:
    """CI: the samples, and the models that stop at import (fast); `QCOMP_ZOO=all`: all."""
    want = STATUS.get(path.stem)
    return os.environ.get("QCOMP_ZOO") == "all" or path.stem in (*SAMPLE, *XLA_SAMPLE) or (
        want is not None and not want.startswith("left: "))


def test_the_zoo_is_there():
    assert len(MODELS) >= 50
    assert set(STATUS) <= {p.stem for p in MODELS}
    assert set(SAMPLE) <= {p.stem for p in MODELS}
    assert set(XLA_SAMPLE) <= {p.stem for p in MODELS} - set(STATUS)


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.stem)
def test_zoo_model(path):
    if not _in_ci(path):
        pytest.skip("not in the CI sample (QCOMP_ZOO=all runs it)")
    want = STATUS.get(path.stem)
    lowered = row, text = lower(path)
    if text is None:  # import or lowering failed: the diagnostic is the listed one
        got = row["import"] if row["import"] != "yes" else row["lowered"]
        assert got == want, f"{path.stem}: {got}"
        return
    got = None if row["left"] == "-" else f"left: {row['left']}"
    assert got == want, f"{path.stem}: {got}"
    xla = _on_xla(path)
    row = measure(path, n=2, xla=xla, lowered=lowered)
    assert row["run"] == "yes", row
    diffs = ["max_diff", "xla_diff"] if xla else ["max_diff"]
    if xla:
        assert row.get("xla") == "yes", row
    for d in diffs:
        if row["unit"] == "steps":
            assert row[d] == 0, row
        else:
            assert row[d] <= FLOAT_TOLERANCE, row
            assert np.isfinite(row[d])


def _on_xla(path) -> bool:
    """The lowered program runs on XLA too: the CI sample, or every model with
    `QCOMP_ZOO=all` (when jax is installed)."""
    try:
        import jax  # noqa: F401
    except ImportError:
        return False
    return os.environ.get("QCOMP_ZOO") == "all" or path.stem in XLA_SAMPLE


@pytest.mark.parametrize("name", ["mlp.qop", "cnn_bn.qop", "bert_layer.qop"])
def test_qoperator_model_runs_as_imported(name):
    """The QOperator model as imported (QGemm, QLinearSigmoid / Concat / Mul / Add /
    Softmax, QLinearConv, QLinearMatMul and QLinearGlobalAveragePool run by qcomp's
    interpreter as onnx ops, no pass) equals onnxruntime's contrib kernels (bert_layer's
    float LayerNormalization output: within FLOAT_TOLERANCE)."""
    import onnx

    from qcomp.importers.onnx import import_model
    from qcomp.interpreter import run
    from tests.importers.onnx_zoo import ZOO, inputs, session

    path = ZOO / f"{name}.onnx"
    model = onnx.load(path)
    module = import_model(model)
    for seed in range(3):
        feeds = inputs(model, seed)
        want = session(path).run(None, feeds)
        [r] = run(module, list(feeds.values()))
        assert r.error is None, r.error
        for g, w in zip(r.results, want, strict=True):
            if g.dtype.kind == "f":
                assert np.max(np.abs(g - w)) <= FLOAT_TOLERANCE
            else:
                assert np.array_equal(g, w)
