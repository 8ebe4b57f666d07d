"""Random tiny int8 models of the operators the LiteRT model zoo added to the importer
(LEAKY_RELU, HARD_SWISH, MAXIMUM, MINIMUM, TILE, SHAPE, STRIDED_SLICE, PACK,
TRANSPOSE_CONV, RESIZE_BILINEAR, RSQRT, GELU, SQUARED_DIFFERENCE, BATCH_MATMUL, NEG,
SLICE, SQUEEZE, EXPAND_DIMS, ABS), in the
style of `litert_cases` (one builder per op, parameters from a seeded generator)."""

from __future__ import annotations

import numpy as np

from tests.importers.litert_cases import OPS, OPTS, _finish, _i8, _out_scale, _scale, _zp
from tests.importers.tflite_models import Model, schema


def leaky_relu(rng):
    """alpha in [-2, 2] (the converter's are 0.01..0.3), output scale 0.05..50 times the
    input's."""
    m = Model()
    shape = [2, int(rng.integers(1, 17))]
    s = _scale(rng, 1e-3, 1.0)
    x = m.tensor(shape, scale=s, zero_point=_zp(rng))
    y = m.tensor(shape, scale=_out_scale(rng, s), zero_point=_zp(rng))
    o = schema.LeakyReluOptionsT()
    o.alpha = float(np.float32(rng.uniform(-2.0, 2.0)))
    m.inputs, m.outputs = [x], [y]
    feed = _i8(rng, shape)
    if shape[1] >= 2:
        feed[0, :2] = (-128, 127)
    return _finish(m, OPS.LEAKY_RELU, [x], [y], o, OPTS.LeakyReluOptions, [feed])


def hard_swish(rng):
    """Every int8 input value once: the whole table the kernel computes."""
    m = Model()
    s = _scale(rng, 1e-3, 0.5)
    x = m.tensor([256], scale=s, zero_point=_zp(rng))
    y = m.tensor([256], scale=float(np.float32(s * rng.uniform(0.3, 3.0))),
                 zero_point=_zp(rng))
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.HARD_SWISH, [x], [y], None, 0,
                   [np.arange(-128, 128).astype(np.int8)])


def _min_max(op):
    def build(rng):
        m = Model()
        shape = [2, 3, 4]
        b_shape = shape if rng.integers(0, 2) else [4]
        s, z = _scale(rng), _zp(rng)
        a = m.tensor(shape, scale=s, zero_point=z)
        b = m.tensor(b_shape, scale=s, zero_point=z)
        y = m.tensor(shape, scale=s, zero_point=z)
        m.inputs, m.outputs = [a, b], [y]
        return _finish(m, op, [a, b], [y], None, 0, [_i8(rng, shape), _i8(rng, b_shape)])
    return build


def tile(rng):
    m = Model()
    shape = [int(rng.integers(1, 4)) for _ in range(3)]
    mult = [int(rng.integers(1, 4)) for _ in range(3)]
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    k = m.tensor([3], np.int32, data=np.array(mult, np.int32))
    y = m.tensor([a * b for a, b in zip(shape, mult)], scale=s, zero_point=z)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.TILE, [x, k], [y], None, 0, [_i8(rng, shape)])


