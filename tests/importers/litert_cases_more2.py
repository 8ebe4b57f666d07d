"""Random tiny int8 models of the operators issue 26 added last (LOG_SOFTMAX, GATHER
with batch_dims, ...; `CASES_16X8`: their 16x8 forms), in the style of `litert_cases`
(one builder per op, parameters from a seeded generator)."""

from __future__ import annotations

import numpy as np

from tests.importers.litert_cases import OPS, OPTS, _finish, _i8, _scale, _zp
from tests.importers.litert_cases_16x8 import _i16
from tests.importers.tflite_models import Model, schema


def log_softmax(rng):
    """Rows of 1..300 (rank 1..3), input scales 1e-6..100 (LogSoftmaxPrepare's
    multiplier from 2^-6 to its 2^31 - 1 cap); some rows constant, some with one
    maximum far above the rest."""
    m = Model()
    rank = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 4)) for _ in range(rank - 1)] + [int(rng.integers(1, 301))]
    x = m.tensor(shape, scale=_scale(rng, 1e-6, 100.0), zero_point=_zp(rng))
    y = m.tensor(shape, scale=16 / 256, zero_point=127)
    m.inputs, m.outputs = [x], [y]
    feed = _i8(rng, shape)
    flat = feed.reshape(-1, shape[-1])
    flat[0] = flat[0, 0]
    if flat.shape[0] > 1:
        flat[1] = rng.integers(-128, -100, shape[-1])
        flat[1, 0] = 127
    return _finish(m, OPS.LOG_SOFTMAX, [x], [y], schema.LogSoftmaxOptionsT(),
                   OPTS.LogSoftmaxOptions, [feed])


def _gather_batched(rng, dtype):
    """batch_dims 1..3 (or its negative form), the axis at or after them, params of
    rank batch_dims + 1..3, indices of rank batch_dims..batch_dims + 2 (int32 or int64,
    an input or a constant)."""
    m = Model()
    batch = int(rng.integers(1, 4))
    lead = [int(rng.integers(1, 4)) for _ in range(batch)]
    params = lead + [int(rng.integers(1, 5)) for _ in range(int(rng.integers(1, 4)))]
    ishape = lead + [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    a = int(rng.integers(batch, len(params)))
    axis = a - len(params) if rng.integers(0, 2) else a
    given = batch - len(ishape) if len(ishape) > batch and rng.integers(0, 2) else batch
    itype = np.int32 if rng.integers(0, 2) else np.int64
    idx = rng.integers(0, params[a], ishape).astype(itype)
    if dtype == np.int8:
        s, z, feed = _scale(rng), _zp(rng), _i8(rng, params)
    else:
        s, z, feed = _scale(rng, 1e-5, 1e-2), 0, _i16(rng, params)
    x = m.tensor(params, dtype, scale=s, zero_point=z)
    constant = bool(rng.integers(0, 2))
    it = m.tensor(ishape, itype, data=idx if constant else None)
    y = m.tensor([*params[:a], *ishape[batch:], *params[a + 1:]], dtype, scale=s,
                 zero_point=z)
    o = schema.GatherOptionsT()
    o.axis, o.batchDims = axis, given
    m.inputs, m.outputs = ([x] if constant else [x, it]), [y]
    feeds = [feed] + ([] if constant else [idx])
    return _finish(m, OPS.GATHER, [x, it], [y], o, OPTS.GatherOptions, feeds)


def _activation(rng, m: Model, shape, dtype):
    """An input tensor and its feed: int8 with any (scale, zero point), or int16 with
    zero point 0."""
    if dtype == np.int8:
        return m.tensor(shape, dtype, scale=_scale(rng), zero_point=_zp(rng)), _i8(rng, shape)
    return (m.tensor(shape, dtype, scale=_scale(rng, 1e-5, 1e-2), zero_point=0),
            _i16(rng, shape))


def _like(m: Model, x: int, shape, dtype) -> int:
    t = m.tensors[x]
    return m.tensor(shape, dtype, scale=t.quantization.scale[0],
                    zero_point=t.quantization.zeroPoint[0])


def _mirror_pad(rng, dtype):
    """Rank 1..4, REFLECT (pads up to n - 1) or SYMMETRIC (up to n), int32 or int64
    paddings."""
    m = Model()
    shape = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(1, 5)))]
    mode = int(rng.integers(0, 2))
    most = [n - 1 + mode for n in shape]
    pads = np.array([[rng.integers(0, k + 1), rng.integers(0, k + 1)] for k in most])
    x, feed = _activation(rng, m, shape, dtype)
    pt = m.tensor([len(shape), 2], np.int32 if rng.integers(0, 2) else np.int64,
                  data=pads.astype(np.int64))
    y = _like(m, x, [int(n + lo + hi) for n, (lo, hi) in zip(shape, pads)], dtype)
    o = schema.MirrorPadOptionsT()
    o.mode = mode
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.MIRROR_PAD, [x, pt], [y], o, OPTS.MirrorPadOptions, [feed])


