"""Random tiny models of TFLite's math operators on float (and int32) tensors and of
their quantized kernels (SQRT, LOG on int8 / int16), in the style of `litert_cases`:
one builder per case, parameters from a seeded generator. A case is
(model, feeds, resolver): `resolver` is the LiteRT op resolver whose kernel is the
oracle (BUILTIN_REF; BUILTIN for CEIL and ROUND, which LiteRT 2.3's reference resolver
does not register)."""

from __future__ import annotations

import numpy as np

from tests.importers.litert_cases import OPS, OPTS, _act, _scale, _zp
from tests.importers.tflite_models import Model, schema

REF, OPT = "BUILTIN_REF", "BUILTIN"


def _unary(op, feed_of, resolver: str = REF):
    def build(rng):
        m = Model()
        shape = [2, int(rng.integers(1, 17))]
        x = m.tensor(shape, np.float32)
        y = m.tensor(shape, np.float32)
        m.inputs, m.outputs = [x], [y]
        m.op(op, [x], [y])
        return m.build(), [feed_of(rng, shape).astype(np.float32)], resolver
    return build


def _normal(scale: float):
    return lambda rng, shape: rng.standard_normal(shape) * scale


def _positive(rng, shape):
    """Magnitudes 1e-6..1e6, and 0."""
    x = np.exp(rng.uniform(np.log(1e-6), np.log(1e6), shape))
    x.reshape(-1)[0] = 0.0
    return x


def _halves(rng, shape):
    """Multiples of 1/4 (ties of ROUND among them) and random values."""
    x = rng.integers(-40, 40, shape) / 4.0
    x[1] = rng.standard_normal(shape[1]) * 100
    return x


def _binary(op, dtype, feeds, options=None, options_type=0):
    def build(rng):
        m = Model()
        shape = [2, 3, int(rng.integers(1, 6))]
        b_shape = shape if rng.integers(0, 2) else [shape[-1]]
        a = m.tensor(shape, dtype)
        b = m.tensor(b_shape, dtype)
        y = m.tensor(shape, dtype)
        m.inputs, m.outputs = [a, b], [y]
        o = options(rng) if options else None
        m.op(op, [a, b], [y], o, options_type)
        fa, fb = feeds(rng, shape, b_shape)
        return m.build(), [fa.astype(dtype), fb.astype(dtype)], REF
    return build


def _div_options(rng):
    o = schema.DivOptionsT()
    o.fusedActivationFunction = _act(rng)
    return o


def _div_float(rng, shape, b_shape):
    d = rng.standard_normal(b_shape) * 3
    d.reshape(-1)[0] = 0.0  # x / 0: LiteRT's activation range makes it ±FLT_MAX
    return rng.standard_normal(shape) * 10, d


def _div_int(rng, shape, b_shape):
    d = rng.integers(1, 20, b_shape) * rng.choice([-1, 1], b_shape)
    return rng.integers(-1000, 1000, shape), d


def _pow_float(rng, shape, b_shape):
    return np.abs(rng.standard_normal(shape)) * 4, rng.uniform(-3, 3, b_shape)


def _pow_int(rng, shape, b_shape):
    return rng.integers(-6, 7, shape), rng.integers(0, 7, b_shape)


def _quantized(op, dtype, feed_of):
    """int8: scales 1e-3..1, zero points anywhere; int16: zero points 0 (EXP: input
    scales up to 2.5e-3, expf(32767 s_in) finite)."""
    def build(rng):
        m = Model()
        n = 256 if dtype == np.int8 else 64
        s_in = _scale(rng, 1e-4 if dtype == np.int16 else 1e-3,
                      2.5e-3 if op == OPS.EXP and dtype == np.int16 else 1.0)
        s_out = _scale(rng, 1e-4 if dtype == np.int16 else 1e-2, 1.0)
        z_in, z_out = (_zp(rng), _zp(rng)) if dtype == np.int8 else (0, 0)
        x = m.tensor([n], dtype, scale=s_in, zero_point=z_in)
        y = m.tensor([n], dtype, scale=s_out, zero_point=z_out)
        m.inputs, m.outputs = [x], [y]
        m.op(op, [x], [y])
        return m.build(), [feed_of(rng, n, z_in).astype(dtype)], REF
    return build


def _sqrt8(rng, n, z):
    """SQRT's input may not be below the zero point (LiteRT's error)."""
    return np.clip(np.arange(-128, 128), z, 127)


def _sqrt16(rng, n, z):
    return rng.integers(0, 32768, n)


def _log8(rng, n, z):
    return np.arange(-128, 128)


def _log16(rng, n, z):
    return rng.integers(-32768, 32768, n)


def _div_8bit(dtype):
    """Scales 1e-3..1, zero points anywhere, fused activations; every (q_1, q_2) pair of
    a random 16 x 16 block; the divisor never its zero point (LiteRT's error)."""
    lo = -128 if dtype == np.int8 else 0

    def build(rng):
        m = Model()
        s1, s2 = _scale(rng, 1e-3, 1.0), _scale(rng, 1e-3, 1.0)
        so = _scale(rng, 1e-3, 10.0)
        z1, z2, zo = (_zp(rng) + 128 + lo for _ in range(3))
        a = m.tensor([16, 16], dtype, scale=s1, zero_point=z1)
        b = m.tensor([16], dtype, scale=s2, zero_point=z2)
        y = m.tensor([16, 16], dtype, scale=so, zero_point=zo)
        m.inputs, m.outputs = [a, b], [y]
        m.op(OPS.DIV, [a, b], [y], _div_options(rng), OPTS.DivOptions)
        fa = np.repeat(rng.choice(256, 16, replace=False) + lo, 16).reshape(16, 16)
        fb = rng.choice([v for v in range(lo, lo + 256) if v not in (z2, 0)], 16,
                        replace=False)
        return m.build(), [fa.astype(dtype), fb.astype(dtype)], REF
    return build


