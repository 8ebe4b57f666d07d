#!/usr/bin/env python3
"""Compile-time benchmark of qcomp (a benchmark, never a timed test).

    python3 tools/bench_compile.py [--quick] [--sizes 1000,10000,50000] [--profile N]

Generates quantized StableHLO modules of about 1k, 10k and 50k ops: one function whose
body alternates a dot_general layer and a convolution layer, each a per-axis i8 weight
constant (MLIR's hex form, `dense<"0x...">`, as upstream prints large constants), the
contraction into a per-tensor i8 result, a residual `add` and an elementwise op (tanh,
abs, multiply, logistic in turn), every layer with its own scales and zero points.
Times, in one run: parse (`qcomp.registry.parse_module`), each pass of the
named pipeline `stablehlo-lower-quant` (built by qcomp-opt's own pipeline code), the
verifier after the pipeline, and print (`print_module`).

Targets (issue 5): pass time <= 2x (parse + print) of the same module, and the largest
module's pass time <= 55x the 1k-op one at 50x the ops (linear, no quadratic walk;
judged only when the sizes span 1k -> 40x or more: `--quick` sizes are too noisy for a
10% bound). Exit status 1 when a target is missed.
`--profile N` runs cProfile on the pipeline for the N-op module and prints the top
functions.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from qcomp.ir import print_module

from qcomp.registry import parse_module  # noqa: E402
from qcomp.pipeline import build_passes  # noqa: E402
from qcomp.registry import PIPELINES, make_context  # noqa: E402

PIPELINE = "stablehlo-lower-quant"
OPS_PER_LAYER = 4  # weight constant, contraction, add, elementwise op
D = 16  # dot_general activations 4xD, weights DxD
C = 8  # convolution activations 1x4x4xC, kernel 3x3xCxC


def _hex(a: np.ndarray) -> str:
    return '"0x' + np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes().hex().upper() + '"'


def _per_tensor(scale: float, zp: int) -> str:
    return f"!quant.uniform<i8:f32, {scale!r}:{zp}>"


def _per_axis(axis: int, scales: np.ndarray) -> str:
    return f"!quant.uniform<i8:f32:{axis}, {{{', '.join(f'{float(s)!r}' for s in scales)}}}>"


def _elementwise(i: int, x: str, t_in: str, t_out: str, out: str) -> str:
    op = ("tanh", "abs", "multiply", "logistic")[i % 4]
    if op == "multiply":
        return f"  {out} = stablehlo.multiply {x}, {x} : ({t_in}, {t_in}) -> {t_out}"
    return f"  {out} = stablehlo.{op} {x} : ({t_in}) -> {t_out}"


def generate(n_ops: int, seed: int = 0) -> str:
    """A module of about `n_ops` operations (func.func body plus the func and return)."""
    rng = np.random.default_rng(seed)
    layers = max(2, (n_ops - 4) // OPS_PER_LAYER)

    def act() -> str:
        return _per_tensor(round(float(rng.uniform(0.01, 0.1)), 6), int(rng.integers(-8, 8)))

    a_dot, a_conv = act(), act()
    td = lambda q: f"tensor<4x{D}x{q}>"  # noqa: E731
    tc = lambda q: f"tensor<1x4x4x{C}x{q}>"  # noqa: E731
    lines = [f"func.func @main(%x: {td('f32')}, %y: {tc('f32')}) -> ({td('f32')}, {tc('f32')}) {{",
             f"  %h0 = stablehlo.uniform_quantize %x : ({td('f32')}) -> {td(a_dot)}",
             f"  %c0 = stablehlo.uniform_quantize %y : ({tc('f32')}) -> {tc(a_conv)}"]
    h, c = "%h0", "%c0"
    for i in range(layers):
        if i % 2 == 0:
            w = rng.integers(-127, 128, (D, D)).astype(np.int8)
            wt = f"tensor<{D}x{D}x{_per_axis(1, rng.uniform(0.002, 0.02, D))}>"
            q_mm, q_add, q_out = act(), act(), act()
            lines += [
                f'  %w{i} = "stablehlo.constant"() <{{value = dense<{_hex(w)}> : tensor<{D}x{D}xi8>}}> : () -> {wt}',
                f"  %m{i} = stablehlo.dot_general {h}, %w{i}, contracting_dims = [1] x [0] : "
                f"({td(a_dot)}, {wt}) -> {td(q_mm)}",
                f"  %a{i} = stablehlo.add %m{i}, {h} : ({td(q_mm)}, {td(a_dot)}) -> {td(q_add)}",
                _elementwise(i // 2, f"%a{i}", td(q_add), td(q_out), f"%h{i + 1}"),
            ]
            h, a_dot = f"%h{i + 1}", q_out
        else:
            w = rng.integers(-127, 128, (3, 3, C, C)).astype(np.int8)
            wt = f"tensor<3x3x{C}x{C}x{_per_axis(3, rng.uniform(0.002, 0.02, C))}>"
            q_cv, q_add, q_out = act(), act(), act()
            lines += [
                f'  %w{i} = "stablehlo.constant"() <{{value = dense<{_hex(w)}> : tensor<3x3x{C}x{C}xi8>}}> : () -> {wt}',
                f"  %v{i} = stablehlo.convolution({c}, %w{i}) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
                "window = {stride = [1, 1], pad = [[1, 1], [1, 1]]} "
                "{batch_group_count = 1 : i64, feature_group_count = 1 : i64} : "
                f"({tc(a_conv)}, {wt}) -> {tc(q_cv)}",
                f"  %a{i} = stablehlo.add %v{i}, {c} : ({tc(q_cv)}, {tc(a_conv)}) -> {tc(q_add)}",
                _elementwise(i // 2 + 1, f"%a{i}", tc(q_add), tc(q_out), f"%c{i + 1}"),
            ]
            c, a_conv = f"%c{i + 1}", q_out
    lines += [f"  %rx = stablehlo.uniform_dequantize {h} : ({td(a_dot)}) -> {td('f32')}",
              f"  %ry = stablehlo.uniform_dequantize {c} : ({tc(a_conv)}) -> {tc('f32')}",
              f"  func.return %rx, %ry : {td('f32')}, {tc('f32')}", "}", ""]
    return "\n".join(lines)


def count_ops(module) -> int:
    return sum(1 for _ in module.walk()) - 1  # without builtin.module


def _timed(fn):
    gc.collect()
    t0 = time.process_time()
    result = fn()
    return result, time.process_time() - t0


def measure(n_ops: int, profile: bool = False) -> dict:
    """Times (seconds) of parse, each pipeline pass, verify and print for one module."""
    text = generate(n_ops)
    ctx = make_context()
    module, t_parse = _timed(lambda: parse_module(text, ctx))
    ops = count_ops(module)
    passes = build_passes([PIPELINE])
    pass_times: list[tuple[str, float]] = []
    profiler = cProfile.Profile() if profile else None
    for p in passes:
        if profiler is not None:
            profiler.enable()
        _, t = _timed(lambda: p.apply(ctx, module))
        if profiler is not None:
            profiler.disable()
        pass_times.append((p.name, t))
    _, t_verify = _timed(module.verify)
    out, t_print = _timed(lambda: print_module(module))
    if "!quant" in out:
        raise SystemExit(f"{n_ops} ops: '!quant' left after {PIPELINE}")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    return {"ops": ops, "out_ops": count_ops(module), "chars": len(text), "parse": t_parse,
            "passes": pass_times, "verify": t_verify, "print": t_print}


def table(results: list[dict]) -> str:
    names = [n for n, _ in results[0]["passes"]]
    base = results[0]
    head = (["input ops", "output ops", "parse s", *[f"{n} s" for n in names], "passes s",
             "verify s", "print s", "passes / (parse+print)", f"passes / passes@{base['ops']:,}",
             "ops ratio"])
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        total = sum(t for _, t in r["passes"])
        base_total = sum(t for _, t in base["passes"])
        cells = [f"{r['ops']:,}", f"{r['out_ops']:,}", f"{r['parse']:.2f}",
                 *[f"{t:.2f}" for _, t in r["passes"]], f"{total:.2f}", f"{r['verify']:.2f}",
                 f"{r['print']:.2f}", f"{total / (r['parse'] + r['print']):.2f}",
                 f"{total / base_total:.1f}", f"{r['ops'] / base['ops']:.1f}"]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="sizes 500 and 5000 only")
    ap.add_argument("--sizes", default=None, help="comma-separated op counts")
    ap.add_argument("--profile", type=int, default=None, metavar="N",
                    help="cProfile the pipeline on an N-op module instead of the table")
    args = ap.parse_args(argv)
    if args.profile:
        measure(args.profile, profile=True)
        return 0
    sizes = ([int(s) for s in args.sizes.split(",")] if args.sizes
             else [500, 5000] if args.quick else [1000, 10000, 50000])
    print(f"pipeline {PIPELINE}: {PIPELINES[PIPELINE][0]}", flush=True)
    results = []
    for n in sizes:
        r = measure(n)
        results.append(r)
        print(f"  {r['ops']:,} ops: parse {r['parse']:.2f} s, passes "
              f"{sum(t for _, t in r['passes']):.2f} s, print {r['print']:.2f} s", flush=True)
    print(table(results))
    ok = True
    for r in results:
        total = sum(t for _, t in r["passes"])
        if total > 2 * (r["parse"] + r["print"]):
            print(f"target missed: {r['ops']:,} ops, passes {total:.2f} s > 2 x (parse + print)")
            ok = False
    if len(results) > 1:
        first, last = results[0], results[-1]
        growth = last["ops"] / first["ops"]
        ratio = sum(t for _, t in last["passes"]) / sum(t for _, t in first["passes"])
        print(f"pass time grows {ratio:.2f}x for {growth:.2f}x the ops")
        if first["ops"] < 1000 or growth < 40:
            # small modules are too noisy for a 10% bound; issue 5 sets it for 1k -> 50k
            print("(scaling target judged on the full 1k -> 50k run only)")
        elif ratio > 1.1 * growth:
            print(f"target missed: more than 1.1 x {growth:.1f} (55x for 50x the ops)")
            ok = False
    if args.sizes is None:  # the default and --quick runs: the text scaling lines too
        ok &= split_input_scaling(200 if args.quick else 2000)
        ok &= per_axis_scaling(2000 if args.quick else 10000)
    print("targets met" if ok else "targets missed")
    return 0 if ok else 1


def _linear(what: str, unit: str, n: int, run, was: str) -> bool:
    """Time `run(n)` and `run(10 n)`: linear means about 10x (over 15x: a target missed)."""
    times = []
    for count in (n, 10 * n):
        t0 = time.perf_counter()
        run(count)
        times.append(time.perf_counter() - t0)
    ratio = times[1] / times[0]
    print(f"{what}: {n:,} {unit} {times[0]:.2f} s, {10 * n:,} {unit} {times[1]:.2f} s: "
          f"{ratio:.1f}x for 10x the {unit} (linear: about 10; {was})")
    if ratio > 15:
        print(f"target missed: {what} grows faster than linearly")
        return False
    return True


def split_input_scaling(n: int) -> bool:
    """`qcomp-opt --split-input-file` on n and 10n small chunks."""
    import io

    from qcomp.tools.qcomp_opt import main as opt_main

    chunk = "func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {\n  return %a : tensor<2xf32>\n}\n"

    def run(count: int) -> None:
        opt_main(["-", "--split-input-file"], stdin=io.StringIO("// -----\n".join([chunk] * count)),
                 stdout=io.StringIO())

    return _linear("--split-input-file", "chunks", n, run, "32x when quadratic")


def per_axis_scaling(n: int) -> bool:
    """Parsing a per-axis type of n and 10n channels."""
    from qcomp.registry import parse_module

    def run(count: int) -> None:
        scales = ", ".join(f"{0.5 + i * 1e-6!r}" for i in range(count))
        t = f"tensor<{count}x!quant.uniform<i8:f32:0, {{{scales}}}>>"
        parse_module(f"func.func @f(%a: {t}) {{\n  return\n}}\n")

    return _linear("per-axis type", "channels", n, run, "210x when quadratic")


if __name__ == "__main__":
    sys.exit(main())
