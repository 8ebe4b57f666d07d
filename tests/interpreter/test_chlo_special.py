"""The chlo ops against jaxlib's reference interpreter after upstream's
chlo-legalize-to-stablehlo, on random inputs.

f32, f16 and bf16 agree bit for bit, and so does complex64 for the inverse
trigonometric / hyperbolic functions (complex128 within one ulp per part). f64 agrees within a few ulp (`F64_ULPS`): the
interpreter's float64 transcendental steps use NumPy's kernels, upstream's use the C
library's (np.arctan2 and glibc's atan2 already differ by one ulp on some inputs), and
lgamma's reflection amplifies a one-ulp log difference near the poles.
"""

from __future__ import annotations

import zlib

import ml_dtypes
import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.registry import parse_module
from tests.interpreter import jax_oracle

pytestmark = pytest.mark.skipif(not jax_oracle.AVAILABLE, reason=jax_oracle.REASON)

TYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f64": np.float64}
BITS = {"f32": "i32", "f16": "i16", "bf16": "i16", "f64": "i64"}
F64_ULPS = {"lgamma": 256, "digamma": 64, "polygamma": 8, "sinh": 4, "zeta": 4}
"""The f64 bound in ulp, per op (others: 2). lgamma and digamma near their poles
(reflection: log sin / cot of pi x) turn a one-ulp step difference into up to 128 / 8
ulp of the result on the inputs seen."""
N = 400


def _inputs(op: str, dt, rng) -> list[np.ndarray]:
    normal = (rng.standard_normal(N) * 3).astype(dt)
    unit = rng.uniform(-1, 1, N).astype(dt)
    positive = rng.uniform(0, 10, N).astype(dt)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, -2.0, 0.5], dt)
    if op in ("erf_inv", "acos", "asin", "atanh"):
        return [np.concatenate([unit, special])]
    if op == "acosh":
        return [np.concatenate([(positive + 1).astype(dt), special])]
    if op == "zeta":
        return [np.concatenate([(positive + 1).astype(dt), special]),
                np.concatenate([positive, special[::-1]])]
    if op == "polygamma":
        return [np.concatenate([np.floor(positive / 2).astype(dt), special]),
                np.concatenate([normal, special[::-1]])]
    if op == "next_after":
        return [np.concatenate([normal, special]),
                np.concatenate([rng.standard_normal(N).astype(dt), special[::-1]])]
    return [np.concatenate([normal, special])]


def _program(op: str, ty: str, n: int, arity: int) -> str:
    t = f"tensor<{n}x{ty}>"
    if op.startswith("is_"):
        return (f"func.func @main(%x: {t}) -> tensor<{n}xi1> {{\n"
                f"  %r = chlo.{op} %x : {t} -> tensor<{n}xi1>\n"
                f"  return %r : tensor<{n}xi1>\n}}")
    bits = f"tensor<{n}x{BITS[ty]}>"
    params = ", ".join(f"%a{i}: {t}" for i in range(arity))
    args = ", ".join(f"%a{i}" for i in range(arity))
    types = ", ".join([t] * arity)
    return (f"func.func @main({params}) -> {bits} {{\n"
            f"  %r = chlo.{op} {args} : {types} -> {t}\n"
            f"  %b = stablehlo.bitcast_convert %r : ({t}) -> {bits}\n"
            f"  return %b : {bits}\n}}")


UNARY = ["erf", "erfc", "erf_inv", "lgamma", "digamma", "bessel_i1e", "acos", "acosh", "asin", "asinh",
         "atan", "atanh", "sinh", "cosh", "tan", "is_inf", "is_pos_inf", "is_neg_inf"]
BINARY = ["next_after", "zeta", "polygamma"]


@pytest.mark.parametrize("ty", list(TYPES))
@pytest.mark.parametrize("op", UNARY + BINARY)
def test_against_reference_interpreter(op, ty):
    rng = np.random.default_rng(zlib.crc32(f"{op} {ty}".encode()))
    args = _inputs(op, TYPES[ty], rng)
    src = _program(op, ty, args[0].size, len(args))
    want = jax_oracle.eval_chlo(src, args)[0]
    (r,) = run(parse_module(src), args)
    assert r.error is None, r.error.message
    got = r.results[0]
    if op.startswith("is_"):
        assert got.tolist() == want.tolist()
        return
    got_f, want_f = (v.view(TYPES[ty]).astype(np.float64) for v in (got, want))
    both_nan = np.isnan(got_f) & np.isnan(want_f)
    if ty != "f64":
        assert np.array_equal(got[~both_nan], want[~both_nan]), (
            op, ty, np.flatnonzero((got != want) & ~both_nan)[:5])
        return
    ulps = np.abs(got.astype(np.int64) - want.astype(np.int64))
    ulps = np.where(both_nan | (got_f == want_f), 0, ulps)
    assert ulps.max() <= F64_ULPS.get(op, 2), (op, ulps.max())
    assert np.array_equal(np.isnan(got_f), np.isnan(want_f))


