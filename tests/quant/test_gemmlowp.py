"""gemmlowp's fixed-point exp / log / reciprocal (`qcomp.quant.gemmlowp`) against the
real functions, and the int8 LOG_SOFTMAX / REDUCE_PROD NumPy models against LiteRT's
reference kernels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qcomp.quant.gemmlowp import (
    INT32_MAX,
    NUMPY,
    exp_on_negative_values,
    log_softmax_int8,
    log_softmax_params,
    log_x_for_x_greater_than_or_equal_to_1,
    one_over_one_plus_x_for_x_in_0_1,
)


def test_exp_on_negative_values_is_exp_in_q0_31():
    a = -np.arange(0, 31 << 26, 12345677, dtype=np.int64)  # Q5.26 in (-31, 0]
    got = exp_on_negative_values(NUMPY, a, 5) / 2.0 ** 31
    want = np.exp(a / 2.0 ** 26)
    assert np.max(np.abs(got - want)) < 1e-7  # gemmlowp: about 2^-24
    assert int(exp_on_negative_values(NUMPY, np.int64(0), 5)) == INT32_MAX


def test_reciprocal_and_log():
    x = np.arange(0, 1 << 31, 7654321, dtype=np.int64)
    got = one_over_one_plus_x_for_x_in_0_1(NUMPY, x) / 2.0 ** 31
    assert np.max(np.abs(got - 1 / (1 + x / 2.0 ** 31))) < 5e-9
    z = np.arange(1 << 19, 1 << 31, 9876543, dtype=np.int64)  # Q12: [1, 4096)
    got = log_x_for_x_greater_than_or_equal_to_1(NUMPY, z, 5, 12) / 2.0 ** 26
    assert np.max(np.abs(got - np.log(z / 2.0 ** 19))) < 1e-6


def test_log_softmax_params():
    """LogSoftmaxPrepare for s_in = 0.1: (M, e) of 0.1 2^26, the reverse divisor, and
    diff_min = -floor(31 2^26 / 2^e)."""
    m, e, rm, re, diff_min = log_softmax_params(np.float32(0.1))
    assert (m, e) == (1717986944, 23)
    assert m * 2.0 ** (e - 31) == pytest.approx(float(np.float32(0.1)) * 2 ** 26)
    assert rm * 2.0 ** (re - 31) == pytest.approx(2.0 ** (31 - e) / m, rel=1e-9)
    assert diff_min == -math.floor(31 * 2 ** 26 / 2 ** e) == -248


@pytest.mark.parametrize("seed", range(3))
def test_numpy_models_match_litert(seed):
    pytest.importorskip("ai_edge_litert.interpreter")
    from qcomp.quant.tflite_reduce import reduce_prod_int
    from tests.importers.litert_cases_more2 import CASES
    from tests.importers.tflite_models import run_litert, schema

    model, (x,) = CASES["LOG_SOFTMAX"](np.random.default_rng(seed))
    (want,) = run_litert(model, [x], "BUILTIN_REF")
    s_in = schema.ModelT.InitFromPackedBuf(model, 0).subgraphs[0].tensors[0] \
        .quantization.scale[0]
    np.testing.assert_array_equal(log_softmax_int8(x, np.float32(s_in)), want)

    model, (x,) = CASES["REDUCE_PROD"](np.random.default_rng(seed))
    (want,) = run_litert(model, [x], "BUILTIN_REF")
    g = schema.ModelT.InitFromPackedBuf(model, 0).subgraphs[0]
    qi, qo = g.tensors[0].quantization, g.tensors[2].quantization
    axes = [int(a) for a in np.frombuffer(
        schema.ModelT.InitFromPackedBuf(model, 0).buffers[g.tensors[1].buffer].data.tobytes(),
        np.int32)]
    got = reduce_prod_int(x, axes, np.float32(qi.scale[0]), qi.zeroPoint[0],
                          np.float32(qo.scale[0]), qo.zeroPoint[0], -128, 127)
    np.testing.assert_array_equal(got.reshape(want.shape), want)