def _gather_nd(rng, dtype):
    """Params of rank 1..4, indices of rank 1..3 naming 1..rank dimensions (int32 or
    int64, an input or a constant)."""
    m = Model()
    shape = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(1, 5)))]
    k = int(rng.integers(1, len(shape) + 1))
    ishape = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))] + [k]
    itype = np.int32 if rng.integers(0, 2) else np.int64
    idx = np.stack([rng.integers(0, n, ishape[:-1]) for n in shape[:k]], -1).astype(itype)
    x, feed = _activation(rng, m, shape, dtype)
    constant = bool(rng.integers(0, 2))
    it = m.tensor(ishape, itype, data=idx if constant else None)
    y = _like(m, x, [*ishape[:-1], *shape[k:]], dtype)
    m.inputs, m.outputs = ([x] if constant else [x, it]), [y]
    return _finish(m, OPS.GATHER_ND, [x, it], [y], None, 0, [feed] + ([] if constant else [idx]))


def _top_k(rng, dtype):
    """Rank 1..3, k in [0, n] (a constant), values from a narrow range (ties: TFLite keeps
    index order)."""
    m = Model()
    shape = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    shape.append(int(rng.integers(1, 9)))
    k = int(rng.integers(0, shape[-1] + 1))
    x, feed = _activation(rng, m, shape, dtype)
    feed = (feed // int(rng.choice([1, 16, 64]))).astype(feed.dtype)
    kt = m.tensor([], np.int32, data=np.array(k, np.int32))
    y = _like(m, x, [*shape[:-1], k], dtype)
    yi = m.tensor([*shape[:-1], k], np.int32)
    m.inputs, m.outputs = [x], [y, yi]
    return _finish(m, OPS.TOPK_V2, [x, kt], [y, yi], schema.TopKV2OptionsT(),
                   OPTS.TopKV2Options, [feed])


def _reduce_prod(rng, dtype):
    """Distinct axes (negative ones too) of a rank 1..3 input (dimensions 1..3: up to 27
    factors), keep_dims or not; the output scale near the product's range."""
    m = Model()
    r = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 4)) for _ in range(r)]
    axes = sorted(int(a) for a in rng.choice(r, int(rng.integers(1, r + 1)), replace=False))
    n = int(np.prod([shape[a] for a in axes]))
    x, feed = _activation(rng, m, shape, dtype)
    s = float(m.tensors[x].quantization.scale[0])
    typical = 48.0 if dtype == np.int8 else 12000.0
    s_out = (s * typical) ** n / (4 if dtype == np.int8 else 1000) * np.exp(rng.uniform(-1, 1))
    s_out = float(np.float32(min(max(s_out, 1e-30), 1e30)))
    keep = bool(rng.integers(0, 2))
    at = m.tensor([len(axes)], np.int32, data=np.array([a - r * int(rng.integers(0, 2))
                                                         for a in axes], np.int32))
    oshape = ([1 if i in axes else d for i, d in enumerate(shape)] if keep
              else [d for i, d in enumerate(shape) if i not in axes])
    y = m.tensor(oshape, dtype, scale=s_out, zero_point=_zp(rng) if dtype == np.int8 else 0)
    o = schema.ReducerOptionsT()
    o.keepDims = keep
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.REDUCE_PROD, [x, at], [y], o, OPTS.ReducerOptions, [feed])


