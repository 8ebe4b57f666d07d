"""`interpreter.probe` and `check.expect_serialized_eq`: a probe records its operand's
value under its `probe_id` each time it runs; the check compares a value with the
`iter`-th record of its `probe_id` (exactly, as `check.expect_eq`). The records live
with the run (upstream serializes them to `--probe-output-dir`)."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from qcomp.dialects import check as chk
from qcomp.dialects.interpreter import ProbeOp
from qcomp.interpreter.checks import judge, log_of
from qcomp.interpreter.errors import RunError


def records(interpreter: Interpreter) -> dict[str, list[np.ndarray]]:
    return interpreter.get_data(ProbeFunctions, "records", dict)


@register_impls
class ProbeFunctions(InterpreterFunctions):
    """`interpreter.probe` and the check that reads its records."""

    @impl(ProbeOp)
    def run_probe(self, interpreter: Interpreter, op: ProbeOp, args: tuple[Any, ...]):
        records(interpreter).setdefault(op.probe_id.data, []).append(np.array(args[0]))
        return (args[0],)

    @impl(chk.ExpectSerializedEqOp)
    def run_expect_serialized_eq(self, interpreter: Interpreter, op, args: tuple[Any, ...]):
        probe_id = op.probe_id.data
        k = op.iteration.value.data if op.iteration is not None else 0
        seen = records(interpreter).get(probe_id, [])
        if k >= len(seen):
            raise RunError(f"Failed to find serialized data for probe {probe_id}.")
        log_of(interpreter).append(judge(op, args[0], seen[k], tolerance=None))
        return ()
