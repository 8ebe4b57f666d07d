"""What a run writes outside its results: `interpreter.print`'s text and
`interpreter.probe`'s files (`probe_functions` writes them), shared by the processes
of a grid."""

from __future__ import annotations

import itertools
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

from qcomp.interpreter.errors import RunError

INDEX_FILE = "index.csv"


@dataclass
class RunOutput:
    """What a run writes outside its results, shared by the processes of a grid."""

    probe_dir: str | None = None
    printed: list[str] = field(default_factory=list)
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _lock: Any = field(default_factory=threading.Lock)
    _names: dict = field(default_factory=dict)

    def start(self) -> None:
        """A run of the module begins: upstream removes the previous index file."""
        if self.probe_dir:
            try:
                os.remove(os.path.join(self.probe_dir, INDEX_FILE))
            except FileNotFoundError:
                pass
            except OSError:
                raise RunError("Failed to remove existing instrumentation metadata file.") \
                    from None

    def write(self, text: str) -> None:
        with self._lock:
            self.printed.append(text)

    def names_of(self, module: Operation):
        from qcomp.ir.ssa_names import SSANames

        with self._lock:
            if id(module) not in self._names:
                self._names[id(module)] = SSANames.of(module)
            return self._names[id(module)]


def output_of(interpreter: Interpreter) -> RunOutput:
    out = getattr(interpreter, "run_output", None)
    if out is None:
        out = interpreter.run_output = RunOutput()  # type: ignore[attr-defined]
    return out
