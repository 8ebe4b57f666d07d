"""`qcomp.backends.xla_same_scale`: `round(clamp(lo, (f64(x) * s) / s, hi))` of an integer
`x` reaches XLA as `round(clamp(lo, f64(x), hi))` when the module docstring proves the
same values. Checked bit for bit against NumPy's IEEE f64 evaluation of the formula as
written (an oracle outside qcomp) and qcomp's interpreter, with `x` at the ends of the
i32 range and scales at the ends of the allowed range
(`qcomp.quant.accumulator.unit_rescale_is_exact`); programs outside it keep their
divide."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.backends import xla
from qcomp.interpreter import run
from qcomp.registry import make_context, parse_module

pytestmark = pytest.mark.skipif(not xla.is_available(),
                                reason="jax/jaxlib not installed (pip install 'qcomp[xla]')")

N, D = 64, 32


def _hex(a: np.ndarray) -> str:
    return '"0x' + np.ascontiguousarray(a).tobytes().hex().upper() + '"'


def _program(scales: np.ndarray, lo: float, hi: float) -> str:
    t, ti = f"tensor<{N}x{D}xf64>", f"tensor<{N}x{D}xi32>"
    return (f"func.func @main(%x: {ti}) -> {ti} {{\n"
            f"  %s = stablehlo.constant dense<{_hex(scales)}> : tensor<{D}xf64>\n"
            f"  %b = stablehlo.broadcast_in_dim %s, dims = [1] : (tensor<{D}xf64>) -> {t}\n"
            f"  %lo = stablehlo.constant dense<{lo!r}> : tensor<f64>\n"
            f"  %hi = stablehlo.constant dense<{hi!r}> : tensor<f64>\n"
            f"  %f = stablehlo.convert %x : ({ti}) -> {t}\n"
            f"  %m = stablehlo.multiply %f, %b : {t}\n"
            f"  %d = stablehlo.divide %m, %b : {t}\n"
            f"  %c = stablehlo.clamp %lo, %d, %hi : (tensor<f64>, {t}, tensor<f64>) -> {t}\n"
            f"  %r = stablehlo.round_nearest_even %c : {t}\n"
            f"  %y = stablehlo.convert %r : ({t}) -> {ti}\n"
            f"  func.return %y : {ti}\n}}\n")


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(0)
    x = rng.integers(-2**31, 2**31, (N, D), dtype=np.int64).astype(np.int32)
    x[0] = [-2**31, 2**31 - 1, 0, 1, -1, 127, -128, 128, -129] * 3 + [2**31 - 2, -2**31 + 1, 2**24 + 1, 3, 5]
    x[1] = rng.integers(-300, 300, D)
    return x


def _scales(lo_exp: int, hi_exp: int) -> np.ndarray:
    rng = np.random.default_rng(1)
    e = rng.integers(lo_exp, hi_exp, D)
    s = np.ldexp(rng.uniform(1, 2, D), e)
    s[0], s[1] = 2.0 ** lo_exp, 2.0 ** hi_exp
    s[2] = 0.03 * 0.0030559476  # an accumulator scale like the MLP's
    return s


def _numpy(x, s, lo, hi) -> np.ndarray:
    with np.errstate(all="ignore"):
        r = (x.astype(np.float64) * s) / s
    return np.round(np.clip(r, lo, hi)).astype(np.int32)  # np.round: half to even


@pytest.mark.parametrize("lo, hi", [(-2.0**31, 2.0**31 - 1), (-128.0, 127.0)])
def test_unit_rescale_is_dropped_and_exact(lo, hi):
    s, x = _scales(-1022, 991), _inputs()  # normal; 2^32 * 2^991 < the largest f64
    text = _program(s, lo, hi)
    (fn,) = xla.compile_module(parse_module(text, make_context()))
    assert "stablehlo.divide" not in fn.text and "stablehlo.multiply" not in fn.text
    (got,) = fn.run([x]).results
    np.testing.assert_array_equal(got, _numpy(x, s, lo, hi))
    (ref,) = run(parse_module(text, make_context()), [x])[0].results
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("why, scales, lo, hi", [
    ("a scale whose product with 2^32 overflows", _scales(0, 992), -128.0, 127.0),
    ("a bound that is no integer", _scales(-10, 10), -128.0, 127.5),
])
def test_other_rescales_keep_their_divide(why, scales, lo, hi):
    text = _program(scales, lo, hi)
    (fn,) = xla.compile_module(parse_module(text, make_context()))
    assert "stablehlo.divide" in fn.text, why
    x = _inputs()
    (got,) = fn.run([x]).results
    (ref,) = run(parse_module(text, make_context()), [x])[0].results
    np.testing.assert_array_equal(got, ref)


def _divide(e: str, c: str, ct: str, dims: str) -> str:
    t = f"tensor<{N}x{D}x{e}>"
    return (f"func.func @main(%x: {t}) -> {t} {{\n"
            f"  %c = stablehlo.constant {c} : {ct}\n"
            f"  %b = stablehlo.broadcast_in_dim %c, dims = {dims} : ({ct}) -> {t}\n"
            f"  %r = stablehlo.divide %x, %b : {t}\n"
            f"  func.return %r : {t}\n}}\n")


def _floats(dtype) -> np.ndarray:
    x = (np.random.default_rng(3).standard_normal((N, D)) * 100).astype(dtype)
    x[0, :7] = [-0.0, 0.0, np.nan, np.inf, -np.inf, np.finfo(dtype).max, -np.finfo(dtype).max]
    return x


@pytest.mark.parametrize("e, dtype, c, ct, dims, want_divide", [
    ("f32", np.float32, "dense<5.000000e-01>", "tensor<f32>", "[]", False),
    ("f32", np.float32, "dense<[" + ", ".join(f"{2.0 ** k:e}" for k in range(-8, 24)) + "]>",
     f"tensor<{D}xf32>", "[1]", False),
    ("f64", np.float64, f"dense<{2.0 ** -1000!r}>", "tensor<f64>", "[]", False),
    ("f32", np.float32, f"dense<{2.0 ** -127!r}>", "tensor<f32>", "[]", "subnormal"),
    ("f64", np.float64, f"dense<{2.0 ** 1023!r}>", "tensor<f64>", "[]", "subnormal"),  # 2^-1023
    ("f32", np.float32, "dense<3.000000e-02>", "tensor<f32>", "[]", True),
])
def test_divide_by_a_power_of_two_multiplies(e, dtype, c, ct, dims, want_divide):
    text = _divide(e, c, ct, dims)
    (fn,) = xla.compile_module(parse_module(text, make_context()))
    assert ("stablehlo.divide" in fn.text) == bool(want_divide)
    if want_divide == "subnormal":
        return  # XLA reads a subnormal divisor as 0 (DAZ): a known departure, kept as it was
    x = _floats(dtype)
    (ref,) = run(parse_module(text, make_context()), [x])[0].results
    (got,) = fn.run([x]).results
    finite = np.isfinite(ref) & (np.abs(ref) >= np.finfo(dtype).tiny) | (ref == 0)  # XLA flushes subnormals
    bits = f"u{np.dtype(dtype).itemsize}"
    np.testing.assert_array_equal(got.view(bits)[finite], ref.view(bits)[finite])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(got[np.isinf(ref)], ref[np.isinf(ref)])


def _round_trip(xt: str, ft: str, bounds: tuple[str, str] | None, rnd: str, yt: str) -> str:
    t, ti, to = f"tensor<{N}x{D}x{ft}>", f"tensor<{N}x{D}x{xt}>", f"tensor<{N}x{D}x{yt}>"
    lines = [f"func.func @main(%x: {ti}) -> {to} {{",
             f"  %f = stablehlo.convert %x : ({ti}) -> {t}"]
    v = "%f"
    if bounds is not None:
        lines += [f"  %lo = stablehlo.constant dense<{bounds[0]}> : tensor<{ft}>",
                  f"  %hi = stablehlo.constant dense<{bounds[1]}> : tensor<{ft}>",
                  f"  %c = stablehlo.clamp %lo, %f, %hi : (tensor<{ft}>, {t}, tensor<{ft}>) -> {t}"]
        v = "%c"
    lines += [f"  %r = stablehlo.{rnd} {v} : {t}",
              f"  %y = stablehlo.convert %r : ({t}) -> {to}",
              f"  func.return %y : {to}", "}"]
    return "\n".join(lines) + "\n"


I32 = ("-2.147483648e+09", "2.147483647e+09")


@pytest.mark.parametrize("xt, ft, bounds, rnd, yt, dropped", [
    ("i32", "f64", I32, "round_nearest_even", "i32", True),
    ("i32", "f64", ("-3.000000e+09", "0x7FF0000000000000"), "round_nearest_afz", "i32", True),
    ("i32", "f64", None, "round_nearest_even", "i64", True),
    ("i16", "f32", ("-3.276800e+04", "3.276700e+04"), "round_nearest_afz", "i16", True),
    ("i32", "f64", ("-1.280000e+02", "1.270000e+02"), "round_nearest_even", "i32", False),  # clamps
    ("i32", "f64", ("0x7FF8000000000000", "2.147483647e+09"), "round_nearest_even", "i32", False),  # NaN
    ("i32", "f32", I32, "round_nearest_even", "i32", False),  # f32 rounds i32 values
    ("i32", "f64", I32, "round_nearest_even", "i16", False),  # narrower result
])
def test_integer_round_trip_through_a_float(xt, ft, bounds, rnd, yt, dropped):
    """`convert(round(clamp(lo, float(x), hi)))` is `x` where the module docstring proves it
    (no round, clamp or float left; results exactly `x`); elsewhere the chain stays and
    XLA computes the interpreter's values."""
    text = _round_trip(xt, ft, bounds, rnd, yt)
    (fn,) = xla.compile_module(parse_module(text, make_context()))
    assert fn.error is None, fn.error
    kept = [n for n in ("round_nearest", "clamp", f"x{ft}>") if n in fn.text]
    assert kept == ([] if dropped else kept) and (dropped or "round_nearest" in fn.text)
    info = np.iinfo(np.dtype(np.int32 if xt == "i32" else np.int16))
    x = _inputs().clip(info.min, info.max).astype(info.dtype)
    x[2, :4] = [info.min, info.max, info.min + 1, info.max - 1]
    (got,) = fn.run([x]).results
    (ref,) = run(parse_module(text, make_context()), [x])[0].results
    np.testing.assert_array_equal(got, ref)
    if dropped:
        np.testing.assert_array_equal(got, x.astype(got.dtype))
