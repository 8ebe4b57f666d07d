"""onnxruntime's com.microsoft Attention, EmbedLayerNormalization and the forms
`quantize_dynamic` writes of them and of LSTM (QAttention, QEmbedLayerNormalization,
DynamicQuantizeLSTM), as `onnx.Custom` ops with a StableHLO meaning
(`core.CONTRIB_LOWERINGS`, which `onnx-legalize-to-stablehlo` applies and the
interpreter runs), in onnxruntime's CPU kernels' arithmetic:

    Attention:  Q|K|V = input @ weights + bias (heads of qkv_hidden_sizes / num_heads),
                P = softmax(scale * Q @ K^T + M) (scale: 1 / sqrt(head size) unless given;
                M: 0, or mask_filter_value where mask_index masks a key, or the lowest
                float after the query when unidirectional), output = P @ V, heads joined;
                present = [K, V]
    QAttention: Q|K|V = float((input - input_zp) @ (weight - weight_zp)) (int32) *
                (input_scale * weight_scale) + bias, then as Attention
    EmbedLayerNormalization: E = word[ids] + position[position_ids or 0..S-1]
                (+ segment[segment_ids]); output = (E - mean) / sqrt(var + epsilon) *
                gamma + beta over the hidden dimension; mask_index = count(mask == 1)
                per batch row (0 without mask); embedding_sum = E
    QEmbedLayerNormalization: the same on dequantized tables, `float(q - zp) * scale`
    DynamicQuantizeLSTM: LSTM (`sequence_ops`) whose products quantize their float
                operand to uint8 on the fly (DynamicQuantizeLinear's scale and zero point
                over the rows that count) and multiply it with W / R (int8 or uint8,
                [D, K, 4H], scale and zero point per direction or per gate column) in
                int32: `float(acc) * (a_scale * w_scale)`.

Mask forms of Attention: none, [B] (key lengths: keys from the length on are masked),
[2B] (ends then starts), [B, T] and [B, S, T] (0 masks). Not here (the op stays, with a
remark): `past`, `attention_bias`, `past_sequence_length`, do_rotary, a 4-D mask.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerType, TensorType, f32, i32
from xdsl.ir import SSAValue

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.onnx import to_stablehlo as ts
from qcomp.dialects.onnx.core import (
    CONTRIB_LOWERINGS,
    CONTRIB_QUANTIZER_FORMS,
    CONTRIB_VERIFIERS,
    Lowering,
    QuantizerForms,
    attr,
    elements_in,
    fail,
    is_none,
    static_shape,
)
from qcomp.dialects.onnx.sequence_ops import (
    E,
    check_lstm,
    expect_shape,
    lens_in_range,
    lstm_lowering,
)
from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr, GatherDimensionNumbersAttr
from qcomp.dialects.stablehlo.format import i64_array

I64 = IntegerType(64)
U8 = ("uint8",)
I8 = ("int8", "uint8")


def arg(op, i: int) -> SSAValue | None:
    """Input `i` of a contrib op, None when absent."""
    return op.inputs[i] if i < len(op.inputs) and not is_none(op.inputs[i]) else None


def _scalar(b, v: SSAValue) -> SSAValue:
    return b.reshape(v, ())


def _dot(b, x, y, lc, rc, batch=(), shape=None, e=None):
    dn = DotDimensionNumbersAttr.get(list(batch), list(batch), [lc], [rc])
    return b.op(sh.DotGeneralOp, [x, y], e or ts.element_of(x), shape,
                dot_dimension_numbers=dn)


def _centered(b, q: SSAValue, zp: SSAValue | None, zp_dims: list[int]) -> SSAValue:
    """`q - zp` in int32 (zp broadcast along `zp_dims`)."""
    shape = ts.shape_of(q)
    v = b.convert(q, i32)
    if zp is None:
        return v
    z = b.convert(zp if zp_dims else _scalar(b, zp), i32)
    return b.op(sh.SubtractOp, [v, b.broadcast_in_dim(z, shape, zp_dims)], i32, shape)


def _per(b, v: SSAValue, n: int) -> tuple[SSAValue, list[int]]:
    """A scale / zero point per tensor ([] or [1]: a scalar) or per column [n]."""
    size = int(np.prod(ts.shape_of(v)))
    return (_scalar(b, v), []) if size == 1 else (b.reshape(v, (n,)), [1])


# -- attention --------------------------------------------------------------------------

def _mask(b, op, mask, bs, s, t):
    """The additive mask [B, S, T] (None when there is none)."""
    fill = float(attr(op, "mask_filter_value") if attr(op, "mask_filter_value") is not None
                 else -10000.0)
    causal = bool(attr(op, "unidirectional")) and s > 1
    if mask is None and not causal:
        return None
    x = E(b, f32, (bs, s, t))
    m = x.c(0)
    key = b.emit(sh.IotaOp(2, TensorType(i32, (bs, s, t))))
    if mask is not None:
        ms = ts.shape_of(mask)
        if len(ms) == 1 and ms[0] in (bs, 2 * bs):
            end = b.broadcast_in_dim(_slice1(b, mask, 0, bs), (bs, s, t), [0])
            masked = b.emit(sh.CompareOp(key, end, "GE"))
            if ms[0] == 2 * bs:
                start = b.broadcast_in_dim(_slice1(b, mask, bs, 2 * bs), (bs, s, t), [0])
                masked = b.op(sh.OrOp, [masked, b.emit(sh.CompareOp(key, start, "LT"))],
                              ts.element_of(masked), (bs, s, t))
        elif ms == (bs, t) or ms == (bs, s, t):
            full = b.broadcast_in_dim(mask, (bs, s, t), [0, 2] if len(ms) == 2 else [0, 1, 2])
            masked = b.emit(sh.CompareOp(full, b.splat(0, i32, (bs, s, t)), "LE"))
        else:
            raise ts.Unsupported(f"{ts.PASS}: Attention's mask_index of shape {list(ms)} "
                                 "is not supported")
        m = x.select(masked, x.c(fill), m)
    if causal:
        query = b.emit(sh.IotaOp(1, TensorType(i32, (bs, s, t))))
        past = t - s
        later = b.emit(sh.CompareOp(key, b.op(sh.AddOp, [query, b.splat(past, i32, (bs, s, t))],
                                                i32), "GT"))
        m = x.select(later, x.c(float(np.finfo(np.float32).min)), m)
    return m


def _slice1(b, v, lo, hi):
    return b.op(sh.SliceOp, [v], ts.element_of(v), (hi - lo,), start_indices=i64_array([lo]),
                limit_indices=i64_array([hi]), strides=i64_array([1]))


def _heads(b, qkv, bs, s, start, size, heads):
    """Columns [start, start + size) of qkv [B, S, 3H] as [B, N, S, size / N]."""
    part = b.op(sh.SliceOp, [qkv], f32, (bs, s, size), start_indices=i64_array([0, 0, start]),
                limit_indices=i64_array([bs, s, start + size]), strides=i64_array([1, 1, 1]))
    hd = size // heads
    part = b.reshape(part, (bs, s, heads, hd))
    return b.op(sh.TransposeOp, [part], f32, (bs, heads, s, hd),
                permutation=i64_array([0, 2, 1, 3]))


def attention_of(b, op, qkv, mask) -> list:
    """Attention's results from the projected qkv [B, S, Hq + Hk + Hv] (module docstring)."""
    bs, s, total = ts.shape_of(qkv)
    heads = attr(op, "num_heads")
    sizes = attr(op, "qkv_hidden_sizes") or [total // 3] * 3
    hq, hk, hv = sizes
    q = _heads(b, qkv, bs, s, 0, hq, heads)
    k = _heads(b, qkv, bs, s, hq, hk, heads)
    v = _heads(b, qkv, bs, s, hq + hk, hv, heads)
    hd, vd = hq // heads, hv // heads
    scale = attr(op, "scale")
    scale = float(scale) if scale else float(np.float32(1) / np.sqrt(np.float32(hd)))
    x = E(b, f32, (bs, heads, s, s))
    scores = x.mul(_dot(b, q, k, 3, 3, (0, 1), (bs, heads, s, s)), x.c(scale))
    m = _mask(b, op, mask, bs, s, s)
    if m is not None:
        scores = x.add(scores, b.broadcast_in_dim(m, (bs, heads, s, s), [0, 2, 3]))
    top = b.broadcast_in_dim(b.reduce(scores, [3], sh.MaximumOp, -np.inf), x.shape, [0, 1, 2])
    ex = x.op(sh.ExponentialOp, x.op(sh.SubtractOp, scores, top))
    probs = x.op(sh.DivideOp, ex, b.broadcast_in_dim(b.reduce(ex, [3], sh.AddOp, 0), x.shape,
                                                    [0, 1, 2]))
    out = _dot(b, probs, v, 3, 2, (0, 1), (bs, heads, s, vd))
    out = b.op(sh.TransposeOp, [out], f32, (bs, s, heads, vd), permutation=i64_array([0, 2, 1, 3]))
    results = [b.reshape(out, (bs, s, hv))]
    if len(op.results) > 1:
        kv = [b.reshape(t, (1, bs, heads, s, hd)) for t in (k, v)]
        results.append(b.emit(sh.ConcatenateOp(kv, 0)))
    return results


def _unsupported_attention_inputs(op, first: int, names: tuple[str, ...]) -> None:
    for i, name in enumerate(names, first):
        if arg(op, i) is not None:
            raise ts.Unsupported(f"{ts.PASS}: {op.function_name.data} with {name} is not "
                                 "supported")
    if attr(op, "do_rotary"):
        raise ts.Unsupported(f"{ts.PASS}: {op.function_name.data} with do_rotary is not "
                             "supported")


def attention(b, op, out):
    """com.microsoft Attention (module docstring)."""
    _unsupported_attention_inputs(op, 4, ("past", "attention_bias", "past_sequence_length"))
    x, w, bias = op.inputs[0], op.inputs[1], arg(op, 2)
    bs, s, _ = ts.static(x, op)
    n = ts.shape_of(w)[1]
    qkv = _dot(b, x, w, 2, 0, (), (bs, s, n))
    if bias is not None:
        qkv = b.op(sh.AddOp, [qkv, b.broadcast_in_dim(bias, (bs, s, n), [2])], f32, (bs, s, n))
    return attention_of(b, op, qkv, arg(op, 3))


def q_attention(b, op, out):
    """com.microsoft QAttention (module docstring)."""
    _unsupported_attention_inputs(op, 8, ("past",))
    x, w, bias = op.inputs[0], op.inputs[1], op.inputs[2]
    bs, s, _ = ts.static(x, op)
    n = ts.shape_of(w)[1]
    wz = arg(op, 7)
    wz_v, wz_dims = _per(b, wz, n) if wz is not None else (None, [])
    acc = _dot(b, _centered(b, x, arg(op, 6), []),
               _centered(b, w, wz_v, [1] if wz_dims else []), 2, 0, (), (bs, s, n), i32)
    ws, ws_dims = _per(b, op.inputs[4], n)
    scale = b.op(sh.MultiplyOp, [ws, b.broadcast_in_dim(_scalar(b, op.inputs[3]),
                                                        ts.shape_of(ws), [])], f32)
    y = E(b, f32, (bs, s, n))
    qkv = y.add(y.mul(b.convert(acc, f32), b.broadcast_in_dim(scale, y.shape, [2] if ws_dims
                                                               else [])),
                b.broadcast_in_dim(bias, y.shape, [2]))
    return attention_of(b, op, qkv, arg(op, 5))


# -- embedding + layer normalization ----------------------------------------------------

def _rows(b, table, ids, shape):
    """`table[ids]` ([V, H] rows at i32 ids of `shape`) -> [*shape, H]."""
    h = ts.shape_of(table)[1]
    idx = b.reshape(b.convert(ids, I64), (*shape, 1))
    dn = GatherDimensionNumbersAttr.get(offset_dims=[len(shape)], collapsed_slice_dims=[0],
                                        start_index_map=[0], index_vector_dim=len(shape))
    return b.op(sh.GatherOp, [table, idx], ts.element_of(table), (*shape, h),
                dimension_numbers=dn, slice_sizes=i64_array([1, h]))


def _embed_layer_norm(b, op, table):
    """EmbedLayerNormalization's results; `table(i, rows)` gives input i's rows (or
    values, for gamma / beta with rows None) in f32."""
    ids = op.inputs[0]
    bs, s = ts.static(ids, op)
    word = table(2, (ids, (bs, s)))
    h = ts.shape_of(word)[-1]
    x = E(b, f32, (bs, s, h))
    pos_ids = arg(op, 8) if len(op.inputs) == 9 else None
    if pos_ids is None:
        pos = b.broadcast_in_dim(table(3, (b.emit(sh.IotaOp(0, TensorType(i32, (s,)))), (s,))),
                                 x.shape, [1, 2])
    else:
        ps = ts.shape_of(pos_ids)
        pos = b.broadcast_in_dim(table(3, (pos_ids, ps)), x.shape, [0, 1, 2])
    emb = x.add(word, pos)
    if arg(op, 1) is not None and arg(op, 4) is not None:
        emb = x.add(emb, table(4, (op.inputs[1], (bs, s))))

    def mean(v):
        total = b.reduce(v, [2], sh.AddOp, 0)
        return b.broadcast_in_dim(b.op(sh.DivideOp, [total, b.splat(float(h), f32, (bs, s))],
                                       f32, (bs, s)), x.shape, [0, 1])
    d = x.op(sh.SubtractOp, emb, mean(emb))
    eps = attr(op, "epsilon")
    std = x.op(sh.SqrtOp, x.add(mean(x.mul(d, d)), x.c(1e-12 if eps is None else float(eps))))
    y = x.add(x.mul(x.op(sh.DivideOp, d, std), b.broadcast_in_dim(table(5, None), x.shape, [2])),
              b.broadcast_in_dim(table(6, None), x.shape, [2]))
    mask = arg(op, 7)
    if mask is None:
        count = b.splat(0, i32, (bs,))
    else:
        one = b.emit(sh.CompareOp(mask, b.splat(1, i32, (bs, s)), "EQ"))
        ones = b.op(sh.SelectOp, [one, b.splat(1, i32, (bs, s)), b.splat(0, i32, (bs, s))], i32,
                    (bs, s))
        count = b.reduce(ones, [1], sh.AddOp, 0)
    return [y, count, emb][:len(op.results)]


def embed_layer_norm(b, op, out):
    """com.microsoft EmbedLayerNormalization (module docstring)."""
    def table(i, rows):
        return op.inputs[i] if rows is None else _rows(b, op.inputs[i], *rows)
    return _embed_layer_norm(b, op, table)


def q_embed_layer_norm(b, op, out):
    """com.microsoft QEmbedLayerNormalization: the tables dequantized (module docstring)."""
    def table(i, rows):
        q = op.inputs[i] if rows is None else _rows(b, op.inputs[i], *rows)
        x = E(b, f32, ts.shape_of(q))
        v = b.convert(_centered(b, q, op.inputs[i + 11], []), f32)
        return x.mul(v, b.broadcast_in_dim(_scalar(b, op.inputs[i + 6]), x.shape, []))
    return _embed_layer_norm(b, op, table)


def embed_bounds(op, *args) -> None:
    """onnxruntime's run-time check: each id indexes its table ("input index out of
    range"), position ids and the positions 0..S-1 included."""
    ids = np.asarray(args[0])
    pos = args[8] if len(args) == 9 and args[8] is not None else np.arange(ids.shape[1])
    for i, t in ((0, 2), (1, 4), (None, 3)):
        v = pos if i is None else args[i]
        if v is None or args[t] is None:
            continue
        if np.any(np.asarray(v) < 0) or np.any(np.asarray(v) >= np.shape(args[t])[0]):
            raise ValueError("input index out of range")


# -- DynamicQuantizeLSTM ----------------------------------------------------------------

def dynamic_uint8(b, a: SSAValue, keep: SSAValue | None):
    """DynamicQuantizeLinear of `a` [rows, K] over the rows `keep` holds: (q - zp as
    int32, scale f32 scalar), with onnxruntime's GetQuantizationParameter (range
    widened to hold 0, scale (max - min) / 255 (1 when max = min), zp = round(clamp(0 -
    min / scale, 0, 255))) and q = clamp(round(a / scale) + zp, 0, 255)."""
    shape = ts.shape_of(a)
    x = E(b, f32, shape)
    held = a if keep is None else x.select(b.broadcast_in_dim(keep, shape, [0]), a, x.c(0))
    lo = b.op(sh.MinimumOp, [b.reduce(held, [0, 1], sh.MinimumOp, np.inf), b.splat(0, f32, ())],
              f32, ())
    hi = b.op(sh.MaximumOp, [b.reduce(held, [0, 1], sh.MaximumOp, -np.inf), b.splat(0, f32, ())],
              f32, ())
    s = E(b, f32, ())
    scale = s.select(b.emit(sh.CompareOp(hi, lo, "EQ")), s.c(1),
                     s.op(sh.DivideOp, s.op(sh.SubtractOp, hi, lo), s.c(255)))
    zp = s.op(sh.RoundNearestEvenOp, b.clamp(s.op(sh.SubtractOp, s.c(0),
                                                  s.op(sh.DivideOp, lo, scale)), 0.0, 255.0))
    q = x.op(sh.RoundNearestEvenOp, x.op(sh.DivideOp, a, b.broadcast_in_dim(scale, shape, [])))
    q = b.clamp(x.add(q, b.broadcast_in_dim(zp, shape, [])), 0.0, 255.0)
    return b.convert(x.op(sh.SubtractOp, q, b.broadcast_in_dim(zp, shape, [])), i32), scale


def quantized_gemm(op, b, d, which):
    """DynamicQuantizeLSTM's product with W[d] or R[d] (module docstring)."""
    w, ws, wz = (op.inputs[1], op.inputs[8], arg(op, 9)) if which == "W" else \
        (op.inputs[2], op.inputs[10], arg(op, 11))
    _, k, h4 = ts.shape_of(w)

    def row(v, shape):  # v[d] of a [D, ...] value
        full = ts.shape_of(v)
        part = b.op(sh.SliceOp, [v], ts.element_of(v), (1, *full[1:]),
                    start_indices=i64_array([d] + [0] * (len(full) - 1)),
                    limit_indices=i64_array([d + 1, *full[1:]]),
                    strides=i64_array([1] * len(full)))
        return b.reshape(part, shape)
    zd = None
    if wz is not None:  # onnxruntime reads the direction's first zero point
        zs = ts.shape_of(wz)
        zd = b.reshape(b.op(sh.SliceOp, [wz], ts.element_of(wz), (1,) * len(zs),
                            start_indices=i64_array([d] + [0] * (len(zs) - 1)),
                            limit_indices=i64_array([d + 1] + [1] * (len(zs) - 1)),
                            strides=i64_array([1] * len(zs))), ())
    wc = _centered(b, row(w, (k, h4)), zd, [])
    per_col = len(ts.shape_of(ws)) == 2
    sd, dims = (row(ws, (h4,)), [1]) if per_col else (row(ws, ()), [])

    def mul(b, a, rows, keep=None):
        qa, a_scale = dynamic_uint8(b, a, keep)
        acc = _dot(b, qa, wc, 1, 0, (), (rows, h4), i32)
        scale = b.op(sh.MultiplyOp, [b.broadcast_in_dim(a_scale, ts.shape_of(sd), []), sd], f32)
        x = E(b, f32, (rows, h4))
        return x.mul(b.convert(acc, f32), b.broadcast_in_dim(scale, x.shape, dims))
    return mul


def _dq_lstm_operands(op) -> dict:
    return {k: arg(op, i) for i, k in enumerate(
        ("X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"))
        if k not in ("W", "R")}


# -- verifiers --------------------------------------------------------------------------

_KINDS = {"num_heads": int, "unidirectional": int, "do_rotary": int, "scale": float,
          "mask_filter_value": float, "qkv_hidden_sizes": list, "epsilon": float,
          "mask_index_type": int, "hidden_size": int, "input_forget": int, "clip": float,
          "direction": str, "activations": list, "activation_alpha": list,
          "activation_beta": list}
"""The Python kinds of the contrib ops' attributes (INT, FLOAT, STRING, a list)."""
_KIND_NAMES = {int: "INT", float: "FLOAT", str: "STRING", list: "a list"}


def _check_inputs(op, n_min: int, n_max: int, required: tuple[int, ...]) -> str:
    fn = op.function_name.data
    for name, kind in _KINDS.items():
        v = attr(op, name)
        if v is not None and not isinstance(v, kind):
            fail(f"'{op.name}' op {fn} attribute '{name}' must be {_KIND_NAMES[kind]}")
    n = len(op.inputs)
    if not n_min <= n <= n_max:
        fail(f"'{op.name}' op {fn} takes {n_min} to {n_max} inputs, got {n}")
    for i in required:
        if i < n and is_none(op.inputs[i]):
            fail(f"'{op.name}' op {fn}: input #{i} is required")
    return fn


def _check_heads(op, fn) -> None:
    heads = attr(op, "num_heads")
    if not isinstance(heads, int) or heads <= 0:
        fail(f"'{op.name}' op {fn} requires a positive INT attribute 'num_heads'")
    sizes = attr(op, "qkv_hidden_sizes")
    w = getattr(op.inputs[1].type, "get_shape", lambda: None)()
    if sizes is None and w is not None and w[1] >= 0:
        sizes = [w[1] // 3] * 3 if w[1] % 3 == 0 else None
        if sizes is None:
            fail(f"'{op.name}' op {fn}: weights' {w[1]} columns are not 3 equal parts")
    elif sizes is not None:
        if len(sizes) != 3 or not all(isinstance(x, int) and x > 0 for x in sizes) \
                or sizes[0] != sizes[1]:
            fail(f"'{op.name}' op {fn}: qkv_hidden_sizes must be 3 positive sizes, Q's and "
                 f"K's equal, got {list(sizes)}")
        if w is not None and w[1] >= 0 and sum(sizes) != w[1]:
            fail(f"'{op.name}' op {fn}: qkv_hidden_sizes {list(sizes)} do not add up to "
                 f"the weights' {w[1]} columns")
    if sizes is not None and any(x % heads for x in sizes):
        fail(f"'{op.name}' op {fn}: hidden sizes {list(sizes)} are not multiples of "
             f"num_heads {heads}")


def _check_projection(op) -> None:
    """input [B, S, D], weights [D, Hq + Hk + Hv], bias [Hq + Hk + Hv]."""
    x = static_shape(op.inputs[0])
    expect_shape(op, op.inputs[0], "input", (None, None, None))
    d = None if x is None or x[2] < 0 else x[2]
    w = static_shape(op.inputs[1])
    n = None if w is None or len(w) != 2 or w[1] < 0 else w[1]
    expect_shape(op, op.inputs[1], "weights", (d, n))
    expect_shape(op, arg(op, 2), "bias", (n,))


def check_attention(op) -> None:
    fn = _check_inputs(op, 2, 7, (0, 1))
    for i in (0, 1, 2):
        if arg(op, i) is not None:
            elements_in(op, op.inputs[i], f"operand #{i}", ("float",))
    _check_projection(op)
    _check_heads(op, fn)


def check_q_attention(op) -> None:
    fn = _check_inputs(op, 5, 9, (0, 1, 2, 3, 4))
    elements_in(op, op.inputs[0], "operand #0", U8)
    elements_in(op, op.inputs[1], "operand #1", I8)
    elements_in(op, op.inputs[2], "operand #2", ("float",))
    _check_projection(op)
    _check_heads(op, fn)


def check_embed_layer_norm(op, quantized: bool) -> None:
    fn = _check_inputs(op, 18 if quantized else 7, 18 if quantized else 9,
                       (0, 2, 3, 5, 6) + ((8, 9, 11, 12, 13, 14, 16, 17) if quantized else ()))
    elements_in(op, op.inputs[0], "operand #0", ("int32",))
    if (arg(op, 1) is None) != (arg(op, 4) is None):
        fail(f"'{op.name}' op {fn}: segment_ids and segment_embedding go together")
    ids = static_shape(op.inputs[0])
    expect_shape(op, op.inputs[0], "input_ids", (None, None))
    bs = (None, None) if ids is None else tuple(None if d < 0 else d for d in ids)
    word = static_shape(op.inputs[2])
    expect_shape(op, op.inputs[2], "word_embedding", (None, None))
    h = None if word is None or word[1] < 0 else word[1]
    for i, label, want in ((1, "segment_ids", bs), (3, "position_embedding", (None, h)),
                           (4, "segment_embedding", (None, h)), (5, "gamma", (h,)),
                           (6, "beta", (h,)), (7, "mask", bs)):
        expect_shape(op, arg(op, i), label, want)
    if not quantized and len(op.inputs) == 9:
        pos = static_shape(op.inputs[8])
        if pos is not None and (len(pos) != 2 or (bs[1] is not None and pos[1] not in (bs[1], -1))
                                or (bs[0] is not None and pos[0] not in (bs[0], 1, -1))):
            fail(f"'{op.name}' op position_ids must have shape [B or 1, S], got {pos}")


def check_dq_lstm(op) -> None:
    _check_inputs(op, 12, 12, (0, 1, 2, 8, 9, 10, 11))
    elements_in(op, op.inputs[0], "operand #0", ("float",))
    elements_in(op, op.inputs[1], "operand #1", I8)
    elements_in(op, op.inputs[2], "operand #2", I8)
    check_lstm(op, {**_dq_lstm_operands(op), "W": op.inputs[1], "R": op.inputs[2]},
               gates_last=True)
    dirs = 2 if attr(op, "direction") == "bidirectional" else 1
    for i in (8, 9, 10, 11):  # per direction, or per direction and gate column
        shape = static_shape(op.inputs[i])
        if shape is not None and (len(shape) not in (1, 2) or shape[0] not in (dirs, -1)):
            fail(f"'{op.name}' op DynamicQuantizeLSTM: operand #{i} must have shape [{dirs}] or "
                 f"[{dirs}, 4 * hidden_size], got {shape}")


CONTRIB_VERIFIERS.update({
    "Attention": check_attention, "QAttention": check_q_attention,
    "EmbedLayerNormalization": lambda op: check_embed_layer_norm(op, False),
    "QEmbedLayerNormalization": lambda op: check_embed_layer_norm(op, True),
    "DynamicQuantizeLSTM": check_dq_lstm,
})
CONTRIB_LOWERINGS.update({
    "Attention": Lowering(attention, shaped_by_operands=True),
    "QAttention": Lowering(q_attention, shaped_by_operands=True),
    "EmbedLayerNormalization": Lowering(embed_layer_norm, check=embed_bounds,
                                        shaped_by_operands=True),
    "QEmbedLayerNormalization": Lowering(q_embed_layer_norm, check=embed_bounds,
                                         shaped_by_operands=True),
    "DynamicQuantizeLSTM": Lowering(lstm_lowering(quantized_gemm, _dq_lstm_operands),
                                    check=lens_in_range, shaped_by_operands=True),
})
CONTRIB_QUANTIZER_FORMS.update({
    "Attention": QuantizerForms(dynamic="QAttention"),
    "EmbedLayerNormalization": QuantizerForms(qoperator="QEmbedLayerNormalization",
                                              dynamic="QEmbedLayerNormalization"),
})
