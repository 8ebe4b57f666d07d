"""`qcomp-opt model.tflite`: the import's text, and its diagnostics (never a traceback)."""

from __future__ import annotations

import io
import sys

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.schema_py_generated")

from qcomp.tools.qcomp_opt import main as qcomp_opt  # noqa: E402
from tests.importers.litert_cases import CASES  # noqa: E402
from tests.importers.tflite_models import Model, schema  # noqa: E402


def _opt(tmp_path, data: bytes, name: str = "m.tflite", *args):
    p = tmp_path / name
    p.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    code = qcomp_opt([str(p), *args], io.StringIO(), out, err)
    return code, out.getvalue(), err.getvalue()


def test_fully_connected_imports_as_quantized_dot_general(tmp_path):
    model, _ = CASES["FULLY_CONNECTED"](np.random.default_rng(1))
    code, out, err = _opt(tmp_path, model)
    assert code == 0, err
    assert "stablehlo.dot_general" in out and "!quant.uniform<i8<-127:127>:f32" in out
    assert "stablehlo.uniform_quantize" in out


def test_recognised_by_identifier_without_suffix(tmp_path):
    model, _ = CASES["ADD"](np.random.default_rng(0))
    code, out, err = _opt(tmp_path, model, "model.bin")
    assert code == 0, err
    assert "stablehlo.add" in out


def test_unsupported_operator_is_named(tmp_path):
    m = Model()
    a = m.tensor([4], scale=0.5, zero_point=0)
    b = m.tensor([4], scale=0.5, zero_point=0)
    y = m.tensor([4], scale=0.5, zero_point=0)
    m.op(schema.BuiltinOperator.ADD, [a, b], [y], schema.AddOptionsT(),
         schema.BuiltinOptions.AddOptions)
    z = m.tensor([4], scale=0.5, zero_point=0)
    m.op(schema.BuiltinOperator.SEGMENT_SUM, [y], [z])
    m.inputs, m.outputs = [a, b], [z]
    code, out, err = _opt(tmp_path, m.build())
    assert code == 1
    assert "operator 1 (SEGMENT_SUM): operator not supported" in err
    assert "Traceback" not in err


def test_corrupt_file_is_a_diagnostic(tmp_path):
    model, _ = CASES["ADD"](np.random.default_rng(0))
    code, out, err = _opt(tmp_path, model[:40])
    assert code == 1
    assert "m.tflite: not a readable TFLite flatbuffer" in err and "Traceback" not in err


def test_without_ai_edge_litert_one_line(tmp_path, monkeypatch):
    model, _ = CASES["ADD"](np.random.default_rng(0))
    monkeypatch.setitem(sys.modules, "ai_edge_litert", None)
    code, out, err = _opt(tmp_path, model)
    assert code == 1
    assert err.count("\n") == 1 and "pip install 'qcomp[litert]'" in err


def test_uint8_storage_is_spelled_ui8(tmp_path):
    """A UINT8 tensor's storage prints as the schema names it, `ui8` (not `u8`)."""
    m = Model()
    a = m.tensor([4], scale=0.5, zero_point=0)
    y = m.tensor([4], scale=0.5, zero_point=0)
    for t in (a, y):
        m.tensors[t].type = schema.TensorType.UINT8
        m.tensors[t].quantization.zeroPoint = [128]
    m.op(schema.BuiltinOperator.RESHAPE, [a], [y])
    m.inputs, m.outputs = [a], [y]
    code, out, err = _opt(tmp_path, m.build())
    assert code == 0, err
    assert "!quant.uniform<ui8:f32, 5.000000e-01:128>" in out and "<u8:" not in out, out
