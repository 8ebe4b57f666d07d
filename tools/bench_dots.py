#!/usr/bin/env python3
"""The workloads' int8 GEMMs in isolation: every XLA CPU path, IREE's flag sets and
onnxruntime's int8 kernels on one shape, interleaved in one process (a benchmark, never
a timed test).

    python3 tools/bench_dots.py [--shapes 256x1024x1024,1024x512x512] [--rounds 5]
                                [--repeat 10] [--no-iree] [--workloads mlp,transformer]

Each shape `MxKxN` is a random i8 `M x K` by i8 `K x N` product (-128..127 by
-127..127, the workloads' operands), run as:

- XLA (jaxlib's PJRT CPU client, the xla backend's way of compiling StableHLO text):
  `dot_general` i8 x i8 -> i32; ui8 x i8 -> i32 on the activations plus 128 (the form
  `qcomp.backends.xla_dots` rewrites to; minus `128 * column sums` it is the i8
  product); and as f32 (`convert` both operands; exact: every partial sum is below 2^24
  for K <= 1024), each under the per-compile XLA options of
  `XLA_OPTIONS` (the library a dot fusion goes to: XLA's default YNNPACK, XNNPACK,
  oneDNN);
- IREE (`iree.compiler.compile_str`, `local-task` driver) with the flag sets of
  `IREE_FLAGS` (data tiling, ukernels);
- onnxruntime `MatMulInteger` with u8 activations (`a + 128`) on 1 and 2 intra-op
  threads: the u8 x s8 form its VNNI kernels (`vpdpbusd`) take, as its QDQ MatMul runs
  the workloads (an s8 x s8 MatMulInteger is measured too: it takes no fast kernel).

`--workloads` also times the workloads of tools/bench_workloads.py on the xla backend
with and without `qcomp.backends.xla_dots` beside onnxruntime (`workloads()`).

Every result is checked against NumPy's int64 product (onnxruntime's u8 one after
subtracting `128 * column sums`). Printed: the best wall clock and the median CPU time
(`time.process_time`, all threads) over `--rounds` rounds of `--repeat` calls, GMAC/s
of each, and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

XLA_OPTIONS = {
    "default (YNNPACK dots)": [],
    "XNNPACK dots": [("xla_cpu_experimental_xnn_fusion_type", "LIBRARY_FUSION_TYPE_DOT")],
    "oneDNN dots": [("xla_cpu_experimental_onednn_fusion_type", "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT")],
}
_IREE_BASE = ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
              "--iree-llvmcpu-target-cpu=host"]
IREE_FLAGS = {
    "no data tiling": [],
    "dispatch data tiling (iree.py)": ["--iree-dispatch-creation-data-tiling"],
    "opt data tiling + ukernels": ["--iree-opt-data-tiling", "--iree-llvmcpu-enable-ukernels=all"],
    "opt data tiling + ukernels + O3": ["--iree-opt-data-tiling", "--iree-llvmcpu-enable-ukernels=all",
                                        "--iree-opt-level=O3"],
}


def program(m: int, k: int, n: int, elem: str) -> str:
    """`@main(a, b: i8)`: their product; `elem` `i8` (i8 x i8 -> i32), `u8` (`a` ui8, the
    activations shifted by 128: ui8 x i8 -> i32) or a float type both are converted to."""
    out = elem if elem.startswith("f") else "i32"
    lhs = "ui8" if elem == "u8" else "i8"
    lines = [f"func.func @main(%a: tensor<{m}x{k}x{lhs}>, %b: tensor<{k}x{n}xi8>) -> tensor<{m}x{n}x{out}> {{"]
    x, y, tx, ty = "%a", "%b", lhs, "i8"
    if elem.startswith("f"):
        lines += [f"  %a2 = stablehlo.convert %a : (tensor<{m}x{k}xi8>) -> tensor<{m}x{k}x{elem}>",
                  f"  %b2 = stablehlo.convert %b : (tensor<{k}x{n}xi8>) -> tensor<{k}x{n}x{elem}>"]
        x, y, tx, ty = "%a2", "%b2", elem, elem
    lines += [f"  %r = stablehlo.dot_general {x}, {y}, contracting_dims = [1] x [0] : "
              f"(tensor<{m}x{k}x{tx}>, tensor<{k}x{n}x{ty}>) -> tensor<{m}x{n}x{out}>",
              f"  func.return %r : tensor<{m}x{n}x{out}>", "}"]
    return "\n".join(lines) + "\n"


def xla_calls(m, k, n, a, b, want) -> dict:
    import jax
    from jax._src import xla_bridge
    from jax._src.interpreters import mlir as jmlir
    from jax._src.lib import xla_client as xc
    from jax._src.lib.mlir import ir

    client = xla_bridge.get_backend("cpu")
    dev = client.local_devices()[0]
    shifted = (a.astype(np.int16) + 128).astype(np.uint8)
    shift = 128 * b.astype(np.int64).sum(axis=0)
    calls = {}
    for elem in ("i8", "u8", "f32"):
        bufs = [jax.device_put(shifted if elem == "u8" else a, dev), jax.device_put(b, dev)]
        with jmlir.make_ir_context(), ir.Location.unknown():
            code = jmlir.module_to_bytecode(ir.Module.parse(program(m, k, n, elem)))
        for name, overrides in XLA_OPTIONS.items():
            options = xc.CompileOptions()
            options.env_option_overrides = overrides
            exe = client.compile_and_load(code, xc.DeviceList((dev,)), options)
            got = np.asarray(exe.execute(bufs)[0]).astype(np.int64) - (shift if elem == "u8" else 0)
            assert (got == want).all(), f"XLA {elem} {name}: wrong product"
            label = "u8 (a + 128) x i8" if elem == "u8" else elem
            calls[f"XLA {label} dot, {name}"] = lambda exe=exe, bufs=bufs: [np.asarray(o) for o in exe.execute(bufs)]
    return calls


def iree_calls(m, k, n, a, b, want) -> dict:
    import iree.compiler as ic
    import iree.runtime as rt

    config = rt.Config("local-task")
    args = (rt.asdevicearray(config.device, a), rt.asdevicearray(config.device, b))
    calls = {}
    for name, flags in IREE_FLAGS.items():
        vmfb = ic.compile_str(program(m, k, n, "i8"), input_type="stablehlo", extra_args=_IREE_BASE + flags)
        vm = rt.VmModule.copy_buffer(config.vm_instance, vmfb)
        fn = rt.SystemContext(config=config, vm_modules=[vm]).modules[vm.name]["main"]
        got = fn(*args).to_host()
        assert (got.astype(np.int64) == want).all(), f"IREE {name}: wrong product"
        calls[f"IREE i8 dot, {name}"] = lambda fn=fn: fn(*args).to_host()
    return calls


def ort_calls(m, k, n, a, b, want) -> dict:
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    calls = {}
    for kind, x, shift in (("u8 x s8", (a.astype(np.int16) + 128).astype(np.uint8), 128), ("s8 x s8", a, 0)):
        etype = TensorProto.UINT8 if shift else TensorProto.INT8
        graph = helper.make_graph([helper.make_node("MatMulInteger", ["a", "b"], ["y"])], "g",
                                  [helper.make_tensor_value_info("a", etype, [m, k])],
                                  [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n])],
                                  [numpy_helper.from_array(b, "b")])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        for threads in ((1, 2) if shift else (2,)):
            opts = ort.SessionOptions()
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
            sess = ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])
            got = sess.run(None, {"a": x})[0].astype(np.int64) - shift * b.astype(np.int64).sum(axis=0)
            assert (got == want).all(), f"onnxruntime {kind}: wrong product"
            calls[f"onnxruntime MatMulInteger {kind}, {threads} thr"] = (
                lambda sess=sess, x=x: sess.run(None, {"a": x}))
    return calls


def measure(calls: dict, rounds: int, repeat: int) -> dict:
    """(best wall clock, median CPU time) of each call over `rounds` rounds of `repeat`
    calls, the calls interleaved. The CPU time is the median: the process's CPU clock
    read around one call of a few milliseconds sometimes misses part of the pool
    threads' time, so its minimum can be below what the call costs."""
    wall = dict.fromkeys(calls, float("inf"))
    cpu: dict = {name: [] for name in calls}
    for _ in range(rounds):
        for name, fn in calls.items():
            time.sleep(0.05)  # onnxruntime's threads spin for a while after a run
            for _ in range(repeat):
                t0, c0 = time.perf_counter(), time.process_time()
                fn()
                wall[name] = min(wall[name], time.perf_counter() - t0)
                cpu[name].append(time.process_time() - c0)
    return {name: (wall[name], float(np.median(cpu[name]))) for name in calls}


