"""Differential tests: the xla backend (qcomp's lowered program compiled by XLA through
jaxlib) against qcomp's interpreter, the reference.

For each program and each semantics, two comparisons:
1. the program itself: `qcomp.interpreter.run` and `qcomp.backends.xla.run` give the
   same results and the same check verdicts;
2. the lowered program XLA compiles (checks as results, constants as arguments):
   the interpreter and XLA give the same values for every result, check operands
   included (`xla_compare.compare_lowered`).
Integers must agree bit for bit. Floats must agree bit for bit unless the program uses
an op that XLA computes differently (ops declaring `XlaInexact`, with the reason); then
integers may move one step and floats one storage step of the program's largest scale
(a quantized value next to a rounding tie flips), or `xla_compare.FLOAT_ULPS` ulp
(`xla_compare.tolerance_for`). Known departures are in `DEPARTURES`, with the reason.

Programs: every conformance case that qcomp-run passes — `../shared/conformance/
stablehlo/` (216 cases) and `stablehlo-suite/interpret/` — and the hypothesis programs
of `tests/interpreter/test_differential_jax.py`. CI runs a sample (every `STRIDE`-th
case, `EXAMPLES` hypothesis examples per test); `python3 tools/xla_differential.py`
runs them all (QCOMP_XLA_FULL=1). A program XLA rejects fails its test with the pass
that produced it (`xla.blame`).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from qcomp.backends import xla, xla_compare
from qcomp.interpreter import run
from qcomp.interpreter.runner import _inputs_for
from qcomp.registry import parse_module

pytestmark = pytest.mark.skipif(not xla.is_available(),
                                reason="jax/jaxlib not installed (pip install 'qcomp[xla]')")

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "conformance"
SPLIT = re.compile(r"^// -----[^\n]*\n?", re.MULTILINE)
FULL = os.environ.get("QCOMP_XLA_FULL") == "1"
STRIDE = 1 if FULL else 10
EXAMPLES = 30 if FULL else 2
SEMANTICS = ("spec", "stablehlo")

# (file#case, semantics or None for both) -> why XLA's answer differs from the interpreter's
DEPARTURES = {
    **{(c, None): "XLA flushes subnormal floats to zero (FTZ/DAZ on its threads)"
       for c in ("ceil_qi8.mlir#0", "ceil_qi8.mlir#3", "floor_qi8.mlir#0", "floor_qi8.mlir#3",
                 "subtract_qi8.mlir#10", "subtract_qi8.mlir#13", "floor.mlir#0", "floor.mlir#2",
                 "floor.mlir#3", "subtract.mlir#10", "subtract.mlir#12", "subtract.mlir#13")},
    ("bitcast_convert.mlir#2", None): "XLA's pred is one byte: its f64 -> i1 bitcast gives 8 "
                                      "elements, the spec 64 (one per bit)",
    **{(c, None): "XLA orders complex numbers its own way in maximum / minimum; upstream's "
                  "interpreter compares the real parts, then the imaginary ones"
       for c in ("maximum.mlir#15", "maximum.mlir#16", "minimum.mlir#15", "minimum.mlir#16")},
    **{(c, None): "XLA's blocked triangular solve: cancellation leaves 3e-8 where the "
                  "substitution gives 0, complex steps differ in the last bits"
       for c in ("triangular_solve.mlir#23", "triangular_solve.mlir#24",
                 "triangular_solve.mlir#25")},
}
REJECTED = {
    "cbrt.mlir#1": "XLA has no complex cbrt",
    **{f"probe.mlir#{i}": "interpreter.probe is the reference interpreter's" for i in range(1, 9)},
    "bitcast_convert.mlir#0": "XLA's pred is one byte: it refuses the i1 -> i64 bitcast of 64 "
                              "elements",
    "dynamic_conv.mlir#0": "XLA cannot translate stablehlo.dynamic_conv",
}


def _tolerance(module, lowered) -> dict:
    """Exact, unless the lowered program (`lowered`: the text XLA compiled, parsed) uses
    an op XLA computes differently (ops declaring `XlaInexact`, with the reasons)."""
    if os.environ.get("STRICT"):
        return {}
    return xla_compare.tolerance_for(module, lowered)


def compare(module, inputs, semantics: str, name: str = "program", ref=None) -> list[str]:
    """Differences between the interpreter and XLA on `module` (see module docstring);
    `ref`: the interpreter's runs of `module` on `inputs`, when the caller has them."""
    if ref is None:
        ref = run(module, inputs, semantics=semantics)
    fns = xla.compiled(module, semantics)
    problems = []
    for r, fn in zip(ref, fns):
        if fn.error is not None:
            problems.append(f"@{fn.name}: XLA: {fn.error.message}")
            continue
        args = _inputs_for(fn.function, inputs)
        got = fn.run(args)
        if (r.error is None) != (got.error is None):
            problems.append(f"@{fn.name}: interpreter error {r.error and r.error.message}, "
                            f"XLA error {got.error and got.error.message}")
            continue
        lowered = fn.prepared  # the program XLA compiled, as IR (fn.text printed from it)
        tol = _tolerance(module, lowered)
        problems += [f"@{fn.name} results: {d}" for d in xla_compare.compare_outputs(r.results, got.results, **tol)]
        if [c.passed for c in r.checks] != [c.passed for c in got.checks]:
            problems.append(f"@{fn.name} checks: interpreter {[c.passed for c in r.checks]}, "
                            f"XLA {[(c.passed, c.mismatches[:2]) for c in got.checks]}")
        problems += [f"@{fn.name} lowered: {d}" for d in
                     xla_compare.compare_lowered(fn, args, semantics, tol)]
    return problems


