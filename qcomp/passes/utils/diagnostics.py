"""How qcomp's passes report an input they cannot transform.

A pass raises `PassDiagnostic(op, message)`: an xDSL `PassFailedException` that also
carries the offending operation, so that a driver can print the message at the
operation's location (and `--verify-diagnostics` can match it) instead of a traceback.
A checking pass that finds several problems raises `PassDiagnostics([(op, message),
...])`, and the driver prints every one (as MLIR's verifiers emit every error before
the pass fails).
"""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException


class PassDiagnostic(PassFailedException):
    """A pass error attached to the operation it is about."""

    def __init__(self, op: Operation, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


def short_name(op: Operation) -> str:
    """The op's name without its dialect (`stablehlo.dot_general` -> `dot_general`)."""
    return op.name.removeprefix(f"{op.dialect_name()}.")


class PassDiagnostics(PassDiagnostic):
    """Several pass errors, each attached to its operation (`items`, in order); the first
    is also this exception's own `op` and `message`."""

    def __init__(self, items: list[tuple[Operation, str]]):
        if not items:
            raise ValueError("PassDiagnostics needs at least one diagnostic")
        super().__init__(items[0][0], items[0][1])
        self.items = list(items)
_REMARKS: list[tuple[Operation, str]] = []


def remark(op: Operation, message: str) -> None:
    """A remark about `op` (MLIR's `op->emitRemark`): the pass goes on; qcomp-opt prints
    it as `file:line:col: remark: message` (`expected-remark` matches it)."""
    _REMARKS.append((op, message))


def take_remarks() -> list[tuple[Operation, str]]:
    """The remarks emitted since the last call (the driver drains them after each pass)."""
    out = list(_REMARKS)
    _REMARKS.clear()
    return out
