"""Run the ONNX model zoo (tests/models/onnx/*.onnx, made by tools/make_onnx_models.py)
through qcomp and compare with onnxruntime's unoptimized session.

For each model × mode: import, lower with the documented pipeline (`--onnx-unfuse-qdq`
first for QOperator / dynamic / MatMulNBits models), what is left (`onnx.` ops, `!quant`),
run the lowered program in qcomp's interpreter (and on XLA with `--xla`) on N seeded
inputs, the largest difference from onnxruntime (`steps` of the output's
DequantizeLinear scale, else `abs`), and the time per inference (qcomp NumPy, XLA,
onnxruntime unoptimized and default). Prints a markdown table (docs/onnx.md, "Model zoo").

    python3 tools/onnx_zoo.py [--inputs 4] [--xla] [model-name-prefix ...]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from markdown_table import print_header, print_row

from tests.importers.onnx_zoo import measure, models

COLS = ["model", "import", "lowered", "left", "run", "exact", "unit", "max_diff", "xla",
        "xla_diff", "numpy_ms", "xla_ms", "ort_ms", "ort_opt_ms"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", help="model name prefixes (default: the whole zoo)")
    ap.add_argument("--inputs", type=int, default=4, help="inputs per model (default 4)")
    ap.add_argument("--xla", action="store_true", help="also run the lowered program on XLA")
    args = ap.parse_args()
    paths = [p for p in models() if not args.models
             or any(p.stem.startswith(m) for m in args.models)]
    cols = [c for c in COLS if args.xla or not c.startswith("xla")]
    print_header(cols)
    for path in paths:
        row = measure(path, args.inputs, args.xla)
        if "exact" in row:
            row["exact"] = f"{row['exact']}/{row['inputs']}"
        print_row(row, cols)


if __name__ == "__main__":
    main()
