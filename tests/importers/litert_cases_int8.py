"""Random tiny int8 models of the operators issue 26 added for int8 (rectifiers, PRELU,
splits, GATHER, ARG_MAX / ARG_MIN, reductions, comparisons, SELECT, nearest resize,
depth / space rearrangements), in the style of `litert_cases` (one builder per op,
parameters from a seeded generator)."""

from __future__ import annotations

import numpy as np

from tests.importers.litert_cases import OPS, OPTS, _finish, _i8, _out_scale, _scale, _zp
from tests.importers.litert_cases_more import resize
from tests.importers.tflite_models import Model, schema


def _rectifier(op):
    """Every int8 input value once; the output scale 0.05..50 times the input's (or the
    same parameters)."""
    def build(rng):
        m = Model()
        same = rng.integers(0, 4) == 0
        s = _scale(rng, 1e-3, 0.5)
        x = m.tensor([256], scale=s, zero_point=_zp(rng))
        y = (m.tensor([256], scale=s, zero_point=m.tensors[x].quantization.zeroPoint[0])
             if same else m.tensor([256], scale=_out_scale(rng, s), zero_point=_zp(rng)))
        m.inputs, m.outputs = [x], [y]
        return _finish(m, op, [x], [y], None, 0, [np.arange(-128, 128).astype(np.int8)])
    return build


def prelu(rng):
    """A constant slope of shape [C], [1, 1, C] or the input's, or a slope input."""
    m = Model()
    shape = [1, int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 5))]
    s = _scale(rng, 1e-3, 1.0)
    x = m.tensor(shape, scale=s, zero_point=_zp(rng))
    kind = int(rng.integers(0, 4))
    a_shape = [[shape[3]], [1, 1, shape[3]], shape[1:], shape[1:]][kind]
    sa, za = _scale(rng, 1e-3, 0.1), _zp(rng)
    feeds = [_i8(rng, shape)]
    if kind == 3:
        a = m.tensor(a_shape, scale=sa, zero_point=za)
        feeds.append(_i8(rng, a_shape))
    else:
        a = m.tensor(a_shape, scale=sa, zero_point=za, data=_i8(rng, a_shape))
    y = m.tensor(shape, scale=_out_scale(rng, s), zero_point=_zp(rng))
    m.inputs, m.outputs = ([x, a] if kind == 3 else [x]), [y]
    feeds[0][0, 0, 0, :2] = (-128, 127)[:min(2, shape[3])]
    return _finish(m, OPS.PRELU, [x, a], [y], None, 0, feeds)


def _shape(rng, rank: int, hi: int = 4) -> list[int]:
    return [int(rng.integers(1, hi + 1)) for _ in range(rank)]


