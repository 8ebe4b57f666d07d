"""`qcomp-run model.tflite` gives LiteRT's answer: a `.tflite` model runs under
`--semantics litert` by default (the program lowered by
`stablehlo-lower-quant{rescale=fixed-point}`, LiteRT's integer kernels), on NumPy and
XLA, bit for bit with LiteRT's reference kernels; `--semantics spec` stays available."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert")

from qcomp.tools.qcomp_run import main  # noqa: E402
from tests.importers.tflite_models import run_litert  # noqa: E402

ZOO = Path(__file__).resolve().parent.parent / "models" / "tflite"


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_tflite_runs_with_litert_arithmetic_by_default(tmp_path, backend):
    if backend == "xla":
        pytest.importorskip("jax")
    path = ZOO / "cnn.tflite"
    x = np.random.default_rng(3).integers(-128, 128, (1, 32, 32, 3)).astype(np.int8)
    np.savez(tmp_path / "in.npz", arg0=x)
    code, out, err = _run(str(path), "--inputs", str(tmp_path / "in.npz"), "--output",
                          str(tmp_path / "out.npz"), "--backend", backend)
    assert (code, err) == (0, "")
    (want,) = run_litert(path.read_bytes(), [x])
    got = np.load(tmp_path / "out.npz")["result0"]
    np.testing.assert_array_equal(got, want)
    assert f"1x10xi8=[[{' '.join(str(int(v)) for v in want.reshape(-1))}]]" in out


def test_spec_semantics_is_still_available(tmp_path):
    path = ZOO / "dscnn.tflite"
    from ai_edge_litert.interpreter import Interpreter

    shape = tuple(Interpreter(model_path=str(path)).get_input_details()[0]["shape"])
    np.savez(tmp_path / "in.npz", arg0=np.zeros(shape, np.int8))
    code, _, err = _run(str(path), "--inputs", str(tmp_path / "in.npz"), "--semantics", "spec")
    assert (code, err) == (0, "")


def test_litert_semantics_refuses_compare_lowered():
    code, _, err = _run(str(ZOO / "cnn.tflite"), "--compare-lowered")
    assert code == 2
    assert err == ("qcomp-run: error: --semantics litert runs the lowered program itself: "
                   "--compare-lowered and --print-lowered take spec or stablehlo\n")


def test_spec_semantics_runs_max_pool(tmp_path):
    """MAX_POOL_2D (a quantized reduce_window) under `--semantics spec`: dequantize ->
    max -> quantize, which for one (scale, zero point) in and out is the max of the
    stored integers, LiteRT's MAX_POOL_2D."""
    from tests.importers.litert_cases import CASES

    model, (x,) = CASES["MAX_POOL_2D"](np.random.default_rng(7))
    path = tmp_path / "max_pool.tflite"
    path.write_bytes(model)
    np.savez(tmp_path / "in.npz", arg0=x)
    code, _, err = _run(str(path), "--inputs", str(tmp_path / "in.npz"), "--output",
                        str(tmp_path / "out.npz"), "--semantics", "spec")
    assert (code, err) == (0, "")
    (want,) = run_litert(model, [x])
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["result0"], want)


def test_spec_semantics_runs_the_cnn(tmp_path):
    """The zoo CNN (MAX_POOL_2D among its operators) runs under `--semantics spec`; the
    spec's float rescales stay within 3 steps of LiteRT's fixed-point ones."""
    path = ZOO / "cnn.tflite"
    x = np.random.default_rng(5).integers(-128, 128, (1, 32, 32, 3)).astype(np.int8)
    np.savez(tmp_path / "in.npz", arg0=x)
    code, _, err = _run(str(path), "--inputs", str(tmp_path / "in.npz"), "--output",
                        str(tmp_path / "out.npz"), "--semantics", "spec")
    assert (code, err) == (0, "")
    (want,) = run_litert(path.read_bytes(), [x])
    got = np.load(tmp_path / "out.npz")["result0"].astype(np.int64)
    assert np.max(np.abs(got - want)) <= 3
