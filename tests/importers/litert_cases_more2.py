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
    s_out = float(np.float32((s * typical) ** n / (4 if dtype == np.int8 else 1000)
                             * np.exp(rng.uniform(-1, 1))))
    s_out = min(max(s_out, 1e-30), 1e30)
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


def _both(make):
    return (lambda rng: make(rng, np.int8)), (lambda rng: make(rng, np.int16))


_PAIRS = {"GATHER_BATCH_DIMS": _both(_gather_batched), "MIRROR_PAD": _both(_mirror_pad),
          "GATHER_ND": _both(_gather_nd), "TOPK_V2": _both(_top_k),
          "REDUCE_PROD": _both(_reduce_prod)}
CASES = {"LOG_SOFTMAX": log_softmax, **{k: v[0] for k, v in _PAIRS.items()}}
CASES_16X8 = {k: v[1] for k, v in _PAIRS.items()}
