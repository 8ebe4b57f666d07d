"""A model file that cannot be imported (.tflite / .onnx: corrupt, or an operator the
importer does not take) is one line `prog: error: <file>: <why>` and each tool's exit
code for an input it cannot read: qcomp-opt 1 (its failure code, as for a parse
error), qcomp-run 2 (its "error in the program or the command line", as for a parse
error or an unopenable file; its 1 means a check failed). Never a traceback."""

from __future__ import annotations

import io

import pytest

from qcomp.tools import qcomp_opt, qcomp_run

CODES = {"qcomp-opt": (qcomp_opt.main, 1), "qcomp-run": (qcomp_run.main, 1)}  # one rule


def _run(tool: str, path) -> tuple[int, str, str]:
    main, _ = CODES[tool]
    out, err = io.StringIO(), io.StringIO()
    code = main([str(path)], io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


def _unsupported_tflite() -> bytes:
    models = pytest.importorskip("tests.importers.tflite_models")
    m = models.Model()
    x = m.tensor([4], __import__("numpy").float32)
    y = m.tensor([4], __import__("numpy").float32)
    m.inputs, m.outputs = [x], [y]
    m.op(models.schema.BuiltinOperator.SEGMENT_SUM, [x], [y])
    return m.build()


CASES = {
    "corrupt.tflite": (lambda: b"TFL3 but not a flatbuffer",
                       "not a readable TFLite flatbuffer"),
    "segment_sum.tflite": (_unsupported_tflite,
                           "operator 0 (SEGMENT_SUM): operator not supported"),
    "corrupt.onnx": (lambda: b"\x08\x07garbage", "not a valid ONNX model"),
}


@pytest.mark.parametrize("tool", sorted(CODES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_import_error_is_one_line_and_the_tools_input_error_code(tmp_path, tool, name):
    make, why = CASES[name]
    path = tmp_path / name
    path.write_bytes(make())
    code, out, err = _run(tool, path)
    assert code == CODES[tool][1]
    assert out == ""
    assert err.startswith(f"{tool}: error: {path}: ") and why in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("tool", sorted(CODES))
def test_same_code_as_a_text_input_that_does_not_parse(tmp_path, tool):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f( {\n")
    assert _run(tool, bad)[0] == CODES[tool][1]
