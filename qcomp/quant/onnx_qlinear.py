"""ONNX's integer and QLinear ops, and onnxruntime's com.microsoft quantized ops, on NumPy.

    MatMulInteger:  y = (a - a_zp) @ (b - b_zp)                            (int32)
    ConvInteger:    y = conv(x - x_zp, w - w_zp)                            (int32)
    QLinearMatMul:  y = saturate(round_half_even((a - a_zp) @ (b - b_zp) * (a_s * b_s / y_s)) + y_zp)
    QLinearConv:    y = saturate(round_half_even((conv(x - x_zp, w - w_zp) + B) * (x_s * w_s / y_s)) + y_zp)
    com.microsoft QLinearAdd / Mul / Sigmoid / LeakyRelu / GlobalAveragePool / Concat:
                    y = quantize(f(dequantize(inputs)))  (float32, round half to even)
    com.microsoft QGemm: acc = (A' - a_zp) @ (B' - b_zp) + C (A' = A^T when transA, B'
                    likewise; C int32 of scale alpha * a_s * b_s, zero point 0);
                    y = saturate(round_half_even(acc * (alpha * a_s * b_s / y_s)) + y_zp),
                    or float32 `acc * (alpha * a_s * b_s)` without y_scale
    com.microsoft QLinearSoftmax (opset >= 13): quantize(softmax(dequantize(x))) along axis
    com.microsoft QLinearAveragePool / ReduceMean / Where: `qcomp.quant.onnx_contrib_quant`
    com.microsoft MatMulNBits: y = a @ dequantize(b)^T (+ bias), b packed `bits`-wide (low
                    bits first) in blocks of `block_size` along K,
                    w[n, k] = (q[n, k] - zp[n, g]) * scale[n, g] with g = g_idx[k] (default
                    k // block_size), zp default 2^(bits-1), all in float32

The multiplier `a_s * b_s / y_s` is computed in the scales' type (float32) and the
product in float64, as ONNX's reference evaluator does. Per-row (`a`) / per-column
(`b`) scales and zero points of QLinearMatMul / MatMulInteger broadcast as ONNX says:
a 1-D `a` parameter of M entries is one per row, a 1-D `b` parameter one per column.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from qcomp.quant import onnx_contrib_quant
from qcomp.quant.onnx_cast import onnx_numpy_dtype
from qcomp.quant.onnx_quant import INT_RANGES, dequantize_linear, quantize_linear


def _rows(p, ndim: int) -> np.ndarray:
    """An `a`-side parameter: a 1-D one per row (shape (M, 1))."""
    p = np.asarray(p)
    return p.reshape(-1, 1) if p.ndim == 1 and p.size > 1 and ndim >= 2 else p


def _sub(x, zp, rows: bool) -> np.ndarray:
    x = np.asarray(x).astype(np.int64)
    if zp is None:
        return x
    zp = np.asarray(zp).astype(np.int64)
    return x - (_rows(zp, x.ndim) if rows else zp)


def _requantize(acc, multiplier, y_zp, out: str) -> np.ndarray:
    lo, hi = INT_RANGES[out]
    r = np.rint(acc.astype(np.float64) * np.asarray(multiplier).astype(np.float64))
    if y_zp is not None:
        r = r + np.asarray(y_zp).astype(np.float64)
    return np.clip(r, lo, hi).astype(onnx_numpy_dtype(out))


def matmul_integer(a, b, a_zp=None, b_zp=None, *, out: str = "int32", **_) -> np.ndarray:
    return np.matmul(_sub(a, a_zp, True), _sub(b, b_zp, False)).astype(np.int32)


def qlinear_matmul(a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp, *, out: str, **_) -> np.ndarray:
    acc = np.matmul(_sub(a, a_zp, True), _sub(b, b_zp, False))
    a_s = _rows(a_s, np.ndim(a))
    m = np.asarray(a_s * np.asarray(b_s) / np.asarray(y_s))
    return _requantize(acc, m, y_zp, out)


def _pads(x_shape, k_shape, strides, dilations, pads, auto_pad: str) -> list[int]:
    nd = len(k_shape)
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = []
        for i in range(nd):
            o = math.ceil(x_shape[i] / strides[i])
            total = max(0, (o - 1) * strides[i] + (k_shape[i] - 1) * dilations[i] + 1 - x_shape[i])
            small, big = total // 2, total - total // 2
            out.append((small, big) if auto_pad == "SAME_UPPER" else (big, small))
        return [p[0] for p in out] + [p[1] for p in out]
    if auto_pad == "VALID":
        return [0] * (2 * nd)
    return list(pads) if pads else [0] * (2 * nd)


def conv_integer_raw(x, w, *, group=1, pads=None, strides=None, dilations=None,
                     auto_pad="NOTSET", kernel_shape=None) -> np.ndarray:
    """N-D convolution of int64 arrays x (N, C, *S) and w (M, C/group, *K), int64 out."""
    x, w = np.asarray(x, np.int64), np.asarray(w, np.int64)
    nd = x.ndim - 2
    k = w.shape[2:]
    strides = list(strides or [1] * nd)
    dilations = list(dilations or [1] * nd)
    p = _pads(x.shape[2:], k, strides, dilations, pads, auto_pad or "NOTSET")
    xp = np.pad(x, [(0, 0), (0, 0)] + [(p[i], p[i + nd]) for i in range(nd)])
    osz = [(xp.shape[2 + i] - dilations[i] * (k[i] - 1) - 1) // strides[i] + 1 for i in range(nd)]
    n, c = x.shape[:2]
    m = w.shape[0]
    cg, mg = c // group, m // group
    y = np.zeros((n, m, *osz), np.int64)
    for g in range(group):
        for kidx in itertools.product(*[range(d) for d in k]):
            sl = tuple(slice(kidx[i] * dilations[i], kidx[i] * dilations[i]
                             + strides[i] * (osz[i] - 1) + 1, strides[i]) for i in range(nd))
            xs = xp[(slice(None), slice(g * cg, (g + 1) * cg), *sl)]
            ws = w[(slice(g * mg, (g + 1) * mg), slice(None), *kidx)]
            y[:, g * mg:(g + 1) * mg] += np.einsum("nc...,mc->nm...", xs, ws)
    return y


def _channel(p, ndim: int) -> np.ndarray:
    """A per-output-channel parameter as (M, 1, ...) for a weight of `ndim` dims."""
    p = np.asarray(p)
    return p.reshape((-1,) + (1,) * (ndim - 1)) if p.ndim == 1 and p.size > 1 else p


def _conv_args(kw):
    return {k: kw.get(k) for k in ("group", "pads", "strides", "dilations", "auto_pad")
            if kw.get(k) is not None}


def conv_integer(x, w, x_zp=None, w_zp=None, *, out: str = "int32", **kw) -> np.ndarray:
    xi = _sub(x, x_zp, False)
    wi = np.asarray(w).astype(np.int64)
    if w_zp is not None:
        wi = wi - _channel(np.asarray(w_zp).astype(np.int64), wi.ndim)
    return conv_integer_raw(xi, wi, **_conv_args(kw)).astype(np.int32)


def qlinear_conv(x, x_s, x_zp, w, w_s, w_zp, y_s, y_zp, B=None, *, out: str, **kw):
    acc = conv_integer(x, w, x_zp, w_zp, **kw).astype(np.int64)
    if B is not None:
        acc = acc + np.asarray(B).astype(np.int64).reshape((1, -1) + (1,) * (acc.ndim - 2))
    ws = np.asarray(w_s)
    ws = ws.reshape((1, -1) + (1,) * (acc.ndim - 2)) if ws.ndim == 1 and ws.size > 1 else ws
    m = np.asarray(np.asarray(x_s) * ws / np.asarray(y_s))
    return _requantize(acc, m, y_zp, out)


# -- com.microsoft ---------------------------------------------------------------------------

def qgemm(a, a_s, a_zp, b, b_s, b_zp, c=None, y_s=None, y_zp=None, *, out, alpha=1.0,
          transA=0, transB=0, **_):
    a = np.asarray(a).T if transA else np.asarray(a)
    b = np.asarray(b).T if transB else np.asarray(b)
    b_s, b_zp = (np.asarray(p).reshape(-1) if p is not None and np.size(p) > 1 else p
                 for p in (b_s, b_zp))
    acc = np.matmul(_sub(a, a_zp, False), _sub(b, b_zp, False))
    if c is not None:
        acc = acc + np.asarray(c).astype(np.int64)
    scale = np.float32(alpha) * np.asarray(a_s, np.float32) * np.asarray(b_s, np.float32)
    if y_s is None:
        return [(acc.astype(np.float32) * scale).astype(np.float32)]
    return [_requantize(acc, scale / np.asarray(y_s, np.float32), y_zp, out[0])]


def _dq(x, s, zp):
    return dequantize_linear(x, np.asarray(s, np.float32), zp, "float")


def _q(f, s, zp, out: str):
    return quantize_linear(np.asarray(f, np.float32), np.asarray(s, np.float32), zp, out)


def qlinear_add(a, a_s, a_zp, b, b_s, b_zp, c_s, c_zp=None, *, out, **_):
    return [_q(_dq(a, a_s, a_zp) + _dq(b, b_s, b_zp), c_s, c_zp, out[0])]


def qlinear_mul(a, a_s, a_zp, b, b_s, b_zp, c_s, c_zp=None, *, out, **_):
    return [_q(_dq(a, a_s, a_zp) * _dq(b, b_s, b_zp), c_s, c_zp, out[0])]


def qlinear_sigmoid(x, x_s, x_zp, y_s, y_zp=None, *, out, **_):
    f = _dq(x, x_s, x_zp)
    with np.errstate(over="ignore"):
        return [_q(np.float32(1) / (np.float32(1) + np.exp(-f)), y_s, y_zp, out[0])]


def qlinear_leaky_relu(x, x_s, x_zp, y_s, y_zp=None, *, out, alpha=0.01, **_):
    f = _dq(x, x_s, x_zp)
    return [_q(np.where(f >= 0, f, f * np.float32(alpha)), y_s, y_zp, out[0])]


def qlinear_global_average_pool(x, x_s, x_zp, y_s, y_zp, *, out, channels_last=0, **_):
    f = _dq(x, x_s, x_zp)
    axes = tuple(range(1, f.ndim - 1)) if channels_last else tuple(range(2, f.ndim))
    return [_q(f.mean(axis=axes, keepdims=True, dtype=np.float32), y_s, y_zp, out[0])]


def qlinear_softmax(x, x_s, x_zp, y_s, y_zp=None, *, out, axis=-1, opset=13, **_):
    if opset < 13:
        raise ValueError("opset < 13 (Softmax over the flattened trailing axes) is not "
                         "supported")
    f = _dq(x, x_s, x_zp)
    e = np.exp(f - f.max(axis=axis, keepdims=True))
    return [_q(e / e.sum(axis=axis, keepdims=True, dtype=np.float32), y_s, y_zp, out[0])]


def qlinear_concat(y_s, y_zp, *inputs, out, axis=0, **_):
    parts = [_dq(inputs[i], inputs[i + 1], inputs[i + 2]) for i in range(0, len(inputs), 3)]
    return [_q(np.concatenate(parts, axis=axis), y_s, y_zp, out[0])]


def _unpack(packed: np.ndarray, bits: int, count: int) -> np.ndarray:
    """Unsigned `bits`-wide values packed low bits first in bytes, the first `count`."""
    per = 8 // bits
    b = np.asarray(packed, np.uint8)
    vals = np.stack([(b >> (bits * i)) & ((1 << bits) - 1) for i in range(per)], axis=-1)
    return vals.reshape(*b.shape[:-1], -1)[..., :count]


def nbits_weight(b, scales, zero_points=None, *, K, N, bits=4, block_size):
    """MatMulNBits' B unpacked: (q[N, K] uint8, scale[N, nb], zp[N, nb]) with nb =
    ceil(K / block_size); zp unpacked from uint8 (`bits` wide, low bits first), else
    in the scales' type, default 2^(bits-1)."""
    nb = math.ceil(K / block_size)
    q = _unpack(np.asarray(b).reshape(N, nb, -1), bits, block_size).reshape(N, nb * block_size)[:, :K]
    s = np.asarray(scales).reshape(N, nb)
    if zero_points is None:
        zp = np.full((N, nb), 1 << (bits - 1), np.uint8)
    elif np.asarray(zero_points).dtype == np.uint8:
        zp = _unpack(np.asarray(zero_points).reshape(N, -1), bits, nb)
    else:
        zp = np.asarray(zero_points).reshape(N, nb)
    return q, s, zp


