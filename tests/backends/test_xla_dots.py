"""`qcomp.backends.xla_dots`: `i8 x i8 -> i32` dot_generals with constant weights handed to
XLA as `ui8 x i8` (the activations plus 128) minus 128 times the weights' column sums.
Each program runs on XLA and is checked bit for bit against NumPy's int64 product
wrapped to i32 (an oracle outside qcomp) and qcomp's interpreter, on inputs at the ends
of the i8 range (the unsigned form's worst case: 255 x -128 products), random ones and
sums that wrap around i32. The rewrite itself is checked on the program XLA compiles."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.backends import xla, xla_dots
from qcomp.backends.xla_prepare import for_entry, lower
from qcomp.interpreter import run
from qcomp.ir import print_module
from qcomp.registry import make_context, parse_module

pytestmark = pytest.mark.skipif(not xla.is_available(),
                                reason="jax/jaxlib not installed (pip install 'qcomp[xla]')")
vnni = pytest.mark.skipif(not xla_dots.host_has_vnni(), reason="the rewrite is for CPUs with VNNI")


def _hex(w: np.ndarray) -> str:
    return '"0x' + np.ascontiguousarray(w).tobytes().hex().upper() + '"'


def _t(shape, e: str) -> str:
    return "tensor<" + "x".join(str(v) for v in shape) + f"x{e}>"


def _program(x_shape, w: np.ndarray, dims: str, out_shape) -> str:
    return (f"func.func @main(%x: {_t(x_shape, 'i8')}) -> {_t(out_shape, 'i32')} {{\n"
            f"  %w = stablehlo.constant dense<{_hex(w)}> : {_t(w.shape, 'i8')}\n"
            f"  %r = stablehlo.dot_general %x, %w, {dims} : ({_t(x_shape, 'i8')}, {_t(w.shape, 'i8')})"
            f" -> {_t(out_shape, 'i32')}\n"
            f"  func.return %r : {_t(out_shape, 'i32')}\n}}\n")


def _weights(shape, seed=0) -> np.ndarray:
    w = np.random.default_rng(seed).integers(-128, 128, shape).astype(np.int8)
    w.flat[0], w.flat[-1] = -128, 127
    return w


def _inputs(shape, seed=1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [np.full(shape, -128, np.int8), np.full(shape, 127, np.int8),
            rng.integers(-128, 128, shape).astype(np.int8)]


def _wrap(v: np.ndarray) -> np.ndarray:
    return ((v + 2**31) % 2**32 - 2**31).astype(np.int32)


def _check(text: str, inputs, want) -> str:
    """Run `text` on XLA; each result bit for bit `want(x)` and the interpreter's. The
    printed `@main` XLA compiled."""
    module = parse_module(text, make_context())
    (fn,) = xla.compile_module(module)
    assert fn.error is None, fn.error
    for x in inputs:
        got = fn.run([x])
        assert got.error is None, got.error
        assert got.results[0].dtype == np.int32
        np.testing.assert_array_equal(got.results[0], want(x))
        (ref,) = run(module, [x])
        assert ref.error is None
        np.testing.assert_array_equal(got.results[0], ref.results[0])
    return fn.text


@vnni
@pytest.mark.parametrize("m, k, n", [(4, 1024, 8), (3, 64, 5), (1, 1280, 10)])
def test_matmul_goes_unsigned(m, k, n):
    w = _weights((k, n))
    text = _check(_program((m, k), w, "contracting_dims = [1] x [0]", (m, n)), _inputs((m, k)),
                  lambda x: _wrap(x.astype(np.int64) @ w.astype(np.int64)))
    assert text.count("stablehlo.dot_general") == 1
    assert f"({_t((m, k), 'ui8')}, {_t((k, n), 'i8')}) -> {_t((m, n), 'i32')}" in text
    assert "xf32>" not in text  # not the exact-float rewrite either (xla_contractions)


@vnni
def test_projection_of_a_sequence_stays_integer():
    """The transformer's q/k/v shape: K = 512, which the exact-float rewrite would take."""
    w = _weights((512, 16))
    text = _check(_program((2, 3, 512), w, "contracting_dims = [2] x [0]", (2, 3, 16)),
                  _inputs((2, 3, 512)),
                  lambda x: _wrap(np.einsum("bsk,kn->bsn", x.astype(np.int64), w.astype(np.int64))))
    assert "xui8>" in text and "xf32>" not in text


@vnni
def test_batching_and_two_contracting_dimensions():
    """The column sums laid out as the result's (batch, rhs free) dimensions: contracting
    dimensions given out of order, the rhs free dimension between them."""
    w = _weights((2, 5, 6, 4))
    dims = "batching_dims = [0] x [0], contracting_dims = [2, 3] x [3, 1]"
    text = _check(_program((2, 3, 4, 5), w, dims, (2, 3, 6)), _inputs((2, 3, 4, 5)),
                  lambda x: _wrap(np.einsum("bmkl,blnk->bmn", x.astype(np.int64), w.astype(np.int64))))
    assert "xui8>" in text


@vnni
def test_sums_that_wrap_around_i32():
    """-128 * -128 * 140,000 > 2^31: the i32 dot wraps; the unsigned form (whose own sums,
    255 * -128 * 140,000 for the input 127, wrap too) wraps alike."""
    k = 140_000
    w = np.full((k, 2), -128, np.int8)
    w[:, 1] = 127
    inputs = [np.full((1, k), -128, np.int8), np.full((1, k), 127, np.int8)]
    exact = [x.astype(np.int64) @ w.astype(np.int64) for x in inputs]
    assert all((_wrap(e) != e).any() for e in exact)  # the sums do wrap
    text = _check(_program((1, k), w, "contracting_dims = [1] x [0]", (1, 2)), inputs,
                  lambda v: _wrap(v.astype(np.int64) @ w.astype(np.int64)))
    assert "xui8>" in text


def test_left_alone_without_constant_weights_or_for_iree():
    """A dot_general of two arguments keeps its i8 operands; `for_entry` without
    `unsigned_dots` (the iree backend: IREE 3.13 takes `ui8` as signed) rewrites none."""
    text = ("func.func @main(%x: tensor<2x8xi8>, %y: tensor<8x3xi8>) -> tensor<2x3xi32> {\n"
            "  %r = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : "
            "(tensor<2x8xi8>, tensor<8x3xi8>) -> tensor<2x3xi32>\n  func.return %r : tensor<2x3xi32>\n}\n")
    lowered = lower(parse_module(text, make_context()), "spec")
    assert "xui8>" not in print_module(for_entry(lowered, "main", unsigned_dots=True).module)
    w = _weights((1024, 4))
    lowered = lower(parse_module(_program((2, 1024), w, "contracting_dims = [1] x [0]", (2, 4)),
                                 make_context()), "spec")
    assert "xui8>" in print_module(for_entry(lowered, "main", unsigned_dots=True).module)
    assert "xui8>" not in print_module(for_entry(lowered, "main").module)
    from qcomp.backends.iree import IreeFunction

    assert xla.XlaFunction.unsigned_dots and not IreeFunction.unsigned_dots
