"""`xla_exact.unfoldable_negative_zero`: a divide by a broadcast reaches XLA as a divide by
`broadcast(b) + reshape(iota) * broadcast(z)` (`z` a scalar `-0.0` argument), so XLA's
algebraic simplifier cannot turn `x / broadcast(b)` into `x * broadcast(1/b)`, and no
full-shaped `-0.0` array is passed in. Checked bit for bit against NumPy's IEEE division
(an oracle outside qcomp) and qcomp's interpreter, on inputs where the reciprocal form
gives other bits, with -0.0, NaN and infinities among them."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.backends import xla
from qcomp.interpreter import run
from qcomp.registry import make_context, parse_module

pytestmark = pytest.mark.skipif(not xla.is_available(),
                                reason="jax/jaxlib not installed (pip install 'qcomp[xla]')")

SHAPE = (64, 512)
EDGES = [-0.0, 0.0, np.nan, np.inf, -np.inf, 1.0, -1.0]


def _t(e: str, shape=SHAPE) -> str:
    return "tensor<" + "x".join(str(v) for v in shape) + f"x{e}>"


def _x(dtype, seed=0) -> np.ndarray:
    x = (np.random.default_rng(seed).standard_normal(SHAPE) * 10).astype(dtype)
    x.flat[:len(EDGES)] = EDGES
    return x


def _bits(a: np.ndarray) -> np.ndarray:
    return a.view(f"u{a.dtype.itemsize}")


def _compile(text: str) -> xla.XlaFunction:
    (fn,) = xla.compile_module(parse_module(text, make_context()))
    assert fn.error is None, fn.error
    return fn


@pytest.mark.parametrize("e, dtype, scale", [("f32", np.float32, 0.03), ("f64", np.float64, 0.03),
                                             ("f16", np.float16, 0.3)])
def test_divide_by_broadcast_is_a_divide(e, dtype, scale):
    text = (f"func.func @main(%x: {_t(e)}, %s: tensor<{e}>) -> {_t(e)} {{\n"
            f"  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<{e}>) -> {_t(e)}\n"
            f"  %r = stablehlo.divide %x, %b : {_t(e)}\n"
            f"  func.return %r : {_t(e)}\n}}\n")
    x, s = _x(dtype), np.array(scale, dtype)
    want = x / s
    assert (_bits(x * (dtype(1) / s)) != _bits(want)).sum() > 100  # the input can tell
    fn = _compile(text)
    assert "stablehlo.iota" in fn.text
    assert all(c.ndim == 0 for c in fn.constants)  # no full-shaped -0.0 argument
    (got,) = fn.run([x, s]).results
    np.testing.assert_array_equal(_bits(got), _bits(want))
    (ref,) = run(parse_module(text, make_context()), [x, s])[0].results
    np.testing.assert_array_equal(_bits(got), _bits(ref))


def test_unguarded_divide_is_rewritten():
    """Without the guard XLA gives the reciprocal's bits: what the guard is for."""
    text = (f"module {{\n  func.func @main(%x: {_t('f32')}, %s: tensor<f32>) -> {_t('f32')} {{\n"
            f"    %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> {_t('f32')}\n"
            f"    %r = stablehlo.divide %x, %b : {_t('f32')}\n"
            f"    return %r : {_t('f32')}\n  }}\n}}\n")
    x, s = _x(np.float32), np.array(0.03, np.float32)
    jx = xla.load_jax()
    with jx.jax.enable_x64(True):
        (got,) = xla.compile_text(text).execute([jx.jax.device_put(v) for v in (x, s)])
    assert (_bits(np.asarray(got)) != _bits(x / s)).sum() > 100


def test_quantize_dequantize_per_axis_chain():
    """The MLP workload's quantize -> requantize chain (per-tensor scale divides, a
    per-axis f64 rescale) bit for bit the interpreter's, edge inputs included."""
    d = 256
    s1 = np.random.default_rng(2).uniform(0.002, 0.004, d)
    acc = "!quant.uniform<i32:f32:1, {" + ", ".join(f"{0.03 * float(v)!r}:0" for v in s1) + "}>"
    w = np.random.default_rng(3).integers(-127, 128, (512, d)).astype(np.int8)
    wq = "!quant.uniform<i8:f32:1, {" + ", ".join(f"{float(v)!r}:0" for v in s1) + "}>"
    qx, qh = "!quant.uniform<i8:f32, 0.03:3>", "!quant.uniform<i8:f32, 0.5:-2>"
    tx, tw, ty = _t("f32"), _t(wq, (512, d)), _t(acc, (64, d))
    text = (f"func.func @main(%x: {tx}) -> {_t('f32', (64, d))} {{\n"
            f"  %w = stablehlo.constant dense<\"0x{w.tobytes().hex().upper()}\"> : {_t('i8', (512, d))}\n"
            f"  %wq = stablehlo.bitcast_convert %w : ({_t('i8', (512, d))}) -> {tw}\n"
            f"  %q = stablehlo.uniform_quantize %x : ({tx}) -> {_t(qx)}\n"
            f"  %a = stablehlo.dot_general %q, %wq, contracting_dims = [1] x [0] : ({_t(qx)}, {tw}) -> {ty}\n"
            f"  %h = stablehlo.uniform_quantize %a : ({ty}) -> {_t(qh, (64, d))}\n"
            f"  %y = stablehlo.uniform_dequantize %h : ({_t(qh, (64, d))}) -> {_t('f32', (64, d))}\n"
            f"  func.return %y : {_t('f32', (64, d))}\n}}\n")
    x = _x(np.float32, 4) / 4
    fn = _compile(text)
    assert all(c.ndim <= 1 for c in fn.constants)
    (got,) = fn.run([x]).results
    (ref,) = run(parse_module(text, make_context()), [x])[0].results
    np.testing.assert_array_equal(_bits(got), _bits(ref))