def split(rng):
    m = Model()
    shape = _shape(rng, 3)
    axis = int(rng.integers(-3, 3))
    k = int(rng.choice([d for d in range(1, 4) if shape[axis % 3] * d <= 8]))
    shape[axis % 3] *= k
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    at = m.tensor([], np.int32, data=np.array(axis, np.int32))
    piece = [d // k if i == axis % 3 else d for i, d in enumerate(shape)]
    ys = [m.tensor(piece, scale=s, zero_point=z) for _ in range(k)]
    o = schema.SplitOptionsT()
    o.numSplits = k
    m.inputs, m.outputs = [x], ys
    return _finish(m, OPS.SPLIT, [at, x], ys, o, OPTS.SplitOptions, [_i8(rng, shape)])


def split_v(rng):
    m = Model()
    shape = _shape(rng, 3)
    axis = int(rng.integers(-3, 3))
    a = axis % 3
    sizes = [int(v) for v in rng.integers(0, 4, int(rng.integers(1, 4)))]
    if sum(sizes) == 0:
        sizes[0] = 1
    shape[a] = sum(sizes)
    given = list(sizes)
    if rng.integers(0, 2):
        given[int(rng.integers(0, len(given)))] = -1
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    st = m.tensor([len(given)], np.int32, data=np.array(given, np.int32))
    at = m.tensor([], np.int32, data=np.array(axis, np.int32))
    ys = [m.tensor([n if i == a else d for i, d in enumerate(shape)], scale=s, zero_point=z)
          for n in sizes]
    o = schema.SplitVOptionsT()
    o.numSplits = len(sizes)
    m.inputs, m.outputs = [x], ys
    return _finish(m, OPS.SPLIT_V, [x, st, at], ys, o, OPTS.SplitVOptions,
                   [_i8(rng, shape)])


def unpack(rng):
    m = Model()
    shape = _shape(rng, 3)
    axis = int(rng.integers(-3, 3))
    a = axis % 3
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    ys = [m.tensor([d for i, d in enumerate(shape) if i != a], scale=s, zero_point=z)
          for _ in range(shape[a])]
    o = schema.UnpackOptionsT()
    o.num, o.axis = shape[a], axis
    m.inputs, m.outputs = [x], ys
    return _finish(m, OPS.UNPACK, [x], ys, o, OPTS.UnpackOptions, [_i8(rng, shape)])


def gather(rng):
    """Any axis, indices of rank 0..2 (int32 or int64, an input or a constant)."""
    m = Model()
    shape = _shape(rng, 3)
    axis = int(rng.integers(-3, 3))
    a = axis % 3
    ishape = _shape(rng, int(rng.integers(0, 3)), 3)
    dtype = np.int32 if rng.integers(0, 2) else np.int64
    idx = rng.integers(0, shape[a], ishape).astype(dtype)
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    constant = bool(rng.integers(0, 2))
    it = m.tensor(ishape, dtype, data=idx if constant else None)
    y = m.tensor([*shape[:a], *ishape, *shape[a + 1:]], scale=s, zero_point=z)
    o = schema.GatherOptionsT()
    o.axis = axis
    m.inputs, m.outputs = ([x] if constant else [x, it]), [y]
    feeds = [_i8(rng, shape)] + ([] if constant else [idx])
    return _finish(m, OPS.GATHER, [x, it], [y], o, OPTS.GatherOptions, feeds)


def _reducer(op, same_params: bool):
    """Random distinct axes (negative ones too), keep_dims or not; SUM with the input's
    parameters or others. (Repeated axes: LiteRT 2.3's reference
    SUM then writes zeros.)"""
    def build(rng):
        m = Model()
        shape = _shape(rng, 3)
        red_axes = rng.choice(3, int(rng.integers(1, 4)), replace=False)
        axes = [int(a) - 3 * int(rng.integers(0, 2)) for a in red_axes]
        keep = bool(rng.integers(0, 2))
        red = {a % 3 for a in axes}
        s, z = _scale(rng, 1e-3, 1.0), _zp(rng)
        x = m.tensor(shape, scale=s, zero_point=z)
        at = m.tensor([len(axes)], np.int32, data=np.array(axes, np.int32))
        out = [1 if i in red else d for i, d in enumerate(shape)] if keep else \
            [d for i, d in enumerate(shape) if i not in red]
        same = same_params or rng.integers(0, 3) == 0
        n = int(np.prod([shape[a] for a in red]))
        y = (m.tensor(out, scale=s, zero_point=z) if same else
             m.tensor(out, scale=_out_scale(rng, s * n), zero_point=_zp(rng)))
        o = schema.ReducerOptionsT()
        o.keepDims = keep
        m.inputs, m.outputs = [x], [y]
        return _finish(m, op, [x, at], [y], o, OPTS.ReducerOptions, [_i8(rng, shape)])
    return build


def _arg(op, opts_cls, opts_type):
    """Random axis; int32 or int64 indices; few distinct values, so ties are common."""
    def build(rng):
        m = Model()
        shape = _shape(rng, 3)
        axis = int(rng.integers(-3, 3))
        x = m.tensor(shape, scale=_scale(rng), zero_point=_zp(rng))
        at = m.tensor([1], np.int32, data=np.array([axis], np.int32))
        dtype = np.int32 if rng.integers(0, 2) else np.int64
        y = m.tensor([d for i, d in enumerate(shape) if i != axis % 3], dtype)
        o = opts_cls()
        o.outputType = schema.TensorType.INT32 if dtype == np.int32 else schema.TensorType.INT64
        m.inputs, m.outputs = [x], [y]
        feed = rng.integers(-128, 128, shape) if rng.integers(0, 2) else \
            rng.integers(-2, 2, shape)
        return _finish(m, op, [x, at], [y], o, opts_type, [feed.astype(np.int8)])
    return build


def _comparison(op):
    """Two int8 inputs (scales below 1, as the kernel requires), one broadcast or not,
    often equal parameters and values so equality happens."""
    def build(rng):
        m = Model()
        shape = [2, 3, 4]
        b_shape = shape if rng.integers(0, 2) else [int(rng.choice([1, 4]))]
        s1, z1 = _scale(rng, 1e-3, 0.9), _zp(rng)
        same = rng.integers(0, 2) == 0
        s2, z2 = (s1, z1) if same else (_scale(rng, 1e-3, 0.9), _zp(rng))
        a = m.tensor(shape, scale=s1, zero_point=z1)
        b = m.tensor(b_shape, scale=s2, zero_point=z2)
        y = m.tensor(shape, np.bool_)
        m.inputs, m.outputs = [a, b], [y]
        fa = rng.integers(-3, 3, shape) if same else _i8(rng, shape)
        fb = rng.integers(-3, 3, b_shape) if same else _i8(rng, b_shape)
        return _finish(m, op, [a, b], [y], None, 0, [fa.astype(np.int8), fb.astype(np.int8)])
    return build


def _select(v2: bool):
    """SELECT: the condition the inputs' shape or their first dimension; SELECT_V2: all
    three broadcast."""
    def build(rng):
        m = Model()
        shape = [2, 3, 4]
        if v2:
            c_shape, x_shape, y_shape = ([int(rng.choice([1, d])) for d in shape]
                                         for _ in range(3))
            x_shape[0] = 2
        else:
            c_shape, x_shape, y_shape = (shape if rng.integers(0, 2) else [2]), shape, shape
        s, z = _scale(rng), _zp(rng)
        c = m.tensor(c_shape, np.bool_)
        x = m.tensor(x_shape, scale=s, zero_point=z)
        y = m.tensor(y_shape, scale=s, zero_point=z)
        out_shape = list(np.broadcast_shapes(c_shape, x_shape, y_shape)) if v2 else shape
        o = m.tensor(out_shape, scale=s, zero_point=z)
        m.inputs, m.outputs = [c, x, y], [o]
        feeds = [rng.integers(0, 2, c_shape).astype(np.bool_), _i8(rng, x_shape),
                 _i8(rng, y_shape)]
        if v2:
            return _finish(m, OPS.SELECT_V2, [c, x, y], [o], schema.SelectV2OptionsT(),
                           OPTS.SelectV2Options, feeds)
        return _finish(m, OPS.SELECT, [c, x, y], [o], schema.SelectOptionsT(),
                       OPTS.SelectOptions, feeds)
    return build


def _depth_space(to_space: bool):
    def build(rng):
        m = Model()
        bs = int(rng.integers(1, 4))
        n, h, w, c = (int(rng.integers(1, 3)), int(rng.integers(1, 4)),
                      int(rng.integers(1, 4)), int(rng.integers(1, 4)))
        small, big = [n, h, w, bs * bs * c], [n, h * bs, w * bs, c]
        shape, out = (small, big) if to_space else (big, small)
        s, z = _scale(rng), _zp(rng)
        x = m.tensor(shape, scale=s, zero_point=z)
        y = m.tensor(out, scale=s, zero_point=z)
        o = schema.DepthToSpaceOptionsT() if to_space else schema.SpaceToDepthOptionsT()
        o.blockSize = bs
        m.inputs, m.outputs = [x], [y]
        if to_space:
            return _finish(m, OPS.DEPTH_TO_SPACE, [x], [y], o, OPTS.DepthToSpaceOptions,
                           [_i8(rng, shape)])
        return _finish(m, OPS.SPACE_TO_DEPTH, [x], [y], o, OPTS.SpaceToDepthOptions,
                       [_i8(rng, shape)])
    return build


def _batch_space(to_space: bool):
    """4-D NHWC inputs, blocks 1..3, crops / paddings 0..2 per side."""
    def build(rng):
        m = Model()
        block = [int(rng.integers(1, 4)) for _ in range(2)]
        n, c = int(rng.integers(1, 3)), int(rng.integers(1, 3))
        t = [int(rng.integers(1, 4)) for _ in range(2)]
        pads = np.array([[int(rng.integers(0, min(3, ti * b))) for _ in range(2)]
                         for ti, b in zip(t, block)])
        for k in range(2):  # keep each padded extent positive
            while pads[k].sum() >= t[k] * block[k]:
                pads[k, 1] -= 1
        s, z = _scale(rng), _zp(rng)
        bt = m.tensor([2], np.int32, data=np.array(block, np.int32))
        pt = m.tensor([2, 2], np.int32, data=pads.astype(np.int32))
        space = [n, *[int(ti * b - p.sum()) for ti, b, p in zip(t, block, pads)], c]
        batch = [n * block[0] * block[1], *t, c]
        shape, out = (batch, space) if to_space else (space, batch)
        x = m.tensor(shape, scale=s, zero_point=z)
        y = m.tensor(out, scale=s, zero_point=z)
        m.inputs, m.outputs = [x], [y]
        if to_space:
            return _finish(m, OPS.BATCH_TO_SPACE_ND, [x, bt, pt], [y],
                           schema.BatchToSpaceNDOptionsT(), OPTS.BatchToSpaceNDOptions,
                           [_i8(rng, shape)])
        return _finish(m, OPS.SPACE_TO_BATCH_ND, [x, bt, pt], [y],
                       schema.SpaceToBatchNDOptionsT(), OPTS.SpaceToBatchNDOptions,
                       [_i8(rng, shape)])
    return build


def padv2(rng):
    m = Model()
    shape = _shape(rng, 3)
    p = rng.integers(0, 3, (3, 2))
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    pt = m.tensor([3, 2], np.int32, data=p.astype(np.int32))
    v = m.tensor([], scale=s, zero_point=z, data=np.array(_zp(rng), np.int8))
    y = m.tensor([d + lo + hi for d, (lo, hi) in zip(shape, p)], scale=s, zero_point=z)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.PADV2, [x, pt, v], [y], schema.PadV2OptionsT(),
                   OPTS.PadV2Options, [_i8(rng, shape)])


