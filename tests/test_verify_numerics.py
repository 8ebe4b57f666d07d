"""Translation validation: every lit test of the passes also passes `--verify-numerics`,
and the validator catches a pass that changes the numbers."""

from __future__ import annotations

import io
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from qcomp.tools.qcomp_opt import run
from tests.sampling import examples, rowwise_numpy_loops

LIT_PASSES = Path(__file__).resolve().parent / "lit" / "passes"
SAMPLES = f"--verify-numerics={examples(full=6, ci=3)}"
"""Random inputs per function (edge values drawn into each: storage min and max, the zero
point and its neighbours); 3 in CI, 6 with QCOMP_FULL=1."""


LOSSY = ("litert-quantize-weights",)
"""Passes that change the numbers by design (float to int8: within a stated error,
checked by their own tests), not by translation validation."""


def _first_qcomp_opt(path: Path) -> list[str] | None:
    """The qcomp-opt command of the file's first RUN line, or None for diagnostic tests
    and lossy passes."""
    text = path.read_text()
    m = re.search(r"//\s*RUN:\s*(.*)", text)
    if m is None:
        return None
    command = m.group(1).split("|")[0]
    argv = shlex.split(command)
    if not argv or argv[0] != "qcomp-opt" or any("verify-diagnostics" in a for a in argv):
        return None
    if any(name in a for a in argv for name in LOSSY):
        return None
    return [str(path) if a == "%s" else a for a in argv[1:]]


CASES = sorted(p for p in LIT_PASSES.rglob("*.mlir") if _first_qcomp_opt(p) is not None)


@pytest.fixture
def rowwise_loops():
    """The rowwise cases on NumPy loops in CI (`tests.sampling.rowwise_numpy_loops`)."""
    with rowwise_numpy_loops():
        yield


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lit_case_keeps_numerics(path: Path, rowwise_loops):
    argv = _first_qcomp_opt(path) + [SAMPLES]
    out, err = io.StringIO(), io.StringIO()
    code = run(argv, io.StringIO(), out, err)
    assert code == 0, err.getvalue()


def test_lit_cases_found():
    assert len(CASES) >= 15


# -- the validator must fail on a pass that changes the numbers -----------------------------

