"""Run ONNX's node tests of the quantization and cast ops through qcomp (import, interpret,
compare bit for bit) and print the count:

    python tools/onnx_node_tests.py

The same set as tests/importers/test_onnx_node_tests.py (that file lists the expected
failures with their reasons)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-rx", str(ROOT / "tests/importers/test_onnx_node_tests.py"),
                              *sys.argv[1:]], cwd=ROOT))
