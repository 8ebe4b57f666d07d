#!/usr/bin/env python3
"""Issue 27's table, measured side by side in one run (a benchmark, never a timed test).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python3 tools/bench_models.py
        [--repeat 20] [--no-workloads] [--quick] [--cpu] [--iree]

Rows (each: qcomp's time, the reference's, the ratio, the target):
1. start-up: `qcomp-opt examples/quantized_add.mlir` and `qcomp-run` on it, against the
   floor `python3 -c "import numpy, xdsl.dialects.builtin"` (best of N processes);
2. MLIR text: parse + print of the lowered MobileNetV2 in-process (qcomp's parser and
   printer) against upstream MLIR's C++ (jaxlib's `ir.Module.parse` + `str`);
3. int8 MobileNetV2 (TF's converter, alpha 0.35, 32x32, 10 classes:
   `tests/models/tflite/mobilenet_v2.tflite`; without it a MobileNetV2-shaped model with
   random weights and 1000 classes, `tests/importers/tflite_mobilenet.py`),
   imported from `.tflite` and lowered with `rescale=fixed-point`, batch 1:
   `qcomp.backends.run(..., backend="xla")` called repeatedly, the `qcomp.compile`
   handle's `run`, and the NumPy backend, against LiteRT's reference kernels
   (`BUILTIN_REF`); every result checked bit for bit against them;
4. the same at batch 64 (`set-batch-size{n=64}`) on XLA, per input, against LiteRT's
   optimised kernels (XNNPACK, `BUILTIN`) per batch-1 input; the 64 results checked
   bit for bit against the reference kernels' per-sample ones; with `--iree`, rows 3's
   compiled handle and 4 on `--backend iree` too;
5. the benchmark workloads (MLP, conv, transformer): `tools/bench_interp.py` run as a
   child (NumPy backend / float32 floor, XLA / onnxruntime), its table printed as is.
The CPU's `avx512_vnni` flag is printed first (onnxruntime's int8 GEMM uses it).
Each row's two sides are timed in the same rounds, in turn (`interleaved`): this
machine is virtual and its speed drifts by up to 2x over minutes, so a ratio of two
times taken minutes apart is noise.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


CLOCK = time.perf_counter
"""Wall clock; `--cpu` makes it this process's CPU time (all its threads), steadier when
other jobs share the machine."""


def interleaved(fns: dict[str, Callable[[], object]], rounds: int, block: int = 1
                ) -> dict[str, float]:
    """Best time of each call over `rounds` rounds; in a round each call runs `block`
    times in a row (its caches warm, as a benchmark loop has them), the calls in turn,
    so that a slow spell of a shared or virtual machine hits every one alike. A pause
    before each block lets the last call's pool threads (XLA's, LiteRT's) stop spinning,
    so their CPU time is not counted to the next. A call that returns a time (a float:
    a child process's) is measured by it, else by CLOCK."""
    best_of = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            time.sleep(0.05)
            for _ in range(block):
                t0 = CLOCK()
                t = fn()
                best_of[name] = min(best_of[name],
                                    t if isinstance(t, float) else CLOCK() - t0)
    return best_of


def process(argv: list[str]) -> Callable[[], float]:
    """A call that runs a child process (warmed once, with bytecode writing on: an
    installed package's first run leaves its caches, the `.pyc` files and the tools'
    dataclass methods, `qcomp.tools.dataclass_methods`) and returns its wall clock, or
    with `--cpu` its CPU time (user + system)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    warm = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def go(env: dict[str, str] = env) -> float:
        t0 = time.perf_counter()
        child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, cwd=ROOT)
        _, status, usage = os.wait4(child.pid, 0)
        assert status == 0, argv
        wall = time.perf_counter() - t0
        return usage.ru_utime + usage.ru_stime if CLOCK is time.process_time else wall
    go(warm)
    return go


ROWS: list[tuple[str, float, float, str]] = []


def row(what: str, ours: float, ref: float, target: str) -> None:
    ROWS.append((what, ours, ref, target))
    print(f"{what:<66} {ours * 1e3:10.3f} ms {ref * 1e3:10.3f} ms {ours / ref:8.2f}x  "
          f"(target {target})", flush=True)


def startup(repeat: int) -> None:
    ex = str(ROOT / "examples" / "quantized_add.mlir")
    t = interleaved({
        "floor": process([sys.executable, "-c", "import numpy, xdsl.dialects.builtin"]),
        "opt": process([sys.executable, "-m", "qcomp.tools.qcomp_opt", ex]),
        "run": process([sys.executable, "-m", "qcomp.tools.qcomp_run", ex,
                        "--input=4xf32=1,2.5,-3,0.2", "--input=4xf32=0.5,-1,7.25,2"]),
    }, repeat)
    row("qcomp-opt examples/quantized_add.mlir / import floor", t["opt"], t["floor"],
        "<= 1.5x")
    row("qcomp-run examples/quantized_add.mlir / import floor", t["run"], t["floor"], "<= 2x")


def lowered_mobilenet(batch: int = 1):
    from qcomp.importers.tflite import import_tflite
    from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
    from qcomp.registry import make_context, parse_module
    from tests.importers.tflite_mobilenet import mobilenet_v2

    zoo = ROOT / "tests" / "models" / "tflite" / "mobilenet_v2.tflite"
    model = zoo.read_bytes() if zoo.exists() and batch == 1 else mobilenet_v2(batch=batch)
    ctx = make_context()
    module = parse_module(import_tflite(model), ctx)
    LegalizeQuantToMathPass(rescale="fixed-point").apply(ctx, module)
    return model, module


def text_speed(text: str, repeat: int) -> None:
    from jax._src.interpreters import mlir as jmlir
    from jax._src.lib.mlir import ir

    from qcomp.ir import print_module
    from qcomp.registry import make_context, parse_module

    def ours():
        print_module(parse_module(text, make_context()))

    def upstream():
        with jmlir.make_ir_context(), ir.Location.unknown():
            str(ir.Module.parse(text))
    t = interleaved({"ours": ours, "upstream": upstream}, max(4, repeat // 2))
    row(f"parse + print, lowered MobileNetV2 ({len(text) / 1e6:.1f} MB) / jaxlib C++",
        t["ours"], t["upstream"], "<= 10x")


def litert_invoke(model: bytes, x: np.ndarray, resolver: str):
    """A call that runs `model` once on `x` with LiteRT's `resolver` (`BUILTIN_REF`: the
    reference kernels, `BUILTIN`: XNNPACK), the interpreter prepared beforehand."""
    from ai_edge_litert.interpreter import Interpreter, OpResolverType

    it = Interpreter(model_content=model,
                     experimental_op_resolver_type=getattr(OpResolverType, resolver))
    it.allocate_tensors()
    i, o = it.get_input_details()[0]["index"], it.get_output_details()[0]["index"]
    it.set_tensor(i, x)

    def go():
        it.invoke()
        it.get_tensor(o)
    return go


def mobilenet(model: bytes, module, repeat: int, iree: bool = False) -> str:
    """The MobileNetV2 rows for `model` and its lowered `module`: every engine's result
    checked first, then all of them timed in interleaved rounds (LiteRT's kernels among
    them)."""
    import qcomp
    from qcomp.backends import run
    from qcomp.ir import print_module
    from qcomp.passes.set_batch_size import SetBatchSizePass
    from qcomp.registry import make_context
    from tests.importers.tflite_models import run_litert

    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (1, 32, 32, 3)).astype(np.int8)
    want = run_litert(model, [x])[0]
    batch = 64
    big = module.clone()
    SetBatchSizePass(n=batch).apply(make_context(), big)
    xs = rng.integers(-128, 128, (batch, 32, 32, 3)).astype(np.int8)
    wants = [run_litert(model, [xs[i:i + 1]])[0] for i in range(batch)]

    calls = {"ref": litert_invoke(model, x, "BUILTIN_REF"),
             "xnn": litert_invoke(model, x, "BUILTIN")}
    rows = []  # (label, call name, reference call name, divisor, target)
    for backend in ("xla", "numpy"):
        (r,) = run(module, [x], backend=backend)  # prepares (compiles) once
        assert r.error is None and np.array_equal(r.results[0], want), backend
        calls[f"run {backend}"] = lambda backend=backend: run(module, [x], backend=backend)
        rows.append((f"qcomp.backends.run {backend} (repeated) / LiteRT ref",
                     f"run {backend}", "ref", 1, "<= 1x" if backend == "xla" else "<= 20x"))
        handle = qcomp.compile(module, backend=backend)
        calls[f"compiled {backend}"] = lambda handle=handle: handle.run([x])
        rows.append((f"qcomp.compile(..., {backend}).run / LiteRT ref",
                     f"compiled {backend}", "ref", 1,
                     "<= 1x" if backend == "xla" else "<= 20x"))
    if iree:
        handle = qcomp.compile(module, backend="iree")
        (r,) = handle.run([x])
        assert r.error is None and np.array_equal(r.results[0], want), "iree"
        calls["compiled iree"] = lambda handle=handle: handle.run([x])
        rows.append(("qcomp.compile(..., iree).run / LiteRT ref", "compiled iree", "ref", 1,
                     "<= 1x"))
    exact = []
    for backend in ("xla", "iree") if iree else ("xla",):
        handle = qcomp.compile(big, backend=backend)
        (r,) = handle.run([xs])
        exact.append(all(np.array_equal(r.results[0][i:i + 1], wants[i])
                         for i in range(batch)))
        calls[f"batch {backend}"] = lambda handle=handle: handle.run([xs])
        rows.append((f"batch {batch} on {backend.upper()}, per input / LiteRT XNNPACK per "
                     f"input", f"batch {backend}", "xnn", batch, "<= 2x"))
    # `repeat` rounds of 4 calls each: one call lasts 0.1-15 ms, so a round is short
    # next to a slow spell of a shared machine, and the best of many rounds is steady
    t = interleaved(calls, max(3, repeat), 4)
    for label, ours, ref, divisor, target in rows:
        row(f"MobileNetV2 int8, {label}", t[ours] / divisor, t[ref], target)
    return (f"batch {batch} results bit for bit with LiteRT's reference kernels: "
            f"{all(exact)}; lowered MobileNetV2: {len(print_module(module)) / 1e6:.1f} MB "
            f"of MLIR")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--no-workloads", action="store_true")
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--iree", action="store_true",
                    help="also the MobileNetV2 rows on --backend iree (pip install '.[iree]')")
    ap.add_argument("--cpu", action="store_true",
                    help="CPU time (best of the repeats) instead of wall clock")
    a = ap.parse_args(argv)
    if a.cpu:
        global CLOCK
        CLOCK = time.process_time
    repeat = 3 if a.quick else a.repeat
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    print(f"cpu: avx512_vnni {'yes' if 'avx512_vnni' in flags else 'no'}; "
          f"{len(os.sched_getaffinity(0))} cores; OPENBLAS_CORETYPE="
          f"{os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; load average "
          f"{os.getloadavg()[0]:.1f}; {'CPU time' if a.cpu else 'wall clock'}, best of the "
          f"repeats")
    print(f"{'what':<66} {'qcomp':>13} {'reference':>13} {'ratio':>9}")
    startup(max(4, repeat // 2))
    from qcomp.ir import print_module

    model, module = lowered_mobilenet()
    text_speed(print_module(module), repeat)
    note = mobilenet(model, module, repeat, a.iree)
    print(note)
    if not a.no_workloads:
        print("\nworkloads (tools/bench_interp.py):", flush=True)
        subprocess.run([sys.executable, str(ROOT / "tools" / "bench_interp.py"), "--repeat",
                        str(max(3, repeat // 4)), "--no-reference"], check=False)
    print(f"\nmedian ratio of the rows above: "
          f"{statistics.median(o / r for _, o, r, _ in ROWS):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