def strided_slice(rng):
    """Random begin / end (negative ones too), positive strides, begin / end / shrink
    masks; the converter's SHAPE -> STRIDED_SLICE -> PACK -> RESHAPE chain is
    `shape_chain`."""
    m = Model()
    shape = [int(rng.integers(1, 6)) for _ in range(3)]
    s, z = _scale(rng), _zp(rng)
    begin = [int(rng.integers(-d, d)) for d in shape]
    end = [int(rng.integers(-d, d + 1)) for d in shape]
    strides = [int(rng.integers(1, 3)) for _ in shape]
    bm, em, sm = (int(rng.integers(0, 8)) for _ in range(3))
    from qcomp.tflite.shapes import strided_slice_bounds

    lo, hi, st = strided_slice_bounds(shape, begin, end, strides, bm, em, sm, False)
    full = [-(-(e - b) // k) for b, e, k in zip(lo, hi, st)]
    out = [n for i, n in enumerate(full) if not (sm >> i) & 1]
    x = m.tensor(shape, scale=s, zero_point=z)
    ts = [m.tensor([3], np.int32, data=np.array(v, np.int32)) for v in (begin, end, strides)]
    y = m.tensor(out, scale=s, zero_point=z)
    o = schema.StridedSliceOptionsT()
    o.beginMask, o.endMask, o.shrinkAxisMask = bm, em, sm
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.STRIDED_SLICE, [x, *ts], [y], o, OPTS.StridedSliceOptions,
                   [_i8(rng, shape)])


def pack(rng):
    m = Model()
    shape = [int(rng.integers(1, 4)) for _ in range(2)]
    n, axis = int(rng.integers(1, 4)), int(rng.integers(-3, 3))
    s, z = _scale(rng), _zp(rng)
    xs = [m.tensor(shape, scale=s, zero_point=z) for _ in range(n)]
    a = axis % 3
    y = m.tensor([*shape[:a], n, *shape[a:]], scale=s, zero_point=z)
    o = schema.PackOptionsT()
    o.valuesCount, o.axis = n, axis
    m.inputs, m.outputs = xs, [y]
    return _finish(m, OPS.PACK, xs, [y], o, OPTS.PackOptions,
                   [_i8(rng, shape) for _ in range(n)])


def shape_chain(rng):
    """The converter's flatten head: SHAPE -> STRIDED_SLICE (the batch) -> PACK with a
    constant -> RESHAPE (its shape operand computed)."""
    m = Model()
    shape = [1, int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 5))]
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    shp = m.tensor([4], np.int32)
    so = schema.ShapeOptionsT()
    so.outType = schema.TensorType.INT32
    m.op(OPS.SHAPE, [x], [shp], so, OPTS.ShapeOptions)
    consts = [m.tensor([1], np.int32, data=np.array([v], np.int32)) for v in (0, 1, 1)]
    batch = m.tensor([], np.int32)
    o = schema.StridedSliceOptionsT()
    o.shrinkAxisMask = 1
    m.op(OPS.STRIDED_SLICE, [shp, *consts], [batch], o, OPTS.StridedSliceOptions)
    rest = m.tensor([], np.int32, data=np.array(-1, np.int32))
    new = m.tensor([2], np.int32)
    p = schema.PackOptionsT()
    p.valuesCount, p.axis = 2, 0
    m.op(OPS.PACK, [batch, rest], [new], p, OPTS.PackOptions)
    y = m.tensor([1, int(np.prod(shape))], scale=s, zero_point=z)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.RESHAPE, [x, new], [y], None, 0, [_i8(rng, shape)])


def transpose_conv(rng):
    """Strides 1..3, 1..3 square filters, SAME / VALID, per-tensor or per-channel
    filters, with or without a bias."""
    m = Model()
    h, w, cin, cout = (int(rng.integers(1, 5)), int(rng.integers(1, 5)),
                       int(rng.integers(1, 4)), int(rng.integers(1, 4)))
    k, stride, same = int(rng.integers(1, 4)), int(rng.integers(1, 4)), bool(rng.integers(0, 2))
    oh, ow = ((h * stride, w * stride) if same else
              ((h - 1) * stride + k, (w - 1) * stride + k))
    s_in = _scale(rng)
    x = m.tensor([1, h, w, cin], scale=s_in, zero_point=_zp(rng))
    per_channel = bool(rng.integers(0, 2))
    wd = rng.integers(-127, 128, (cout, k, k, cin)).astype(np.int8)
    ws = [_scale(rng, 1e-3, 1.0) for _ in range(cout if per_channel else 1)]
    wt = m.tensor([cout, k, k, cin], scale=ws, zero_point=[0] * len(ws), data=wd, axis=0)
    shp = m.tensor([4], np.int32, data=np.array([1, oh, ow, cout], np.int32))
    inputs = [shp, wt, x]
    if rng.integers(0, 2):
        bs = [float(np.float32(s_in * s)) for s in ws]
        inputs.append(m.tensor([cout], np.int32, scale=bs, zero_point=[0] * len(bs),
                               data=rng.integers(-2000, 2000, cout).astype(np.int32)))
    y = m.tensor([1, oh, ow, cout], scale=_out_scale(rng, s_in * max(ws) * 16),
                 zero_point=_zp(rng))
    o = schema.TransposeConvOptionsT()
    o.padding, o.strideH, o.strideW = (0 if same else 1), stride, stride
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.TRANSPOSE_CONV, inputs, [y], o, OPTS.TransposeConvOptions,
                   [_i8(rng, (1, h, w, cin))])


