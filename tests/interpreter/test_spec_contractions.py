"""Spec semantics of quantized dot_general/convolution: the exact integer sum of
(q_l - zp_l)(q_r - zp_r) scaled by s_l*s_r/s_res, rounded half to even once and
clamped, against an independent float64/loop reference."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from qcomp.registry import parse_module
from qcomp.interpreter import run
from tests.interpreter.diff_programs import QType, storage_program


def spec_run(src, args):
    (r,) = run(parse_module(src), args, semantics="spec")
    assert r.error is None, r.error.message
    return r.results[0].astype(np.int64)


def requant(real: np.ndarray, q: QType) -> np.ndarray:
    lo, hi = q.range()
    s = np.asarray(q.scales)
    z = np.asarray(q.zero_points)
    return np.clip(np.rint(real / s + z), lo, hi).astype(np.int64)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(st.data())
def test_dot_general_spec_is_exact(data):
    m, k, n = (data.draw(st.integers(1, 5)) for _ in range(3))
    zl = data.draw(st.integers(-20, 20))
    per_axis = data.draw(st.booleans())
    sl = data.draw(st.sampled_from([0.5, 0.1, 0.03]))
    lq = QType("i8", (sl,), (zl,))
    if per_axis:
        rs = tuple(data.draw(st.sampled_from([0.25, 0.02, 0.7])) for _ in range(n))
        rq = QType("i8", rs, (0,) * n, 1)
    else:
        rq = QType("i8", (data.draw(st.sampled_from([0.25, 0.02])),), (0,))
    oq = QType("i8", (data.draw(st.sampled_from([0.5, 0.05, 1.3])),), (data.draw(st.integers(-9, 9)),))
    a = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=m * k, max_size=m * k)), np.int8).reshape(m, k)
    b = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=k * n, max_size=k * n)), np.int8).reshape(k, n)
    op = "stablehlo.dot_general {operands}, contracting_dims = [1] x [0] : ({in_types}) -> {out_type}"
    got = spec_run(storage_program(op, [(m, k), (k, n)], [lq, rq], oq, (m, n)), [a, b])
    acc = (a.astype(np.int64) - zl) @ b.astype(np.int64)
    real = acc * sl * np.asarray(rq.scales)[None, :] if per_axis else acc * sl * rq.scales[0]
    assert got.tolist() == requant(real, oq).tolist()


@settings(max_examples=25, deadline=None, derandomize=True)
@given(st.data())
def test_convolution_spec_is_exact(data):
    h, w = data.draw(st.integers(2, 5)), data.draw(st.integers(2, 5))
    cin, cout = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    pad = data.draw(st.integers(0, 1))
    zl, zr = data.draw(st.integers(-10, 10)), data.draw(st.integers(-5, 5))
    lq = QType("i8", (0.5,), (zl,))
    rq = QType("i8", (0.25,), (zr,))
    oq = QType("i8", (data.draw(st.sampled_from([0.5, 0.7, 3.0])),), (data.draw(st.integers(-5, 5)),))
    a = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=h * w * cin, max_size=h * w * cin)),
                 np.int8).reshape(1, h, w, cin)
    b = np.array(data.draw(st.lists(st.integers(-30, 30), min_size=4 * cin * cout, max_size=4 * cin * cout)),
                 np.int8).reshape(2, 2, cin, cout)
    oh, ow = h + 2 * pad - 1, w + 2 * pad - 1
    op = ("stablehlo.convolution({operands}) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
          f"window = {{{{pad = [[{pad}, {pad}], [{pad}, {pad}]]}}}} "
          "{{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({in_types}) -> {out_type}")
    got = spec_run(storage_program(op, [(1, h, w, cin), (2, 2, cin, cout)], [lq, rq], oq, (1, oh, ow, cout)),
                   [a, b])
    # padding holds real zeros, i.e. the zero point
    xp = np.pad(a.astype(np.int64) - zl, ((0, 0), (pad, pad), (pad, pad), (0, 0)))
    acc = np.zeros((1, oh, ow, cout), np.int64)
    for i in range(oh):
        for j in range(ow):
            acc[0, i, j] = np.einsum("abc,abco->o", xp[0, i:i + 2, j:j + 2], b.astype(np.int64) - zr)
    assert got.tolist() == requant(acc * 0.5 * 0.25, oq).tolist()
