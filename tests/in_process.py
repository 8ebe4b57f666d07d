"""A console tool run in this process: `tool("qcomp-opt", *argv, stdin=b"...")` calls the
tool's `main(argv, stdin, stdout, stderr)` and returns what `subprocess.run(...,
capture_output=True)` would (returncode, stdout, stderr; bytes, or str with text=True).

For tests about what a tool reads, writes and returns; it saves a Python start-up and
qcomp's imports (about a second of CPU) per call. Tests about the process itself (exit
codes of the console script, start-up imports, signals, memory limits) run the script.
stdin is a text stream over the bytes with a `.buffer`, as the process's stdin is: the
tools read its bytes, so a file and stdin are decoded by the same code.
"""

from __future__ import annotations

import io
import subprocess
from typing import Any


def _main(name: str):
    if name == "qcomp-opt":
        from qcomp.tools.qcomp_opt import main
    elif name == "qcomp-run":
        from qcomp.tools.qcomp_run import main
    else:
        raise ValueError(f"no in-process entry point for {name!r}")
    return main


def tool(name: str, *argv: str, stdin: bytes = b"", text: bool = False
         ) -> subprocess.CompletedProcess[Any]:
    """`name argv...` with `stdin`, run in this process (see the module's docstring)."""
    in_ = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = _main(name)(list(argv), in_, out, err)
    if text:
        return subprocess.CompletedProcess([name, *argv], code, out.getvalue(), err.getvalue())
    return subprocess.CompletedProcess([name, *argv], code, out.getvalue().encode(),
                                       err.getvalue().encode())
