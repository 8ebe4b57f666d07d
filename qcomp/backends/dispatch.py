"""`run(..., backend=numpy|xla)`: the one place a backend is chosen."""


from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from qcomp.interpreter import DEFAULT_MAX_MEMORY, FunctionRun, RunError

BACKENDS = ("numpy", "xla")


def run(module: ModuleOp, inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray] | None = None,
        semantics: str = "spec", entry: str | None = None, max_memory: int = DEFAULT_MAX_MEMORY,
        backend: str = "numpy", device: str = "cpu") -> list[FunctionRun]:
    """Run the module's entry function(s) on `backend` (see `qcomp.interpreter.run`).

    `max_memory` bounds the NumPy backend only; `device` (a PJRT device: `cpu`, `gpu`,
    `gpu:1`) is for `xla` only.
    """
    if backend == "numpy":
        if device != "cpu":
            raise RunError(f"the numpy backend runs on the cpu, not on '{device}'")
        from qcomp.interpreter import run as run_numpy

        return run_numpy(module, inputs, semantics=semantics, entry=entry, max_memory=max_memory)
    if backend == "xla":
        from qcomp.backends import xla

        return xla.run(module, inputs, semantics=semantics, entry=entry, device=device)
    raise RunError(f"unknown backend '{backend}' (one of {', '.join(BACKENDS)})")


__all__ = ["BACKENDS", "run"]