def l2_normalization(rng):
    """Rows of 1..64 values (the last dimension); the output (1/128, 0) as the kernel
    requires; some rows all at the zero point."""
    m = Model()
    shape = [int(rng.integers(1, 4)), int(rng.integers(1, 65))]
    z = _zp(rng)
    x = m.tensor(shape, scale=_scale(rng), zero_point=z)
    y = m.tensor(shape, scale=1.0 / 128.0, zero_point=0)
    m.inputs, m.outputs = [x], [y]
    feed = _i8(rng, shape)
    if rng.integers(0, 3) == 0:
        feed[0] = z
    elif rng.integers(0, 2):
        feed = np.clip(z + rng.integers(-2, 3, shape), -128, 127).astype(np.int8)
    return _finish(m, OPS.L2_NORMALIZATION, [x], [y], schema.L2NormOptionsT(),
                   OPTS.L2NormOptions, [feed])


def _table(op, out_scale):
    """Every int8 input value once; the output scale `out_scale(s_in)` times 0.5..2."""
    def build(rng):
        m = Model()
        s = _scale(rng, 1e-2, 0.1)
        x = m.tensor([256], scale=s, zero_point=_zp(rng))
        y = m.tensor([256], scale=float(np.float32(out_scale(s) * rng.uniform(0.5, 2.0))),
                     zero_point=_zp(rng))
        m.inputs, m.outputs = [x], [y]
        return _finish(m, op, [x], [y], None, 0, [np.arange(-128, 128).astype(np.int8)])
    return build


