"""Random tiny 16x8 models (int16 activations with zero point 0, int8 symmetric
weights, int64 bias) of each operator LiteRT runs in that mode and qcomp imports, with
random int16 inputs (the all-minimum and all-maximum values among them)."""

from __future__ import annotations

import numpy as np

from tests.importers.litert_cases import OPS, OPTS, _act, _finish, _weights
from tests.importers.tflite_models import Model, schema


def _s16(rng, lo: float = 1e-5, hi: float = 1e-2) -> float:
    return float(np.float32(np.exp(rng.uniform(np.log(lo), np.log(hi)))))


def _i16(rng, shape) -> np.ndarray:
    x = rng.integers(-32768, 32768, shape)
    flat = x.reshape(-1)
    if flat.size >= 4:  # the extremes, always
        flat[:2] = (-32768, 32767)
    return x.astype(np.int16)


def _t(m: Model, shape, scale: float) -> int:
    return m.tensor(shape, np.int16, scale=scale, zero_point=0)


def _bias64(m: Model, rng, s_in: float, w_scales, n: int) -> int:
    scales = [float(np.float32(s_in * s)) for s in w_scales]
    return m.tensor([n], np.int64, scale=scales, zero_point=[0] * len(scales),
                    data=rng.integers(-200000, 200000, n).astype(np.int64))


def fully_connected(rng):
    m = Model()
    b, k, n = int(rng.integers(1, 4)), int(rng.integers(1, 17)), int(rng.integers(1, 9))
    s_in = _s16(rng)
    x = _t(m, [b, k], s_in)
    per_channel = bool(rng.integers(0, 2))
    wd, ws = _weights(rng, (n, k), 0, per_channel)
    w = m.tensor([n, k], scale=ws, zero_point=[0] * len(ws), data=wd, axis=0)
    bias = _bias64(m, rng, s_in, ws, n)
    y = _t(m, [b, n], float(np.float32(s_in * np.exp(rng.uniform(-1, 4)) * np.sqrt(k))))
    o = schema.FullyConnectedOptionsT()
    o.fusedActivationFunction = _act(rng)
    o.quantizedBiasType = schema.TensorType.INT64
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.FULLY_CONNECTED, [x, w, bias], [y], o, OPTS.FullyConnectedOptions,
                   [_i16(rng, (b, k))])


def _conv(rng, depthwise: bool):
    m = Model()
    h, wd_, c = int(rng.integers(3, 7)), int(rng.integers(3, 7)), int(rng.integers(1, 4))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    stride, dil = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    same = bool(rng.integers(0, 2))
    if not same and ((kh - 1) * dil + 1 > h or (kw - 1) * dil + 1 > wd_):
        same = True
    s_in = _s16(rng)
    x = _t(m, [1, h, wd_, c], s_in)
    if depthwise:
        mult = int(rng.integers(1, 3))
        cout = c * mult
        wdata, ws = _weights(rng, (1, kh, kw, cout), 3, True)
        w = m.tensor([1, kh, kw, cout], scale=ws, zero_point=[0] * cout, data=wdata, axis=3)
    else:
        cout = int(rng.integers(1, 5))
        wdata, ws = _weights(rng, (cout, kh, kw, c), 0, True)
        w = m.tensor([cout, kh, kw, c], scale=ws, zero_point=[0] * cout, data=wdata, axis=0)
    bias = _bias64(m, rng, s_in, ws, cout)

    def out(size, k):
        eff = (k - 1) * dil + 1
        return (size + stride - 1) // stride if same else (size - eff + stride) // stride
    y = _t(m, [1, out(h, kh), out(wd_, kw), cout],
           float(np.float32(s_in * np.exp(rng.uniform(-1, 4)) * np.sqrt(kh * kw * c))))
    o = schema.DepthwiseConv2DOptionsT() if depthwise else schema.Conv2DOptionsT()
    o.padding = 0 if same else 1
    o.strideH = o.strideW = stride
    o.dilationHFactor = o.dilationWFactor = dil
    o.fusedActivationFunction = _act(rng)
    if depthwise:
        o.depthMultiplier = mult
    else:
        o.quantizedBiasType = schema.TensorType.INT64
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.DEPTHWISE_CONV_2D if depthwise else OPS.CONV_2D, [x, w, bias], [y],
                   o, OPTS.DepthwiseConv2DOptions if depthwise else OPTS.Conv2DOptions,
                   [_i16(rng, (1, h, wd_, c))])


def conv_2d(rng):
    return _conv(rng, False)


def depthwise_conv_2d(rng):
    return _conv(rng, True)


