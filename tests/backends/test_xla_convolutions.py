"""`qcomp.backends.xla_convolutions`: pointwise (1x1) int8 convolutions as dot_generals.
The rewritten program runs in qcomp's interpreter against the original (the reference),
and the whole preparation on XLA against the interpreter, on inputs at the ends of the
int8 range (the worst case of the sums) and random ones; results bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.backends import xla, xla_convolutions, xla_dots
from qcomp.interpreter import run
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
    assert xla_convolutions.pointwise_as_dots(rewritten) == 1
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
    assert xla_convolutions.pointwise_as_dots(module) == 0
