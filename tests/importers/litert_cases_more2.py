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


CASES = {"LOG_SOFTMAX": log_softmax,
         "GATHER_BATCH_DIMS": lambda rng: _gather_batched(rng, np.int8)}
CASES_16X8 = {"GATHER_BATCH_DIMS": lambda rng: _gather_batched(rng, np.int16)}
