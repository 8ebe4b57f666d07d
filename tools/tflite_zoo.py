"""Run the LiteRT model zoo (tests/models/tflite/*.tflite, made by
tools/make_tflite_models.py) through qcomp and compare with LiteRT's reference kernels.

For each model: import and `--litert-verify-int8` (`qcomp-opt model.tflite
--litert-verify-int8`), lower with `stablehlo-legalize-quant-to-math{rescale=fixed-point}`,
run the lowered program in qcomp's interpreter (and on XLA with `--xla`) on N inputs —
the all-minimum and all-maximum inputs of the input type (-3 and 3 for float), then
seeded random ones — and compare every output with LiteRT's `BUILTIN_REF` resolver bit
for bit. Prints one row per
model: import / verify / lowered / exact inputs / max difference in output steps / time
per input (qcomp NumPy, qcomp XLA, LiteRT reference, LiteRT default with XNNPACK).

    python3 tools/tflite_zoo.py [--inputs 20] [--xla] [model ...]
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "models" / "tflite"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from markdown_table import print_header, print_row  # noqa: E402


def _opt(argv: list[str]) -> tuple[int, str]:
    from qcomp.tools.qcomp_opt import main

    out, err = io.StringIO(), io.StringIO()
    code = main(argv, io.StringIO(""), out, err)
    return code, (err.getvalue().strip().splitlines() or [""])[0]


def _litert(path: Path, resolver: str):
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    from tests.importers.tflite_models import reference_model

    # BUILTIN_REF does not register the newest version of a few ops (TILE 3): the same
    # kernel under the version it registers
    it = Interpreter(model_content=reference_model(path),
                     experimental_op_resolver_type=getattr(OpResolverType, resolver))
    it.allocate_tensors()
    return it


def _invoke(it, x: np.ndarray) -> list[np.ndarray]:
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


def _steps(a: np.ndarray, b: np.ndarray, scale: float) -> float:
    if np.issubdtype(a.dtype, np.integer):
        return float(np.max(np.abs(a.astype(np.int64) - b.astype(np.int64)), initial=0))
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)), initial=0)) \
        / (scale or 1.0)


def measure(path: Path, n: int, xla: bool) -> dict:
    from qcomp.interpreter import run
    from qcomp.registry import parse_module

    row: dict = {"model": path.stem}
    code, first = _opt([str(path)])
    row["import"] = "yes" if code == 0 else first
    if code:
        return row
    code, first = _opt([str(path), "--litert-verify-int8"])
    row["verify"] = "yes" if code == 0 else first
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "lowered.mlir"
        code, first = _opt([str(path), "--stablehlo-legalize-quant-to-math=rescale=fixed-point",
                            "-o", str(out)])
        row["lowered"] = "yes" if code == 0 else first
        if code:
            return row
        text = out.read_text()
    row["lowered"] = "yes" if "!quant" not in text else "quant types left"
    module = parse_module(text)
    ref, fast = _litert(path, "BUILTIN_REF"), _litert(path, "BUILTIN")
    detail = ref.get_input_details()[0]
    out_scale = ref.get_output_details()[0]["quantization"][0]
    exact, worst, t_np, t_xla, t_ref, t_fast = 0, 0.0, [], [], [], []
    compiled = None
    if xla:
        import qcomp

        compiled = qcomp.compile(module, backend="xla")
    from tests.importers.tflite_models import litert_inputs

    for x in litert_inputs(detail, n, seed=7):
        t0 = time.perf_counter()
        want = _invoke(ref, x)
        t_ref.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        _invoke(fast, x)
        t_fast.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        [r] = run(module, [x])
        t_np.append(time.perf_counter() - t0)
        if r.error is not None:
            row["run"] = str(r.error).splitlines()[0]
            return row
        got = r.results
        same = all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
        worst = max(worst, *(_steps(g, w, out_scale) for g, w in zip(got, want, strict=True)))
        if compiled is not None:
            t0 = time.perf_counter()
            [on_xla] = compiled.run([x])
            t_xla.append(time.perf_counter() - t0)
            same = same and all(np.array_equal(g, w) for g, w in
                                zip(on_xla.results, want, strict=True))
        exact += same
    row.update(inputs=n, exact=exact, max_steps=worst,
               numpy_ms=1e3 * min(t_np), ref_ms=1e3 * min(t_ref), xnnpack_ms=1e3 * min(t_fast))
    if t_xla:
        row["xla_ms"] = 1e3 * min(t_xla[1:] or t_xla)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", help="model names (default: every model in the zoo)")
    ap.add_argument("--inputs", type=int, default=20, help="inputs per model (default 20)")
    ap.add_argument("--xla", action="store_true", help="also run the lowered program on XLA")
    args = ap.parse_args()
    paths = [ZOO / f"{m}.tflite" for m in args.models] or sorted(ZOO.glob("*.tflite"))
    cols = ["model", "import", "verify", "lowered", "run", "inputs", "exact", "max_steps",
            "numpy_ms", "xla_ms", "ref_ms", "xnnpack_ms"]
    print_header(cols)
    for path in paths:
        row = measure(path, args.inputs, args.xla)
        print_row(row, cols)


if __name__ == "__main__":
    main()
