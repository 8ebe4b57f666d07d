"""ONNX's node tests (the set of test_onnx_node_tests.py) through the command line as a
user runs them: the model written to `model.onnx`, `qcomp-opt model.onnx -o model.mlir`,
the inputs written with `np.savez` (ml_dtypes arrays become `|V1` / `|V2` bytes),
`qcomp-run model.mlir --inputs x.npz --output y.npz`, the outputs read back with
`np.load` (raw bits of ml_dtypes types viewed by their `resultN_dtype`), compared bit
for bit. CI runs a sample (every SAMPLE_EVERY-th case); `python tools/onnx_node_tests.py
--cli` runs them all (QCOMP_ONNX_CLI_ALL=1): they pass as in-process, the same expected
failures."""

from __future__ import annotations

import io
import os

import numpy as np
import pytest

pytest.importorskip("onnx")
import ml_dtypes  # noqa: E402

from tests.importers.onnx_oracle import as_array, mismatch  # noqa: E402
from tests.importers.test_onnx_node_tests import CASES, EXPECTED_FAILURES  # noqa: E402

SAMPLE_EVERY = 9
ALL = os.environ.get("QCOMP_ONNX_CLI_ALL") == "1"
CHOSEN = CASES if ALL else CASES[::SAMPLE_EVERY]


def _tool(main, argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, io.StringIO(""), out, err)
    return code, err.getvalue()


def _savable(a) -> np.ndarray:
    a = as_array(a)
    if a.dtype.kind in "OS":  # ONNX strings: NumPy's own text arrays (no pickling)
        return np.array([x.decode() if isinstance(x, bytes) else str(x)
                         for x in a.reshape(-1)], dtype=str).reshape(a.shape)
    return a


def run_cli(tmp_path, model, inputs) -> list[np.ndarray]:
    from qcomp.tools.qcomp_opt import main as opt_main
    from qcomp.tools.qcomp_run import main as run_main

    onnx_file, mlir, x, y = (str(tmp_path / n) for n in ("model.onnx", "model.mlir",
                                                         "x.npz", "y.npz"))
    with open(onnx_file, "wb") as f:
        f.write(model.SerializeToString())
    code, err = _tool(opt_main, [onnx_file, "-o", mlir])
    assert code == 0, err
    names = [vi.name for vi in model.graph.input
             if vi.name not in {t.name for t in model.graph.initializer}]
    np.savez(x, **{n: _savable(a) for n, a in zip(names, inputs)})
    code, err = _tool(run_main, [mlir, "--entry", "main_graph", "--inputs", x, "--output", y])
    assert code == 0, err
    z = np.load(y)  # no pickle, no ml_dtypes needed to read it
    got = []
    for i in range(len([k for k in z.files if not k.endswith("_dtype")])):
        a = z[f"result{i}"]
        if f"result{i}_dtype" in z.files:
            a = a.view(getattr(ml_dtypes, str(z[f"result{i}_dtype"])))
        got.append(a)
    return got


@pytest.mark.parametrize("case", CHOSEN, ids=lambda c: c.name)
def test_node_through_the_command_line(tmp_path, case):
    if case.name in EXPECTED_FAILURES:
        pytest.xfail(EXPECTED_FAILURES[case.name])
    for inputs, outputs in case.data_sets:
        got = run_cli(tmp_path, case.model, inputs)
        assert len(got) == len(outputs)
        for i, (g, w) in enumerate(zip(got, outputs)):
            why = mismatch(g, w)
            assert why is None, f"output {i}: {why}"
