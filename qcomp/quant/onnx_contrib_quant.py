"""onnxruntime's com.microsoft QLinearAveragePool, QLinearReduceMean and QLinearWhere on
NumPy, with onnxruntime's CPU arithmetic (all float32):

    QLinearAveragePool: v = x_s * (x - x_zp); s = the window's values summed in window
                        order (rows, then columns, ...); a = s / count (count: the
                        kernel's size with count_include_pad, else the in-bounds
                        elements); y = clamp(nearbyint(a / y_s + y_zp))
                        (`qlinear_pool.cc`: `quantize_value` adds the zero point before
                        rounding)
    QLinearReduceMean:  y = quantize(mean(dequantize(data), axes), reduced_s, reduced_zp)
                        (the schema's `Dequantize -> ReduceMean on fp32 -> Quantize`;
                        onnxruntime has no CPU kernel for it)
    QLinearWhere:       z = condition ? requantize(X) : requantize(Y), requantize(v) =
                        clamp(round_half_even(v_s * (v - v_zp) / z_s) + z_zp) (its
                        256-entry tables, `qlinear_where.cc`; an input of z's scale and
                        zero point is copied)

Scales and zero points are per tensor (one value each).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from qcomp.quant.onnx_cast import onnx_numpy_dtype
from qcomp.quant.onnx_quant import INT_RANGES, dequantize_linear, quantize_linear


def _scalar(v, what: str):
    a = np.asarray(v)
    if a.size != 1:
        raise ValueError(f"{what} must be a scalar (per-tensor), got shape {a.shape}")
    return a.reshape(())


def _dq(x, s, zp) -> np.ndarray:
    zp = None if zp is None else _scalar(zp, "a zero point")
    return dequantize_linear(x, np.float32(_scalar(s, "a scale")), zp, "float")


def _q(f, s, zp, out: str) -> np.ndarray:
    zp = None if zp is None else _scalar(zp, "a zero point")
    return quantize_linear(np.asarray(f, np.float32), np.float32(_scalar(s, "a scale")), zp, out)


def pool_window(spatial, kernel, strides, pads, auto_pad: str, ceil_mode: int
                ) -> tuple[list[int], list[int], list[int]]:
    """(pads at the start, pads at the end, output sizes) of onnxruntime's PoolAttributes:
    NOTSET `floor_or_ceil((in + pb + pe - k) / s) + 1` (ceil_mode drops a window that
    would start in the end padding); SAME_UPPER / SAME_LOWER `ceil(in / s)` with total
    padding `(out - 1) * s + k - in` (the odd one at the end / the start); VALID none."""
    n = len(spatial)
    begin, end, out = [], [], []
    for i, size in enumerate(spatial):
        k, s = kernel[i], strides[i]
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = -(-size // s)
            total = max(0, (o - 1) * s + k - size)
            small = total // 2
            pb, pe = (small, total - small) if auto_pad == "SAME_UPPER" else (total - small, small)
        elif auto_pad == "VALID":
            pb = pe = 0
            o = (size - k) // s + 1
        else:
            pb, pe = (pads[i], pads[i + n]) if pads else (0, 0)
            span = size + pb + pe - k
            o = (-(-span // s) if ceil_mode else span // s) + 1
            if ceil_mode and (o - 1) * s >= size + pb:
                o -= 1
        if o < 1:
            raise ValueError(f"spatial dimension {i}: the window ({k}) does not fit the "
                             f"padded input ({size + pb + pe})")
        begin.append(pb)
        end.append(pe)
        out.append(o)
    return begin, end, out


def qlinear_average_pool(x, x_s, x_zp, y_s, y_zp=None, *, out, kernel_shape, strides=None,
                         pads=None, auto_pad="NOTSET", ceil_mode=0, count_include_pad=0,
                         channels_last=0, **_):
    """com.microsoft QLinearAveragePool (module docstring)."""
    v = _dq(x, x_s, x_zp)
    if channels_last:
        v = np.moveaxis(v, -1, 1)
    n = v.ndim - 2
    kernel = list(kernel_shape)
    if n < 1 or len(kernel) != n:
        raise ValueError(f"kernel_shape has {len(kernel)} values for {max(n, 0)} spatial "
                         "dimensions")
    strides = list(strides) if strides else [1] * n
    pb, pe, osz = pool_window(v.shape[2:], kernel, strides, pads, auto_pad or "NOTSET",
                              ceil_mode or 0)
    # zeros in the padding and past the end: adding +0.0 leaves each sum as onnxruntime's
    extra = [max(0, (osz[i] - 1) * strides[i] + kernel[i] - (v.shape[2 + i] + pb[i] + pe[i]))
             for i in range(n)]
    vp = np.pad(v, [(0, 0), (0, 0)] + [(pb[i], pe[i] + extra[i]) for i in range(n)])
    inside = np.pad(np.ones(v.shape[2:], np.int64), [(pb[i], pe[i] + extra[i]) for i in range(n)])
    total = np.zeros((*v.shape[:2], *osz), np.float32)
    count = np.zeros(osz, np.int64)
    for kidx in itertools.product(*[range(k) for k in kernel]):
        sl = tuple(slice(kidx[i], kidx[i] + strides[i] * (osz[i] - 1) + 1, strides[i])
                   for i in range(n))
        total += vp[(slice(None), slice(None), *sl)]
        count += inside[sl]
    if count_include_pad:
        count = np.full(osz, math.prod(kernel), np.int64)
    avg = total / count.astype(np.float32)
    lo, hi = INT_RANGES[out[0]]
    zp = np.float32(0 if y_zp is None else _scalar(y_zp, "a zero point"))
    y = np.rint(avg / np.float32(_scalar(y_s, "a scale")) + zp)
    y = np.clip(y, lo, hi).astype(onnx_numpy_dtype(out[0]))
    return [np.moveaxis(y, 1, -1) if channels_last else y]


def qlinear_reduce_mean(data, data_s, data_zp, reduced_s, reduced_zp=None, *, out, axes=None,
                        keepdims=1, **_):
    """com.microsoft QLinearReduceMean (module docstring; no axes: all of them)."""
    v = _dq(data, data_s, data_zp)
    rank = v.ndim
    ax = tuple(range(rank)) if not axes else tuple(a + rank if a < 0 else a for a in axes)
    if any(not 0 <= a < rank for a in ax):
        raise ValueError(f"axes {list(axes or [])} out of range for rank {rank}")
    m = np.mean(v, axis=ax, keepdims=bool(keepdims), dtype=np.float32)
    return [_q(m, reduced_s, reduced_zp, out[0])]


def qlinear_where(condition, x, x_s, x_zp, y, y_s, y_zp, z_s, z_zp, *, out, **_):
    """com.microsoft QLinearWhere (module docstring)."""
    def requantize(v, s, zp):
        same = np.float32(_scalar(s, "a scale")) == np.float32(_scalar(z_s, "a scale")) and \
            _scalar(zp, "a zero point") == _scalar(z_zp, "a zero point")
        return np.asarray(v) if same else _q(_dq(v, s, zp), z_s, z_zp, out[0])
    return [np.where(np.asarray(condition, bool), requantize(x, x_s, x_zp),
                     requantize(y, y_s, y_zp)).astype(onnx_numpy_dtype(out[0]))]


CONTRIB = {"QLinearAveragePool": qlinear_average_pool, "QLinearReduceMean": qlinear_reduce_mean,
           "QLinearWhere": qlinear_where}
"""The ops by com.microsoft function name."""