def _neg(dtype):
    """int8 / int16: the output's zero point the negated input's (as the converter makes
    it), every stored value from the minimum up; int64: values near its range's ends."""
    def build(rng):
        m = Model()
        if dtype == np.int64:
            x = m.tensor([8], dtype)
            y = m.tensor([8], dtype)
            feed = np.array([-(2 ** 63) + 1, -5, 0, 7, 2 ** 62, -(2 ** 40), 1, 2 ** 63 - 1])
        else:
            lo = -128 if dtype == np.int8 else -32768
            s, z = _scale(rng), (_zp(rng) if dtype == np.int8 else 0)
            x = m.tensor([64], dtype, scale=s, zero_point=z)
            y = m.tensor([64], dtype, scale=s, zero_point=min(-z, -lo - 1))
            feed = np.concatenate([[lo], rng.integers(lo, -lo, 63)])
        m.inputs, m.outputs = [x], [y]
        m.op(OPS.NEG, [x], [y])
        return m.build(), [feed.astype(dtype)], REF
    return build


def l2_pool_2d(rng):
    m = Model()
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 7)), int(rng.integers(1, 7)),
             int(rng.integers(1, 4))]
    o = schema.Pool2DOptionsT()
    o.padding = int(rng.integers(0, 2))
    o.strideH, o.strideW = (int(rng.integers(1, 3)) for _ in range(2))
    o.filterHeight = int(rng.integers(1, shape[1] + 1))
    o.filterWidth = int(rng.integers(1, shape[2] + 1))
    o.fusedActivationFunction = _act(rng)

    def out(size, k, s):
        return (size + s - 1) // s if o.padding == 0 else (size - k + s) // s
    y_shape = [shape[0], out(shape[1], o.filterHeight, o.strideH),
               out(shape[2], o.filterWidth, o.strideW), shape[3]]
    x = m.tensor(shape, np.float32)
    y = m.tensor(y_shape, np.float32)
    m.inputs, m.outputs = [x], [y]
    m.op(OPS.L2_POOL_2D, [x], [y], o, OPTS.Pool2DOptions)
    feed = rng.standard_normal(shape) * 10 ** rng.uniform(-2, 2, shape)
    return m.build(), [feed.astype(np.float32)], REF


def local_response_normalization(rng):
    m = Model()
    shape = [1, int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 12))]
    o = schema.LocalResponseNormalizationOptionsT()
    o.radius = int(rng.integers(0, 6))
    o.bias = float(np.float32(rng.uniform(0.5, 2.0)))
    o.alpha = float(np.float32(rng.uniform(1e-4, 1.0)))
    o.beta = float(np.float32(rng.uniform(0.1, 1.0)))
    x = m.tensor(shape, np.float32)
    y = m.tensor(shape, np.float32)
    m.inputs, m.outputs = [x], [y]
    m.op(OPS.LOCAL_RESPONSE_NORMALIZATION, [x], [y], o,
         OPTS.LocalResponseNormalizationOptions)
    return m.build(), [(rng.standard_normal(shape) * 3).astype(np.float32)], REF


CASES = {
    "SQUARE": _unary(OPS.SQUARE, _normal(100.0)),
    "SQRT": _unary(OPS.SQRT, _positive),
    "RSQRT": _unary(OPS.RSQRT, _positive),
    "LOG": _unary(OPS.LOG, _positive),
    "EXP": _unary(OPS.EXP, _normal(20.0)),
    "SIN": _unary(OPS.SIN, _normal(10.0)),
    "COS": _unary(OPS.COS, _normal(10.0)),
    "FLOOR": _unary(OPS.FLOOR, _halves),
    "CEIL": _unary(OPS.CEIL, _halves, OPT),
    "ROUND": _unary(OPS.ROUND, _halves, OPT),
    "DIV": _binary(OPS.DIV, np.float32, _div_float, _div_options, OPTS.DivOptions),
    "DIV_INT32": _binary(OPS.DIV, np.int32, _div_int),
    "POW": _binary(OPS.POW, np.float32, _pow_float),
    "POW_INT32": _binary(OPS.POW, np.int32, _pow_int),
    "SQRT_INT8": _quantized(OPS.SQRT, np.int8, _sqrt8),
    "SQRT_INT16": _quantized(OPS.SQRT, np.int16, _sqrt16),
    "LOG_INT8": _quantized(OPS.LOG, np.int8, _log8),
    "LOG_INT16": _quantized(OPS.LOG, np.int16, _log16),
    "EXP_INT16": _quantized(OPS.EXP, np.int16, _log16),
    "DIV_INT8": _div_8bit(np.int8),
    "DIV_UINT8": _div_8bit(np.uint8),
    "NEG_INT8": _neg(np.int8),
    "NEG_INT16": _neg(np.int16),
    "NEG_INT64": _neg(np.int64),
    "L2_POOL_2D": l2_pool_2d,
    "LOCAL_RESPONSE_NORMALIZATION": local_response_normalization,
}
"""Case name -> builder(rng) -> (model, feeds, oracle resolver)."""

ULPS = {"LOG": 2, "EXP": 2, "SIN": 1, "COS": 1, "POW": 2}
"""The largest float difference (units in the last place) from LiteRT: its kernels call
the C library's logf / expf / sinf / cosf / powf, qcomp's interpreter NumPy's float32
loops; every other case is bit for bit."""
