#!/usr/bin/env python3
"""`--backend iree` against `--backend xla`, LiteRT and onnxruntime, bits compared (a
benchmark, never a timed test).

    python3 tools/bench_iree.py [--repeat 20] [--rounds 3] [--no-mobilenet] [--no-workloads]
                                [--workloads mlp,conv,transformer] [--batch 64]
                                [--iree-flag=--iree-...]...

1. int8 MobileNetV2 (the zoo's `tests/models/tflite/mobilenet_v2.tflite`, lowered with
   `rescale=fixed-point`, as tools/bench_models.py does): `qcomp.compile(..., "iree")`
   and `qcomp.compile(..., "xla")` handles' `run` at batch 1 against LiteRT's reference
   kernels, and at batch `--batch` (`set-batch-size`) per input against LiteRT's XNNPACK
   kernels per batch-1 input; IREE's results checked bit for bit against the reference
   kernels (20 inputs at batch 1, every sample of the batch);
2. the workloads of tools/bench_workloads.py (MLP, conv, transformer): IREE, XLA and
   onnxruntime (2 intra-op threads) on the same input, IREE's and XLA's bits compared
   with the NumPy backend's.

Wall clock, best of `--repeat` calls, the engines interleaved in `--rounds` rounds (a
pause before each block: onnxruntime's threads spin after a run) so that the machine's
other load hits them alike. Compile times are the first `qcomp.compile` (lowering,
printing and the engine's compile); IREE's is `cached` when its disk cache
(`qcomp.backends.iree.cache_dir()`) already held the program.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def interleaved(fns: dict, repeat: int, rounds: int) -> dict:
    """Best time of each engine over `rounds` rounds of `repeat` calls each."""
    out = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            time.sleep(0.1)
            out[name] = min(out[name], best(fn, repeat))
    return out


def compiled(module, backend: str):
    """(handle, seconds to make it, 'cached' or '')."""
    import qcomp
    from qcomp.backends import iree

    calls = []
    invoke = iree._invoke_compiler
    iree._invoke_compiler = lambda text: calls.append(1) or invoke(text)
    try:
        t0 = time.perf_counter()
        handle = qcomp.compile(module, backend=backend)
        secs = time.perf_counter() - t0
    finally:
        iree._invoke_compiler = invoke
    for fn in handle.xla_functions:
        assert fn.error is None, fn.error.message
    return handle, secs, " (cached)" if backend == "iree" and not calls else ""


def ms(s: float) -> str:
    return f"{s * 1e3:.3f}"


def mobilenet(repeat: int, rounds: int, batch: int) -> None:
    from bench_models import litert_invoke, lowered_mobilenet

    from qcomp.passes.set_batch_size import SetBatchSizePass
    from qcomp.registry import make_context
    from tests.importers.tflite_models import run_litert

    model, module = lowered_mobilenet()
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (1, 32, 32, 3)).astype(np.int8)

    ihandle, isec, icached = compiled(module, "iree")
    xhandle, xsec, _ = compiled(module, "xla")
    print(f"MobileNetV2 batch 1: compile iree {isec:.1f} s{icached}, xla {xsec:.1f} s", flush=True)
    same = 0
    for k in range(20):
        xs = x if k == 0 else rng.integers(-128, 128, x.shape).astype(np.int8)
        (r,) = ihandle.run([xs])
        same += r.error is None and np.array_equal(r.results[0], run_litert(model, [xs])[0])
    t = interleaved({"iree": lambda: ihandle.run([x]), "xla": lambda: xhandle.run([x]),
                     "ref": litert_invoke(model, x, "BUILTIN_REF"),
                     "xnnpack": litert_invoke(model, x, "BUILTIN")}, repeat, rounds)
    print("| what | iree ms | xla ms | LiteRT ref ms | XNNPACK ms | iree / ref | iree / xla | "
          "iree bit for bit with LiteRT ref |\n|---|---|---|---|---|---|---|---|")
    print(f"| MobileNetV2 batch 1 | {ms(t['iree'])} | {ms(t['xla'])} | {ms(t['ref'])} | "
          f"{ms(t['xnnpack'])} | {t['iree'] / t['ref']:.2f}x | {t['iree'] / t['xla']:.2f}x | "
          f"{same} / 20 |", flush=True)

    big = module.clone()
    SetBatchSizePass(n=batch).apply(make_context(), big)
    xs = rng.integers(-128, 128, (batch, 32, 32, 3)).astype(np.int8)
    ihandle, isec, icached = compiled(big, "iree")
    xhandle, xsec, _ = compiled(big, "xla")
    print(f"MobileNetV2 batch {batch}: compile iree {isec:.1f} s{icached}, xla {xsec:.1f} s",
          flush=True)
    (r,) = ihandle.run([xs])
    same = sum(r.error is None and np.array_equal(r.results[0][i:i + 1], run_litert(model, [xs[i:i + 1]])[0])
               for i in range(batch))
    tb = interleaved({"iree": lambda: ihandle.run([xs]), "xla": lambda: xhandle.run([xs])},
                     repeat, rounds)
    print(f"| MobileNetV2 batch {batch}, per input | {ms(tb['iree'] / batch)} | "
          f"{ms(tb['xla'] / batch)} | - | {ms(t['xnnpack'])} | iree / XNNPACK "
          f"{tb['iree'] / batch / t['xnnpack']:.2f}x | {tb['iree'] / tb['xla']:.2f}x | "
          f"{same} / {batch} |", flush=True)


def workloads(kinds: list[str], repeat: int, rounds: int) -> None:
    from bench_workloads import PROGRAMS, ort_feed, ort_session

    from qcomp.backends import run
    from qcomp.registry import parse_module

    print("| workload | iree compile s | xla compile s | iree ms | xla ms | ort (2 thr) ms | "
          "iree / ort | iree / xla | iree vs numpy backend | xla vs numpy backend |\n"
          "|---|---|---|---|---|---|---|---|---|---|", flush=True)
    for kind in kinds:
        src, args, p = PROGRAMS[kind]()
        module = parse_module(src)
        ihandle, isec, icached = compiled(module, "iree")
        xhandle, xsec, _ = compiled(module, "xla")
        (want,) = run(module, args)
        (ri,) = ihandle.run(args)
        (rx,) = xhandle.run(args)

        def same(r) -> str:
            if r.error is not None:
                return r.error.message
            a, b = r.results[0], want.results[0]
            if a.tobytes() == b.tobytes():
                return "bit for bit"
            return f"max abs diff {np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))):.2g}"
        sess = ort_session(kind, p, args[0].shape, 2)
        feed = ort_feed(kind, args[0])
        fns = {"iree": lambda: ihandle.run(args), "xla": lambda: xhandle.run(args)}
        if sess is not None:
            fns["ort"] = lambda: sess.run(None, feed)
        t = interleaved(fns, repeat, rounds)
        ort = t.get("ort", float("nan"))
        print(f"| {kind} | {isec:.1f}{icached} | {xsec:.1f} | {ms(t['iree'])} | {ms(t['xla'])} | "
              f"{ms(ort)} | {t['iree'] / ort:.2f}x | {t['iree'] / t['xla']:.2f}x | {same(ri)} | "
              f"{same(rx)} |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--no-mobilenet", action="store_true")
    ap.add_argument("--no-workloads", action="store_true")
    ap.add_argument("--workloads", default="mlp,conv,transformer")
    ap.add_argument("--iree-flag", action="append", default=[], metavar="FLAG",
                    help="an iree-compile flag added to qcomp.backends.iree.FLAGS (repeatable)")
    a = ap.parse_args(argv)
    from qcomp.backends import iree

    iree.FLAGS = (*iree.FLAGS, *a.iree_flag)
    import importlib.metadata as md

    print(f"iree {md.version('iree-base-compiler')}; {len(os.sched_getaffinity(0))} cores; "
          f"load average {os.getloadavg()[0]:.1f}; wall clock, best of {a.repeat} x {a.rounds} "
          f"rounds; iree-compile {' '.join(iree.FLAGS)}", flush=True)
    if not a.no_mobilenet:
        mobilenet(a.repeat, a.rounds, a.batch)
    if not a.no_workloads:
        workloads(a.workloads.split(","), max(3, a.repeat // 4), a.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
