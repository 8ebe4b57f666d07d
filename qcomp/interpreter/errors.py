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


def fmt_bytes(n: int) -> str:
    """`1.5 GiB`, `12.0 KiB`, `100 B` (memory-limit messages)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} B"
