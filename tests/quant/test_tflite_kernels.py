"""`qcomp.quant.tflite`'s int8 kernels against LiteRT 2.3's reference kernels
(`BUILTIN_REF`), bit for bit, on random one-op models: SOFTMAX (the float table
kernel), MEAN (QuantizedMeanOrSum), FULLY_CONNECTED's f64 rescale and float QUANTIZE.
What `rescale=fixed-point` emits is checked against LiteRT in
tests/importers/test_tflite_against_litert.py; this checks the NumPy math it is
computed with."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert.interpreter")

from qcomp.quant import tflite as T  # noqa: E402
from tests.importers import litert_cases as lc  # noqa: E402
from tests.importers.tflite_models import Model, run_litert, schema  # noqa: E402

OPS, OPTS = schema.BuiltinOperator, schema.BuiltinOptions


@pytest.mark.parametrize("seed", range(4))
def test_softmax_int8(seed):
    rng = np.random.default_rng(seed)
    for _ in range(10):
        n = int(rng.integers(1, 40))
        s, z = lc._scale(rng, 1e-3, 10.0), lc._zp(rng)
        beta = float(np.float32(rng.uniform(0.5, 2.0)))
        m = Model()
        x = m.tensor([3, n], scale=s, zero_point=z)
        y = m.tensor([3, n], scale=1 / 256, zero_point=-128)
        o = schema.SoftmaxOptionsT()
        o.beta = beta
        m.inputs, m.outputs = [x], [y]
        m.op(OPS.SOFTMAX, [x], [y], o, OPTS.SoftmaxOptions)
        q = lc._i8(rng, (3, n))
        (want,) = run_litert(m.build(), [q])
        np.testing.assert_array_equal(T.softmax_int8(q, s, beta, 1 / 256, -128), want)


@pytest.mark.parametrize("seed", range(4))
def test_mean_int8(seed):
    rng = np.random.default_rng(seed)
    for _ in range(10):
        shape = [int(rng.integers(1, 4)), int(rng.integers(1, 9)), int(rng.integers(1, 9)),
                 int(rng.integers(1, 5))]
        axes = sorted({int(a) for a in rng.integers(0, 4, int(rng.integers(1, 4)))})
        si, so, zi, zo = lc._scale(rng), lc._scale(rng), lc._zp(rng), lc._zp(rng)
        m = Model()
        x = m.tensor(shape, scale=si, zero_point=zi)
        a = m.tensor([len(axes)], np.int32, data=np.array(axes, np.int32))
        y = m.tensor([1 if i in axes else d for i, d in enumerate(shape)], scale=so,
                     zero_point=zo)
        o = schema.ReducerOptionsT()
        o.keepDims = True
        m.inputs, m.outputs = [x], [y]
        m.op(OPS.MEAN, [x, a], [y], o, OPTS.ReducerOptions)
        q = lc._i8(rng, shape)
        (want,) = run_litert(m.build(), [q])
        np.testing.assert_array_equal(T.mean_int8(q, axes, si, zi, so, zo), want)


def test_mean_multiplier_divides_by_the_count():
    # (M << k) / n with k = floor(log2 n): 3 values of a unit ratio
    m, e = T.quantize_multiplier(1.0)
    assert T.mean_multiplier(1.0, 1.0, 3) == ((m << 1) // 3, e - 1)


@pytest.mark.parametrize("per_channel", [False, True])
def test_fully_connected_rescale(per_channel):
    """Accumulators (the bias itself: a one-input FC of x = 0) chosen where the f64
    rescale, TFLite's MBQM and the f32 product s_in * s_w round differently."""
    rng = np.random.default_rng(int(per_channel))
    compared = 0
    for _ in range(20):
        si, sw = lc._scale(rng, 1e-3, 1), lc._scale(rng, 1e-3, 1)
        so = float(np.float32(si * sw * np.exp(rng.uniform(3, 8))))
        acc = np.arange(-2 ** 17, 2 ** 17, dtype=np.int64)
        exact = T.fully_connected_rescale(acc, si, sw, so, 0, -2 ** 31, 2 ** 31)
        mult, shift = T.quantize_multiplier(si * sw / so)
        f32 = T.round_half_away(acc * (float(np.float32(np.float32(si) * np.float32(sw)))
                                       / so))
        differ = np.flatnonzero((exact != T.mbqm(acc, mult, shift)) | (exact != f32))
        pick = acc[differ[np.abs(exact[differ]) < 120]][:6]
        if pick.size == 0:
            continue
        n = pick.size
        k = n if per_channel else 1
        m = Model()
        x = m.tensor([1, 1], scale=si, zero_point=0)
        w = m.tensor([n, 1], scale=[sw] * k, zero_point=[0] * k, data=np.ones((n, 1), np.int8))
        b = m.tensor([n], np.int32, scale=[float(np.float32(si * sw))] * k, zero_point=[0] * k,
                     data=pick.astype(np.int32))
        y = m.tensor([1, n], scale=so, zero_point=0)
        m.inputs, m.outputs = [x], [y]
        m.op(OPS.FULLY_CONNECTED, [x, w, b], [y], schema.FullyConnectedOptionsT(),
             OPTS.FullyConnectedOptions)
        (want,) = run_litert(m.build(), [np.zeros((1, 1), np.int8)])
        np.testing.assert_array_equal(T.fully_connected_rescale(pick, si, sw, so, 0), want[0])
        compared += n
    assert compared >= 20


def test_quantize_f32_ties_away_from_zero():
    m = Model()
    x = m.tensor([80], np.float32)
    y = m.tensor([80], scale=0.25, zero_point=-5)
    m.inputs, m.outputs = [x], [y]
    m.op(OPS.QUANTIZE, [x], [y])
    feed = ((np.arange(-40, 40, dtype=np.float32) + np.float32(0.5)) * np.float32(0.25))
    (want,) = run_litert(m.build(), [feed])
    np.testing.assert_array_equal(T.quantize_f32(feed, 0.25, -5), want)
