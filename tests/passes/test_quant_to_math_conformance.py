"""Every quantized case of StableHLO's conformance data still passes its own checks
after stablehlo-legalize-quant-to-math, in each `rescale` mode.

The cases (../shared/conformance/stablehlo: 126 files of testdata_quantized plus
interpret/quantized_ops.mlir) compare against values upstream computed, with
`check.expect_*` ops; the lowered programs have no quantized type left, so qcomp's
interpreter runs them as plain integer/float programs. Skipped, saying why, when
../shared is absent.

`rescale=fixed-point` is TFLite's integer-only arithmetic: its double rounding
(SaturatingRoundingDoublingHighMul, then RoundingDivideByPOT) moves some elements one
storage step from the spec's single rounding, so a case that fails its exact check
there must still agree with the unlowered program (spec semantics) within one step of
its result scale — the pass's stated numerics contract.
"""

from __future__ import annotations

import functools
import re
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
            if fr.passed:
                continue
            if rescale == "fixed-point" and fr.error is None and _within_one_step(original, fr):
                continue
            failures.append(f"{name}:{fr.name}: {fr.error or 'check failed'}")
    assert count >= 131
    assert not failures, "\n".join(failures[:20])


_CHECK_EQ = re.compile(r"(%[\w.]+) = stablehlo\.custom_call @check\.eq\((%[\w.]+), (%[\w.]+)\)"
                       r" : \(([^,]+), [^)]+\) -> tensor<i1>")


def _within_one_step(original, lowered_run) -> bool:
    """The case's `check.eq` of expected and actual values, made tolerant by one step
    of the largest result scale in the case (`check.expect_almost_eq`), passes on the
    lowered program."""
    from qcomp.ir import print_module

    text = print_module(original)
    scales = [float(v) for v in re.findall(r"!quant\.uniform<[^,>]*:f32, ([0-9.eE+-]+)", text)]
    if not scales or not _CHECK_EQ.search(text):
        return False
    step = max(scales) * (1 + 1e-5)  # one step, as f32 differences of f32 values
    tolerant = _CHECK_EQ.sub(
        lambda m: (f"check.expect_almost_eq {m[3]}, {m[2]}, tolerance = {step!r} : {m[4]}\n"
                   f"    {m[1]} = stablehlo.constant dense<true> : tensor<i1>"), text)
    ctx = make_context()
    module = parse_module(tolerant, ctx)
    LegalizeQuantToMathPass(rescale="fixed-point").apply(ctx, module)
    return all(fr.passed for fr in run(module, None, semantics="spec")
               if fr.name == lowered_run.name)
