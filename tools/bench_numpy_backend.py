"""The NumPy backend on real models, this checkout against a baseline checkout, the two
interleaved in one run: `qcomp.compile(module, backend="numpy").run` on the int8
MobileNetV2 of the LiteRT zoo (lowered `rescale=fixed-point`; LiteRT's reference
kernels timed in the same child, the ratio printed) and on ONNX zoo models (lowered as
`tools/onnx_zoo.py` does). CPU time of one run, best of the repeats and rounds.
Results are checked: MobileNetV2 bit for bit LiteRT's, and every model's results bit
for bit the baseline's.

    python3 tools/bench_numpy_backend.py --baseline /work/main [--rounds 3] [--repeat 10]
        [--onnx mobilenet_v2.qdq_s8 ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ONNX_DEFAULT = ["mlp.qdq_s8", "cnn_bn.qdq_s8", "mobilenet_v2.qdq_s8", "resnet_block.qdq_s8",
                "squeeze_excite.qdq_s8", "bert_layer.qdq_s8", "gpt_block.qdq_s8",
                "mobilenet_v2.qop", "mobilenet_v2.float"]


def _best(fn, repeat: int) -> float:
    fn()  # the first run makes the block programs
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def child(root: Path, repeat: int, onnx_names: list[str], out: str) -> None:
    """Measure the checkout at `root` in this process (PYTHONPATH and cwd at it too)."""
    sys.path.insert(0, str(root))
    for name in [m for m in sys.modules if m.split(".")[0] in ("qcomp", "tests", "tools")]:
        del sys.modules[name]
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    import qcomp
    from tests.importers.onnx_zoo import ZOO, inputs, lower
    from tests.importers.tflite_models import run_litert
    from tools.bench_models import lowered_mobilenet

    rows, arrays = {}, {}
    model, module = lowered_mobilenet()
    x = np.random.default_rng(0).integers(-128, 128, (1, 32, 32, 3)).astype(np.int8)
    it = Interpreter(model_content=model,
                     experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    rows["litert_ref"] = _best(it.invoke, repeat * 10)
    handle = qcomp.compile(module, backend="numpy")
    (r,) = handle.run([x])
    assert r.error is None and np.array_equal(r.results[0], run_litert(model, [x])[0])
    rows["mobilenet_v2.tflite"] = _best(lambda: handle.run([x]), repeat)
    arrays["mobilenet_v2.tflite"] = r.results[0]
    import onnx

    from qcomp.registry import parse_module
    for name in onnx_names:
        path = ZOO / f"{name}.onnx"
        _, text = lower(path)
        if text is None:
            continue
        m = onnx.load(path)
        feeds = inputs(m, 0)
        names = [vi.name for vi in m.graph.input
                 if vi.name not in {t.name for t in m.graph.initializer}]
        handle = qcomp.compile(parse_module(text), backend="numpy")
        args = [feeds[k] for k in names]
        (r,) = handle.run(args)
        if r.error is not None:
            continue
        rows[name] = _best(lambda: handle.run(args), repeat)
        for i, a in enumerate(r.results):
            arrays[f"{name}/{i}"] = a
    np.savez(out, **arrays)
    print(json.dumps(rows))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="the baseline checkout (e.g. /work/main)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--onnx", nargs="*", default=ONNX_DEFAULT, help="ONNX zoo model stems")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(Path(args.baseline), args.repeat, args.onnx, args.child)
        return 0
    checkouts = {"baseline": Path(args.baseline).resolve(), "this": ROOT}
    best: dict[str, dict[str, float]] = {k: {} for k in checkouts}
    tmp = Path(tempfile.mkdtemp())
    for rnd in range(args.rounds):
        for label, path in checkouts.items():
            out = tmp / f"{label}.npz"
            env = dict(os.environ, PYTHONPATH=str(path))
            done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--baseline",
                                   str(path), "--repeat", str(args.repeat), "--child", str(out),
                                   "--onnx", *args.onnx], env=env, capture_output=True,
                                  text=True, cwd=path)
            if done.returncode:
                print(done.stderr[-3000:], file=sys.stderr)
                return 1
            rows = json.loads(done.stdout.strip().splitlines()[-1])
            for k, v in rows.items():
                best[label][k] = min(best[label].get(k, v), v)
        print(f"round {rnd + 1} done, load average {os.getloadavg()[0]:.1f}", flush=True)
    a, b = np.load(tmp / "baseline.npz"), np.load(tmp / "this.npz")
    same = {k.split("/")[0]: True for k in b.files}
    for k in b.files:
        if k not in a.files or a[k].dtype != b[k].dtype or not np.array_equal(a[k], b[k]):
            same[k.split("/")[0]] = False
    ref = min(best["baseline"]["litert_ref"], best["this"]["litert_ref"])
    print(f"\nLiteRT reference kernels, MobileNetV2: {ref * 1e3:.2f} ms (CPU, best)\n")
    print("| model | baseline | this | speed-up | this / LiteRT ref | bits = baseline |")
    print("|---|---|---|---|---|---|")
    for k, t in best["this"].items():
        if k == "litert_ref":
            continue
        base = best["baseline"].get(k)
        ratio = f"{t / ref:.1f}x" if k.endswith(".tflite") else ""
        print(f"| {k} | {base * 1e3:.1f} ms | {t * 1e3:.1f} ms | {base / t:.2f}x | {ratio} | "
              f"{same.get(k)} |" if base else f"| {k} | - | {t * 1e3:.1f} ms | | {ratio} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
