"""ONNX's own node tests of the quantization and cast ops (built in memory by
`onnx.backend.test.case.node.collect_testcases`), each model imported as `.onnx` bytes,
run by qcomp's interpreter and compared with the expected outputs bit for bit.

The whole set runs here (217 cases with onnx 1.21; `python tools/onnx_node_tests.py`
prints the count). Expected failures are listed with their reason.
"""

from __future__ import annotations

import pytest

pytest.importorskip("onnx")
from onnx.backend.test.case.node import collect_testcases  # noqa: E402

from tests.importers.onnx_oracle import mismatch, run_qcomp  # noqa: E402

PREFIXES = ("test_quantizelinear", "test_dequantizelinear", "test_cast_", "test_castlike_",
            "test_qlinear", "test_matmulinteger", "test_convinteger",
            "test_dynamicquantizelinear")

_WRAPS = ("the expected output wraps to int8 (ONNX's reference evaluator casts without "
          "saturating); ONNX's spec and onnxruntime saturate, as qcomp does (-128 where "
          "the expected output has 20)")
_EXPANDED = "the expanded function uses ReduceMin / ReduceMax, which qcomp's onnx dialect lacks"
EXPECTED_FAILURES = {
    "test_qlinearmatmul_2D_int8_float32": _WRAPS,
    "test_qlinearmatmul_3D_int8_float32": _WRAPS,
    "test_qlinearmatmul_2D_int8_float16": _WRAPS,
    "test_qlinearmatmul_3D_int8_float16": _WRAPS,
    "test_dynamicquantizelinear_expanded": _EXPANDED,
    "test_dynamicquantizelinear_max_adjusted_expanded": _EXPANDED,
    "test_dynamicquantizelinear_min_adjusted_expanded": _EXPANDED,
}

CASES = [c for c in collect_testcases(None) if c.name.startswith(PREFIXES)]


def test_the_set_is_the_one_counted():
    assert len(CASES) >= 217, len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_node(case):
    if case.name in EXPECTED_FAILURES:
        pytest.xfail(EXPECTED_FAILURES[case.name])
    for inputs, outputs in case.data_sets:
        got = run_qcomp(case.model, inputs)
        assert len(got) == len(outputs)
        for i, (g, w) in enumerate(zip(got, outputs)):
            why = mismatch(g, w)
            assert why is None, f"output {i}: {why}"
