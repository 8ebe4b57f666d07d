"""A MobileNetV2-shaped int8 `.tflite` model (alpha 0.35, 32x32 input, random weights),
built with `tflite_models.Model`: the stem convolution, the 17 inverted residual blocks
(1x1 expansion + RELU6, 3x3 depthwise + RELU6, 1x1 projection, residual ADD where the
shapes allow), the 1x1 head convolution, MEAN over the spatial axes, FULLY_CONNECTED and
SOFTMAX — the layout of the TF converter's MobileNetV2, many small ops. For the batch
tests and `tools/bench_models.py` (TF itself is not needed)."""

from __future__ import annotations

import numpy as np

from tests.importers.tflite_models import Model, schema

OPS = schema.BuiltinOperator
OPTS = schema.BuiltinOptions
RELU6 = 3

# (expansion t, output channels c, repeats n, first stride s) of MobileNetV2, at alpha 0.35
BLOCKS = [(1, 8, 1, 1), (6, 8, 2, 2), (6, 16, 3, 2), (6, 24, 4, 2), (6, 32, 3, 1),
          (6, 56, 3, 2), (6, 112, 1, 1)]


class _Builder:
    def __init__(self, rng, size: int) -> None:
        self.m = Model()
        self.rng = rng
        self.size = size

    def act(self, shape) -> tuple[int, float, int]:
        s = float(np.float32(self.rng.uniform(0.02, 0.1)))
        z = int(self.rng.integers(-128, -100))
        return self.m.tensor(shape, scale=s, zero_point=z), s, z

    def conv(self, x, shape, cout: int, k: int, stride: int, depthwise: bool, act: int):
        n, h, w, c = shape
        s_in = self.m.tensors[x].quantization.scale[0]
        rng = self.rng
        if depthwise:
            cout = c
            wshape, axis = (1, k, k, cout), 3
        else:
            wshape, axis = (cout, k, k, c), 0
        wd = rng.integers(-127, 128, wshape).astype(np.int8)
        ws = [float(np.float32(rng.uniform(0.002, 0.02))) for _ in range(cout)]
        wt = self.m.tensor(list(wshape), scale=ws, zero_point=[0] * cout, data=wd, axis=axis)
        bs = [float(np.float32(s_in * s)) for s in ws]
        bias = self.m.tensor([cout], np.int32, scale=bs, zero_point=[0] * cout,
                             data=rng.integers(-500, 500, cout).astype(np.int32))
        oh, ow = (h + stride - 1) // stride, (w + stride - 1) // stride
        y, _, _ = self.act([n, oh, ow, cout])
        o = schema.DepthwiseConv2DOptionsT() if depthwise else schema.Conv2DOptionsT()
        o.padding = 0  # SAME
        o.strideH = o.strideW = stride
        o.dilationHFactor = o.dilationWFactor = 1
        o.fusedActivationFunction = act
        if depthwise:
            o.depthMultiplier = 1
        self.m.op(OPS.DEPTHWISE_CONV_2D if depthwise else OPS.CONV_2D, [x, wt, bias], [y], o,
                  OPTS.DepthwiseConv2DOptions if depthwise else OPTS.Conv2DOptions)
        return y, [n, oh, ow, cout]

    def add(self, a, b, shape):
        y, _, _ = self.act(shape)
        o = schema.AddOptionsT()
        o.fusedActivationFunction = 0
        self.m.op(OPS.ADD, [a, b], [y], o, OPTS.AddOptions)
        return y


def mobilenet_v2(seed: int = 0, size: int = 32, classes: int = 1000, batch: int = 1,
                 stages: int = len(BLOCKS)) -> bytes:
    """The model's flatbuffer (input `[batch, size, size, 3]` int8, output
    `[batch, classes]` int8 softmax); `stages` < 7 keeps the first stages of blocks
    only (a smaller model for tests)."""
    b = _Builder(np.random.default_rng(seed), size)
    m = b.m
    x, _, _ = b.act([batch, size, size, 3])
    m.inputs = [x]
    h, shape = b.conv(x, [batch, size, size, 3], 16, 3, 2, False, RELU6)
    for t, c, n, s in BLOCKS[:stages]:
        for i in range(n):
            stride = s if i == 0 else 1
            inp, in_shape = h, shape
            if t != 1:
                h, shape = b.conv(h, shape, in_shape[3] * t, 1, 1, False, RELU6)
            h, shape = b.conv(h, shape, 0, 3, stride, True, RELU6)
            h, shape = b.conv(h, shape, c, 1, 1, False, 0)
            if stride == 1 and in_shape == shape:
                h = b.add(inp, h, shape)
    h, shape = b.conv(h, shape, 1280, 1, 1, False, RELU6)
    axes = m.tensor([2], np.int32, data=np.array([1, 2], np.int32))
    pooled, _, _ = b.act([batch, 1280])
    o = schema.ReducerOptionsT()
    o.keepDims = False
    m.op(OPS.MEAN, [h, axes], [pooled], o, OPTS.ReducerOptions)
    s_in = m.tensors[pooled].quantization.scale[0]
    rng = b.rng
    wd = rng.integers(-127, 128, (classes, 1280)).astype(np.int8)
    ws = float(np.float32(rng.uniform(0.002, 0.01)))
    w = m.tensor([classes, 1280], scale=ws, zero_point=0, data=wd)
    bias = m.tensor([classes], np.int32, scale=float(np.float32(s_in * ws)), zero_point=0,
                    data=rng.integers(-500, 500, classes).astype(np.int32))
    logits = m.tensor([batch, classes], scale=float(np.float32(rng.uniform(0.05, 0.2))),
                      zero_point=0)
    fo = schema.FullyConnectedOptionsT()
    fo.fusedActivationFunction = 0
    m.op(OPS.FULLY_CONNECTED, [pooled, w, bias], [logits], fo, OPTS.FullyConnectedOptions)
    y = m.tensor([batch, classes], scale=1 / 256, zero_point=-128)
    so = schema.SoftmaxOptionsT()
    so.beta = 1.0
    m.op(OPS.SOFTMAX, [logits], [y], so, OPTS.SoftmaxOptions)
    m.outputs = [y]
    return m.build()
