"""The workloads of tools/bench_interp.py: each as a quantized StableHLO program, the
equivalent onnxruntime QDQ model, and the same arithmetic in float32 NumPy (the floor).

- `mlp`: int8 two-layer MLP, batch 256, 1024 -> 1024 -> 1024, per-axis weights;
- `conv`: int8 convolution, NHWC 1x56x56x64, 3x3, 64 filters, per-axis weights;
- `transformer`: an int8 transformer block, batch 8 x 128 tokens x 512 features, 8 heads:
  quantized q/k/v projections (i8 x i8 -> i32, dequantized), float attention (scores,
  softmax), the attention output quantized for the int8 output projection, a residual
  add and a float layer norm.
"""

from __future__ import annotations

import numpy as np



def hex_dense(a: np.ndarray) -> str:
    return '"0x' + np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes().hex().upper() + '"'


def per_axis(axis: int, scales, storage: str = "i8") -> str:
    return f"!quant.uniform<{storage}:f32:{axis}, {{{', '.join(f'{float(s)!r}:0' for s in scales)}}}>"


def _const(name: str, a: np.ndarray, t: str, storage_t: str) -> str:
    return f'  %{name} = "stablehlo.constant"() <{{value = dense<{hex_dense(a)}> : {storage_t}}}> : () -> {t}'


def mlp_program(batch: int, d: int, seed: int = 0) -> tuple[str, list[np.ndarray], dict]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, d)).astype(np.float32)
    w1 = rng.integers(-127, 128, (d, d)).astype(np.int8)
    w2 = rng.integers(-127, 128, (d, d)).astype(np.int8)
    s1 = rng.uniform(0.002, 0.004, d)
    s2 = rng.uniform(0.002, 0.004, d)
    sx, sh = 0.03, 0.5
    qx = f"!quant.uniform<i8:f32, {sx!r}:3>"
    qh = f"!quant.uniform<i8:f32, {sh!r}:-2>"
    acc1 = per_axis(1, sx * s1, "i32")
    acc2 = per_axis(1, sh * s2, "i32")
    t = lambda e: f"tensor<{batch}x{d}x{e}>"  # noqa: E731
    tw = lambda e: f"tensor<{d}x{d}x{e}>"  # noqa: E731
    src = f"""func.func @main(%x: {t('f32')}) -> {t('f32')} {{
{_const('w1', w1, tw(per_axis(1, s1)), tw('i8'))}
{_const('w2', w2, tw(per_axis(1, s2)), tw('i8'))}
  %qx = stablehlo.uniform_quantize %x : ({t('f32')}) -> {t(qx)}
  %a1 = stablehlo.dot_general %qx, %w1, contracting_dims = [1] x [0] : ({t(qx)}, {tw(per_axis(1, s1))}) -> {t(acc1)}
  %h = stablehlo.uniform_quantize %a1 : ({t(acc1)}) -> {t(qh)}
  %a2 = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : ({t(qh)}, {tw(per_axis(1, s2))}) -> {t(acc2)}
  %y = stablehlo.uniform_dequantize %a2 : ({t(acc2)}) -> {t('f32')}
  func.return %y : {t('f32')}
}}
"""
    return src, [x], dict(w1=w1, w2=w2, s1=s1, s2=s2, sx=sx, sh=sh, macs=2 * batch * d * d)


def conv_program(hw: int, c: int, o: int, seed: int = 1) -> tuple[str, list[np.ndarray], dict]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, hw, hw, c)).astype(np.float32)
    w = rng.integers(-127, 128, (3, 3, c, o)).astype(np.int8)
    s = rng.uniform(0.002, 0.004, o)
    sx = 0.03
    qx = f"!quant.uniform<i8:f32, {sx!r}:3>"
    acc = per_axis(3, sx * s, "i32")
    tx = lambda e: f"tensor<1x{hw}x{hw}x{c}x{e}>"  # noqa: E731
    to = lambda e: f"tensor<1x{hw}x{hw}x{o}x{e}>"  # noqa: E731
    tw = f"tensor<3x3x{c}x{o}x{per_axis(3, s)}>"
    src = f"""func.func @main(%x: {tx('f32')}) -> {to('f32')} {{
{_const('w', w, tw, f'tensor<3x3x{c}x{o}xi8>')}
  %qx = stablehlo.uniform_quantize %x : ({tx('f32')}) -> {tx(qx)}
  %a = stablehlo.convolution(%qx, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{pad = [[1, 1], [1, 1]]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({tx(qx)}, {tw}) -> {to(acc)}
  %y = stablehlo.uniform_dequantize %a : ({to(acc)}) -> {to('f32')}
  func.return %y : {to('f32')}
}}
"""
    return src, [x], dict(w=w, s=s, sx=sx, macs=hw * hw * c * 9 * o)


