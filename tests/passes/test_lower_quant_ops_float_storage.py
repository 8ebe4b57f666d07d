"""Float storage (f8E5M2, f8E4M3FN, f4E2M1FN) through quant.qcast / quant.dcast: the
interpreter against an oracle built on ml_dtypes' own float32 -> float8/float4 cast
(`clip(x / scale + zero_point, storage_min, storage_max)` in the expressed type, then
ml_dtypes' round to nearest even), and lower-quant-ops' program against the
interpreter, bit for bit (NaN and the sign of zero included)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.passes.numerics import run_function
from tests.passes.pass_helpers import parse, run_pass, text
from qcomp.passes.lower_quant_ops import LowerQuantOpsPass

KINDS = {"f8E5M2": ml_dtypes.float8_e5m2, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
         "f4E2M1FN": ml_dtypes.float4_e2m1fn}
EXPRESSED = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


@st.composite
def case(draw):
    kind = draw(st.sampled_from(sorted(KINDS)))
    expressed = draw(st.sampled_from(sorted(EXPRESSED)))
    top = int(ml_dtypes.finfo(KINDS[kind]).max)
    lo, hi = -top, top
    if draw(st.booleans()):
        hi = draw(st.integers(1, top))
        lo = -draw(st.integers(0, top))
    n = draw(st.integers(1, 5))
    per_axis = draw(st.booleans())
    scales = [draw(st.sampled_from([0.5, 1.0, 3.0, 0.1, 2.0 ** -7, 17.0])) for _ in range(n if per_axis else 1)]
    zps = [draw(st.integers(-3, 3)) for _ in scales]
    return kind, expressed, lo, hi, n, per_axis, scales, zps, draw(st.integers(0, 2 ** 31))


def _type(kind, expressed, lo, hi, per_axis, scales, zps) -> str:
    top = int(ml_dtypes.finfo(KINDS[kind]).max)
    storage = kind if (lo, hi) == (-top, top) else f"{kind}<{lo}:{hi}>"
    params = [f"{s!r}:{z}" for s, z in zip(scales, zps)]
    if per_axis:
        return f"!quant.uniform<{storage}:{expressed}:0, {{{','.join(params)}}}>"
    return f"!quant.uniform<{storage}:{expressed}, {params[0]}>"


def _oracle_quantize(x, kind, expressed, lo, hi, scales, zps):
    dt = np.dtype(EXPRESSED[expressed])
    s = np.asarray(scales, np.float64).astype(dt)
    z = np.asarray(zps, np.float64).astype(dt)
    v = (x / s[:, None] if len(scales) > 1 else x / s[0])
    if any(zps):
        v = v + (z[:, None] if len(scales) > 1 else z[0])
    v = np.clip(v.astype(dt), dt.type(lo), dt.type(hi))
    if lo == 0:  # the spec's clamp is max then min, IEEE: max(-0, +0) = +0
        v = np.where(v == 0, dt.type(0), v)
    r = v.astype(np.float32).astype(KINDS[kind])  # exact to f32, one rounding by ml_dtypes
    if kind == "f4E2M1FN":
        r = np.where(np.isnan(v.astype(np.float32)), np.zeros((), KINDS[kind]), r)
    return r


def _oracle_dequantize(q, expressed, scales, zps):
    dt = np.dtype(EXPRESSED[expressed])
    s = np.asarray(scales, np.float64).astype(dt)
    z = np.asarray(zps, np.float64).astype(dt)
    d = q.astype(np.float32).astype(dt)
    if any(zps):
        d = d - (z[:, None] if len(scales) > 1 else z[0])
    return d * (s[:, None] if len(scales) > 1 else s[0])


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8 if a.dtype.itemsize == 1 else np.uint16)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case())
def test_float_storage_quantize_dequantize(c):
    kind, expressed, lo, hi, n, per_axis, scales, zps, seed = c
    qt = _type(kind, expressed, lo, hi, per_axis, scales, zps)
    t, f = f"tensor<{n}x6x{qt}>", f"tensor<{n}x6x{expressed}>"
    src = f"""
    func.func @q(%x: {f}) -> {t} {{
      %0 = quant.qcast %x : {f} to {t}
      return %0 : {t}
    }}
    func.func @rt(%x: {f}) -> {f} {{
      %0 = quant.qcast %x : {f} to {t}
      %1 = quant.dcast %0 : {t} to {f}
      return %1 : {f}
    }}"""
    rng = np.random.default_rng(seed)
    top = float(ml_dtypes.finfo(KINDS[kind]).max)
    x = np.concatenate([rng.standard_normal((n, 3)) * top * max(scales) / 2,
                        rng.choice([0.0, -0.0, np.nan, np.inf, -np.inf, 1e-30], size=(n, 3))],
                       axis=1).astype(EXPRESSED[expressed])
    before, after = parse(src), run_pass(LowerQuantOpsPass(), src)
    assert "quant.qcast" not in text(after)
    want_q = _oracle_quantize(x, kind, expressed, lo, hi, scales, zps)
    got_q = run_function(before, "q", [x])[0]
    assert got_q.dtype == np.dtype(KINDS[kind])
    assert (_bits(got_q) == _bits(want_q)).all(), (x, got_q, want_q)
    want_rt = _oracle_dequantize(want_q, expressed, scales, zps)
    for module in (before, after):
        got = run_function(module, "rt", [x])[0]
        assert got.dtype == want_rt.dtype and (_bits(got) == _bits(want_rt)).all(), (x, got, want_rt)
