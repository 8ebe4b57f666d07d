"""`qcomp.backends.xla_convolutions`: int8 convolutions as dot_generals (pointwise ones, and
im2col for those of more than `FLOAT_MAX_K` products: padding, strides, dilation).
The rewritten program runs in qcomp's interpreter against the original (the reference),
and the whole preparation on XLA against the interpreter, on inputs at the ends of the
int8 range (the worst case of the sums) and random ones; results bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.backends import xla, xla_convolutions, xla_dots
from qcomp.interpreter import run
from qcomp.interpreter.values import shape_of
from qcomp.registry import make_context, parse_module

pytestmark = pytest.mark.skipif(not xla.is_available(),
                                reason="jax/jaxlib not installed (pip install 'qcomp[xla]')")

POINTWISE = """func.func @main(%x: tensor<2x5x3x{c}xi8>) -> tensor<2x5x3x{o}xi32> {{
  %w = stablehlo.constant {w} : tensor<1x1x{c}x{o}xi8>
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<2x5x3x{c}xi8>, tensor<1x1x{c}x{o}xi8>) -> tensor<2x5x3x{o}xi32>
  func.return %r : tensor<2x5x3x{o}xi32>
}}
"""


def _program(c: int, o: int, stride: int = 1) -> str:
    w = np.random.default_rng(c * o).integers(-128, 128, (1, 1, c, o)).astype(np.int8)
    w.flat[0] = -128
    dense = "dense<" + np.array2string(w, separator=", ", threshold=10**9).replace("\n", "") + ">"
    return POINTWISE.format(c=c, o=o, w=dense).replace("stride = [1, 1]", f"stride = [{stride}, {stride}]")


def _inputs(c: int):
    rng = np.random.default_rng(5)
    shape = (2, 5, 3, c)
    return [np.full(shape, -128, np.int8), np.full(shape, 127, np.int8),
            rng.integers(-128, 128, shape).astype(np.int8)]


@pytest.mark.parametrize("c, o", [(8, 5), (40, 16)])
def test_pointwise_convolution_as_a_dot(c, o):
    text = _program(c, o)
    module = parse_module(text, make_context())
    rewritten = parse_module(text, make_context())
    assert xla_convolutions.convolutions_as_dots(rewritten) == 1
    ops = [op.name for op in next(iter(rewritten.ops)).body.blocks.first.ops]
    assert "stablehlo.convolution" not in ops and "stablehlo.dot_general" in ops
    (fn,) = xla.compile_module(module)
    assert fn.error is None, fn.error
    if xla_dots.host_has_vnni():
        assert "stablehlo.convolution" not in fn.text and "xui8" in fn.text
    for x in _inputs(c):
        (want,) = run(module, [x])
        (got,) = run(rewritten, [x])
        np.testing.assert_array_equal(got.results[0], want.results[0])
        np.testing.assert_array_equal(fn.run([x]).results[0], want.results[0])


def test_strided_pointwise_convolution_is_left_alone():
    text = _program(8, 5, stride=2).replace("2x5x3x5xi32", "2x3x2x5xi32")
    module = parse_module(text, make_context())
    assert xla_convolutions.convolutions_as_dots(module) == 0


def _window_program(x_shape, k_shape, window: str, out_shape, seed: int = 7):
    """A convolution NHWC x HWIO with a constant kernel (`window`: its `window = {...}`)."""
    w = np.random.default_rng(seed).integers(-128, 128, k_shape).astype(np.int8)
    w.flat[0], w.flat[-1] = -128, 127
    tx, tk, to = (f"tensor<{'x'.join(map(str, s))}x{e}>" for s, e in
                  ((x_shape, "i8"), (k_shape, "i8"), (out_shape, "i32")))
    text = (f"func.func @main(%x: {tx}) -> {to} {{\n"
            f'  %w = stablehlo.constant dense<"0x{w.tobytes().hex().upper()}"> : {tk}\n'
            f"  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            f"window = {{{window}}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : "
            f"({tx}, {tk}) -> {to}\n"
            f"  func.return %r : {to}\n}}\n")
    rng = np.random.default_rng(seed + 1)
    inputs = [np.full(x_shape, -128, np.int8), np.full(x_shape, 127, np.int8),
              rng.integers(-128, 128, x_shape).astype(np.int8)]
    return text, inputs


@pytest.mark.parametrize("x_shape, k_shape, window, out_shape", [
    ((1, 6, 5, 64), (3, 3, 64, 4), "pad = [[1, 1], [1, 1]]", (1, 6, 5, 4)),  # K = 576, the benchmark's
    ((2, 7, 6, 40), (3, 2, 40, 3), "stride = [2, 1], pad = [[2, 0], [0, 1]], rhs_dilate = [2, 1]",
     (2, 3, 6, 3)),  # K = 240 <= FLOAT_MAX_K: left to float_contractions
    ((1, 9, 8, 48), (4, 3, 48, 5), "stride = [2, 3], pad = [[0, 1], [2, -1]], rhs_dilate = [2, 1]",
     (1, 2, 3, 5)),  # K = 576, strides, dilation, a negative padding
    ((16, 32, 32, 3), (3, 3, 3, 16), "stride = [2, 2], pad = [[0, 1], [0, 1]]",
     (16, 16, 16, 16)),  # K = 27 but DOT_MIN_ROWS rows: MobileNetV2's first, batched
])
def test_convolution_as_windows_times_a_matrix(x_shape, k_shape, window, out_shape):
    text, inputs = _window_program(x_shape, k_shape, window, out_shape)
    module = parse_module(text, make_context())
    rewritten = parse_module(text, make_context())
    k = k_shape[0] * k_shape[1] * k_shape[2]
    taken = xla_convolutions.convolutions_as_dots(rewritten)
    rows = int(np.prod(out_shape[:-1]))
    assert taken == (k > xla_convolutions.FLOAT_MAX_K or rows >= xla_convolutions.DOT_MIN_ROWS)
    ops = [op.name for op in next(iter(rewritten.ops)).body.blocks.first.ops]
    assert ("stablehlo.convolution" in ops) != taken
    kernels = [op for op in next(iter(rewritten.ops)).body.blocks.first.ops
               if op.name == "stablehlo.constant" and tuple(shape_of(op.results[0].type)) == k_shape]
    assert len(kernels) == (0 if taken else 1)  # the kernel erased with its convolution
    (fn,) = xla.compile_module(module)
    assert fn.error is None, fn.error
    if taken and xla_dots.host_has_vnni():
        assert "stablehlo.convolution" not in fn.text and "xui8" in fn.text
    for x in inputs:
        (want,) = run(module, [x])
        (got,) = run(rewritten, [x])
        np.testing.assert_array_equal(got.results[0], want.results[0])
        np.testing.assert_array_equal(fn.run([x]).results[0], want.results[0])