_PLAIN = {"INT8": np.int8, "INT16": np.int16, "INT32": np.int32, "INT64": np.int64,
          "FLOAT32": np.float32, "BOOL": np.bool_}


def _values(rng, dtype, shape, lo: int = -100, hi: int = 100) -> np.ndarray:
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype == np.float32:
        return rng.uniform(lo, hi, shape).astype(np.float32)
    info = np.iinfo(dtype)
    return rng.integers(max(lo, info.min), min(hi, info.max) + 1, shape).astype(dtype)


def _broadcast_pair(rng):
    """Two shapes that broadcast (trailing dimensions aligned, some of size 1 or
    missing) and their broadcast shape."""
    out = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(1, 4)))]
    a = [d if rng.integers(0, 3) else 1 for d in out]
    b = [d if rng.integers(0, 3) else 1 for d in out][int(rng.integers(0, len(out))):]
    return a, b, list(np.broadcast_shapes(a, b))


def _logical(op, opts, opts_type):
    def build(rng):
        m = Model()
        a, b, out = _broadcast_pair(rng)
        x, y = m.tensor(a, np.bool_), m.tensor(b, np.bool_)
        z = m.tensor(out, np.bool_)
        m.inputs, m.outputs = [x, y], [z]
        return _finish(m, op, [x, y], [z], opts(), opts_type,
                       [_values(rng, np.bool_, a), _values(rng, np.bool_, b)])
    return build


def logical_not(rng):
    m = Model()
    shape = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(0, 4)))]
    x, y = m.tensor(shape, np.bool_), m.tensor(shape, np.bool_)
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.LOGICAL_NOT, [x], [y], schema.LogicalNotOptionsT(),
                   OPTS.LogicalNotOptions, [_values(rng, np.bool_, shape)])


def _floor(op, opts, opts_type):
    """int32 operands of both signs, broadcast; divisors nonzero (LiteRT: an error)."""
    def build(rng):
        m = Model()
        a, b, out = _broadcast_pair(rng)
        x, y = m.tensor(a, np.int32), m.tensor(b, np.int32)
        z = m.tensor(out, np.int32)
        den = _values(rng, np.int32, b, -20, 20)
        den[den == 0] = 7
        m.inputs, m.outputs = [x, y], [z]
        return _finish(m, op, [x, y], [z], opts(), opts_type,
                       [_values(rng, np.int32, a, -1000, 1000), den])
    return build


def cast(rng):
    """Any pair of INT8 / INT16 / INT32 / INT64 / FLOAT32 / BOOL; float inputs within
    the target's range (a float out of it is undefined in C++), integers narrowed wrap."""
    m = Model()
    names = sorted(_PLAIN)
    src, dst = (_PLAIN[names[int(i)]] for i in rng.integers(0, len(names), 2))
    shape = [int(rng.integers(1, 5)) for _ in range(int(rng.integers(0, 3)))]
    if src == np.float32:
        hi = 100 if dst == np.int8 else 30000 if dst == np.int16 else 10 ** 6
        feed = _values(rng, src, shape, -hi, hi)
        feed.reshape(-1)[:1] = 0.0
    else:
        feed = _values(rng, src, shape, -40000, 40000)
    x, y = m.tensor(shape, src), m.tensor(shape, dst)
    o = schema.CastOptionsT()
    o.inDataType, o.outDataType = m.tensors[x].type, m.tensors[y].type
    m.inputs, m.outputs = [x], [y]
    return _finish(m, OPS.CAST, [x], [y], o, OPTS.CastOptions, [feed])


