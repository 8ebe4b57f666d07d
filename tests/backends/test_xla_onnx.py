"""`--backend xla` on an imported `.onnx` model: the ONNX passes of the documented
pipeline run first, so a quantize_static model runs on XLA as on NumPy; an op they
leave is refused at that op."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("jax")
pytest.importorskip("onnx")

from qcomp.tools.qcomp_run import main as run_main  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_main(list(argv), io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


def test_quantize_static_model_runs_on_xla_as_on_numpy():
    args = (str(ROOT / "examples" / "cnn_qdq.onnx"), "--inputs",
            str(ROOT / "examples" / "cnn_qdq_input.npz"))
    on_numpy = _run(*args)
    on_xla = _run(*args, "--backend", "xla")
    assert on_numpy[0] == 0 and on_numpy[2] == ""
    assert on_xla == on_numpy
    assert on_xla[1] == "@main_graph result[0]: 1x4xf32=[[-2.8669004 -1.0969009 3.0414073 0.3739435]]\n"


def test_op_the_onnx_passes_leave_is_refused_at_the_op():
    code, out, err = _run(str(ROOT / "tests" / "models" / "onnx" / "bert_layer.dyn.onnx"),
                          "--backend", "xla", "--input=1x8x32xf32=0.5", "--input=1x8xi64=1")
    assert (code, out) == (1, "")
    assert err.splitlines()[0].endswith(
        ":56:13: error: the xla backend cannot run 'onnx.DynamicQuantizeLinear': "
        "onnx-legalize-qdq-to-quant, onnx-legalize-to-stablehlo leave it (qcomp-opt prints "
        "their remark saying why); run it with --backend numpy")
