#!/usr/bin/env python3
"""`.tflite` import + `rescale=fixed-point` against LiteRT's reference kernels, all seeds.

    python3 tools/litert_differential.py [SEEDS] [pytest options]

Runs tests/importers/test_tflite_against_litert.py and test_tflite_16x8_against_litert.py
with QCOMP_LITERT_SEEDS=SEEDS (200 unless given; CI runs 3): random int8 models of each
supported operator (tests/importers/litert_cases.py, litert_cases_more.py,
litert_cases_int8.py, litert_cases_more2.py) and 16x8 ones (litert_cases_16x8.py,
litert_cases_more2.py's CASES_16X8), compared bit for bit with
LiteRT's BUILTIN_REF interpreter, and the optimised kernels' differences from it; and
test_tflite_float_against_litert.py (litert_cases_float.py, litert_cases_index.py: float /
int32 / bool math, index and window operators and the quantized SQRT, LOG, EXP, NEG and
DIV, float results within the ulps it states).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    seeds = argv.pop(0) if argv and argv[0].isdigit() else "200"
    env = dict(os.environ, QCOMP_LITERT_SEEDS=seeds)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           str(ROOT / "tests" / "importers" / "test_tflite_against_litert.py"),
           str(ROOT / "tests" / "importers" / "test_tflite_16x8_against_litert.py"),
           str(ROOT / "tests" / "importers" / "test_tflite_float_against_litert.py"), *argv]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
