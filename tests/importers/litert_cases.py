"""Random tiny int8 models of each operator `.tflite` import supports (one builder per
op, parameters from a seeded generator: scales 1e-4..10, zero points across the int8
range, per-channel weights, fused RELU / RELU6 / RELU_N1_TO_1), with random inputs."""

from __future__ import annotations

import numpy as np

from tests.importers.tflite_models import Model, schema

OPS = schema.BuiltinOperator
OPTS = schema.BuiltinOptions


def _scale(rng, lo: float = 1e-4, hi: float = 10.0) -> float:
    return float(np.float32(np.exp(rng.uniform(np.log(lo), np.log(hi)))))


def _zp(rng) -> int:
    return int(rng.integers(-128, 128))


def _act(rng) -> int:
    return int(rng.choice([0, 1, 2, 3]))


def _i8(rng, shape) -> np.ndarray:
    return rng.integers(-128, 128, shape).astype(np.int8)


def _weights(rng, shape, axis: int, per_channel: bool):
    w = rng.integers(-127, 128, shape).astype(np.int8)
    n = shape[axis] if per_channel else 1
    scales = [_scale(rng, 1e-3, 1.0) for _ in range(n)]
    return w, scales


def _bias(m: Model, rng, s_in: float, w_scales, n: int) -> int:
    scales = [float(np.float32(s_in * s)) for s in w_scales]
    return m.tensor([n], np.int32, scale=scales, zero_point=[0] * len(scales),
                    data=rng.integers(-2000, 2000, n).astype(np.int32))


def _finish(m: Model, op, inputs, outputs, options, options_type, feeds):
    m.op(op, inputs, outputs, options, options_type)
    return m.build(), feeds


def _out_scale(rng, s: float) -> float:
    return float(np.float32(s * np.exp(rng.uniform(np.log(0.05), np.log(50.0)))))


class Int8:
    """How a builder draws its activations in int8 mode: scales 1e-4..10, zero points
    across the int8 range, int32 biases; `Int16` (litert_cases_16x8) is the 16x8 mode.
    Each call draws from `rng` in the order the builders have always drawn, so a seed
    names the same model."""

    dtype: type = np.int8
    bias_type: int | None = None  # the options' quantizedBiasType, when set

    @staticmethod
    def scale(rng) -> float:
        return _scale(rng)

    @staticmethod
    def zp(rng) -> int:
        return _zp(rng)

    @staticmethod
    def feed(rng, shape) -> np.ndarray:
        return _i8(rng, shape)

    @classmethod
    def tensor(cls, m: Model, shape, scale: float, zero_point: int) -> int:
        return m.tensor(shape, cls.dtype, scale=scale, zero_point=zero_point)

    @staticmethod
    def bias(m: Model, rng, s_in: float, w_scales, n: int, per_tensor: bool = False) -> int:
        if per_tensor:
            return m.tensor([n], np.int32, scale=float(np.float32(s_in * w_scales[0])),
                            zero_point=0, data=rng.integers(-2000, 2000, n).astype(np.int32))
        return _bias(m, rng, s_in, w_scales, n)

    @staticmethod
    def fan_in_scale(rng, s_in: float, fan_in: int) -> float:
        """The output scale of a contraction over `fan_in` products."""
        return _out_scale(rng, s_in * 0.1 * np.sqrt(fan_in) * 20)

    @staticmethod
    def binary_scale(rng, s1: float, s2: float, mul: bool) -> float:
        return _out_scale(rng, s1 * s2 * 128 if mul else max(s1, s2))


def fully_connected(rng, a=Int8):
    m = Model()
    b, k, n = int(rng.integers(1, 4)), int(rng.integers(1, 17)), int(rng.integers(1, 9))
    s_in = a.scale(rng)
    x = a.tensor(m, [b, k], s_in, a.zp(rng))
    per_channel = bool(rng.integers(0, 2))
    wd, ws = _weights(rng, (n, k), 0, per_channel)
    w = m.tensor([n, k], scale=ws, zero_point=[0] * len(ws), data=wd, axis=0)
    bias = a.bias(m, rng, s_in, ws, n, per_tensor=not per_channel)
    y = a.tensor(m, [b, n], a.fan_in_scale(rng, s_in, k), a.zp(rng))
    o = schema.FullyConnectedOptionsT()
    o.fusedActivationFunction = _act(rng)
    if a.bias_type is not None:
        o.quantizedBiasType = a.bias_type
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.FULLY_CONNECTED, [x, w, bias], [y], o, OPTS.FullyConnectedOptions,
                   [a.feed(rng, (b, k))])


