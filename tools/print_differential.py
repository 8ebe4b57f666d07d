#!/usr/bin/env python3
"""qcomp-opt's printing against upstream MLIR on every conformance chunk (CI samples).

    python3 tools/print_differential.py [pytest options]

Runs tests/ir/test_print_against_upstream.py with QCOMP_PRINT_FULL=1: every `// -----`
chunk of ../shared/conformance/stablehlo-suite/testdata*/ that qcomp parses (CI takes
one file in 100 of testdata/, one in 25 of testdata_dynamic/), printed by qcomp-opt and
by the MLIR inside jaxlib, byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    env = dict(os.environ, QCOMP_PRINT_FULL="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           str(ROOT / "tests" / "ir" / "test_print_against_upstream.py"), *argv]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