def resize(op, options, options_type, modes: int):
    """RESIZE_*: up- and downsampling; mode 1 align_corners, 2 half_pixel_centers, 3
    both (`modes` of them drawn)."""
    def build(rng):
        m = Model()
        h, w, c = int(rng.integers(1, 6)), int(rng.integers(1, 6)), int(rng.integers(1, 3))
        oh, ow = int(rng.integers(1, 11)), int(rng.integers(1, 11))
        s, z = _scale(rng), _zp(rng)
        x = m.tensor([1, h, w, c], scale=s, zero_point=z)
        size = m.tensor([2], np.int32, data=np.array([oh, ow], np.int32))
        y = m.tensor([1, oh, ow, c], scale=s, zero_point=z)
        o = options()
        mode = int(rng.integers(0, modes))
        o.alignCorners, o.halfPixelCenters = mode in (1, 3), mode in (2, 3)
        m.inputs, m.outputs = [x], [y]
        return _finish(m, op, [x, size], [y], o, options_type, [_i8(rng, (1, h, w, c))])
    return build


resize_bilinear = resize(OPS.RESIZE_BILINEAR, schema.ResizeBilinearOptionsT,
                         OPTS.ResizeBilinearOptions, 3)


def _all_int8(m: Model, rng, out_scale):
    """An input of the 256 int8 values and an output with `out_scale(s_in)`."""
    s = _scale(rng, 1e-3, 0.5)
    x = m.tensor([256], scale=s, zero_point=_zp(rng))
    y = m.tensor([256], scale=float(np.float32(out_scale(s))), zero_point=_zp(rng))
    m.inputs, m.outputs = [x], [y]
    return x, y, [np.arange(-128, 128).astype(np.int8)]


def abs_(rng):
    """Equal scales (no rescale) or not."""
    m = Model()
    same = bool(rng.integers(0, 2))
    x, y, feeds = _all_int8(m, rng, lambda s: s if same else s * rng.uniform(0.2, 3.0))
    return _finish(m, OPS.ABS, [x], [y], None, 0, feeds)


def rsqrt(rng):
    """Non-negative inputs only (LiteRT rejects q < z_in): the table from z_in up."""
    m = Model()
    s = _scale(rng, 1e-3, 1.0)
    z = int(rng.integers(-128, 0))
    x = m.tensor([128], scale=s, zero_point=z)
    y = m.tensor([128], scale=float(np.float32(rng.uniform(0.2, 2.0) / np.sqrt(s) / 127)),
                 zero_point=-128)
    m.inputs, m.outputs = [x], [y]
    feed = np.minimum(np.arange(z, z + 128), 127).astype(np.int8)
    return _finish(m, OPS.RSQRT, [x], [y], None, 0, [feed])


def gelu(rng):
    m = Model()
    x, y, feeds = _all_int8(m, rng, lambda s: s * rng.uniform(0.3, 2.0))
    o = schema.GeluOptionsT()
    o.approximate = bool(rng.integers(0, 2))
    return _finish(m, OPS.GELU, [x], [y], o, OPTS.GeluOptions, feeds)


def squared_difference(rng):
    m = Model()
    shape = [2, 3, 4]
    b_shape = shape if rng.integers(0, 2) else [2, 3, 1]
    s1, s2 = _scale(rng, 1e-3, 1.0), _scale(rng, 1e-3, 1.0)
    a = m.tensor(shape, scale=s1, zero_point=_zp(rng))
    b = m.tensor(b_shape, scale=s2, zero_point=_zp(rng))
    y = m.tensor(shape, scale=_out_scale(rng, max(s1, s2) ** 2 * 256), zero_point=_zp(rng))
    m.inputs, m.outputs = [a, b], [y]
    return _finish(m, OPS.SQUARED_DIFFERENCE, [a, b], [y], None, 0,
                   [_i8(rng, shape), _i8(rng, b_shape)])


