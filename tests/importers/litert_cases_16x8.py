"""Random tiny 16x8 models (int16 activations with zero point 0, int8 symmetric
weights, int64 bias) of each operator LiteRT runs in that mode and qcomp imports, with
random int16 inputs (the all-minimum and all-maximum values among them)."""

from __future__ import annotations

from functools import partial

import numpy as np

from tests.importers import litert_cases as lc
from tests.importers.litert_cases import OPS, OPTS, Int8, _finish, _weights
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


class Int16(Int8):
    """The 16x8 mode of the int8 builders (`litert_cases.Int8`): int16 activations with
    zero point 0, scales 1e-5..1e-2, int64 biases."""

    dtype = np.int16
    bias_type = schema.TensorType.INT64

    @staticmethod
    def scale(rng) -> float:
        return _s16(rng)

    @staticmethod
    def zp(rng) -> int:
        return 0

    @staticmethod
    def feed(rng, shape) -> np.ndarray:
        return _i16(rng, shape)

    @staticmethod
    def bias(m: Model, rng, s_in: float, w_scales, n: int, per_tensor: bool = False) -> int:
        return _bias64(m, rng, s_in, w_scales, n)

    @staticmethod
    def fan_in_scale(rng, s_in: float, fan_in: int) -> float:
        return float(np.float32(s_in * np.exp(rng.uniform(-1, 4)) * np.sqrt(fan_in)))

    @staticmethod
    def binary_scale(rng, s1: float, s2: float, mul: bool) -> float:
        base = s1 * s2 * 32768 if mul else max(s1, s2) * 2
        return float(np.float32(base * np.exp(rng.uniform(-1, 1))))


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
    "FULLY_CONNECTED": partial(lc.fully_connected, a=Int16),
    "CONV_2D": partial(lc.conv_2d, a=Int16),
    "DEPTHWISE_CONV_2D": partial(lc.depthwise_conv_2d, a=Int16),
    "ADD": lc._binary(OPS.ADD, schema.AddOptionsT, OPTS.AddOptions, Int16),
    "SUB": lc._binary(OPS.SUB, schema.SubOptionsT, OPTS.SubOptions, Int16),
    "MUL": lc._binary(OPS.MUL, schema.MulOptionsT, OPTS.MulOptions, Int16),
    "MAX_POOL_2D": lc._pool(OPS.MAX_POOL_2D, Int16),
    "AVERAGE_POOL_2D": lc._pool(OPS.AVERAGE_POOL_2D, Int16),
    "SOFTMAX": softmax, "LOGISTIC": logistic, "TANH": tanh,
    "RESHAPE": partial(lc.reshape, a=Int16), "TRANSPOSE": partial(lc.transpose, a=Int16),
    "CONCATENATION": partial(lc.concatenation, a=Int16), "MEAN": partial(lc.mean, a=Int16),
    "BATCH_MATMUL": batch_matmul, "RSQRT": rsqrt, "GELU": gelu,
    "TRANSPOSE_CONV": transpose_conv,
}
"""Operator -> builder(rng) -> (model bytes, feeds)."""
