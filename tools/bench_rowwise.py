"""Benchmark: Caffe2's fused rowwise formats in qcomp (numba loops) against PyTorch's C++ kernels.

    python3 tools/bench_rowwise.py [--rows 1000000] [--cols 64] [--indices 100000]
                                   [--repeat 3] [--xla] [--bags]

Quantizes and dequantizes a rows x cols float32 table in every format and runs a bag
lookup of `--indices` indices (bags of 20), qcomp against `torch.ops.quantized`'s
prepack / unpack / bag kernels in the same run: qcomp and torch each with their default
thread counts (qcomp: `qcomp.quant.threads`, torch: its intra-op pool) and each with
one thread, each timed in blocks of runs (at least `--repeat` runs, more for fast
rows), the four blocks in turn three times over (`rounds`): best wall time of each,
and the best CPU time of each single-threaded run. Every row also says whether qcomp's output
equals torch's bit for bit. The load average before and after is printed: on a
shared machine the ratios are rough. qcomp's numba kernels are compiled (or loaded
from their on-disk cache) by a warm-up on a small table before any timed run; that
time is printed once.

`--xla` adds a column: the op lowered by `rowwise-legalize-to-stablehlo` and compiled
by XLA (`qcomp.backends.xla`), run time best of `--repeat` (host conversions
included), compile time printed separately, bytes compared with torch's. Only the
fused quantize / dequantize rows: the bag lowering unrolls one step per index.
Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from qcomp.quant import rowwise as rw  # noqa: E402
from qcomp.quant import rowwise_bags as rb  # noqa: E402
from qcomp.quant import rowwise_rand as rr  # noqa: E402
from qcomp.quant import threads as qthreads  # noqa: E402


SETTLE = 0.05
"""Seconds of rest before each block: torch's OpenMP workers spin for some milliseconds
after a parallel region, and would take a core from the next block."""


def rounds(variants: dict, repeat: int, budget: float = 0.25, passes: int = 3) -> dict:
    """Blocks of runs: each variant (name -> (setup, fn); setup() sets its thread
    count) runs at least `repeat` times in a row and more while its block has taken
    less than `budget` seconds (up to 200 runs); the blocks go in turn, `passes` times
    over, after a rest of `SETTLE` seconds each, so that a neighbour's burst on the
    shared cores is unlikely to hit every block of one variant. Returns name ->
    (best wall time, best CPU time of this process, last result)."""
    best = {k: [float("inf"), float("inf"), None] for k in variants}
    for _ in range(passes):
        for name, (setup, fn) in variants.items():
            setup()
            time.sleep(SETTLE)
            b, start, runs = best[name], time.perf_counter(), 0
            while runs < repeat or (time.perf_counter() - start < budget and runs < 200):
                t0, c0 = time.perf_counter(), time.process_time()
                b[2] = fn()
                b[0] = min(b[0], time.perf_counter() - t0)
                b[1] = min(b[1], time.process_time() - c0)
                runs += 1
    return {k: tuple(v) for k, v in best.items()}


def best(fn, repeat: int) -> tuple[float, object]:
    """(best wall time, result) of `repeat` runs of fn alone."""
    t, _, out = rounds({"fn": (lambda: None, fn)}, repeat, budget=0, passes=1)["fn"]
    return t, out


def warm_up(cols: int) -> float:
    """Seconds to compile (or load from numba's cache) every qcomp kernel timed here."""
    t0 = time.perf_counter()
    x = np.random.default_rng(1).standard_normal((4, cols), dtype=np.float32)
    idx, lengths, weights = np.array([0, 1, 3]), np.array([2, 1]), np.ones(3, np.float32)
    for bits in (8, 4, 2):
        q = rw.float_to_fused_8bit(x) if bits == 8 else rw.float_to_fused_nbit(x, bits)
        if bits != 8:
            rw.float_to_fused_nbit_fake(x, bits)
        rb.sparse_lengths(q, idx, lengths, bits)
        rb.sparse_lengths(q, idx, lengths, bits, weights)
    rr.float_to_fused_rand(x, 4, True, 1)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--cols", type=int, default=64)
    ap.add_argument("--indices", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--xla", action="store_true", help="add the XLA-compiled lowering as a column")
    ap.add_argument("--bags", action="store_true",
                    help="only the bag rows (the tables quantized once, untimed)")
    ap.add_argument("--kernels", choices=["numba", "numpy"], default=None,
                    help="qcomp's kernel backend (default: numba when installed)")
    args = ap.parse_args(argv)
    rw.set_kernel_backend(args.kernels)
    print(f"qcomp kernels: {rw.kernel_backend()}")
    load_before = os.getloadavg()
    try:
        import torch
    except ImportError:
        print("torch is not installed (pip install -e '.[test]'); qcomp times only")
        torch = None
    ops = torch.ops.quantized if torch is not None else None
    threads = torch.get_num_threads() if torch is not None else 0

    rng = np.random.default_rng(0)
    warm = warm_up(args.cols)
    w = rng.standard_normal((args.rows, args.cols), dtype=np.float32)
    tw = torch.from_numpy(w) if torch is not None else None
    rows = []

    q_threads = qthreads.num_threads()

    def q_at(n):
        return lambda: qthreads.set_num_threads(n)

    def t_at(n):
        return lambda: torch.set_num_threads(n)

    xla_notes = []

    def xla_time(text, entry, arg, want):
        """(best run time, same bytes as `want`) of the lowered op compiled by XLA."""
        from qcomp.backends import xla
        from qcomp.registry import PASSES, make_context, parse_module

        ctx = make_context()
        module = parse_module(text, ctx)
        PASSES["rowwise-legalize-to-stablehlo"]()().apply(ctx, module)
        fn = xla.compile_module(module, entry=entry)[0]
        if fn.error is not None:
            xla_notes.append(f"{entry}: {fn.error.message}")
            return None, None
        xla_notes.append(f"{entry}: lowering {fn.lower_seconds:.2f} s, XLA compile "
                         f"{fn.compile_seconds:.2f} s")
        t, run = best(lambda: fn.run([arg]), args.repeat)
        got = run.results[0] if run.error is None else None
        return t, None if want is None or got is None else got.tobytes() == want.tobytes()

    def row(op: str, fmt: str, qfn, tfn=None, xla_op=None):
        variants = {"q": (q_at(q_threads), qfn), "q1": (q_at(1), qfn)}
        if tfn is not None and torch is not None:
            variants.update(t=(t_at(threads), tfn), t1=(t_at(1), tfn))
        got_t = rounds(variants, args.repeat)
        qthreads.set_num_threads(q_threads)
        if torch is not None:
            torch.set_num_threads(threads)
        (t_q, _, got), (q_1, c_q, _) = got_t["q"], got_t["q1"]
        t_n, (t_1, c_1, want) = (got_t["t"][0], got_t["t1"]) if "t" in got_t else (None, (None, None, None))
        same = None
        if want is not None:
            want = want.numpy()
            same = got.shape == want.shape and got.tobytes() == want.tobytes()
        t_x = same_x = None
        if args.xla and xla_op is not None:
            t_x, same_x = xla_time(*xla_op(got), want)
        rows.append((op, fmt, t_q, t_n, q_1, t_1, c_q, c_1, same, t_x, same_x))
        return got

    def xla_program(name, arg, result):
        """(module text, entry, argument) of one rowwise op on `arg`, result like `result`."""
        def ty(a):
            return f"tensor<{'x'.join(map(str, a.shape))}x{'f32' if a.dtype == np.float32 else 'ui8'}>"
        text = (f"func.func @{name}(%x: {ty(arg)}) -> {ty(result)} {{\n"
                f"  %y = rowwise.{name} %x : {ty(arg)} -> {ty(result)}\n"
                f"  func.return %y : {ty(result)}\n}}\n")
        return text, name, arg

    table = {}
    for bits, name in ((8, "byte"), (4, "4bit"), (2, "2bit")):
        if args.bags:
            table[bits] = rw.float_to_fused_8bit(w) if bits == 8 else rw.float_to_fused_nbit(w, bits)
            continue
        fmt = f"fused {bits}-bit"
        pack = rw.float_to_fused_8bit if bits == 8 else (lambda x, b=bits: rw.float_to_fused_nbit(x, b))
        unpack = rw.fused_8bit_to_float if bits == 8 else (lambda x, b=bits: rw.fused_nbit_to_float(x, b))
        tp = getattr(ops, f"embedding_bag_{name}_prepack") if ops else None
        tu = getattr(ops, f"embedding_bag_{name}_unpack") if ops else None
        op = f"float_to_fused_{bits}bit"
        packed = row("quantize", fmt, lambda: pack(w), (lambda: tp(tw)) if tp else None,
                     lambda got, op=op: xla_program(op, w, got))
        table[bits] = packed
        op = f"fused_{bits}bit_to_float"
        row("dequantize", fmt, lambda: unpack(packed),
            (lambda: tu(torch.from_numpy(packed))) if tu else None,
            lambda got, op=op, p=packed: xla_program(op, p, got))
    for bits in (4, 2) if not args.bags else ():
        fake = row("quantize", f"fake {bits}-bit", lambda b=bits: rw.float_to_fused_nbit_fake(w, b))
        row("dequantize", f"fake {bits}-bit", lambda f=fake: rw.fused_8bit_to_float(f))
    if not args.bags:
        rand = row("quantize", "random 4-bit (stochastic)", lambda: rr.float_to_fused_rand(w, 4, True, 1))
        row("dequantize", "random 4-bit", lambda: rr.fused_rand_to_float(rand))

    n = args.indices
    idx = rng.integers(0, args.rows, n)
    lengths = np.full(n // 20, 20)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    weights = rng.standard_normal(n).astype(np.float32)
    for bits, name in ((8, "byte"), (4, "4bit")):
        data = table[bits]
        bag = getattr(ops, f"embedding_bag_{name}_rowwise_offsets") if ops else None
        td, ti, to = (torch.from_numpy(data), torch.from_numpy(idx), torch.from_numpy(offsets)) if ops else (None,) * 3
        row(f"bag sum, {n:,} indices", f"fused {bits}-bit",
            lambda d=data, b=bits: rb.sparse_lengths(d, idx, lengths, b),
            (lambda: bag(td, ti, to, False, 0, False, None, None, True)) if bag else None)
        tw8 = torch.from_numpy(weights) if ops else None
        row(f"bag weighted sum, {n:,} indices", f"fused {bits}-bit",
            lambda d=data, b=bits: rb.sparse_lengths(d, idx, lengths, b, weights),
            (lambda: bag(td, ti, to, False, 0, False, tw8, None, True)) if bag else None)

    def fmt_t(t):
        if t is None:
            return "—"
        return f"{t * 1000:.2f} ms" if t < 0.1 else f"{t:.3f} s"

    def fmt_r(a, b):
        return "—" if b is None else f"{a / b:.1f}"

    def yes(same):
        return "—" if same is None else ("yes" if same else "NO")

    xla_head = " | qcomp on XLA | XLA / torch 1T | XLA same bytes" if args.xla else ""
    header = (f"| operation ({args.rows:,} × {args.cols} f32) | format | qcomp ({q_threads} threads) "
              f"| torch ({threads} threads) | qcomp / torch | qcomp (1 thread) | torch (1 thread) "
              f"| qcomp / torch 1T | CPU qcomp / torch 1T | same bytes{xla_head} |")
    print(header)
    print("|" + "---|" * (13 if args.xla else 10))
    for op, fmt, t_q, t_n, q_1, t_1, c_q, c_1, same, t_x, same_x in rows:
        xla_cols = f" | {fmt_t(t_x)} | {fmt_r(t_x, t_1) if t_x else '—'} | {yes(same_x)}" if args.xla else ""
        cpu = "—" if c_1 is None else f"{fmt_t(c_q)} / {fmt_t(c_1)} = {c_q / max(c_1, 1e-9):.1f}"
        print(f"| {op} | {fmt} | {fmt_t(t_q)} | {fmt_t(t_n)} | {fmt_r(t_q, t_n)} | {fmt_t(q_1)} "
              f"| {fmt_t(t_1)} | {fmt_r(q_1, t_1)} | {cpu} | {yes(same)}{xla_cols} |")
    for note in xla_notes:
        print(f"XLA {note}")
    print(f"numba kernels compiled or loaded from cache in {warm:.2f} s (warm-up, not timed above)")
    load_after = os.getloadavg()
    print(f"load average (1, 5, 15 min) before {load_before[0]:.1f} {load_before[1]:.1f} "
          f"{load_before[2]:.1f}, after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f} "
          f"on {os.cpu_count()} cores")
    ok = all(r[8] in (None, True) and r[10] in (None, True) for r in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
