"""The LiteRT model zoo (tests/models/tflite/, made by TensorFlow 2.21's converter through
tools/make_tflite_models.py): every model qcomp supports imports, passes
`--litert-verify-int8`, lowers with `rescale=fixed-point` to a program with no `!quant`
type, and computes LiteRT's reference kernels' outputs bit for bit on the all-minimum,
the all-maximum and a random input (every model of the zoo is supported: a model added
that is not fails here). CI runs one of the three on each of the `LARGE` models (in
turn, so each kind of input runs on some), and of the large models only `LARGE_IN_CI`,
which with the small ones hold every operator on every tensor type the zoo has (a test
checks it); QCOMP_FULL=1 runs every model on all three. `python3 tools/tflite_zoo.py`
runs 20 inputs per model and times them."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert")

from qcomp.interpreter import run
from qcomp.registry import parse_module
from qcomp.tools.qcomp_opt import main as opt_main
from tests.importers.tflite_models import litert_inputs, reference_model, run_litert
from tests.sampling import FULL

ZOO = Path(__file__).resolve().parent.parent / "models" / "tflite"
SUPPORTED = ["cnn", "cnn_float_io", "dscnn", "squeeze_excite", "mobilenet_v2",
             "mobilenet_v2_float_io", "mobilenet_v1", "mobilenet_v3_small", "activations",
             "unet", "transformer", "cnn_16x8", "mobilenet_v2_16x8",
             "transformer_16x8"]
LARGE = ["mobilenet_v2", "mobilenet_v2_float_io", "mobilenet_v1", "mobilenet_v3_small",
         "mobilenet_v2_16x8", "transformer", "transformer_16x8"]
"""Models whose interpreter run takes seconds per input: CI runs one input of three."""
LARGE_IN_CI = ["mobilenet_v3_small", "mobilenet_v2_16x8", "transformer", "transformer_16x8"]
"""The large models CI runs: mobilenet_v2 and its float-io twin hold no operator the small
models lack, mobilenet_v1 none that mobilenet_v3_small lacks."""
IN_CI = [n for n in SUPPORTED if n not in LARGE or n in LARGE_IN_CI or FULL]


def _opt(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = opt_main(list(argv), io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


def _reference(path: Path, x: np.ndarray) -> list[np.ndarray]:
    return run_litert(reference_model(path), [x])


def _inputs(path: Path) -> list[np.ndarray]:
    from ai_edge_litert.interpreter import Interpreter

    return litert_inputs(Interpreter(model_path=str(path)).get_input_details()[0], 3, seed=5)


def test_zoo_is_the_declared_one():
    assert sorted(p.stem for p in ZOO.glob("*.tflite")) == sorted(SUPPORTED)


def _operators(name: str) -> set[tuple[str, tuple[str, ...]]]:
    """(operator, the dtypes of its inputs and outputs) of every operator of a model."""
    from ai_edge_litert.interpreter import Interpreter

    model = Interpreter(model_path=str(ZOO / f"{name}.tflite"))
    dtypes = {t["index"]: t["dtype"].__name__ for t in model.get_tensor_details()}
    return {(op["op_name"], tuple(dtypes.get(i, "-") for i in [*op["inputs"], *op["outputs"]]
                                  if i >= 0)) for op in model._get_ops_details()}


def test_ci_sample_holds_every_operator_of_the_zoo():
    every_op = set().union(*(_operators(n) for n in SUPPORTED))
    in_ci = set().union(*(_operators(n) for n in SUPPORTED if n not in LARGE or n in LARGE_IN_CI))
    assert sorted(every_op - in_ci) == []
    assert ("HARD_SWISH", ("int8", "int8")) in in_ci  # (the operator names read)


_LOWERED: dict[str, str] = {}


def _lowered(name: str, tmp_path: Path) -> str:
    """The text of a zoo model imported, verified with `--litert-verify-int8` (it reports,
    it does not rewrite) and lowered with `rescale=fixed-point`, by qcomp-opt in one run
    (one import); made once per model."""
    if name not in _LOWERED:
        lowered = tmp_path / "lowered.mlir"
        code, _, err = _opt(str(ZOO / f"{name}.tflite"), "--litert-verify-int8",
                            "--stablehlo-legalize-quant-to-math=rescale=fixed-point",
                            "-o", str(lowered))
        assert (code, err) == (0, "")
        _LOWERED[name] = lowered.read_text()
    return _LOWERED[name]


@pytest.mark.parametrize("name", IN_CI)
def test_model_is_litert_bit_for_bit(name: str, tmp_path):
    path = ZOO / f"{name}.tflite"
    text = _lowered(name, tmp_path)
    assert "!quant" not in text
    module = parse_module(text)
    xs = _inputs(path)
    if name in LARGE and not FULL:
        xs = [xs[LARGE.index(name) % len(xs)]]
    for x in xs:
        [r] = run(module, [x])
        assert r.error is None, r.error
        for got, want in zip(r.results, _reference(path, x), strict=True):
            assert got.dtype == want.dtype and np.array_equal(got, want), name


def test_lowered_model_on_xla_is_litert_bit_for_bit(tmp_path):
    pytest.importorskip("jax")
    from qcomp.backends import run as run_on

    path = ZOO / "squeeze_excite.tflite"
    module = parse_module(_lowered("squeeze_excite", tmp_path))
    for x in _inputs(path):
        [r] = run_on(module, [x], backend="xla")
        assert r.error is None, r.error
        assert np.array_equal(r.results[0], _reference(path, x)[0])


def test_qcomp_run_16x8_model_is_litert_bit_for_bit(tmp_path):
    """`qcomp-run model.tflite --samples` (LiteRT's arithmetic, the default for .tflite)
    on a 16x8 model: every sample's output is BUILTIN_REF's (on XLA too:
    `python3 tools/tflite_zoo.py --xla`)."""
    from qcomp.tools.qcomp_run import main as run_main

    path = ZOO / "cnn_16x8.tflite"
    xs = _inputs(path)
    np.savez(tmp_path / "in.npz", arg0=np.stack(xs))
    out, err = io.StringIO(), io.StringIO()
    code = run_main([str(path), "--inputs", str(tmp_path / "in.npz"), "--samples", "--output",
                     str(tmp_path / "out.npz")], io.StringIO(""), out, err)
    assert (code, err.getvalue()) == (0, "")
    got = np.load(tmp_path / "out.npz")["result0"]
    for g, x in zip(got, xs, strict=True):
        [want] = _reference(path, x)
        assert g.dtype == want.dtype and np.array_equal(g.reshape(want.shape), want)