def _fill(rng, dtype):
    """Constant dims of rank 0..3 (int32 or int64), the value an input (quantized as
    the output)."""
    m = Model()
    dims = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 4)))]
    dt = m.tensor([len(dims)], np.int32 if rng.integers(0, 2) else np.int64,
                  data=np.array(dims, np.int64))
    v, feed = _activation(rng, m, [], dtype)
    y = _like(m, v, dims, dtype)
    m.inputs, m.outputs = [v], [y]
    return _finish(m, OPS.FILL, [dt, v], [y], schema.FillOptionsT(), OPTS.FillOptions,
                   [feed])


def one_hot(rng):
    """Indices of rank 0..2 (some outside [0, depth)), any axis, INT32 / INT8 / FLOAT32 /
    BOOL on and off values."""
    m = Model()
    ishape = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    depth = int(rng.integers(1, 5))
    axis = int(rng.integers(-1, len(ishape) + 1))
    itype = np.int32 if rng.integers(0, 2) else np.int64
    dtype = [np.int32, np.int8, np.float32, np.bool_][int(rng.integers(0, 4))]
    idx = rng.integers(-1, depth + 1, ishape).astype(itype)
    it = m.tensor(ishape, itype)
    dt = m.tensor([], np.int32, data=np.array(depth, np.int32))
    on, off = m.tensor([], dtype), m.tensor([], dtype)
    a = len(ishape) if axis == -1 else axis
    y = m.tensor([*ishape[:a], depth, *ishape[a:]], dtype)
    o = schema.OneHotOptionsT()
    o.axis = axis
    m.inputs, m.outputs = [it, on, off], [y]
    return _finish(m, OPS.ONE_HOT, [it, dt, on, off], [y], o, OPTS.OneHotOptions,
                   [idx, _values(rng, dtype, []), _values(rng, dtype, [])])


def add_n(rng):
    """2..4 inputs of one shape, INT32 or FLOAT32."""
    m = Model()
    shape = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 4)))]
    dtype = np.int32 if rng.integers(0, 2) else np.float32
    xs = [m.tensor(shape, dtype) for _ in range(int(rng.integers(2, 5)))]
    y = m.tensor(shape, dtype)
    m.inputs, m.outputs = xs, [y]
    return _finish(m, OPS.ADD_N, xs, [y], schema.AddNOptionsT(), OPTS.AddNOptions,
                   [_values(rng, dtype, shape, -10 ** 6, 10 ** 6) for _ in xs])


def _both(make):
    return (lambda rng: make(rng, np.int8)), (lambda rng: make(rng, np.int16))


_PAIRS = {"GATHER_BATCH_DIMS": _both(_gather_batched), "MIRROR_PAD": _both(_mirror_pad),
          "GATHER_ND": _both(_gather_nd), "TOPK_V2": _both(_top_k),
          "REDUCE_PROD": _both(_reduce_prod)}
CASES = {"LOG_SOFTMAX": log_softmax, **{k: v[0] for k, v in _PAIRS.items()},
         "LOGICAL_AND": _logical(OPS.LOGICAL_AND, schema.LogicalAndOptionsT,
                                 OPTS.LogicalAndOptions),
         "LOGICAL_OR": _logical(OPS.LOGICAL_OR, schema.LogicalOrOptionsT,
                                OPTS.LogicalOrOptions),
         "LOGICAL_NOT": logical_not,
         "FLOOR_DIV": _floor(OPS.FLOOR_DIV, schema.FloorDivOptionsT, OPTS.FloorDivOptions),
         "FLOOR_MOD": _floor(OPS.FLOOR_MOD, schema.FloorModOptionsT, OPTS.FloorModOptions),
         "CAST": cast, "FILL": _both(_fill)[0], "ONE_HOT": one_hot, "ADD_N": add_n}
CASES_16X8 = {**{k: v[1] for k, v in _PAIRS.items()}, "FILL": _both(_fill)[1]}
