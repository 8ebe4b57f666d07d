#!/usr/bin/env python3
"""Benchmark qcomp's interpreter on int8 models (a benchmark, never a timed test).

    python3 tools/bench_interp.py [--repeat 3] [--semantics spec|stablehlo]

Workloads: an int8 two-layer MLP (batch 256, 1024 -> 1024 -> 1024, per-axis weights)
and an int8 convolution (NHWC 1x56x56x64, 3x3, 64 filters, per-axis weights), each run
(a) by qcomp's interpreter on the quantized StableHLO program, (b) as float32 NumPy of
the same shapes (the floor), (c) by onnxruntime on the equivalent QDQ model (when
installed), (d) by jaxlib's reference interpreter (`eval_module`) on a reduced size of
the same program, per multiply-accumulate. Also prints peak traced memory of (a)
against the bytes of the tensors involved.
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RNG = np.random.default_rng(0)


def hex_dense(a: np.ndarray) -> str:
    return '"0x' + np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes().hex().upper() + '"'


def per_axis(axis: int, scales) -> str:
    return f"!quant.uniform<i8:f32:{axis}, {{{', '.join(f'{float(s)!r}:0' for s in scales)}}}>"


def mlp_program(batch: int, d: int) -> tuple[str, list[np.ndarray], dict]:
    x = RNG.standard_normal((batch, d)).astype(np.float32)
    w1 = RNG.integers(-127, 128, (d, d)).astype(np.int8)
    w2 = RNG.integers(-127, 128, (d, d)).astype(np.int8)
    s1 = RNG.uniform(0.002, 0.004, d)
    s2 = RNG.uniform(0.002, 0.004, d)
    sx, sh = 0.03, 0.5
    qx = f"!quant.uniform<i8:f32, {sx!r}:3>"
    qh = f"!quant.uniform<i8:f32, {sh!r}:-2>"
    acc1 = per_axis(1, sx * s1)
    acc2 = per_axis(1, sh * s2)
    t = lambda e: f"tensor<{batch}x{d}x{e}>"  # noqa: E731
    tw = lambda e: f"tensor<{d}x{d}x{e}>"  # noqa: E731
    src = f"""func.func @main(%x: {t('f32')}) -> {t('f32')} {{
  %w1 = "stablehlo.constant"() <{{value = dense<{hex_dense(w1)}> : {tw('i8')}}}> : () -> {tw(per_axis(1, s1))}
  %w2 = "stablehlo.constant"() <{{value = dense<{hex_dense(w2)}> : {tw('i8')}}}> : () -> {tw(per_axis(1, s2))}
  %qx = stablehlo.uniform_quantize %x : ({t('f32')}) -> {t(qx)}
  %a1 = stablehlo.dot_general %qx, %w1, contracting_dims = [1] x [0] : ({t(qx)}, {tw(per_axis(1, s1))}) -> {t(acc1)}
  %h = stablehlo.uniform_quantize %a1 : ({t(acc1)}) -> {t(qh)}
  %a2 = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : ({t(qh)}, {tw(per_axis(1, s2))}) -> {t(acc2)}
  %y = stablehlo.uniform_dequantize %a2 : ({t(acc2)}) -> {t('f32')}
  func.return %y : {t('f32')}
}}
"""
    return src, [x], dict(w1=w1, w2=w2, s1=s1, s2=s2, sx=sx, sh=sh, macs=2 * batch * d * d)


def conv_program(hw: int, c: int, o: int) -> tuple[str, list[np.ndarray], dict]:
    x = RNG.standard_normal((1, hw, hw, c)).astype(np.float32)
    w = RNG.integers(-127, 128, (3, 3, c, o)).astype(np.int8)
    s = RNG.uniform(0.002, 0.004, o)
    sx = 0.03
    qx = f"!quant.uniform<i8:f32, {sx!r}:3>"
    acc = per_axis(3, sx * s)
    tx = lambda e: f"tensor<1x{hw}x{hw}x{c}x{e}>"  # noqa: E731
    to = lambda e: f"tensor<1x{hw}x{hw}x{o}x{e}>"  # noqa: E731
    tw = f"tensor<3x3x{c}x{o}x{per_axis(3, s)}>"
    src = f"""func.func @main(%x: {tx('f32')}) -> {to('f32')} {{
  %w = "stablehlo.constant"() <{{value = dense<{hex_dense(w)}> : tensor<3x3x{c}x{o}xi8>}}> : () -> {tw}
  %qx = stablehlo.uniform_quantize %x : ({tx('f32')}) -> {tx(qx)}
  %a = stablehlo.convolution(%qx, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{pad = [[1, 1], [1, 1]]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({tx(qx)}, {tw}) -> {to(acc)}
  %y = stablehlo.uniform_dequantize %a : ({to(acc)}) -> {to('f32')}
  func.return %y : {to('f32')}
}}
"""
    return src, [x], dict(w=w, s=s, sx=sx, macs=hw * hw * c * 9 * o)


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run_qcomp(src: str, args, semantics: str, repeat: int):
    from qcomp.registry import parse_module
    from qcomp.interpreter import run

    t0 = time.perf_counter()
    module = parse_module(src)
    parse_s = time.perf_counter() - t0
    out = {}

    def go():
        (r,) = run(module, args, semantics=semantics)
        assert r.error is None, r.error.message
        out["r"] = r.results[0]

    t = best_of(go, repeat)
    tracemalloc.start()
    go()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return t, parse_s, peak, out["r"]


def numpy_mlp(x, p):
    return (x @ p["w1"].astype(np.float32)) @ p["w2"].astype(np.float32)


def numpy_conv(x, p):
    from numpy.lib.stride_tricks import sliding_window_view

    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    win = sliding_window_view(xp, (3, 3), axis=(1, 2))  # (1, H, W, C, 3, 3)
    n, h, w, c = x.shape
    patches = np.moveaxis(win, 3, -1).reshape(h * w, 9 * c)
    return patches @ p["w"].astype(np.float32).reshape(9 * c, -1)


def ort_session(kind: str, p, shape):
    try:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    inits, nodes = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))

    def qdq(src, dst, scale, zp, axis=None):
        kw = {} if axis is None else {"axis": axis}
        nodes.append(helper.make_node("QuantizeLinear", [src, scale, zp], [dst + "_q"], **kw))
        nodes.append(helper.make_node("DequantizeLinear", [dst + "_q", scale, zp], [dst], **kw))

    const("sx", np.float32(p["sx"]))
    const("zx", np.int8(3))
    if kind == "mlp":
        const("sh", np.float32(p["sh"]))
        const("zh", np.int8(-2))
        for i, (w, s) in enumerate(((p["w1"], p["s1"]), (p["w2"], p["s2"])), 1):
            const(f"w{i}q", w)
            const(f"s{i}", s.astype(np.float32))
            const(f"z{i}", np.zeros(len(s), np.int8))
            nodes.append(helper.make_node("DequantizeLinear", [f"w{i}q", f"s{i}", f"z{i}"], [f"w{i}"], axis=1))
        qdq("x", "xd", "sx", "zx")
        nodes.append(helper.make_node("MatMul", ["xd", "w1"], ["a1"]))
        qdq("a1", "hd", "sh", "zh")
        nodes.append(helper.make_node("MatMul", ["hd", "w2"], ["y"]))
        in_shape, out_shape = shape, shape
    else:
        w = np.transpose(p["w"], (3, 2, 0, 1))  # OIHW
        const("wq", w)
        const("sw", p["s"].astype(np.float32))
        const("zw", np.zeros(len(p["s"]), np.int8))
        nodes.append(helper.make_node("DequantizeLinear", ["wq", "sw", "zw"], ["wd"], axis=0))
        qdq("x", "xd", "sx", "zx")
        nodes.append(helper.make_node("Conv", ["xd", "wd"], ["y"], pads=[1, 1, 1, 1]))
        n, h, wd, c = shape
        in_shape, out_shape = (n, c, h, wd), (n, w.shape[0], h, wd)
    graph = helper.make_graph(nodes, kind, [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def jax_seconds_per_mac(kind: str) -> float | None:
    try:
        sys.path.insert(0, str(ROOT / "tests" / "interpreter"))
        from jax_oracle import AVAILABLE, eval_upstream
    except ImportError:
        return None
    if not AVAILABLE:
        return None
    src, args, p = mlp_program(4, 64) if kind == "mlp" else conv_program(8, 16, 16)
    t = best_of(lambda: eval_upstream(src, args), 1)
    return t / p["macs"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--semantics", choices=("spec", "stablehlo"), default="spec")
    args = ap.parse_args(argv)
    rows = []
    for kind in ("mlp", "conv"):
        src, inputs, p = mlp_program(256, 1024) if kind == "mlp" else conv_program(56, 64, 64)
        t_q, t_parse, peak, result = run_qcomp(src, inputs, args.semantics, args.repeat)
        x = inputs[0]
        t_np = best_of(lambda: numpy_mlp(x, p) if kind == "mlp" else numpy_conv(x, p), args.repeat)
        sess = ort_session(kind, p, x.shape)
        t_ort = None
        if sess is not None:
            feed = {"x": x if kind == "mlp" else np.ascontiguousarray(np.transpose(x, (0, 3, 1, 2)))}
            sess.run(None, feed)
            t_ort = best_of(lambda: sess.run(None, feed), args.repeat)
        jax_per_mac = jax_seconds_per_mac(kind)
        tensors = sum(a.nbytes for a in inputs) + result.nbytes + sum(
            v.nbytes for v in p.values() if isinstance(v, np.ndarray) and v.dtype == np.int8)
        rows.append((kind, p["macs"], t_q, t_parse, t_np, t_ort, jax_per_mac, peak, tensors))
    print(f"semantics: {args.semantics}; best of {args.repeat}; single process, NumPy BLAS threads as configured")
    print(f"{'workload':<6} {'MACs':>11} {'qcomp s':>9} {'numpy f32 s':>11} {'qcomp/np':>8} "
          f"{'ort s':>8} {'qcomp/ort':>9} {'ref us/MAC':>10} {'ref/qcomp per MAC':>17} "
          f"{'peak MiB':>8} {'tensors MiB':>11} {'parse s':>7}")
    for kind, macs, t_q, t_parse, t_np, t_ort, jpm, peak, tensors in rows:
        ort_s = f"{t_ort:8.3f}" if t_ort is not None else f"{'n/a':>8}"
        ort_r = f"{t_q / t_ort:9.2f}" if t_ort is not None else f"{'n/a':>9}"
        ref = f"{jpm * 1e6:10.3f}" if jpm is not None else f"{'n/a':>10}"
        ratio = f"{jpm / (t_q / macs):17.0f}" if jpm is not None else f"{'n/a':>17}"
        print(f"{kind:<6} {macs:>11,} {t_q:9.3f} {t_np:11.3f} {t_q / t_np:8.2f} {ort_s} {ort_r} {ref} "
              f"{ratio} {peak / 2**20:8.1f} {tensors / 2**20:11.1f} {t_parse:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