def transformer_program(batch: int = 8, seq: int = 128, d: int = 512, heads: int = 8, seed: int = 2
                        ) -> tuple[str, list[np.ndarray], dict]:
    """An int8 transformer block (module docstring)."""
    rng = np.random.default_rng(seed)
    hd = d // heads
    x = rng.standard_normal((batch, seq, d)).astype(np.float32)
    p: dict = dict(sx=0.03, zx=3, so=0.02, zo=0, eps=1e-5, heads=heads)
    for n in ("q", "k", "v", "o"):
        p[f"w{n}"] = rng.integers(-127, 128, (d, d)).astype(np.int8)
        p[f"ws{n}"] = rng.uniform(0.0005, 0.001, d)
    p["gamma"] = (1.0 + 0.1 * rng.standard_normal(d)).astype(np.float32)
    p["beta"] = (0.1 * rng.standard_normal(d)).astype(np.float32)
    qx = f"!quant.uniform<i8:f32, {p['sx']!r}:{p['zx']}>"
    qo = f"!quant.uniform<i8:f32, {p['so']!r}:{p['zo']}>"
    T = lambda *dims: "tensor<" + "x".join(str(v) for v in dims)  # noqa: E731
    act = lambda e: f"{T(batch, seq, d)}x{e}>"  # noqa: E731
    w_t = {n: f"{T(d, d)}x{per_axis(1, p[f'ws{n}'])}>" for n in "qkvo"}
    acc = {n: act(per_axis(2, (p["so"] if n == "o" else p["sx"]) * p[f"ws{n}"], "i32")) for n in "qkvo"}
    f32 = act("f32")
    h4 = f"{T(batch, seq, heads, hd)}xf32>"
    bh = f"{T(batch, heads, seq, hd)}xf32>"
    sc = f"{T(batch, heads, seq, seq)}xf32>"
    rows3 = f"{T(batch, heads, seq)}xf32>"
    rows2 = f"{T(batch, seq)}xf32>"
    vec = f"{T(d)}xf32>"
    lines = [f"func.func @main(%x: {f32}) -> {f32} {{"]
    for n in "qkvo":
        lines.append(_const(f"w{n}", p[f"w{n}"], w_t[n], f"{T(d, d)}xi8>"))
    lines += [
        f"  %gamma = stablehlo.constant dense<{hex_dense(p['gamma'])}> : {vec}",
        f"  %beta = stablehlo.constant dense<{hex_dense(p['beta'])}> : {vec}",
        "  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
        "  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>",
        f"  %xq = stablehlo.uniform_quantize %x : ({f32}) -> {act(qx)}",
    ]
    for n in "qkv":
        lines += [
            f"  %{n}a = stablehlo.dot_general %xq, %w{n}, contracting_dims = [2] x [0] : ({act(qx)}, {w_t[n]}) -> {acc[n]}",
            f"  %{n}f = stablehlo.uniform_dequantize %{n}a : ({acc[n]}) -> {f32}",
            f"  %{n}r = stablehlo.reshape %{n}f : ({f32}) -> {h4}",
            f"  %{n}h = stablehlo.transpose %{n}r, dims = [0, 2, 1, 3] : ({h4}) -> {bh}",
        ]
    scale = 1.0 / np.sqrt(hd)
    lines += [
        f"  %s = stablehlo.dot_general %qh, %kh, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : ({bh}, {bh}) -> {sc}",
        f"  %c = stablehlo.constant dense<{scale:.6e}> : tensor<f32>",
        f"  %cb = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> {sc}",
        f"  %ss = stablehlo.multiply %s, %cb : {sc}",
        f"  %mx = stablehlo.reduce(%ss init: %ninf) applies stablehlo.maximum across dimensions = [3] : ({sc}, tensor<f32>) -> {rows3}",
        f"  %mxb = stablehlo.broadcast_in_dim %mx, dims = [0, 1, 2] : ({rows3}) -> {sc}",
        f"  %sh = stablehlo.subtract %ss, %mxb : {sc}",
        f"  %e = stablehlo.exponential %sh : {sc}",
        f"  %sum = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [3] : ({sc}, tensor<f32>) -> {rows3}",
        f"  %sumb = stablehlo.broadcast_in_dim %sum, dims = [0, 1, 2] : ({rows3}) -> {sc}",
        f"  %pr = stablehlo.divide %e, %sumb : {sc}",
        f"  %att = stablehlo.dot_general %pr, %vh, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2] : ({sc}, {bh}) -> {bh}",
        f"  %att2 = stablehlo.transpose %att, dims = [0, 2, 1, 3] : ({bh}) -> {h4}",
        f"  %att3 = stablehlo.reshape %att2 : ({h4}) -> {f32}",
        f"  %aq = stablehlo.uniform_quantize %att3 : ({f32}) -> {act(qo)}",
        f"  %oa = stablehlo.dot_general %aq, %wo, contracting_dims = [2] x [0] : ({act(qo)}, {w_t['o']}) -> {acc['o']}",
        f"  %of = stablehlo.uniform_dequantize %oa : ({acc['o']}) -> {f32}",
        f"  %r = stablehlo.add %x, %of : {f32}",
        f"  %n = stablehlo.constant dense<{float(d):.6e}> : tensor<f32>",
        f"  %nb = stablehlo.broadcast_in_dim %n, dims = [] : (tensor<f32>) -> {rows2}",
        f"  %rs = stablehlo.reduce(%r init: %zero) applies stablehlo.add across dimensions = [2] : ({f32}, tensor<f32>) -> {rows2}",
        f"  %mean = stablehlo.divide %rs, %nb : {rows2}",
        f"  %meanb = stablehlo.broadcast_in_dim %mean, dims = [0, 1] : ({rows2}) -> {f32}",
        f"  %cen = stablehlo.subtract %r, %meanb : {f32}",
        f"  %sq = stablehlo.multiply %cen, %cen : {f32}",
        f"  %vs = stablehlo.reduce(%sq init: %zero) applies stablehlo.add across dimensions = [2] : ({f32}, tensor<f32>) -> {rows2}",
        f"  %var = stablehlo.divide %vs, %nb : {rows2}",
        f"  %eps = stablehlo.constant dense<{p['eps']:.6e}> : tensor<f32>",
        f"  %epsb = stablehlo.broadcast_in_dim %eps, dims = [] : (tensor<f32>) -> {rows2}",
        f"  %ve = stablehlo.add %var, %epsb : {rows2}",
        f"  %inv = stablehlo.rsqrt %ve : {rows2}",
        f"  %invb = stablehlo.broadcast_in_dim %inv, dims = [0, 1] : ({rows2}) -> {f32}",
        f"  %nrm = stablehlo.multiply %cen, %invb : {f32}",
        f"  %gb = stablehlo.broadcast_in_dim %gamma, dims = [2] : ({vec}) -> {f32}",
        f"  %bb = stablehlo.broadcast_in_dim %beta, dims = [2] : ({vec}) -> {f32}",
        f"  %g = stablehlo.multiply %nrm, %gb : {f32}",
        f"  %y = stablehlo.add %g, %bb : {f32}",
        f"  func.return %y : {f32}",
        "}",
    ]
    p["macs"] = 4 * batch * seq * d * d + 2 * batch * heads * seq * seq * hd
    return "\n".join(lines) + "\n", [x], p


