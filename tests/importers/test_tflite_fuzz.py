"""A sample of the `.tflite` structure fuzz (`tests/importers/tflite_mutants.py`): every
mutant imports (and its printed module parses back) or is one diagnostic line naming
what is wrong, never an internal error. `python3 tools/tflite_fuzz.py` runs 10,000."""

from __future__ import annotations

import os

import pytest

pytest.importorskip("ai_edge_litert.schema_py_generated")

from tests.importers.tflite_mutants import judge, mutant

COUNT = int(os.environ.get("QCOMP_TFLITE_MUTANTS", "120"))


def test_mutants_import_or_are_one_diagnostic_line():
    verdicts: dict[str, int] = {}
    for seed in range(COUNT):
        model = mutant(seed)
        if model is None:
            continue
        v = judge(model)
        verdicts[v] = verdicts.get(v, 0) + 1
    bad = {v: n for v, n in verdicts.items() if v not in ("ok", "diagnostic")}
    assert not bad, bad
    assert verdicts.get("ok", 0) > 0 and verdicts.get("diagnostic", 0) > 0
