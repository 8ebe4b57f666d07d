"""The op table against the spec itself: every operator of the LiteRT 8-bit
quantization spec's table (seed 003 in ../shared/seeds, read here) has a row, with
the spec's restriction (fixed output parameters, equal input/output parameters, the
weight's per-axis dimension); and each rule of rules.py has lit tests."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from qcomp.passes.litert.op_table import BY_NAME, TABLE, rows_for_onnx
from qcomp.passes.litert.rules import __doc__ as RULES_DOC

ROOT = Path(__file__).resolve().parents[3]
SEEDS = ROOT.parent / "shared" / "seeds"
LIT = ROOT / "tests" / "lit" / "passes" / "litert-verify-int8"


def _spec() -> dict[str, str]:
    """Operator name -> its section of the spec text, whitespace removed."""
    found = sorted(SEEDS.glob("003_*.txt")) if SEEDS.exists() else []
    if not found:
        pytest.skip(f"the LiteRT spec seed is not in {SEEDS}")
    text = "".join(found[0].read_text().split())
    body = text[text.index("int8quantizedoperatorspecifications"):text.index("References")]
    parts = re.split(r"([A-Z][A-Z0-9_]+)(?:\(Requantization\))?(?=Input)", body)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


def test_every_spec_operator_has_a_row():
    spec = _spec()
    assert len(spec) == 38
    assert sorted(set(spec) - set(BY_NAME)) == []


def test_restrictions_match_the_spec():
    for name, section in _spec().items():
        row = BY_NAME[name]
        fixed = re.search(r"restriction:\(scale,zero_point\)=\(([0-9.]+)/([0-9.]+),(-?\d+)\)",
                          section)
        same = "Inputandoutputsmustallhavesamescale/zero_point" in section
        if fixed:
            assert row.output == "fixed", name
            assert row.fixed == (float(fixed[1]) / float(fixed[2]), int(fixed[3])), name
        elif same:
            assert row.output == "same", name
        else:
            assert row.output in ("activation", "none"), name
        axis = re.search(r"\(Weight\):data_type:int8range:\[-127,127\]granularity:per-axis"
                         r"\(dim=(\d)\)restriction:zero_point=0", section)
        bias = "(Bias):data_type:int32" in section
        assert (axis is not None) == (row.weights is not None) == bias, name
        if axis:
            # the spec's dimension in TFLite's layouts (composites use them as is)
            assert int(axis[1]) == (3 if row.weights == "depthwise" else 0), name


def test_every_rule_has_failing_lit_tests():
    rules = re.findall(r"^    ([a-z0-9-]+)  ", RULES_DOC, re.M)
    assert len(rules) == 17
    text = "".join(p.read_text() for p in LIT.glob("*.mlir"))
    missing = [r for r in rules if f"[{r}]" not in text]
    # activation-zero-point fires in 16x8 mode (StableHLO refuses i8 zero points
    # outside [-128, 127] before the pass runs)
    assert missing == []


def test_onnx_names():
    assert [r.tflite for r in rows_for_onnx("Conv")] == ["CONV_2D", "DEPTHWISE_CONV_2D"]
    assert [r.tflite for r in rows_for_onnx("QLinearMatMul")] == ["FULLY_CONNECTED"]
    assert all(r.tflite for r in TABLE)