def workloads(kinds: list[str], rounds: int, repeat: int) -> None:
    """The workloads of tools/bench_workloads.py on the xla backend with and without
    `xla_dots` (`XlaFunction.unsigned_dots`), beside onnxruntime's QDQ model on 2 threads;
    for the MLP also the program with its two dot_generals replaced by a `convert` of
    their left operand (timing only: what the quantize / rescale steps and the host
    copies cost)."""
    import copy
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    sys.path[:0] = [str(root), str(root / "tools")]
    from bench_workloads import PROGRAMS, ort_feed, ort_session

    from qcomp.backends import xla
    from qcomp.registry import parse_module

    for kind in kinds:
        src, inputs, p = PROGRAMS[kind]()
        fns = {}
        for unsigned in (False, True):
            xla.XlaFunction.unsigned_dots = unsigned
            (fns[unsigned],) = xla.compile_module(parse_module(src), "spec")
        same = fns[False].run(inputs).results[0].tobytes() == fns[True].run(inputs).results[0].tobytes()
        sess = ort_session(kind, p, inputs[0].shape, 2)
        feed = ort_feed(kind, inputs[0])
        calls = {"xla backend, i8 x i8 dots (main)": lambda f=fns[False]: f.run(inputs),
                 "xla backend, ui8 x i8 dots (xla_dots)": lambda f=fns[True]: f.run(inputs)}
        if kind == "mlp":
            dot = re.compile(r"stablehlo\.dot_general (%\w+), %\w+, contracting_dims = \[1\] x \[0\] : "
                             r"\((tensor<\d+x\d+xu?i8>), tensor<\d+x\d+xi8>\) -> (tensor<\d+x\d+xi32>)")
            text, n = dot.subn(r"stablehlo.convert \1 : (\2) -> \3", fns[True].text)
            assert n == 2, "the MLP's two dot_generals were not found"
            rest = copy.copy(fns[True])
            rest.executable = xla.compile_text(text)
            calls["xla backend, without its two dot_generals"] = lambda: rest.run(inputs)
        calls["onnxruntime QDQ model, 2 thr"] = lambda: sess.run(None, feed)
        times = measure(calls, rounds, repeat)
        ref = times["onnxruntime QDQ model, 2 thr"]
        print(f"\n{kind} workload ({p['macs']:,} MACs); best of {rounds} rounds x {repeat} calls; "
              f"load average {os.getloadavg()[0]:.1f}; xla_dots bit for bit main: {same}\n")
        print("| what | best wall ms | median CPU ms | wall / onnxruntime | CPU / onnxruntime |\n|---|---|---|---|---|")
        for name, (w, c) in times.items():
            print(f"| {name} | {w * 1e3:.2f} | {c * 1e3:.2f} | {w / ref[0]:.2f}x | {c / ref[1]:.2f}x |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="256x1024x1024,1024x512x512")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--no-iree", action="store_true")
    ap.add_argument("--workloads", default="", help="e.g. mlp,transformer (see workloads())")
    args = ap.parse_args(argv)
    for shape in args.shapes.split(","):
        m, k, n = (int(v) for v in shape.split("x"))
        rng = np.random.default_rng(0)
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-127, 128, (k, n)).astype(np.int8)
        want = a.astype(np.int64) @ b.astype(np.int64)
        calls = xla_calls(m, k, n, a, b, want)
        if not args.no_iree:
            calls.update(iree_calls(m, k, n, a, b, want))
        calls.update(ort_calls(m, k, n, a, b, want))
        times = measure(calls, args.rounds, args.repeat)
        ref = times["onnxruntime MatMulInteger u8 x s8, 2 thr"][0]
        macs = m * k * n
        print(f"\n{m}x{k} by {k}x{n} ({macs / 1e6:.0f}M MACs); best of {args.rounds} rounds x "
              f"{args.repeat} calls; load average {os.getloadavg()[0]:.1f}; every product exact\n")
        print("| path | best wall ms | GMAC/s (wall) | median CPU ms | GMAC per CPU-s | wall / onnxruntime u8 x s8 2 thr |")
        print("|---|---|---|---|---|---|")
        for name, (w, c) in times.items():
            print(f"| {name} | {w * 1e3:.2f} | {macs / w / 1e9:.0f} | {c * 1e3:.2f} | {macs / c / 1e9:.0f} "
                  f"| {w / ref:.2f}x |")
    if args.workloads:
        workloads(args.workloads.split(","), args.rounds, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