PROGRAM = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:3>>
  %a = stablehlo.abs %q : tensor<4x!quant.uniform<i8:f32, 0.5:3>>
  %d = stablehlo.uniform_dequantize %a : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4xf32>
  func.return %d : tensor<4xf32>
}
"""


def test_validator_names_the_pass_that_changed_results(tmp_path, monkeypatch):
    from qcomp.dialects import stablehlo
    from qcomp import registry

    class AbsToNegate(RewritePattern):
        def match_and_rewrite(self, op, rewriter: PatternRewriter):
            if isinstance(op, stablehlo.AbsOp):
                rewriter.replace(op, stablehlo.NegateOp.create(
                    operands=list(op.operands), result_types=[r.type for r in op.results]))

    @dataclass(frozen=True)
    class BreakAbs(ModulePass):
        name = "test-break-abs"

        def apply(self, ctx, op):
            PatternRewriteWalker(AbsToNegate()).rewrite_module(op)

    monkeypatch.setitem(registry.PASSES, "test-break-abs", lambda: BreakAbs)
    src = tmp_path / "p.mlir"
    src.write_text(PROGRAM)
    out, err = io.StringIO(), io.StringIO()
    code = run([str(src), "--stablehlo-legalize-quantized-op-to-qdq", "--test-break-abs",
                "--verify-numerics=8"], io.StringIO(), out, err)
    assert code == 1
    assert "--verify-numerics: pass 'test-break-abs' changed the results of @main" in err.getvalue()
    assert "stablehlo-legalize-quantized-op-to-qdq" not in err.getvalue()
    # without the broken pass the same run is clean
    code = run([str(src), "--stablehlo-legalize-quantized-op-to-qdq", "--verify-numerics=8"],
               io.StringIO(), io.StringIO(), err := io.StringIO())
    assert code == 0, err.getvalue()


def test_inputs_over_the_memory_budget_are_refused_before_drawing():
    import io

    from qcomp.tools.qcomp_opt import main

    big = "tensor<100000x100000xf32>"
    q = "tensor<100000x100000x!quant.uniform<i8:f32, 0.5>>"
    text = (f"func.func @big(%x: {big}) -> {q} {{\n"
            f"  %q = stablehlo.uniform_quantize %x : ({big}) -> {q}\n  return %q : {q}\n}}\n")
    out, err = io.StringIO(), io.StringIO()
    code = main(["-", "-p", "stablehlo-legalize-quant-to-math", "--verify-numerics"],
                stdin=io.StringIO(text), stdout=out, stderr=err)
    assert code == 1 and out.getvalue() == ""
    assert err.getvalue().splitlines()[0] == (
        "<stdin>:1:1: error: --verify-numerics: the arguments of @big need 37.3 GiB, over the "
        "memory limit of 4.0 GiB that qcomp-run also keeps (--max-memory); check this function "
        "with smaller shapes")


def test_a_function_that_cannot_run_is_reported_not_silently_passed():
    import io

    from qcomp.tools.qcomp_opt import main

    # the interpreter computes in f16/bf16/f32/f64 only: nothing can be compared for @q
    t, q = "tensor<4xf8E5M2>", "tensor<4x!quant.uniform<i8:f8E5M2, 2.0:1>>"
    text = (f"func.func @q(%x: {t}) -> {q} {{\n"
            f"  %0 = quant.qcast %x : {t} to {q}\n  return %0 : {q}\n}}\n")
    out, err = io.StringIO(), io.StringIO()
    code = main(["-", "--lower-quant-ops", "--verify-numerics"],
                stdin=io.StringIO(text), stdout=out, stderr=err)
    assert code == 0 and "stablehlo.divide" in out.getvalue()
    assert err.getvalue().splitlines()[0] == (
        "<stdin>:1:1: warning: --verify-numerics: @q does not run in the interpreter before "
        "the passes (unsupported expressed type f8E5M2); its numerics are not checked")


def test_nan_payloads_are_compared_where_the_contract_fixes_them():
    """A pass whose contract says nan_payloads (rowwise-legalize-to-stablehlo) must keep
    each NaN's bits; others only NaN where NaN was."""
    from qcomp.passes.rowwise_legalize_to_stablehlo import RowwiseLegalizeToStablehloPass
    from qcomp.tools.verify_numerics import _compare, contract_of

    assert contract_of(RowwiseLegalizeToStablehloPass()).nan_payloads
    before = [np.array([1.0, 0x7FC00001], np.float32)]
    before[0][1:] = np.array([0x7FC00001], np.uint32).view(np.float32)
    after = [before[0].copy()]
    after[0][1:] = np.array([0x7FC00002], np.uint32).view(np.float32)
    assert _compare(before, after, 0, 0.0) is None
    what, k = _compare(before, after, 0, 0.0, nan_payloads=True)
    assert k == 0 and what == ("result 0 at index [1]: nan (0x7fc00001) before, "
                               "nan (0x7fc00002) after (1 of 2 elements differ)")
    assert _compare(before, [before[0].copy()], 0, 0.0, nan_payloads=True) is None


def test_batched_results_compare_block_by_block_only_under_a_batched_contract():
    from qcomp.tools.verify_numerics import _compare

    before = [np.array([[1, 2]], np.int32)]
    same = [np.array([[1, 2], [1, 2], [1, 2]], np.int32)]
    one_off = [np.array([[1, 2], [1, 3], [1, 2]], np.int32)]
    assert _compare(before, same, 0, 0.0, batched=True) is None
    assert _compare(before, one_off, 0, 0.0, batched=True) is not None
    assert _compare(before, same, 0, 0.0) == ("result 0: shape (1, 2) before, (3, 2) after", 0)


def test_a_mismatch_inside_a_tuple_names_the_result_and_its_element():
    """Tuple results are compared leaf by leaf; the report names the function's result
    (whose producer is the op blamed) and the element path inside it."""
    from qcomp.tools.verify_numerics import _compare
    x, y = np.array([1, 2], np.int8), np.array([3.0], np.float32)
    before = [x, (x, (y, x))]
    after = [x, (x, (y + 1, x))]
    assert _compare(before, after, 0, 0.0) == (
        "result 1 (tuple element [1][0]) at index [0]: 3.0 before, 4.0 after "
        "(1 of 1 elements differ)", 1)
    assert _compare(before, [x, (x, y, x)], 0, 0.0) == (
        "the results' tuple structure changed", None)