def _conv(rng, depthwise: bool, a=Int8):
    m = Model()
    h, wd_, c = int(rng.integers(3, 7)), int(rng.integers(3, 7)), int(rng.integers(1, 4))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    stride, dil = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    same = bool(rng.integers(0, 2))
    if not same and ((kh - 1) * dil + 1 > h or (kw - 1) * dil + 1 > wd_):
        same = True
    s_in = a.scale(rng)
    x = a.tensor(m, [1, h, wd_, c], s_in, a.zp(rng))
    if depthwise:
        mult = int(rng.integers(1, 3))
        cout = c * mult
        wdata, ws = _weights(rng, (1, kh, kw, cout), 3, True)
        w = m.tensor([1, kh, kw, cout], scale=ws, zero_point=[0] * cout, data=wdata, axis=3)
    else:
        cout = int(rng.integers(1, 5))
        wdata, ws = _weights(rng, (cout, kh, kw, c), 0, True)
        w = m.tensor([cout, kh, kw, c], scale=ws, zero_point=[0] * cout, data=wdata, axis=0)
    bias = a.bias(m, rng, s_in, ws, cout)

    def out(size, k):
        eff = (k - 1) * dil + 1
        return (size + stride - 1) // stride if same else (size - eff + stride) // stride
    y = a.tensor(m, [1, out(h, kh), out(wd_, kw), cout],
                 a.fan_in_scale(rng, s_in, kh * kw * c), a.zp(rng))
    o = schema.DepthwiseConv2DOptionsT() if depthwise else schema.Conv2DOptionsT()
    o.padding = 0 if same else 1
    o.strideH = o.strideW = stride
    o.dilationHFactor = o.dilationWFactor = dil
    o.fusedActivationFunction = _act(rng)
    if depthwise:
        o.depthMultiplier = mult
    elif a.bias_type is not None:
        o.quantizedBiasType = a.bias_type
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.DEPTHWISE_CONV_2D if depthwise else OPS.CONV_2D, [x, w, bias], [y],
                   o, OPTS.DepthwiseConv2DOptions if depthwise else OPTS.Conv2DOptions,
                   [a.feed(rng, (1, h, wd_, c))])


def conv_2d(rng, a=Int8):
    return _conv(rng, False, a)


def depthwise_conv_2d(rng, a=Int8):
    return _conv(rng, True, a)


def _binary(op, opts_cls, opts_type, a=Int8):
    def build(rng):
        m = Model()
        shape = [2, 3, 4]
        b_shape = shape if rng.integers(0, 2) else [4]
        s1, s2 = a.scale(rng), a.scale(rng)
        x = a.tensor(m, shape, s1, a.zp(rng))
        y = a.tensor(m, b_shape, s2, a.zp(rng))
        out = a.tensor(m, shape, a.binary_scale(rng, s1, s2, op == OPS.MUL), a.zp(rng))
        o = opts_cls()
        o.fusedActivationFunction = _act(rng)
        m.inputs, m.outputs = [x, y], [out]
        return _finish(m, op, [x, y], [out], o, opts_type,
                       [a.feed(rng, shape), a.feed(rng, b_shape)])
    return build


def _pool(op, a=Int8):
    def build(rng):
        m = Model()
        h, w, c = int(rng.integers(2, 7)), int(rng.integers(2, 7)), int(rng.integers(1, 4))
        kh, kw = int(rng.integers(1, min(h, 3) + 1)), int(rng.integers(1, min(w, 3) + 1))
        stride, same = int(rng.integers(1, 3)), bool(rng.integers(0, 2))
        s, z = a.scale(rng), a.zp(rng)
        x = a.tensor(m, [1, h, w, c], s, z)

        def out(size, k):
            return (size + stride - 1) // stride if same else (size - k + stride) // stride
        y = a.tensor(m, [1, out(h, kh), out(w, kw), c], s, z)
        o = schema.Pool2DOptionsT()
        o.padding, o.strideH, o.strideW = (0 if same else 1), stride, stride
        o.filterHeight, o.filterWidth = kh, kw
        o.fusedActivationFunction = _act(rng)
        m.inputs, m.outputs = [x], [y]
        return _finish(m, op, [x], [y], o, OPTS.Pool2DOptions, [a.feed(rng, (1, h, w, c))])
    return build


def _unary(op, out_params):
    def build(rng):
        m = Model()
        shape = [2, int(rng.integers(1, 9))]
        x = m.tensor(shape, scale=_scale(rng, 1e-3, 1.0), zero_point=_zp(rng))
        s, z = out_params
        y = m.tensor(shape, scale=s, zero_point=z)
        m.inputs, m.outputs = [x], [y]
        return _finish(m, op, [x], [y], None, 0, [_i8(rng, shape)])
    return build


def softmax(rng):
    """Rows of 1..40 (TFLite's table kernel sums them in order in f32), input scales
    1e-3..10 (far past the table's range), beta 0.5..2."""
    m = Model()
    shape = [2, int(rng.integers(1, 41))]
    x = m.tensor(shape, scale=_scale(rng, 1e-3, 10.0), zero_point=_zp(rng))
    y = m.tensor(shape, scale=1 / 256, zero_point=-128)
    o = schema.SoftmaxOptionsT()
    o.beta = float(np.float32(rng.uniform(0.5, 2.0)))
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.SOFTMAX, [x], [y], o, OPTS.SoftmaxOptions, [_i8(rng, shape)])


