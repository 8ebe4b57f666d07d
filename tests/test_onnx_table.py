"""docs/onnx.md's op x form table is generated from the ONNX ops' declarations by
tools/gen_onnx_table.py, and must not go stale; it holds every op of onnxruntime's three
quantizer registries, and its cells follow the declarations."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytest.importorskip("onnxruntime")


def _tool():
    spec = importlib.util.spec_from_file_location("gen_onnx_table",
                                                  ROOT / "tools" / "gen_onnx_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _rows(text: str) -> dict[tuple[str, str], list[str]]:
    tool = _tool()
    table = text.split(tool.BEGIN, 1)[1].split(tool.END, 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[1] in ("QDQ", "QOperator", "dynamic"):
            rows[(cells[0], cells[1])] = cells[2:]
    return rows


def test_onnx_table_is_current():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_onnx_table.py"),
                           "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_registry_op_has_a_row_per_form():
    from onnxruntime.quantization import registry

    rows = _rows((ROOT / "docs" / "onnx.md").read_text())
    want = {(op, form) for form, name in (("QDQ", "QDQRegistry"),
                                          ("QOperator", "QLinearOpsRegistry"),
                                          ("dynamic", "IntegerOpsRegistry"))
            for op in getattr(registry, name)}
    assert set(rows) == want
    for cells in rows.values():  # each cell "yes", or a short named reason
        assert all(c == "yes" or c.startswith(("yes: ", "no: ", "kept: ", "n/a: "))
                   for c in cells[1:]), cells


def test_cells_follow_the_declarations():
    rows = _rows(_tool().render())
    assert rows[("TopK", "QDQ")] == ["DQ → TopK → Q", "yes", "yes", "yes",
                                     "kept: onnxruntime has no QDQ rule for it"]
    assert rows[("ArgMax", "QOperator")] == ["ArgMax on the 8-bit tensor", "yes", "yes", "yes",
                                             "n/a: no QDQ group"]
    assert rows[("LeakyRelu", "QOperator")] == [
        "com.microsoft QLinearLeakyRelu", "yes", "yes", "yes: unfused, then LeakyRelu's",
        "yes: unfused to DQ → LeakyRelu → Q"]
    assert rows[("GatherElements", "QDQ")][4] == \
        "yes: Q / DQ dropped, GatherElements on the integers"
    assert rows[("Conv", "dynamic")] == ["ConvInteger", "yes", "yes", "yes",
                                         "n/a: no QDQ group"]
    assert rows[("Gemm", "QDQ")][4] == "yes: QGemm"
    assert rows[("Relu", "QDQ")][4] == "yes: Relu removed when the Q's range clips"
    assert rows[("BatchNormalization", "QDQ")][4] == "kept: onnxruntime has no QDQ rule for it"
    assert rows[("Split", "QOperator")] == ["Split on the 8-bit tensor", "yes", "yes", "yes",
                                            "n/a: no QDQ group"]


def test_a_changed_declaration_changes_the_table(monkeypatch):
    """The generator reads the declarations: an op taken out of the dialect, a role
    declared differently, show in the rendered table."""
    from xdsl.ir import Dialect

    import qcomp.dialects.onnx as onnx_dialect
    from qcomp.dialects.onnx import core

    d = onnx_dialect.ONNX
    keep = [c for c in d.operations if getattr(core.facts(c), "op_type", None) != "CumSum"]
    monkeypatch.setattr(onnx_dialect, "ONNX", Dialect("onnx", keep, list(d.attributes)))
    rows = _rows(_tool().render())
    assert rows[("CumSum", "QDQ")][1:] == ["no: no onnx.CumSum"] * 4
