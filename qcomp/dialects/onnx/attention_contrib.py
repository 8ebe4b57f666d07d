"""onnxruntime's com.microsoft Attention and the QAttention `quantize_dynamic` writes of
it, as `onnx.Custom` ops with a StableHLO meaning (`core.CONTRIB_LOWERINGS`, which
`onnx-legalize-to-stablehlo` applies and the interpreter runs), in onnxruntime's CPU
kernel's arithmetic (`AttentionCPUBase::ApplyAttention`):

    Attention:  Q|K|V = input @ weights + bias (heads of qkv_hidden_sizes / num_heads);
                with `past` [2, B, N, P, H]: K = concat(past[0], K), V = concat(past[1],
                V) along the sequence (T = P + S keys);
                P = softmax(scale * Q @ K^T + attention_bias + M) (scale: 1 / sqrt(head
                size) unless given; attention_bias [B or 1, N or 1, S, T] broadcast over
                batch and heads; M: 0, or mask_filter_value (-10000) where mask_index
                masks a key, or the lowest float where key > P + query when unidirectional
                and S > 1), output = P @ V, heads joined; present = [K, V] [2, B, N, T, H]
    QAttention: Q|K|V = float((input - input_zp) @ (weight - weight_zp)) (int32) *
                (input_scale * weight_scale) + bias, then as Attention (no attention_bias)

mask_index forms (int32): [B] key lengths (keys from the length on are masked); [2B]
ends then starts (keys before the start masked too); [3B + 2] read as [B] key lengths
(onnxruntime's CPU kernel reads only the ends); [B, T] and [B, S, T] (0 masks); [B, 1]
and [1, 1] (no mask). `past_sequence_length` is read only with past_present_share_buffer,
which onnxruntime's CPU kernel rejects with past; without it the input is ignored, as
there. Not here, as not in onnxruntime's CPU kernel (the op stays, with a remark; the
interpreter's diagnostic is at the op): do_rotary ("Rotary embedding is not supported in
Attention CPU kernel"), a 4-D (Megatron) mask_index ("4D mask in attention cpu kernel is
not supported"), past_present_share_buffer with past.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import TensorType, f32, i32

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
from qcomp.dialects.onnx.sequence_contrib import (
    I8,
    U8,
    arg,
    centered,
    check_inputs,
    dot,
    per,
    scalar,
)
from qcomp.dialects.onnx.sequence_ops import E, expect_shape
from qcomp.dialects.stablehlo.format import i64_array

MASK_FILTER = -10000.0
"""mask_filter_value's default (bert_defs.cc)."""


def _slice(b, v, lo, hi, axis=0):
    shape = ts.shape_of(v)
    start, limit = [0] * len(shape), list(shape)
    start[axis], limit[axis] = lo, hi
    out = list(shape)
    out[axis] = hi - lo
    return b.op(sh.SliceOp, [v], ts.element_of(v), tuple(out), start_indices=i64_array(start),
                limit_indices=i64_array(limit), strides=i64_array([1] * len(shape)))


