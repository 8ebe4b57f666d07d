"""Every quantized case of StableHLO's conformance data still passes its own checks
after stablehlo-legalize-quant-to-math, in each `rescale` mode.

The cases (../shared/conformance/stablehlo: 126 files of testdata_quantized plus
interpret/quantized_ops.mlir) compare against values upstream computed, with
`check.expect_*` ops; the lowered programs have no quantized type left, so qcomp's
interpreter runs them as plain integer/float programs. Skipped, saying why, when
../shared is absent.
"""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from qcomp.registry import parse_module
from qcomp.interpreter import run
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
from qcomp.registry import make_context

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "stablehlo"
FILES = (sorted((SHARED / "testdata_quantized").glob("*.mlir"))
         + [SHARED / "interpret" / "quantized_ops.mlir"]) if SHARED.is_dir() else []


def _cases(path: Path) -> list[str]:
    return [c for c in path.read_text().split("// -----") if "func.func" in c and "!quant" in c]


@functools.cache
def _parsed() -> tuple:
    """(file name, context, module) of every case, parsed once per session; each
    test lowers clones, so the three rescale modes share one parse."""
    out = []
    for path in FILES:
        for case in _cases(path):
            ctx = make_context()
            out.append((path.name, ctx, parse_module(case, ctx)))
    return tuple(out)


@pytest.mark.skipif(not FILES, reason=f"conformance data not found at {SHARED}")
@pytest.mark.parametrize("rescale", ["float", "fixed-point", "stablehlo"])
def test_conformance_cases_pass_after_lowering(rescale):
    failures = []
    count = 0
    parsed = _parsed()
    assert {name for name, _, _ in parsed} == {p.name for p in FILES}  # every file has cases
    for name, ctx, original in parsed:
        module = original.clone()
        LegalizeQuantToMathPass(rescale=rescale).apply(ctx, module)
        module.verify()
        for fr in run(module, None, semantics="spec"):
            count += 1
            if not fr.passed:
                failures.append(f"{name}:{fr.name}: {fr.error or 'check failed'}")
    assert count >= 131
    assert not failures, "\n".join(failures[:20])
