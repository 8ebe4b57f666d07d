"""Run ONNX's node tests of the quantization and cast ops through qcomp (import, interpret,
compare bit for bit) and print the count:

    python tools/onnx_node_tests.py          # in-process: import, interpret
    python tools/onnx_node_tests.py --cli    # every case through the command line:
                                             # qcomp-opt model.onnx, qcomp-run --inputs
                                             # x.npz --output y.npz (CI runs a sample)

The same set as tests/importers/test_onnx_node_tests.py (that file lists the expected
failures with their reasons)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

if __name__ == "__main__":
    args = sys.argv[1:]
    test = "tests/importers/test_onnx_node_tests.py"
    env = dict(os.environ)
    if "--cli" in args:
        args.remove("--cli")
        test = "tests/importers/test_onnx_node_tests_cli.py"
        env["QCOMP_ONNX_CLI_ALL"] = "1"
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                              "-rx", str(ROOT / test), *args], cwd=ROOT, env=env))