def _mask(b, op, mask, bs, s, t):
    """The additive mask [B, S, T] (None when there is none)."""
    fill = attr(op, "mask_filter_value")
    fill = MASK_FILTER if fill is None else float(fill)
    causal = bool(attr(op, "unidirectional")) and s > 1
    ms = None if mask is None else ts.shape_of(mask)
    if ms is not None and len(ms) == 2 and ms[1] == 1 and ms != (bs, t):
        ms = mask = None  # [B or 1, 1]: the same value for every key, no mask
    if mask is None and not causal:
        return None
    x = E(b, f32, (bs, s, t))
    m = x.c(0)
    key = b.emit(sh.IotaOp(2, TensorType(i32, (bs, s, t))))
    if mask is not None:
        if len(ms) == 1 and ms[0] in (bs, 2 * bs, 3 * bs + 2):
            end = b.broadcast_in_dim(_slice(b, mask, 0, bs), (bs, s, t), [0])
            masked = b.emit(sh.CompareOp(key, end, "GE"))
            if ms[0] == 2 * bs:
                start = b.broadcast_in_dim(_slice(b, mask, bs, 2 * bs), (bs, s, t), [0])
                masked = b.op(sh.OrOp, [masked, b.emit(sh.CompareOp(key, start, "LT"))],
                              ts.element_of(masked), (bs, s, t))
        elif ms in ((bs, t), (bs, s, t)):
            full = b.broadcast_in_dim(mask, (bs, s, t), [0, 2] if len(ms) == 2 else [0, 1, 2])
            masked = b.emit(sh.CompareOp(full, b.splat(0, i32, (bs, s, t)), "LE"))
        elif len(ms) == 4:
            raise ts.Unsupported(f"{ts.PASS}: {op.function_name.data}'s 4-D (Megatron) "
                                 "mask_index is not supported (onnxruntime's CPU kernel has "
                                 "none)")
        else:
            raise ts.Unsupported(f"{ts.PASS}: {op.function_name.data}'s mask_index of shape "
                                 f"{list(ms)} is not supported")
        m = x.select(masked, x.c(fill), m)
    if causal:
        query = b.emit(sh.IotaOp(1, TensorType(i32, (bs, s, t))))
        later = b.emit(sh.CompareOp(key, b.op(sh.AddOp, [query, b.splat(t - s, i32, (bs, s, t))],
                                                i32), "GT"))
        m = x.select(later, x.c(float(np.finfo(np.float32).min)), m)
    return m


def _heads(b, qkv, bs, s, start, size, heads):
    """Columns [start, start + size) of qkv [B, S, 3H] as [B, N, S, size / N]."""
    part = b.op(sh.SliceOp, [qkv], f32, (bs, s, size), start_indices=i64_array([0, 0, start]),
                limit_indices=i64_array([bs, s, start + size]), strides=i64_array([1, 1, 1]))
    hd = size // heads
    part = b.reshape(part, (bs, s, heads, hd))
    return b.op(sh.TransposeOp, [part], f32, (bs, heads, s, hd),
                permutation=i64_array([0, 2, 1, 3]))


def _with_past(b, past, which, cur):
    """concat(past[which], cur) along the sequence: [B, N, P + S, H]."""
    _, bs, heads, p, hd = ts.shape_of(past)
    before = b.reshape(_slice(b, past, which, which + 1), (bs, heads, p, hd))
    return b.emit(sh.ConcatenateOp([before, cur], 2))