def broadcast_to(rng):
    m = Model()
    out = _shape(rng, 3)
    shape = [int(rng.choice([1, d])) for d in out][int(rng.integers(0, 3)):]
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    st = m.tensor([3], np.int32, data=np.array(out, np.int32))
    y = m.tensor(out, scale=s, zero_point=z)
    m.inputs, m.outputs = [x], [y]
    model, feeds = _finish(m, OPS.BROADCAST_TO, [x, st], [y], None, 0, [_i8(rng, shape)])
    return _version(model, 2), feeds  # BROADCAST_TO's versions start at 2


def _version(model: bytes, version: int) -> bytes:
    """`model` with its (one) operator code at `version`."""
    import flatbuffers

    t = schema.ModelT.InitFromObj(schema.Model.GetRootAs(model, 0))
    t.operatorCodes[0].version = version
    b = flatbuffers.Builder(1024)
    b.Finish(t.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def reverse_v2(rng):
    m = Model()
    shape = _shape(rng, 3)
    k = int(rng.integers(1, 3))  # LiteRT takes contiguous axes only
    first = int(rng.integers(0, 4 - k))
    axes = list(range(first, first + k))
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    at = m.tensor([len(axes)], np.int32, data=np.array(axes, np.int32))
    y = m.tensor(shape, scale=s, zero_point=z)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.REVERSE_V2, [x, at], [y], schema.ReverseV2OptionsT(),
                   OPTS.ReverseV2Options, [_i8(rng, shape)])


