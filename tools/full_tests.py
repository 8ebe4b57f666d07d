#!/usr/bin/env python3
"""The whole test suite with every sweep whole (CI runs a sample of each).

    python3 tools/full_tests.py [pytest options]      # e.g. tests/importers -x

Runs pytest with QCOMP_FULL=1 (`tests/sampling.py`: all property-test examples, every
model, every seed CI samples) and each older sweep's own variable at its full setting:
the ONNX and LiteRT zoos whole, 200 LiteRT seeds per operator, every conformance case on
XLA, every printed chunk against upstream, every ONNX node test through the CLI. Hours of
CPU; pass `-n auto` to use every core.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FULL_SETTINGS = {
    "QCOMP_FULL": "1",
    "QCOMP_ZOO": "all",
    "QCOMP_XLA_FULL": "1",
    "QCOMP_PRINT_FULL": "1",
    "QCOMP_RESIZE_PAD_FULL": "1",
    "QCOMP_ONNX_CLI_ALL": "1",
    "QCOMP_LITERT_SEEDS": "200",
    "QCOMP_ONNX_SEQUENCE_SEEDS": "100",
    "QCOMP_FLOAT_MATH_SEEDS": "50",
    "QCOMP_EXAMPLES": "100",
    "QCOMP_TFLITE_MUTANTS": "2000",
}
"""The environment of a whole run (a variable already set in the caller's wins)."""


def main(argv: list[str]) -> int:
    env = {**FULL_SETTINGS, **os.environ}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return subprocess.call([sys.executable, "-m", "pytest", "-q", *argv], cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
