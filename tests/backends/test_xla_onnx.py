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


def test_quantize_dynamic_model_runs_on_xla_as_onnxruntime(tmp_path):
    """quantize_dynamic's DynamicQuantizeLinear, MatMulInteger and Cast lower to
    StableHLO: the model runs on XLA, within float rounding of NumPy and onnxruntime."""
    import numpy as np

    from tests.importers.onnx_zoo import ZOO, session

    x = np.random.default_rng(0).standard_normal((2, 32)).astype(np.float32)
    np.savez(tmp_path / "x.npz", x=x)
    want = session(ZOO / "mlp.dyn.onnx").run(None, {"x": x})[0]
    for backend in ("numpy", "xla"):
        code, _, err = _run(str(ZOO / "mlp.dyn.onnx"), "--backend", backend, "--inputs",
                            str(tmp_path / "x.npz"), "--output", str(tmp_path / f"{backend}.npz"))
        assert (code, err) == (0, "")
        [got] = np.load(tmp_path / f"{backend}.npz").values()
        assert got.dtype == np.float32 and got.shape == (2, 8)
        assert np.max(np.abs(got - want)) <= 1e-5, backend


def test_op_the_onnx_passes_leave_is_refused_at_the_op(tmp_path):
    import onnx
    from onnx import TensorProto, helper

    cast = [helper.make_node("Cast", ["x"], ["e"], to=TensorProto.FLOAT8E8M0),
            helper.make_node("Cast", ["e"], ["y"], to=TensorProto.FLOAT)]
    graph = helper.make_graph(cast, "g", [helper.make_tensor_value_info("x", 1, [2])],
                              [helper.make_tensor_value_info("y", 1, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)]),
              tmp_path / "e8m0.onnx")
    code, out, err = _run(str(tmp_path / "e8m0.onnx"), "--backend", "xla", "--input=2xf32=0.5")
    assert (code, out) == (1, "")
    assert err.splitlines()[0].endswith(
        "error: the xla backend cannot run 'onnx.Cast': "
        "onnx-legalize-qdq-to-quant, onnx-legalize-to-stablehlo leave it (qcomp-opt prints "
        "their remark saying why); run it with --backend numpy")
