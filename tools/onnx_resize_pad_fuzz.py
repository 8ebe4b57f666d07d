#!/usr/bin/env python3
"""Every differential test of Resize, Pad and ConvTranspose, unsampled (CI runs a sample).

    python3 tools/onnx_resize_pad_fuzz.py [pytest options]

Runs tests/importers/test_onnx_resize_pad.py with QCOMP_RESIZE_PAD_FULL=1: 200 hypothesis
examples per float-op test (against onnxruntime and ONNX's reference evaluator, and the
lowered program against the interpreter; Resize with antialias = 1 among them) and 100 per quantized test (quantize_static's
QDQ and QOperator models against onnxruntime, lowered and fused), printing how many
results were equal and how many one step apart.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    env = dict(os.environ, QCOMP_RESIZE_PAD_FULL="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    cmd = [sys.executable, "-m", "pytest", "-q", "-s", "-n0", "-p", "no:cacheprovider",
           str(ROOT / "tests" / "importers" / "test_onnx_resize_pad.py"), *argv]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