TOP_K = """func.func @main(%x: tensor<3x6x{t}>) -> (tensor<3x4x{t}>, tensor<3x4xi32>) {{
  %v, %i = chlo.top_k(%x, k = 4) : tensor<3x6x{t}> -> (tensor<3x4x{t}>, tensor<3x4xi32>)
  return %v, %i : tensor<3x4x{t}>, tensor<3x4xi32>
}}"""


@pytest.mark.parametrize("ty,dt", [("f32", np.float32), ("i8", np.int8), ("ui8", np.uint8)])
def test_top_k_against_reference_interpreter(ty, dt):
    rng = np.random.default_rng(3)
    if ty == "f32":
        x = rng.integers(-3, 3, (3, 6)).astype(dt)
        x[0, :3] = [-np.inf, -0.0, 0.0]  # -0 and +0 tie: lower index first
        x[1, :2] = [np.inf, np.inf]
    else:
        x = rng.integers(0, 4, (3, 6)).astype(dt) if ty == "ui8" else \
            rng.integers(-3, 3, (3, 6)).astype(dt)
    src = TOP_K.format(t=ty)
    want = jax_oracle.eval_chlo(src, [x])
    (r,) = run(parse_module(src), [x])
    assert r.error is None, r.error.message
    assert np.array_equal(r.results[0].view(np.uint8), want[0].view(np.uint8))
    assert r.results[1].tolist() == want[1].tolist()


BROADCAST = """func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2x3xi32>, %j: tensor<3xi32>)
    -> (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>) {
  %0 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction GT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %3 = chlo.broadcast_next_after %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = chlo.broadcast_shift_right_arithmetic %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %5 = chlo.broadcast_atan2 %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %6 = chlo.broadcast_zeta %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %7 = chlo.broadcast_xor %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  return %0, %3, %4, %5, %6, %7 : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>
}"""


def test_broadcast_ops_against_reference_interpreter():
    rng = np.random.default_rng(5)
    args = [rng.uniform(1, 4, (2, 3)).astype(np.float32), rng.uniform(1, 4, 3).astype(np.float32),
            rng.integers(-100, 100, (2, 3)).astype(np.int32),
            np.array([1, 3, 40], np.int32)]
    want = jax_oracle.eval_chlo(BROADCAST, args)
    (r,) = run(parse_module(BROADCAST), args)
    assert r.error is None, r.error.message
    for got, exp in zip(r.results, want):
        assert got.dtype == exp.dtype and np.array_equal(got, exp, equal_nan=True)


def test_broadcast_select_and_complex_exact_values():
    # upstream decomposes select into shape-dialect ops its interpreter cannot run, and
    # jaxlib cannot hand a complex result back to Python
    src = """func.func @main(%p: tensor<2x1xi1>, %a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xcomplex<f32>>) {
      %r = chlo.broadcast_select %p, %a, %b : (tensor<2x1xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %c = chlo.broadcast_complex %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xcomplex<f32>>
      return %r, %c : tensor<2x3xf32>, tensor<2x3xcomplex<f32>>
    }"""
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.array([-1, -2, -3], np.float32)
    (r,) = run(parse_module(src), [np.array([[True], [False]]), a, b])
    assert r.error is None, r.error.message
    assert r.results[0].tolist() == [[0, 1, 2], [-1, -2, -3]]
    assert r.results[1].dtype == np.complex64
    assert r.results[1].tolist() == [[0 - 1j, 1 - 2j, 2 - 3j], [3 - 1j, 4 - 2j, 5 - 3j]]


def test_top_k_nan_first():
    src = TOP_K.format(t="f32")
    x = np.array([[1, np.nan, 2, 0, 5, 3]] * 3, np.float32)
    (r,) = run(parse_module(src), [x])
    assert r.results[1].tolist() == [[1, 4, 5, 2]] * 3


