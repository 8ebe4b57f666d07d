"""Output types of onnxruntime's com.microsoft Attention, QAttention,
EmbedLayerNormalization, QEmbedLayerNormalization and DynamicQuantizeLSTM, as their
schemas (`bert_defs.cc`, `quantization_defs.cc`) infer them; `qcomp.importers.onnx`
reads `SEQUENCE_TYPES` with its other contrib rules. A rule returns one type per output
(None where the inputs' types do not tell)."""

from __future__ import annotations

from qcomp.importers.onnx_shapes import dims, input_type, int_attr, typed

FLOAT, INT32 = 1, 6


def _ints(node, name: str):
    return next((list(a.ints) for a in node.attribute if a.name == name), None)


def _attention(weights_at: int, float_from: int, past_at: int):
    """output [B, S, v_hidden], present [2, B, N, P + S, head] (P: past's sequence, 0
    without past)."""
    def rule(node, types):
        x, w = input_type(node, types, 0), input_type(node, types, weights_at)
        dx, dw = (None if t is None else dims(t) for t in (x, w))
        et = input_type(node, types, float_from)
        if not dx or not dw or len(dx) != 3 or len(dw) != 2 or et is None:
            return None
        sizes = _ints(node, "qkv_hidden_sizes")
        if sizes is None:
            sizes = [None if dw[1] is None else dw[1] // 3] * 3
        heads = int_attr(node, "num_heads", 1)
        if heads <= 0 or len(sizes) != 3:
            return None  # the op's verifier says so
        e = et.tensor_type.elem_type
        hd = None if sizes[1] is None else sizes[1] // heads
        t = dx[1]
        if past_at < len(node.input) and node.input[past_at]:
            past = input_type(node, types, past_at)
            dp = None if past is None else dims(past)
            t = None if t is None or not dp or len(dp) != 5 or dp[3] is None else t + dp[3]
        return [typed(e, [dx[0], dx[1], sizes[2]]), typed(e, [2, dx[0], heads, t, hd])]
    return rule


def _embed(float_from: int):
    """output [B, S, H], mask_index [B] int32, embedding_sum [B, S, H]."""
    def rule(node, types):
        ids, word = input_type(node, types, 0), input_type(node, types, 2)
        di, dw = (None if t is None else dims(t) for t in (ids, word))
        et = input_type(node, types, float_from)
        if not di or not dw or len(di) != 2 or len(dw) != 2 or et is None:
            return None
        e = et.tensor_type.elem_type
        return [typed(e, [*di, dw[1]]), typed(INT32, [di[0]]), typed(e, [*di, dw[1]])]
    return rule


def _dq_lstm(node, types):
    """Y [S, D, B, H], Y_h and Y_c [D, B, H], X's type."""
    x, w = input_type(node, types, 0), input_type(node, types, 1)
    dx, dw = (None if t is None else dims(t) for t in (x, w))
    hidden = int_attr(node, "hidden_size", 0)
    if not dx or not dw or len(dx) != 3 or not hidden:
        return None
    e = x.tensor_type.elem_type
    d, s, n = dw[0], dx[0], dx[1]
    return [typed(e, [s, d, n, hidden]), typed(e, [d, n, hidden]), typed(e, [d, n, hidden])]


_MS = "com.microsoft"
SEQUENCE_TYPES = {(_MS, "Attention"): _attention(1, 0, 4),
                  (_MS, "QAttention"): _attention(1, 2, 8),
                  (_MS, "EmbedLayerNormalization"): _embed(2),
                  (_MS, "QEmbedLayerNormalization"): _embed(8),
                  (_MS, "DynamicQuantizeLSTM"): _dq_lstm}
