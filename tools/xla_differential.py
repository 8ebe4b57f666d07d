#!/usr/bin/env python3
"""Every differential test of the xla backend, unsampled (CI runs a sample).

    python3 tools/xla_differential.py [pytest options]

Runs tests/backends/ with QCOMP_XLA_FULL=1: every conformance case that qcomp-run
passes (../shared/conformance/stablehlo/ and stablehlo-suite/interpret/) under both
semantics, and 30 hypothesis examples per differential test instead of 3. About 5 CPU
minutes here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    env = dict(os.environ, QCOMP_XLA_FULL="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "tests" / "backends"),
           *argv]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