# -- conformance ------------------------------------------------------------------------

def _cases(folder: Path, pattern: str = "*.mlir") -> list[tuple[str, str]]:
    if not folder.is_dir():
        return []
    out = []
    for f in sorted(folder.glob(pattern)):
        for i, chunk in enumerate(SPLIT.split(f.read_text())):
            if "func.func" in chunk:
                out.append((f"{f.name}#{i}", chunk))
    return out


QUANTIZED = _cases(SHARED / "stablehlo" / "testdata_quantized") + _cases(SHARED / "stablehlo" / "interpret")
SUITE = _cases(SHARED / "stablehlo-suite" / "interpret")


@lru_cache(maxsize=None)
def _module(chunk: str):
    return parse_module(chunk)


def _interpreter_runs(chunk: str, semantics: str):
    """The interpreter's runs of a case when each passes its checks (the reference
    `compare` takes), else None."""
    try:
        runs = run(_module(chunk), semantics=semantics)
    except Exception:  # noqa: BLE001 - ops qcomp does not define yet, inputs it needs
        return None
    return runs if runs and all(r.passed and r.checks for r in runs) else None


def _sample(cases, offset: int):
    return [c for i, c in enumerate(cases) if (i + offset) % STRIDE == 0]


def _params(cases):
    return [pytest.param(name, chunk, sem, id=f"{name}-{sem}")
            for k, sem in enumerate(SEMANTICS) for name, chunk in _sample(cases, k * 3)]


def _check_case(name: str, chunk: str, semantics: str):
    ref = _interpreter_runs(chunk, semantics)
    if ref is None:
        pytest.skip("qcomp-run does not pass this case (the interpreter's op coverage)")
    why = DEPARTURES.get((name, semantics)) or DEPARTURES.get((name, None))
    rejected = REJECTED.get(name) or (
        "XLA has no interpreter.run_parallel" if "interpreter.run_parallel" in chunk else None)
    if rejected is not None:
        fns = xla.compiled(_module(chunk), semantics)
        assert any(fn.error is not None for fn in fns), f"XLA now accepts it ({rejected})"
        return
    problems = compare(_module(chunk), None, semantics, name, ref)
    if why is not None:
        assert problems, f"documented departure no longer seen: {why}"
        return
    assert not problems, "\n".join(problems)


@pytest.mark.skipif(not QUANTIZED, reason=f"conformance data not found at {SHARED / 'stablehlo'}")
@pytest.mark.parametrize("name,chunk,semantics", _params(QUANTIZED))
def test_conformance_quantized(name, chunk, semantics):
    _check_case(name, chunk, semantics)


@pytest.mark.skipif(not SUITE, reason=f"conformance data not found at {SHARED / 'stablehlo-suite'}")
@pytest.mark.parametrize("name,chunk,semantics", _params(SUITE))
def test_conformance_suite(name, chunk, semantics):
    _check_case(name, chunk, semantics)


@pytest.mark.skipif(not QUANTIZED, reason=f"conformance data not found at {SHARED / 'stablehlo'}")
def test_conformance_counts():
    assert len(QUANTIZED) == 216
    assert len(_params(QUANTIZED)) >= 2 * (216 // STRIDE)


# -- hypothesis programs -----------------------------------------------------------------

from tests.interpreter import test_differential_jax as diff  # noqa: E402  (strategies, builders)

HYPOTHESIS_TESTS = [n for n in dir(diff) if n.startswith("test_")]


def _xla_assert_same(src: str, args: list[np.ndarray]) -> None:
    if re.search(r"reduce_precision .*m0 :", src):
        # test_reduce_precision_nan_without_mantissa: a documented departure
        args = [np.where(np.isnan(a), np.float32(1.5), a) for a in args]
    module = parse_module(src)
    problems = [f"[{sem}] {p}" for sem in SEMANTICS for p in compare(module, args, sem)]
    assert not problems, f"\n{src}\nargs={args}\n" + "\n".join(problems)


@pytest.mark.parametrize("test_name", HYPOTHESIS_TESTS)
def test_hypothesis_programs(test_name, monkeypatch):
    from hypothesis import given, settings
    from hypothesis import strategies as st

    inner = getattr(diff, test_name).hypothesis.inner_test
    monkeypatch.setattr(diff, "assert_same", _xla_assert_same)
    given(st.data())(settings(diff.SETTINGS, max_examples=EXAMPLES)(inner))()


def test_hypothesis_tests_found():
    assert len(HYPOTHESIS_TESTS) >= 11


def test_reduce_precision_nan_without_mantissa():
    """Departure: reduce_precision to a format with no mantissa bits keeps NaN in XLA;
    upstream's reference interpreter (and qcomp's) rounds it to infinity."""
    src = ("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
           "  %r = stablehlo.reduce_precision %x, format = e1m0 : tensor<2xf32>\n"
           "  func.return %r : tensor<2xf32>\n}")
    args = [np.array([np.nan, 1.0], np.float32)]
    (ref,) = run(parse_module(src), args)
    (got,) = xla.run(parse_module(src), args)
    assert np.isinf(ref.results[0][0]) and np.isnan(got.results[0][0])
    assert ref.results[0][1] == got.results[0][1]