def _binary(op, opts_cls, opts_type):
    def build(rng):
        m = Model()
        shape = [2, 3, 4]
        b_shape = shape if rng.integers(0, 2) else [4]
        s1, s2 = _s16(rng), _s16(rng)
        a, b = _t(m, shape, s1), _t(m, b_shape, s2)
        base = s1 * s2 * 32768 if op == OPS.MUL else max(s1, s2) * 2
        y = _t(m, shape, float(np.float32(base * np.exp(rng.uniform(-1, 1)))))
        o = opts_cls()
        o.fusedActivationFunction = _act(rng)
        m.inputs, m.outputs = [a, b], [y]
        return _finish(m, op, [a, b], [y], o, opts_type, [_i16(rng, shape), _i16(rng, b_shape)])
    return build


def _pool(op):
    def build(rng):
        m = Model()
        h, w, c = int(rng.integers(2, 7)), int(rng.integers(2, 7)), int(rng.integers(1, 4))
        kh, kw = int(rng.integers(1, min(h, 3) + 1)), int(rng.integers(1, min(w, 3) + 1))
        stride, same = int(rng.integers(1, 3)), bool(rng.integers(0, 2))
        s = _s16(rng)
        x = _t(m, [1, h, w, c], s)

        def out(size, k):
            return (size + stride - 1) // stride if same else (size - k + stride) // stride
        y = _t(m, [1, out(h, kh), out(w, kw), c], s)
        o = schema.Pool2DOptionsT()
        o.padding, o.strideH, o.strideW = (0 if same else 1), stride, stride
        o.filterHeight, o.filterWidth = kh, kw
        o.fusedActivationFunction = _act(rng)
        m.inputs, m.outputs = [x], [y]
        return _finish(m, op, [x], [y], o, OPTS.Pool2DOptions, [_i16(rng, (1, h, w, c))])
    return build


def softmax(rng):
    m = Model()
    shape = [2, int(rng.integers(1, 41))]
    x = _t(m, shape, _s16(rng, 1e-5, 1e-2))
    y = _t(m, shape, 1 / 32768)
    o = schema.SoftmaxOptionsT()
    o.beta = float(np.float32(rng.uniform(0.5, 2.0)))
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.SOFTMAX, [x], [y], o, OPTS.SoftmaxOptions, [_i16(rng, shape)])


def _all_int16(m: Model, s_in: float, s_out: float):
    """An input of the 65536 int16 values."""
    x, y = _t(m, [65536], s_in), _t(m, [65536], s_out)
    m.inputs, m.outputs = [x], [y]
    return x, y, [np.arange(-32768, 32768).astype(np.int16)]


def logistic(rng):
    m = Model()
    x, y, feeds = _all_int16(m, _s16(rng, 1e-5, 1e-2), 1 / 32768)
    return _finish(m, OPS.LOGISTIC, [x], [y], None, 0, feeds)


def tanh(rng):
    m = Model()
    x, y, feeds = _all_int16(m, _s16(rng, 1e-5, 1e-2), 1 / 32768)
    return _finish(m, OPS.TANH, [x], [y], None, 0, feeds)


def reshape(rng):
    m = Model()
    s = _s16(rng)
    x = _t(m, [2, 3, 4], s)
    shp = m.tensor([2], np.int32, data=np.array([4, 6], np.int32))
    y = _t(m, [4, 6], s)
    o = schema.ReshapeOptionsT()
    o.newShape = [4, 6]
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.RESHAPE, [x, shp], [y], o, OPTS.ReshapeOptions,
                   [_i16(rng, (2, 3, 4))])


def transpose(rng):
    m = Model()
    s = _s16(rng)
    perm = rng.permutation(3)
    x = _t(m, [2, 3, 4], s)
    p = m.tensor([3], np.int32, data=perm.astype(np.int32))
    y = _t(m, [[2, 3, 4][i] for i in perm], s)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.TRANSPOSE, [x, p], [y], schema.TransposeOptionsT(),
                   OPTS.TransposeOptions, [_i16(rng, (2, 3, 4))])


def concatenation(rng):
    m = Model()
    s = _s16(rng)
    axis = int(rng.integers(0, 2))
    a, b = _t(m, [2, 3], s), _t(m, [2, 3], s)
    y = _t(m, [4, 3] if axis == 0 else [2, 6], s)
    o = schema.ConcatenationOptionsT()
    o.axis = axis
    m.inputs, m.outputs = [a, b], [y]
    return _finish(m, OPS.CONCATENATION, [a, b], [y], o, OPTS.ConcatenationOptions,
                   [_i16(rng, (2, 3)), _i16(rng, (2, 3))])


def mean(rng):
    m = Model()
    x = _t(m, [1, 3, 4, 2], _s16(rng))
    axes = [1, 2] if rng.integers(0, 2) else [int(rng.integers(1, 4))]
    keep = bool(rng.integers(0, 2))
    a = m.tensor([len(axes)], np.int32, data=np.array(axes, np.int32))
    shape = [d for i, d in enumerate([1, 3, 4, 2]) if i not in axes] if not keep else \
        [1 if i in axes else d for i, d in enumerate([1, 3, 4, 2])]
    y = _t(m, shape, _s16(rng))
    o = schema.ReducerOptionsT()
    o.keepDims = keep
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.MEAN, [x, a], [y], o, OPTS.ReducerOptions,
                   [_i16(rng, (1, 3, 4, 2))])