PROGRAMS = {
    "mlp": lambda: mlp_program(256, 1024),
    "conv": lambda: conv_program(56, 64, 64),
    "transformer": lambda: transformer_program(8, 128, 512, 8),
}


# -- float32 NumPy: the floor -------------------------------------------------------------

def float_params(kind: str, p: dict) -> dict:
    """The weights as float32 (dequantized), made once outside the timed floor."""
    if kind == "mlp":
        return {n: (p[n] * p["s" + n[1]]).astype(np.float32) for n in ("w1", "w2")}
    if kind == "conv":
        return {"w": (p["w"] * p["s"]).astype(np.float32).reshape(-1, p["w"].shape[3])}
    return {**{f"w{n}": (p[f"w{n}"] * p[f"ws{n}"]).astype(np.float32) for n in "qkvo"},
            **{k: p[k] for k in ("gamma", "beta", "eps", "heads")}}


def numpy_floor(kind: str, x: np.ndarray, f: dict) -> np.ndarray:
    """The workload's arithmetic in float32 NumPy (`f`: `float_params`)."""
    if kind == "mlp":
        return (x @ f["w1"]) @ f["w2"]
    if kind == "conv":
        from numpy.lib.stride_tricks import sliding_window_view

        xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        win = sliding_window_view(xp, (3, 3), axis=(1, 2))  # (1, H, W, C, 3, 3)
        _, h, w, c = x.shape
        patches = np.moveaxis(win, 3, -1).reshape(h * w, 9 * c)
        return patches @ f["w"]
    b, s, d = x.shape
    nh = f["heads"]
    q, k, v = ((x @ f[f"w{n}"]).reshape(b, s, nh, d // nh).transpose(0, 2, 1, 3) for n in "qkv")
    sc = (q @ k.transpose(0, 1, 3, 2)) * np.float32(1.0 / np.sqrt(d // nh))
    e = np.exp(sc - sc.max(axis=-1, keepdims=True))
    att = (e / e.sum(axis=-1, keepdims=True)) @ v
    r = x + att.transpose(0, 2, 1, 3).reshape(b, s, d) @ f["wo"]
    cen = r - r.mean(axis=-1, keepdims=True)
    return cen / np.sqrt((cen * cen).mean(axis=-1, keepdims=True) + np.float32(f["eps"])) * f["gamma"] + f["beta"]


# -- onnxruntime's QDQ models --------------------------------------------------------------

def ort_session(kind: str, p: dict, shape: tuple[int, ...], threads: int):
    """An onnxruntime session of the workload on `threads` intra-op threads (None when
    onnx / onnxruntime are not installed)."""
    try:
        import onnxruntime as ort
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    inits, nodes = [], []

    def const(name, arr):
        inits.append(numpy_helper.from_array(np.asarray(arr), name))

    def node(op, ins, outs, **kw):
        nodes.append(helper.make_node(op, ins, outs, **kw))

    def qdq(src, dst, scale, zp):
        node("QuantizeLinear", [src, scale, zp], [dst + "_q"])
        node("DequantizeLinear", [dst + "_q", scale, zp], [dst])

    def weight(name, w, s, axis):
        const(f"{name}q", w)
        const(f"{name}s", s.astype(np.float32))
        const(f"{name}z", np.zeros(len(s), np.int8))
        node("DequantizeLinear", [f"{name}q", f"{name}s", f"{name}z"], [name], axis=axis)

    const("sx", np.float32(p["sx"]))
    const("zx", np.int8(p.get("zx", 3)))
    in_shape = out_shape = shape
    if kind == "mlp":
        const("sh", np.float32(p["sh"]))
        const("zh", np.int8(-2))
        weight("w1", p["w1"], p["s1"], 1)
        weight("w2", p["w2"], p["s2"], 1)
        qdq("x", "xd", "sx", "zx")
        node("MatMul", ["xd", "w1"], ["a1"])
        qdq("a1", "hd", "sh", "zh")
        node("MatMul", ["hd", "w2"], ["y"])
    elif kind == "conv":
        weight("wd", np.transpose(p["w"], (3, 2, 0, 1)), p["s"], 0)  # OIHW
        qdq("x", "xd", "sx", "zx")
        node("Conv", ["xd", "wd"], ["y"], pads=[1, 1, 1, 1])
        n, h, wd, c = shape
        in_shape, out_shape = (n, c, h, wd), (n, p["w"].shape[3], h, wd)
    else:
        b, s, d = shape
        nh = p["heads"]
        for n in "qkvo":
            weight(f"w{n}", p[f"w{n}"], p[f"ws{n}"], 1)
        const("so", np.float32(p["so"]))
        const("zo", np.int8(p["zo"]))
        const("heads", np.array([b, s, nh, d // nh], np.int64))
        const("flat", np.array([b, s, d], np.int64))
        const("scale", np.float32(1.0 / np.sqrt(d // nh)))
        const("gamma", p["gamma"])
        const("beta", p["beta"])
        qdq("x", "xd", "sx", "zx")
        for n in "qkv":
            node("MatMul", ["xd", f"w{n}"], [f"{n}f"])
            node("Reshape", [f"{n}f", "heads"], [f"{n}r"])
            node("Transpose", [f"{n}r"], [f"{n}h"], perm=[0, 2, 1, 3] if n != "k" else [0, 2, 3, 1])
        node("MatMul", ["qh", "kh"], ["sc"])
        node("Mul", ["sc", "scale"], ["ss"])
        node("Softmax", ["ss"], ["pr"], axis=-1)
        node("MatMul", ["pr", "vh"], ["att"])
        node("Transpose", ["att"], ["att2"], perm=[0, 2, 1, 3])
        node("Reshape", ["att2", "flat"], ["att3"])
        qdq("att3", "ad", "so", "zo")
        node("MatMul", ["ad", "wo"], ["of"])
        node("Add", ["x", "of"], ["r"])
        node("LayerNormalization", ["r", "gamma", "beta"], ["y"], axis=-1, epsilon=p["eps"])
    graph = helper.make_graph(nodes, kind, [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def ort_feed(kind: str, x: np.ndarray) -> dict:
    return {"x": np.ascontiguousarray(np.transpose(x, (0, 3, 1, 2))) if kind == "conv" else x}
