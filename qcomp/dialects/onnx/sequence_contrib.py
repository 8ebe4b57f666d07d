"""onnxruntime's com.microsoft EmbedLayerNormalization and the forms `quantize_dynamic`
writes of it and of LSTM (QEmbedLayerNormalization, DynamicQuantizeLSTM), as
`onnx.Custom` ops with a StableHLO meaning (`core.CONTRIB_LOWERINGS`, which
`onnx-legalize-to-stablehlo` applies and the interpreter runs), in onnxruntime's CPU
kernels' arithmetic, and the steps `attention_contrib` shares (operands, int32
products, the contrib ops' attribute and input checks):

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


def scalar(b, v: SSAValue) -> SSAValue:
    return b.reshape(v, ())


def dot(b, x, y, lc, rc, batch=(), shape=None, e=None):
    dn = DotDimensionNumbersAttr.get(list(batch), list(batch), [lc], [rc])
    return b.op(sh.DotGeneralOp, [x, y], e or ts.element_of(x), shape,
                dot_dimension_numbers=dn)


def centered(b, q: SSAValue, zp: SSAValue | None, zp_dims: list[int]) -> SSAValue:
    """`q - zp` in int32 (zp broadcast along `zp_dims`)."""
    shape = ts.shape_of(q)
    v = b.convert(q, i32)
    if zp is None:
        return v
    z = b.convert(zp if zp_dims else scalar(b, zp), i32)
    return b.op(sh.SubtractOp, [v, b.broadcast_in_dim(z, shape, zp_dims)], i32, shape)


def per(b, v: SSAValue, n: int) -> tuple[SSAValue, list[int]]:
    """A scale / zero point per tensor ([] or [1]: a scalar) or per column [n]."""
    size = int(np.prod(ts.shape_of(v)))
    return (scalar(b, v), []) if size == 1 else (b.reshape(v, (n,)), [1])


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
        v = b.convert(centered(b, q, op.inputs[i + 11], []), f32)
        return x.mul(v, b.broadcast_in_dim(scalar(b, op.inputs[i + 6]), x.shape, []))
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
    wc = centered(b, row(w, (k, h4)), zd, [])
    per_col = len(ts.shape_of(ws)) == 2
    sd, dims = (row(ws, (h4,)), [1]) if per_col else (row(ws, ()), [])

    def mul(b, a, rows, keep=None):
        qa, a_scale = dynamic_uint8(b, a, keep)
        acc = dot(b, qa, wc, 1, 0, (), (rows, h4), i32)
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
          "mask_index_type": int, "rotary_embedding_dim": int,
          "past_present_share_buffer": int, "hidden_size": int, "input_forget": int,
          "clip": float, "direction": str, "activations": list, "activation_alpha": list,
          "activation_beta": list}
"""The Python kinds of the contrib ops' attributes (INT, FLOAT, STRING, a list)."""
_KIND_NAMES = {int: "INT", float: "FLOAT", str: "STRING", list: "a list"}


def check_inputs(op, n_min: int, n_max: int, required: tuple[int, ...]) -> str:
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


def check_embed_layer_norm(op, quantized: bool) -> None:
    fn = check_inputs(op, 18 if quantized else 7, 18 if quantized else 9,
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
    check_inputs(op, 12, 12, (0, 1, 2, 8, 9, 10, 11))
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
    "EmbedLayerNormalization": lambda op: check_embed_layer_norm(op, False),
    "QEmbedLayerNormalization": lambda op: check_embed_layer_norm(op, True),
    "DynamicQuantizeLSTM": check_dq_lstm,
})
CONTRIB_LOWERINGS.update({
    "EmbedLayerNormalization": Lowering(embed_layer_norm, check=embed_bounds,
                                        shaped_by_operands=True),
    "QEmbedLayerNormalization": Lowering(q_embed_layer_norm, check=embed_bounds,
                                         shaped_by_operands=True),
    "DynamicQuantizeLSTM": Lowering(lstm_lowering(quantized_gemm, _dq_lstm_operands),
                                    check=lens_in_range, shaped_by_operands=True),
})
CONTRIB_QUANTIZER_FORMS.update({
    "EmbedLayerNormalization": QuantizerForms(qoperator="QEmbedLayerNormalization",
                                              dynamic="QEmbedLayerNormalization"),
})