def batch_matmul(rng):
    m = Model()
    bt, mm, k, n = (int(rng.integers(1, 4)) for _ in range(4))
    adj_x, adj_y = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    s1, s2 = _s16(rng), _s16(rng)
    a_shape = [bt, k, mm] if adj_x else [bt, mm, k]
    b_shape = [bt, n, k] if adj_y else [bt, k, n]
    a, b = _t(m, a_shape, s1), _t(m, b_shape, s2)
    y = _t(m, [bt, mm, n], float(np.float32(s1 * s2 * 32768 * np.exp(rng.uniform(-1, 2)))))
    o = schema.BatchMatMulOptionsT()
    o.adjX, o.adjY = adj_x, adj_y
    m.inputs, m.outputs = [a, b], [y]
    return _finish(m, OPS.BATCH_MATMUL, [a, b], [y], o, OPTS.BatchMatMulOptions,
                   [_i16(rng, a_shape), _i16(rng, b_shape)])


def rsqrt(rng):
    """Non-negative inputs only (LiteRT rejects negative ones)."""
    m = Model()
    s = _s16(rng, 1e-5, 1e-2)
    x = _t(m, [32768], s)
    y = _t(m, [32768], float(np.float32(rng.uniform(0.5, 2.0) / np.sqrt(s) / 32767 * 30)))
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.RSQRT, [x], [y], None, 0, [np.arange(0, 32768).astype(np.int16)])


def gelu(rng):
    m = Model()
    s = _s16(rng, 1e-5, 1e-2)
    x, y, feeds = _all_int16(m, s, float(np.float32(s * rng.uniform(0.3, 2.0))))
    o = schema.GeluOptionsT()
    o.approximate = bool(rng.integers(0, 2))
    return _finish(m, OPS.GELU, [x], [y], o, OPTS.GeluOptions, feeds)


def transpose_conv(rng):
    """Strides 1..3, 1..3 square filters, SAME / VALID, per-tensor or per-channel
    filters, with or without an int64 bias."""
    m = Model()
    h, w, cin, cout = (int(rng.integers(1, 5)), int(rng.integers(1, 5)),
                       int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    k, stride, same = int(rng.integers(1, 4)), int(rng.integers(1, 4)), bool(rng.integers(0, 2))
    oh, ow = ((h * stride, w * stride) if same else
              ((h - 1) * stride + k, (w - 1) * stride + k))
    s_in = _s16(rng)
    x = _t(m, [1, h, w, cin], s_in)
    per_channel = bool(rng.integers(0, 2))
    wd, ws = _weights(rng, (cout, k, k, cin), 0, per_channel)
    wt = m.tensor([cout, k, k, cin], scale=ws, zero_point=[0] * len(ws), data=wd, axis=0)
    shp = m.tensor([4], np.int32, data=np.array([1, oh, ow, cout], np.int32))
    inputs = [shp, wt, x]
    if rng.integers(0, 2):
        inputs.append(_bias64(m, rng, s_in, ws, cout))
    y = _t(m, [1, oh, ow, cout],
           float(np.float32(s_in * np.exp(rng.uniform(-1, 4)) * k * np.sqrt(cin))))
    o = schema.TransposeConvOptionsT()
    o.padding, o.strideH, o.strideW = (0 if same else 1), stride, stride
    o.quantizedBiasType = schema.TensorType.INT64
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.TRANSPOSE_CONV, inputs, [y], o, OPTS.TransposeConvOptions,
                   [_i16(rng, (1, h, w, cin))])


CASES = {
    "FULLY_CONNECTED": fully_connected, "CONV_2D": conv_2d,
    "DEPTHWISE_CONV_2D": depthwise_conv_2d,
    "ADD": _binary(OPS.ADD, schema.AddOptionsT, OPTS.AddOptions),
    "SUB": _binary(OPS.SUB, schema.SubOptionsT, OPTS.SubOptions),
    "MUL": _binary(OPS.MUL, schema.MulOptionsT, OPTS.MulOptions),
    "MAX_POOL_2D": _pool(OPS.MAX_POOL_2D), "AVERAGE_POOL_2D": _pool(OPS.AVERAGE_POOL_2D),
    "SOFTMAX": softmax, "LOGISTIC": logistic, "TANH": tanh, "RESHAPE": reshape,
    "TRANSPOSE": transpose, "CONCATENATION": concatenation, "MEAN": mean,
    "BATCH_MATMUL": batch_matmul, "RSQRT": rsqrt, "GELU": gelu,
    "TRANSPOSE_CONV": transpose_conv,
}
"""Operator -> builder(rng) -> (model bytes, feeds)."""
