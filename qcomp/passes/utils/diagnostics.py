"""How qcomp's passes report an input they cannot transform.

A pass raises `PassDiagnostic(op, message)`: an xDSL `PassFailedException` that also
carries the offending operation, so that a driver can print the message at the
operation's location (and `--verify-diagnostics` can match it) instead of a traceback.
A checking pass that finds several problems raises `PassDiagnostics([(op, message),
...])`, and the driver prints every one (as MLIR's verifiers emit every error before
the pass fails). Remarks (`remark(op, message)`) go to the `Remarks` a driver collects
them in around the pass run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

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


class Remarks:
    """Where a pass run's remarks go (MLIR's diagnostic handler for `remark`s): a driver
    makes one, runs the passes inside `with remarks.collecting():`, and reads `items`
    (op, message) in the order they were emitted. Outside such a block nobody listens
    and `remark` keeps nothing, so code embedding the passes holds no remarks it did
    not ask for."""

    def __init__(self) -> None:
        self.items: list[tuple[Operation, str]] = []

    @contextmanager
    def collecting(self) -> Iterator[Remarks]:
        """Remarks emitted in this block (in this thread or task) go to `items`."""
        token = _COLLECTOR.set(self)
        try:
            yield self
        finally:
            _COLLECTOR.reset(token)

    def take(self) -> list[tuple[Operation, str]]:
        """The remarks collected so far, removed from `items`."""
        out, self.items = self.items, []
        return out


_COLLECTOR: ContextVar[Remarks | None] = ContextVar("qcomp_remarks", default=None)


def remark(op: Operation, message: str) -> None:
    """A remark about `op` (MLIR's `op->emitRemark`): the pass goes on; it goes to the
    `Remarks` collecting around the pass run (qcomp-opt prints it as
    `file:line:col: remark: message`, `expected-remark` matches it), and nowhere when
    none is."""
    collector = _COLLECTOR.get()
    if collector is not None:
        collector.items.append((op, message))
