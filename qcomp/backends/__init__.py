"""Execution backends: where a module runs.

    from qcomp.backends import run
    runs = run(module, {"arg0": x}, semantics="spec", backend="xla")  # list[FunctionRun]

- `numpy` (default): `qcomp.interpreter`, the reference;
- `xla`: the program lowered by qcomp's passes, compiled by XLA through jaxlib's PJRT
  client (`qcomp.backends.xla`; needs `pip install 'qcomp[xla]'`);
- `iree`: the same lowered program compiled by IREE for the host CPU
  (`qcomp.backends.iree`; needs `pip install 'qcomp[iree]'`).

`qcomp.interpreter.run` stays NumPy-only: the interpreter is below the backends in the
layer order (docs/design.md), so the `backend=` switch lives here.
"""

from qcomp.backends.dispatch import BACKENDS, run

__all__ = ["BACKENDS", "run"]
