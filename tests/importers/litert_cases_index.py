"""Random tiny models of TFLite's index and logical operators (REDUCE_ANY, REDUCE_ALL,
CUMSUM, RANGE, SCATTER_ND) on BOOL / INT32 / INT64 / FLOAT32 tensors, in the style of
`litert_cases_float`: a builder per case -> (model, feeds, oracle resolver)."""

from __future__ import annotations

import numpy as np

from tests.importers.litert_cases import OPS, OPTS
from tests.importers.tflite_models import Model, schema

REF = "BUILTIN_REF"


def _logical(op):
    def build(rng):
        m = Model()
        shape = [int(rng.integers(1, 5)) for _ in range(3)]
        axes = sorted(set(int(a) for a in rng.integers(-3, 3, int(rng.integers(1, 3)))))
        keep = bool(rng.integers(0, 2))
        x = m.tensor(shape, np.bool_)
        ax = m.tensor([len(axes)], np.int32, data=np.array(axes, np.int32))
        red = {a % 3 for a in axes}
        out = [1 if i in red else d for i, d in enumerate(shape)] if keep else \
            [d for i, d in enumerate(shape) if i not in red]
        y = m.tensor(out, np.bool_)
        o = schema.ReducerOptionsT()
        o.keepDims = keep
        m.inputs, m.outputs = [x], [y]
        m.op(op, [x, ax], [y], o, OPTS.ReducerOptions)
        feed = rng.random(shape) < rng.choice([0.1, 0.5, 0.9])
        return m.build(), [feed], REF
    return build


def _cumsum(dtype):
    def build(rng):
        m = Model()
        shape = [int(rng.integers(1, 6)) for _ in range(int(rng.integers(1, 4)))]
        axis = int(rng.integers(-len(shape), len(shape)))
        x = m.tensor(shape, dtype)
        ax = m.tensor([], np.int32, data=np.array(axis, np.int32))
        y = m.tensor(shape, dtype)
        o = schema.CumsumOptionsT()
        o.exclusive, o.reverse = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
        m.inputs, m.outputs = [x], [y]
        m.op(OPS.CUMSUM, [x, ax], [y], o, OPTS.CumsumOptions)
        if dtype == np.float32:
            feed = (rng.standard_normal(shape) * 10 ** rng.uniform(-3, 3, shape))
        else:
            feed = rng.integers(-1000, 1000, shape)
        return m.build(), [feed.astype(dtype)], REF
    return build


def _range(dtype):
    """start, limit, delta constant; an ADD of the range and an input makes it used."""
    def build(rng):
        m = Model()
        if dtype == np.int32:
            start, delta = int(rng.integers(-20, 20)), int(rng.choice([-3, -2, -1, 1, 2, 5]))
            limit = start + delta * int(rng.integers(1, 10)) - int(np.sign(delta)) * \
                int(rng.integers(0, abs(delta)))
            n = (abs(limit - start) + abs(delta) - 1) // abs(delta)
        else:
            start = float(np.float32(rng.uniform(-5, 5)))
            delta = float(np.float32(rng.choice([-1, 1]) * rng.uniform(0.01, 1.0)))
            limit = float(np.float32(start + delta * rng.uniform(1, 30)))
            n = int(np.ceil(np.abs(np.float32((np.float32(limit) - np.float32(start))
                                              / np.float32(delta)))))
        ts = [m.tensor([], dtype, data=np.array(v, dtype)) for v in (start, limit, delta)]
        r = m.tensor([n], dtype)
        x = m.tensor([n], dtype)
        y = m.tensor([n], dtype)
        m.op(OPS.RANGE, ts, [r])
        m.op(OPS.ADD, [r, x], [y])
        m.inputs, m.outputs = [x], [y]
        return m.build(), [np.zeros(n, dtype)], REF
    return build


def _scatter_nd(dtype):
    def build(rng):
        m = Model()
        shape = [int(rng.integers(1, 5)) for _ in range(3)]
        k = int(rng.integers(1, 4))
        n = int(rng.integers(1, 7))
        idx = np.stack([rng.integers(0, shape[d], n) for d in range(k)], -1).astype(np.int32)
        u_shape = [n, *shape[k:]]
        i_t = m.tensor([n, k], np.int32)
        u_t = m.tensor(u_shape, dtype)
        s_t = m.tensor([3], np.int32, data=np.array(shape, np.int32))
        y = m.tensor(shape, dtype)
        m.inputs, m.outputs = [i_t, u_t], [y]
        m.op(OPS.SCATTER_ND, [i_t, u_t, s_t], [y])
        if dtype == np.float32:
            u = rng.standard_normal(u_shape) * 10 ** rng.uniform(-3, 3, u_shape)
        elif dtype == np.bool_:
            u = rng.random(u_shape) < 0.5
        else:
            u = rng.integers(-1000, 1000, u_shape)
        return m.build(), [idx, u.astype(dtype)], REF
    return build


CASES = {
    "REDUCE_ANY": _logical(OPS.REDUCE_ANY),
    "REDUCE_ALL": _logical(OPS.REDUCE_ALL),
    "CUMSUM": _cumsum(np.float32),
    "CUMSUM_INT32": _cumsum(np.int32),
    "CUMSUM_INT64": _cumsum(np.int64),
    "RANGE": _range(np.float32),
    "RANGE_INT32": _range(np.int32),
    "SCATTER_ND": _scatter_nd(np.float32),
    "SCATTER_ND_INT32": _scatter_nd(np.int32),
    "SCATTER_ND_INT64": _scatter_nd(np.int64),
    "SCATTER_ND_BOOL": _scatter_nd(np.bool_),
}
"""Case name -> builder(rng) -> (model, feeds, oracle resolver); all bit for bit."""