def matmul_nbits(a, b, scales, zero_points=None, g_idx=None, bias=None, *, out, K, N,
                 bits=4, block_size, **_):
    """com.microsoft MatMulNBits: `a @ dequantize(b)^T (+ bias)`."""
    nb = math.ceil(K / block_size)
    q, s, zp = nbits_weight(b, scales, zero_points, K=K, N=N, bits=bits, block_size=block_size)
    s, zp = s.astype(np.float32), zp.astype(np.float32)
    blk = np.arange(K) // block_size if g_idx is None else np.asarray(g_idx, np.int64).reshape(-1)
    if blk.shape != (K,) or blk.min(initial=0) < 0 or blk.max(initial=0) >= nb:
        raise ValueError(f"g_idx must hold {K} block indices in [0, {nb})")
    w = (q.astype(np.float32) - zp[:, blk]) * s[:, blk]  # (N, K)
    y = np.matmul(np.asarray(a, np.float32), w.T)
    if bias is not None:
        y = y + np.asarray(bias, np.float32)
    return [y.astype(onnx_numpy_dtype(out[0]))]


STANDARD = {"MatMulInteger": matmul_integer, "ConvInteger": conv_integer,
            "QLinearMatMul": qlinear_matmul, "QLinearConv": qlinear_conv}
CONTRIB = {"QLinearAdd": qlinear_add, "QLinearMul": qlinear_mul,
           "QLinearSigmoid": qlinear_sigmoid, "QLinearLeakyRelu": qlinear_leaky_relu,
           "QLinearGlobalAveragePool": qlinear_global_average_pool,
           "QLinearConcat": qlinear_concat, "MatMulNBits": matmul_nbits, "QGemm": qgemm,
           "QLinearSoftmax": qlinear_softmax, **onnx_contrib_quant.CONTRIB}
"""The ops by ONNX op_type (standard domain) and com.microsoft function name."""
