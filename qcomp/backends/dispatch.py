"""`run(..., backend=numpy|xla|iree)`: the one place a backend is chosen."""


from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from qcomp.backends.compiled import BACKENDS
from qcomp.interpreter import DEFAULT_MAX_MEMORY, FunctionRun


def run(module: ModuleOp, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray] | None = None,
        semantics: str = "spec", entry: str | None = None, max_memory: int = DEFAULT_MAX_MEMORY,
        backend: str = "numpy", device: str = "cpu") -> list[FunctionRun]:
    """Run the module's entry function(s) on `backend` (see `qcomp.interpreter.run`).

    `max_memory` bounds the NumPy backend only; `device` (a PJRT device: `cpu`, `gpu`,
    `gpu:1`) is for `xla` only. What is prepared for the module is kept while it is
    unchanged (`qcomp.backends.compiled.run_cached`): a second call only runs (on
    xla, while the module is checked for changes).
    """
    from qcomp.backends.compiled import run_cached

    return run_cached(module, inputs, backend, semantics, entry, max_memory, device)


__all__ = ["BACKENDS", "run"]
