#!/usr/bin/env python3
"""How XLA's int8 GEMM uses two cores, against onnxruntime's (a benchmark, never a
timed test).

    python3 tools/bench_xla_cores.py [--shape 256x1024x1024] [--rounds 8] [--repeat 5]

The MLP workload's GEMM in the form the xla backend hands XLA (`qcomp.backends.xla_dots`:
`ui8` activations by constant `i8` weights -> `i32`, which XLA's CPU backend gives to
YNNPACK's VNNI kernel), timed in child processes pinned with `os.sched_setaffinity`
before jax starts:

- `xla, 1 core` / `xla, 2 cores`: one process pinned to one / both cores (XLA's thread
  pool is as large as the affinity at start-up), the product compiled by
  `qcomp.backends.xla.compile_text` (the backend's options) and run on device buffers;
- `xla, 2 processes of 1 core`: two such one-core processes at once, each on its own
  core, started together (each reports its own best call: what the two cores do when no
  thread pool is shared);
- `onnxruntime MatMulInteger u8 x s8, 1 / 2 threads`: its VNNI kernels, in the same
  one-core / two-core processes, rounds alternating with XLA's.

Every product is checked against NumPy's int64 one. Printed: best wall clock per call
over `--rounds` rounds of `--repeat` calls, GMAC/s and the two-core speed-up of each
engine, and the load average (the machine is shared: compare within one run).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def operands(m: int, k: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Activations plus 128 (`ui8`, what `xla_dots.as_unsigned` makes of `i8` ones) and
    `i8` weights in -127..127 (the workloads' range)."""
    rng = np.random.default_rng(0)
    return (rng.integers(0, 256, (m, k)).astype(np.uint8),
            rng.integers(-127, 128, (k, n)).astype(np.int8))


def xla_call(a: np.ndarray, w: np.ndarray):
    """A no-argument call running the product on XLA (the weights a constant, as the
    backend's programs hold them), after checking its result."""
    sys.path.insert(0, str(ROOT))
    from qcomp.backends import xla

    (m, k), n = a.shape, w.shape[1]
    hexw = '"0x' + np.ascontiguousarray(w).tobytes().hex().upper() + '"'
    ta, tw, tr = f"tensor<{m}x{k}xui8>", f"tensor<{k}x{n}xi8>", f"tensor<{m}x{n}xi32>"
    text = f"""func.func @main(%a: {ta}) -> {tr} {{
  %w = stablehlo.constant dense<{hexw}> : {tw}
  %0 = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : ({ta}, {tw}) -> {tr}
  return %0 : {tr}
}}"""
    exe = xla.compile_text(text)
    buf = xla._put(a, xla.get_device("cpu")[1])
    got = np.asarray(exe.execute([buf])[0])
    assert np.array_equal(got, a.astype(np.int64) @ w.astype(np.int64)), "XLA's product is wrong"
    return lambda: exe.execute([buf])[0].block_until_ready()


def ort_call(a: np.ndarray, w: np.ndarray, threads: int):
    """onnxruntime's `MatMulInteger` (u8 x s8 -> i32) on `threads` intra-op threads, or
    None without onnx / onnxruntime."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    (m, k), n = a.shape, w.shape[1]
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "w"], ["y"])], "gemm",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [m, k])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])], [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
    (got,) = sess.run(None, {"a": a})
    assert np.array_equal(got, a.astype(np.int64) @ w.astype(np.int64)), "onnxruntime's product is wrong"
    return lambda: sess.run(None, {"a": a})


def best(fn, repeat: int) -> float:
    t = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def child(shape: tuple[int, int, int], cores: list[int], rounds: int, repeat: int, with_ort: bool) -> dict:
    """Pinned to `cores`: the best XLA call (and onnxruntime's on as many threads),
    rounds alternating between the two."""
    os.sched_setaffinity(0, set(cores))
    m, k, n = shape
    a, w = operands(m, k, n)
    calls = {"xla": xla_call(a, w)}
    if with_ort and (o := ort_call(a, w, len(cores))) is not None:
        calls["ort"] = o
    out = dict.fromkeys(calls, float("inf"))
    for _ in range(rounds):
        for name, fn in calls.items():
            time.sleep(0.05)  # onnxruntime's threads spin for a while after a run
            out[name] = min(out[name], best(fn, repeat))
    return out


def spawn(shape, cores: list[int], rounds: int, repeat: int, with_ort: bool) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, __file__, "--child", ",".join(map(str, cores)), "--shape", "x".join(map(str, shape)),
         "--rounds", str(rounds), "--repeat", str(repeat), *([] if with_ort else ["--no-ort"])],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)


def result(p: subprocess.Popen) -> dict:
    out, _ = p.communicate()
    if p.returncode != 0:
        raise SystemExit(f"bench_xla_cores: a child process failed (exit {p.returncode})")
    return json.loads(out.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shape", default="256x1024x1024", help="MxKxN")
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--no-ort", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    shape = tuple(int(v) for v in args.shape.split("x"))
    if args.child:
        print(json.dumps(child(shape, [int(c) for c in args.child.split(",")], args.rounds, args.repeat,
                               not args.no_ort)))
        return 0
    cores = sorted(os.sched_getaffinity(0))[:2]
    if len(cores) < 2:
        raise SystemExit("bench_xla_cores: needs two cores")
    one = result(spawn(shape, cores[:1], args.rounds, args.repeat, True))
    two = result(spawn(shape, cores, args.rounds, args.repeat, True))
    pair = [spawn(shape, [c], args.rounds, args.repeat, False) for c in cores]
    apart = [result(p)["xla"] for p in pair]
    macs = shape[0] * shape[1] * shape[2]
    rows = [("xla", one["xla"], two["xla"], max(apart))]
    if "ort" in one and "ort" in two:
        rows.append(("onnxruntime MatMulInteger u8 x s8", one["ort"], two["ort"], None))
    print(f"shape {args.shape} ({macs / 1e6:.0f}M MACs); best of {args.rounds} rounds of {args.repeat} calls; "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| engine | 1 core ms | 2 cores ms | 2 cores / 1 core speed-up | GMAC/s on 2 cores | "
          "2 processes of 1 core, slower one's ms (speed-up) |")
    print("|---|---|---|---|---|---|")
    for name, t1, t2, tp in rows:
        pair_s = "" if tp is None else f"{tp * 1e3:.3f} ({2 * t1 / tp:.2f}x)"
        print(f"| {name} | {t1 * 1e3:.3f} | {t2 * 1e3:.3f} | {t1 / t2:.2f}x | {macs / t2 / 1e9:.0f} | {pair_s} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
