"""The `check` dialect's interpreter functions: each check logs its verdict
(`checks.judge_check`) and never stops the run."""

from __future__ import annotations

from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import check as chk
from qcomp.interpreter.checks import judge_check, log_of


@register_impls
class CheckFunctions(InterpreterFunctions):
    """`check.expect_*` ops: they log results and never stop the run."""

    def _check(self, interpreter: Interpreter, op, args):
        log_of(interpreter).append(judge_check(op, args))
        return ()

    run_expect_eq = impl(chk.ExpectEqOp)(_check)
    run_expect_eq_const = impl(chk.ExpectEqConstOp)(_check)
    run_expect_almost_eq = impl(chk.ExpectAlmostEqOp)(_check)
    run_expect_almost_eq_const = impl(chk.ExpectAlmostEqConstOp)(_check)
    run_expect_close = impl(chk.ExpectCloseOp)(_check)
    # check.expect_serialized_eq: probe_functions.ProbeFunctions (it reads the probes)