def batch_matmul(rng):
    m = Model()
    bt, mm, k, n = (int(rng.integers(1, 4)) for _ in range(4))
    adj_x, adj_y = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    s1, s2 = _scale(rng, 1e-3, 1.0), _scale(rng, 1e-3, 1.0)
    a_shape = [bt, k, mm] if adj_x else [bt, mm, k]
    b_shape = [bt, n, k] if adj_y else [bt, k, n]
    a = m.tensor(a_shape, scale=s1, zero_point=_zp(rng))
    b = m.tensor(b_shape, scale=s2, zero_point=_zp(rng))
    y = m.tensor([bt, mm, n], scale=_out_scale(rng, s1 * s2 * 64), zero_point=_zp(rng))
    o = schema.BatchMatMulOptionsT()
    o.adjX, o.adjY = adj_x, adj_y
    m.inputs, m.outputs = [a, b], [y]
    return _finish(m, OPS.BATCH_MATMUL, [a, b], [y], o, OPTS.BatchMatMulOptions,
                   [_i8(rng, a_shape), _i8(rng, b_shape)])


def neg(rng):
    m = Model()
    x = m.tensor([2, 5], np.float32)
    y = m.tensor([2, 5], np.float32)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.NEG, [x], [y], None, 0,
                   [rng.standard_normal((2, 5)).astype(np.float32)])


def slice_(rng):
    m = Model()
    shape = [int(rng.integers(1, 5)) for _ in range(3)]
    begin = [int(rng.integers(0, d)) for d in shape]
    size = [int(rng.integers(1, d - b + 1)) if rng.integers(0, 3) else -1
            for b, d in zip(begin, shape)]
    out = [d - b if n == -1 else n for b, n, d in zip(begin, size, shape)]
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    bt = m.tensor([3], np.int32, data=np.array(begin, np.int32))
    st = m.tensor([3], np.int32, data=np.array(size, np.int32))
    y = m.tensor(out, scale=s, zero_point=z)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.SLICE, [x, bt, st], [y], schema.SliceOptionsT(),
                   OPTS.SliceOptions, [_i8(rng, shape)])


def squeeze(rng):
    m = Model()
    shape = [int(v) for v in rng.choice([1, 1, 2, 3], 4)]
    ones = [i for i, d in enumerate(shape) if d == 1]
    dims = [] if not ones or rng.integers(0, 2) else \
        [int(d) for d in rng.choice(ones, int(rng.integers(1, len(ones) + 1)), replace=False)]
    drop = set(dims) or set(ones)
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    y = m.tensor([d for i, d in enumerate(shape) if i not in drop], scale=s, zero_point=z)
    o = schema.SqueezeOptionsT()
    o.squeezeDims = dims
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.SQUEEZE, [x], [y], o, OPTS.SqueezeOptions, [_i8(rng, shape)])


def expand_dims(rng):
    m = Model()
    shape = [int(rng.integers(1, 4)) for _ in range(2)]
    axis = int(rng.integers(-3, 3))
    a = axis % 3
    s, z = _scale(rng), _zp(rng)
    x = m.tensor(shape, scale=s, zero_point=z)
    at = m.tensor([1], np.int32, data=np.array([axis], np.int32))
    y = m.tensor([*shape[:a], 1, *shape[a:]], scale=s, zero_point=z)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.EXPAND_DIMS, [x, at], [y], None, 0, [_i8(rng, shape)])


CASES = {
    "LEAKY_RELU": leaky_relu, "HARD_SWISH": hard_swish,
    "MAXIMUM": _min_max(OPS.MAXIMUM), "MINIMUM": _min_max(OPS.MINIMUM),
    "TILE": tile, "STRIDED_SLICE": strided_slice, "PACK": pack,
    "SHAPE (flatten head)": shape_chain,
    "TRANSPOSE_CONV": transpose_conv, "RESIZE_BILINEAR": resize_bilinear,
    "ABS": abs_, "RSQRT": rsqrt, "GELU": gelu, "SQUARED_DIFFERENCE": squared_difference,
    "BATCH_MATMUL": batch_matmul, "NEG": neg,
    "SLICE": slice_, "SQUEEZE": squeeze, "EXPAND_DIMS": expand_dims,
}
