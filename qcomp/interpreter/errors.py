"""Errors the interpreter reports as diagnostics (never as tracebacks)."""

from __future__ import annotations

from xdsl.ir import Operation


class RunError(Exception):
    """A problem with the program being run (unsupported op or type, bad shape, ...).

    `op` is the operation at fault when known; the tools print its location.
    """

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.message = message
        self.op = op


class MemoryLimitError(RunError):
    """An op would allocate more than the run's memory budget."""
