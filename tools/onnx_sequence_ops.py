#!/usr/bin/env python3
"""LSTM, com.microsoft Attention / EmbedLayerNormalization and their quantized forms
(QAttention, QEmbedLayerNormalization, DynamicQuantizeLSTM) against onnxruntime, all seeds.

    python3 tools/onnx_sequence_ops.py [SEEDS] [pytest options]

Runs tests/importers/test_onnx_lstm.py and test_onnx_sequence_contrib.py with
QCOMP_ONNX_SEQUENCE_SEEDS=SEEDS (100 unless given; CI runs 4 and 3): random one-op models
and what onnxruntime's quantizer makes of them, against onnxruntime's unoptimized
session and (float LSTM) onnx's reference evaluator, and the legalized program against
the interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    seeds = argv.pop(0) if argv and argv[0].isdigit() else "100"
    env = dict(os.environ, QCOMP_ONNX_SEQUENCE_SEEDS=seeds)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    tests = ROOT / "tests" / "importers"
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           str(tests / "test_onnx_lstm.py"), str(tests / "test_onnx_sequence_contrib.py"), *argv]
    return subprocess.call(cmd, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