def reshape(rng, a=Int8):
    m = Model()
    s, z = a.scale(rng), a.zp(rng)
    x = a.tensor(m, [2, 3, 4], s, z)
    shp = m.tensor([2], np.int32, data=np.array([4, 6], np.int32))
    y = a.tensor(m, [4, 6], s, z)
    o = schema.ReshapeOptionsT()
    o.newShape = [4, 6]
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.RESHAPE, [x, shp], [y], o, OPTS.ReshapeOptions,
                   [a.feed(rng, (2, 3, 4))])


def transpose(rng, a=Int8):
    m = Model()
    s, z = a.scale(rng), a.zp(rng)
    perm = rng.permutation(3)
    x = a.tensor(m, [2, 3, 4], s, z)
    p = m.tensor([3], np.int32, data=perm.astype(np.int32))
    y = a.tensor(m, [[2, 3, 4][i] for i in perm], s, z)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.TRANSPOSE, [x, p], [y], schema.TransposeOptionsT(),
                   OPTS.TransposeOptions, [a.feed(rng, (2, 3, 4))])


def concatenation(rng, a=Int8):
    m = Model()
    s, z = a.scale(rng), a.zp(rng)
    axis = int(rng.integers(0, 2))
    x1 = a.tensor(m, [2, 3], s, z)
    x2 = a.tensor(m, [2, 3], s, z)
    y = a.tensor(m, [4, 3] if axis == 0 else [2, 6], s, z)
    o = schema.ConcatenationOptionsT()
    o.axis = axis
    m.inputs, m.outputs = [x1, x2], [y]
    return _finish(m, OPS.CONCATENATION, [x1, x2], [y], o, OPTS.ConcatenationOptions,
                   [a.feed(rng, (2, 3)), a.feed(rng, (2, 3))])


def pad(rng):
    m = Model()
    s, z = _scale(rng), _zp(rng)
    p = rng.integers(0, 3, (2, 2)).astype(np.int32)
    x = m.tensor([2, 3], scale=s, zero_point=z)
    pt = m.tensor([2, 2], np.int32, data=p)
    y = m.tensor([2 + p[0].sum(), 3 + p[1].sum()], scale=s, zero_point=z)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.PAD, [x, pt], [y], schema.PadOptionsT(), OPTS.PadOptions,
                   [_i8(rng, (2, 3))])


def mean(rng, a=Int8):
    m = Model()
    x = a.tensor(m, [1, 3, 4, 2], a.scale(rng), a.zp(rng))
    axes = [1, 2] if rng.integers(0, 2) else [int(rng.integers(1, 4))]
    keep = bool(rng.integers(0, 2))
    ax = m.tensor([len(axes)], np.int32, data=np.array(axes, np.int32))
    shape = [d for i, d in enumerate([1, 3, 4, 2]) if i not in axes] if not keep else \
        [1 if i in axes else d for i, d in enumerate([1, 3, 4, 2])]
    y = a.tensor(m, shape, a.scale(rng), a.zp(rng))
    o = schema.ReducerOptionsT()
    o.keepDims = keep
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.MEAN, [x, ax], [y], o, OPTS.ReducerOptions,
                   [a.feed(rng, (1, 3, 4, 2))])


def quantize(rng):
    m = Model()
    if rng.integers(0, 2):  # float -> int8
        x = m.tensor([2, 5], np.float32)
        s = _scale(rng, 1e-2, 1.0)
        y = m.tensor([2, 5], scale=s, zero_point=_zp(rng))
        feed = (rng.standard_normal((2, 5)) * 40 * s).astype(np.float32)
    else:  # int8 -> int8 requantize
        x = m.tensor([2, 5], scale=_scale(rng), zero_point=_zp(rng))
        y = m.tensor([2, 5], scale=_scale(rng), zero_point=_zp(rng))
        feed = _i8(rng, (2, 5))
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.QUANTIZE, [x], [y], None, 0, [feed])


def dequantize(rng):
    m = Model()
    x = m.tensor([2, 5], scale=_scale(rng), zero_point=_zp(rng))
    y = m.tensor([2, 5], np.float32)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.DEQUANTIZE, [x], [y], None, 0, [_i8(rng, (2, 5))])


CASES = {
    "FULLY_CONNECTED": fully_connected, "CONV_2D": conv_2d,
    "DEPTHWISE_CONV_2D": depthwise_conv_2d,
    "ADD": _binary(OPS.ADD, schema.AddOptionsT, OPTS.AddOptions),
    "SUB": _binary(OPS.SUB, schema.SubOptionsT, OPTS.SubOptions),
    "MUL": _binary(OPS.MUL, schema.MulOptionsT, OPTS.MulOptions),
    "AVERAGE_POOL_2D": _pool(OPS.AVERAGE_POOL_2D), "MAX_POOL_2D": _pool(OPS.MAX_POOL_2D),
    "RESHAPE": reshape, "CONCATENATION": concatenation,
    "SOFTMAX": softmax,
    "LOGISTIC": _unary(OPS.LOGISTIC, (1 / 256, -128)),
    "TANH": _unary(OPS.TANH, (1 / 128, 0)),
    "QUANTIZE": quantize, "DEQUANTIZE": dequantize, "PAD": pad, "TRANSPOSE": transpose,
    "MEAN": mean,
}