def attention_of(b, op, qkv, mask, past=None, bias=None) -> list:
    """Attention's results from the projected qkv [B, S, Hq + Hk + Hv] (module docstring)."""
    bs, s, total = ts.shape_of(qkv)
    heads = attr(op, "num_heads")
    sizes = attr(op, "qkv_hidden_sizes") or [total // 3] * 3
    hq, hk, hv = sizes
    q = _heads(b, qkv, bs, s, 0, hq, heads)
    k = _heads(b, qkv, bs, s, hq, hk, heads)
    v = _heads(b, qkv, bs, s, hq + hk, hv, heads)
    if past is not None:
        k, v = _with_past(b, past, 0, k), _with_past(b, past, 1, v)
    t = ts.shape_of(k)[2]
    hd, vd = hq // heads, hv // heads
    scale = attr(op, "scale")
    scale = float(scale) if scale else float(np.float32(1) / np.sqrt(np.float32(hd)))
    x = E(b, f32, (bs, heads, s, t))
    scores = x.mul(dot(b, q, k, 3, 3, (0, 1), x.shape), x.c(scale))
    if bias is not None:  # onnxruntime 1.32 adds the bias, then the mask
        scores = x.add(scores, b.broadcast_in_dim(bias, x.shape, [0, 1, 2, 3]))
    m = _mask(b, op, mask, bs, s, t)
    if m is not None:
        scores = x.add(scores, b.broadcast_in_dim(m, x.shape, [0, 2, 3]))
    top = b.broadcast_in_dim(b.reduce(scores, [3], sh.MaximumOp, -np.inf), x.shape, [0, 1, 2])
    ex = x.op(sh.ExponentialOp, x.op(sh.SubtractOp, scores, top))
    probs = x.op(sh.DivideOp, ex, b.broadcast_in_dim(b.reduce(ex, [3], sh.AddOp, 0), x.shape,
                                                    [0, 1, 2]))
    out = dot(b, probs, v, 3, 2, (0, 1), (bs, heads, s, vd))
    out = b.op(sh.TransposeOp, [out], f32, (bs, s, heads, vd), permutation=i64_array([0, 2, 1, 3]))
    results = [b.reshape(out, (bs, s, hv))]
    if len(op.results) > 1:
        kv = [b.reshape(u, (1, bs, heads, t, hd)) for u in (k, v)]
        results.append(b.emit(sh.ConcatenateOp(kv, 0)))
    return results


def _not_on_cpu(op, past) -> None:
    """What onnxruntime's CPU kernel does not do (module docstring)."""
    fn = op.function_name.data
    if attr(op, "do_rotary"):
        raise ts.Unsupported(f"{ts.PASS}: {fn} with do_rotary is not supported (onnxruntime's "
                             "CPU kernel has no rotary embedding)")
    if attr(op, "past_present_share_buffer") and past is not None:
        raise ts.Unsupported(f"{ts.PASS}: {fn} with past_present_share_buffer is not supported "
                             "(onnxruntime's CPU kernel rejects it)")


def attention(b, op, out):
    """com.microsoft Attention (module docstring)."""
    _not_on_cpu(op, arg(op, 4))
    x, w, bias = op.inputs[0], op.inputs[1], arg(op, 2)
    bs, s, _ = ts.static(x, op)
    n = ts.shape_of(w)[1]
    qkv = dot(b, x, w, 2, 0, (), (bs, s, n))
    if bias is not None:
        qkv = b.op(sh.AddOp, [qkv, b.broadcast_in_dim(bias, (bs, s, n), [2])], f32, (bs, s, n))
    return attention_of(b, op, qkv, arg(op, 3), arg(op, 4), arg(op, 5))


def q_attention(b, op, out):
    """com.microsoft QAttention (module docstring)."""
    _not_on_cpu(op, arg(op, 8))
    x, w, bias = op.inputs[0], op.inputs[1], op.inputs[2]
    bs, s, _ = ts.static(x, op)
    n = ts.shape_of(w)[1]
    wz = arg(op, 7)
    wz_v, wz_dims = per(b, wz, n) if wz is not None else (None, [])
    acc = dot(b, centered(b, x, arg(op, 6), []),
              centered(b, w, wz_v, [1] if wz_dims else []), 2, 0, (), (bs, s, n), i32)
    ws, ws_dims = per(b, op.inputs[4], n)
    scale = b.op(sh.MultiplyOp, [ws, b.broadcast_in_dim(scalar(b, op.inputs[3]),
                                                        ts.shape_of(ws), [])], f32)
    y = E(b, f32, (bs, s, n))
    qkv = y.add(y.mul(b.convert(acc, f32), b.broadcast_in_dim(scale, y.shape, [2] if ws_dims
                                                               else [])),
                b.broadcast_in_dim(bias, y.shape, [2]))
    return attention_of(b, op, qkv, arg(op, 5), arg(op, 8))


# -- verifiers --------------------------------------------------------------------------

def _sizes(op):
    """(Hq, Hk, Hv) from qkv_hidden_sizes or the weights' columns (None if unknown)."""
    sizes = attr(op, "qkv_hidden_sizes")
    w = getattr(op.inputs[1].type, "get_shape", lambda: None)()
    if sizes is None and w is not None and len(w) == 2 and w[1] >= 0 and w[1] % 3 == 0:
        sizes = [w[1] // 3] * 3
    return sizes


def check_heads(op, fn) -> None:
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


def check_projection(op) -> None:
    """input [B, S, D], weights [D, Hq + Hk + Hv], bias [Hq + Hk + Hv]."""
    x = static_shape(op.inputs[0])
    expect_shape(op, op.inputs[0], "input", (None, None, None))
    d = None if x is None or x[2] < 0 else x[2]
    w = static_shape(op.inputs[1])
    n = None if w is None or len(w) != 2 or w[1] < 0 else w[1]
    expect_shape(op, op.inputs[1], "weights", (d, n))
    expect_shape(op, arg(op, 2), "bias", (n,))


def _known(d):
    return None if d is None or d < 0 else d


def check_state(op, fn, mask_at: int, past_at: int, bias_at: int | None = None) -> None:
    """mask_index (int32), past [2, B, N, P, Hk / N] (Hk = Hv) and attention_bias
    [B or 1, N or 1, S, T] as onnxruntime's CheckInputs / CheckMask take them."""
    if arg(op, mask_at) is not None:
        elements_in(op, arg(op, mask_at), f"operand #{mask_at}", ("int32",))
    past, bias = arg(op, past_at), None if bias_at is None else arg(op, bias_at)
    x = static_shape(op.inputs[0])
    bs, s = (None, None) if x is None or len(x) != 3 else (_known(x[0]), _known(x[1]))
    heads, sizes = attr(op, "num_heads"), _sizes(op)
    t = s
    if past is not None:
        elements_in(op, past, f"operand #{past_at}", ("float",))
        if sizes is not None and sizes[1] != sizes[2]:
            fail(f"'{op.name}' op {fn}: past needs K's and V's hidden sizes equal, got "
                 f"{list(sizes)}")
        hd = None if sizes is None else sizes[1] // heads
        expect_shape(op, past, "past", (2, bs, heads, None, hd))
        if len(op.results) < 2 or is_none(op.results[1]):
            fail(f"'{op.name}' op {fn} with past needs the present output (onnxruntime: "
                 "\"Expect to have present state output when past state input is given\")")
        p = static_shape(past)
        t = None if t is None or p is None or p[3] < 0 else t + p[3]
    if bias is not None:
        elements_in(op, bias, f"operand #{bias_at}", ("float",))
        if past is not None:
            fail(f"'{op.name}' op {fn} cannot have both past and attention_bias")
        have = static_shape(bias)
        expect_shape(op, bias, "attention_bias", (None, None, s, t))
        if have is not None and (have[0] not in (1, bs, -1) or have[1] not in (1, heads, -1)):
            fail(f"'{op.name}' op attention_bias must have shape [B or 1, N or 1, S, T], got "
                 f"{have}")
    m = static_shape(arg(op, mask_at)) if arg(op, mask_at) is not None else None
    if m is not None and not _mask_shape_ok(m, bs, s, t, bool(attr(op, "unidirectional"))):
        fail(f"'{op.name}' op {fn}: mask_index of shape {m} is none of [B], [2B], [3B + 2], "
             "[B, T], [B, 1], [B, S, T], [B, 1, M, M] (M >= T, not unidirectional)")


def _mask_shape_ok(m, bs, s, t, unidirectional) -> bool:
    if any(d < 0 for d in m) or bs is None or s is None or t is None:
        return len(m) in (1, 2, 3, 4)
    return (len(m) == 1 and m[0] in (bs, 2 * bs, 3 * bs + 2)) or \
        (len(m) == 2 and (tuple(m) == (bs, t) or (m[0] in (bs, 1) and m[1] == 1))) or \
        tuple(m) == (bs, s, t) or \
        (len(m) == 4 and m[0] == bs and m[1] == 1 and m[2] == m[3] >= t and not unidirectional)


def check_attention(op) -> None:
    fn = check_inputs(op, 2, 7, (0, 1))
    for i in (0, 1, 2):
        if arg(op, i) is not None:
            elements_in(op, op.inputs[i], f"operand #{i}", ("float",))
    if arg(op, 6) is not None:
        elements_in(op, arg(op, 6), "operand #6", ("int32",))
    check_projection(op)
    check_heads(op, fn)
    check_state(op, fn, 3, 4, 5)


def check_q_attention(op) -> None:
    fn = check_inputs(op, 5, 9, (0, 1, 2, 3, 4))
    elements_in(op, op.inputs[0], "operand #0", U8)
    elements_in(op, op.inputs[1], "operand #1", I8)
    elements_in(op, op.inputs[2], "operand #2", ("float",))
    check_projection(op)
    check_heads(op, fn)
    check_state(op, fn, 5, 8)


CONTRIB_VERIFIERS.update({"Attention": check_attention, "QAttention": check_q_attention})
CONTRIB_LOWERINGS.update({
    "Attention": Lowering(attention, shaped_by_operands=True),
    "QAttention": Lowering(q_attention, shaped_by_operands=True),
})
CONTRIB_QUANTIZER_FORMS.update({"Attention": QuantizerForms(dynamic="QAttention")})