CASES = {
    "RELU": _rectifier(OPS.RELU), "RELU6": _rectifier(OPS.RELU6),
    "RELU_N1_TO_1": _rectifier(OPS.RELU_N1_TO_1), "PRELU": prelu,
    "SPLIT": split, "SPLIT_V": split_v, "UNPACK": unpack, "GATHER": gather,
    "SUM": _reducer(OPS.SUM, False), "REDUCE_MAX": _reducer(OPS.REDUCE_MAX, True),
    "REDUCE_MIN": _reducer(OPS.REDUCE_MIN, True),
    "ARG_MAX": _arg(OPS.ARG_MAX, schema.ArgMaxOptionsT, OPTS.ArgMaxOptions),
    "ARG_MIN": _arg(OPS.ARG_MIN, schema.ArgMinOptionsT, OPTS.ArgMinOptions),
    **{name: _comparison(getattr(OPS, name)) for name in
       ("EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL")},
    "SELECT": _select(False), "SELECT_V2": _select(True),
    "RESIZE_NEAREST_NEIGHBOR": resize(OPS.RESIZE_NEAREST_NEIGHBOR,
                                      schema.ResizeNearestNeighborOptionsT,
                                      OPTS.ResizeNearestNeighborOptions, 4),
    "DEPTH_TO_SPACE": _depth_space(True), "SPACE_TO_DEPTH": _depth_space(False),
    "BATCH_TO_SPACE_ND": _batch_space(True), "SPACE_TO_BATCH_ND": _batch_space(False),
    "PADV2": padv2, "L2_NORMALIZATION": l2_normalization,
    "EXP": _table(OPS.EXP, lambda s: np.exp(128 * s) / 256),
    "BROADCAST_TO": broadcast_to, "REVERSE_V2": reverse_v2,
}