COMPLEX = {"complex64": (np.complex64, np.float32, "f32", "i32"),
           "complex128": (np.complex128, np.float64, "f64", "i64")}
COMPLEX_F64_ULPS = 1
"""complex128: the bound in ulp of each part (NumPy's vs the C library's float64 atan2 /
log / log1p steps; 1 measured on every op); complex64 agrees bit for bit."""


def _complex_inputs(ct, ft, rng) -> np.ndarray:
    """Points in every region of the Hull et al kernel and of atanh: log-uniform magnitudes
    from below the smallest normal to the largest finite, the unit circle's neighbourhood,
    and the cross product of special values."""
    fi = np.finfo(ft)
    lo, hi = np.log10(float(fi.smallest_normal)) - 2, np.log10(float(fi.max))
    n = N // 4
    mag = lambda: 10.0 ** rng.uniform(lo, hi, n) * rng.choice([-1.0, 1.0], n)  # noqa: E731
    near_one = rng.uniform(0.9, 1.1, n) * rng.choice([-1.0, 1.0], n)
    small = 10.0 ** rng.uniform(lo, 0, n) * rng.choice([-1.0, 1.0], n)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1.5, float(fi.max), float(fi.tiny),
                        np.inf, -np.inf, np.nan], np.float64)
    sx, sy = np.meshgrid(special, special)
    re = np.concatenate([mag(), near_one, small, rng.standard_normal(n) * 3, sx.ravel()])
    im = np.concatenate([mag(), small, near_one, rng.standard_normal(n) * 3, sy.ravel()])
    z = np.empty(re.size, ct)
    z.real, z.imag = re.astype(ft), im.astype(ft)
    return z


def _complex_program(op: str, ty: str, n: int) -> str:
    _, _, f, bits = COMPLEX[ty]
    t, ft, bt = f"tensor<{n}xcomplex<{f}>>", f"tensor<{n}x{f}>", f"tensor<{n}x{bits}>"
    return (f"func.func @main(%x: {ft}, %y: {ft}) -> ({bt}, {bt}) {{\n"
            f"  %z = stablehlo.complex %x, %y : {t}\n"
            f"  %r = chlo.{op} %z : {t} -> {t}\n"
            f"  %re = stablehlo.real %r : ({t}) -> {ft}\n"
            f"  %im = stablehlo.imag %r : ({t}) -> {ft}\n"
            f"  %a = stablehlo.bitcast_convert %re : ({ft}) -> {bt}\n"
            f"  %b = stablehlo.bitcast_convert %im : ({ft}) -> {bt}\n"
            f"  return %a, %b : {bt}, {bt}\n}}")


@pytest.mark.parametrize("ty", list(COMPLEX))
@pytest.mark.parametrize("op", ["acos", "acosh", "asin", "asinh", "atan", "atanh"])
def test_complex_against_reference_interpreter(op, ty):
    ct, ft, _, _ = COMPLEX[ty]
    z = _complex_inputs(ct, ft, np.random.default_rng(zlib.crc32(f"{op} {ty}".encode())))
    src = _complex_program(op, ty, z.size)
    args = [np.ascontiguousarray(z.real), np.ascontiguousarray(z.imag)]  # jaxlib takes no complex
    want = jax_oracle.eval_chlo(src, args)
    (r,) = run(parse_module(src), args)
    assert r.error is None, r.error.message
    for part, got, exp in zip(("real", "imag"), r.results, want):
        got_f, want_f = got.view(ft).astype(np.float64), exp.view(ft).astype(np.float64)
        both_nan = np.isnan(got_f) & np.isnan(want_f)
        assert np.array_equal(np.isnan(got_f), np.isnan(want_f)), (part, z[np.isnan(got_f) != np.isnan(want_f)][:5])
        if ty == "complex64":
            bad = (got != exp) & ~both_nan
            assert not bad.any(), (part, z[bad][:5], got_f[bad][:5], want_f[bad][:5])
            continue
        ulps = np.abs(got.astype(np.int64) - exp.astype(np.int64))
        ulps = np.where(both_nan | (got_f == want_f), 0, ulps)
        assert ulps.max() <= COMPLEX_F64_ULPS, (part, ulps.max(), z[ulps.argmax()])
