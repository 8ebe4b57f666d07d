"""Float reduce / reduce_window: term by term in the element type from the init value
under `stablehlo` semantics (as jaxlib's reference interpreter), float64 under `spec`."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.registry import parse_module
from qcomp.interpreter import run, semantics_matter

REDUCE = """func.func @main(%x: tensor<2x3xf32>) -> tensor<{out}f32> {{
  %i = stablehlo.constant dense<{init}> : tensor<f32>
  %r = stablehlo.reduce(%x init: %i) applies stablehlo.{op} across dimensions = {dims} : (tensor<2x3xf32>, tensor<f32>) -> tensor<{out}f32>
  func.return %r : tensor<{out}f32>
}}"""

BIG = 2.0 ** 24  # BIG + 1 rounds back to BIG in f32 (a tie, to even)


def reduce(sem, x, dims="[1]", out="2x", op="add", init="0.0"):
    (r,) = run(parse_module(REDUCE.format(dims=dims, out=out, op=op, init=init)), [x], semantics=sem)
    assert r.error is None, r.error.message
    return r.results[0]


def test_sum_rounds_each_step_in_f32_under_stablehlo():
    x = np.array([[BIG, 1, 1], [1, 1, BIG]], np.float32)
    assert reduce("stablehlo", x).tolist() == [BIG, BIG + 2]
    assert reduce("spec", x).tolist() == [BIG + 2, BIG + 2]


def test_init_value_is_the_first_term():
    x = np.array([[1, 1, 0], [0, 0, 0]], np.float32)
    # (BIG + 1) + 1 in f32 is BIG; BIG + (1 + 1) would be BIG + 2
    assert reduce("stablehlo", x, init=repr(BIG)).tolist() == [BIG, BIG]


@pytest.mark.parametrize("dims", ["[0, 1]", "[1, 0]"])
def test_reduced_positions_in_row_major_order_whatever_the_dimensions_order(dims):
    # row-major: BIG, 1, 1, -BIG, 1, 1 -> BIG, BIG, BIG, 0, 1, 2; column-major gives 4
    x = np.array([[BIG, 1, 1], [-BIG, 1, 1]], np.float32)
    assert reduce("stablehlo", x, dims=dims, out="").reshape(-1).tolist() == [2.0]


def test_product_rounds_each_step():
    a = 1.0 + 2.0 ** -12
    x = np.array([[a, a, 1.0 / a], [1, 1, 1]], np.float32)
    r = reduce("stablehlo", x, op="multiply", init="1.0")
    step = np.float32(np.float32(a) * np.float32(a))
    assert r[0] == np.float32(step * np.float32(1.0 / a))


WINDOW = """func.func @main(%x: tensor<1x4xf32>) -> tensor<1x2xf32> {
  %i = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3>, window_strides = array<i64: 1, 1>} : (tensor<1x4xf32>, tensor<f32>) -> tensor<1x2xf32>
  func.return %r : tensor<1x2xf32>
}"""


def test_reduce_window_sums_each_window_term_by_term():
    x = np.array([[BIG, 1, 1, BIG]], np.float32)
    (s,) = run(parse_module(WINDOW), [x], semantics="stablehlo")
    (f,) = run(parse_module(WINDOW), [x], semantics="spec")
    assert s.results[0].tolist() == [[BIG, BIG + 2]]
    assert f.results[0].tolist() == [[BIG + 2, BIG + 2]]


def test_semantics_matter_for_quantized_values_contractions_and_reductions():
    plain = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  %r = stablehlo.add %x, %x : tensor<2xf32>\n  func.return %r : tensor<2xf32>\n}"
    assert not semantics_matter(parse_module(plain))
    assert semantics_matter(parse_module(REDUCE.format(dims="[1]", out="2x", op="add", init="0.0")))
    quant = ("func.func @main(%x: tensor<2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x!quant.uniform<i8:f32, 0.5>> {\n"
             "  func.return %x : tensor<2x!quant.uniform<i8:f32, 0.5>>\n}")
    assert semantics_matter(parse_module(quant))


@pytest.mark.parametrize("dims, out", [("[1]", "2x"), ("[1, 0]", "")])
@pytest.mark.parametrize("op, init", [("add", "0.3"), ("multiply", "1.1")])
def test_stablehlo_reduce_matches_jaxlib(dims, out, op, init):
    from tests.interpreter.jax_oracle import AVAILABLE, REASON, eval_upstream

    if not AVAILABLE:
        pytest.skip(REASON)
    src = REDUCE.format(dims=dims, out=out, op=op, init=init)
    rng = np.random.default_rng(7)
    for _ in range(10):
        x = (rng.standard_normal((2, 3)) * 10.0 ** rng.integers(-3, 5, (2, 3))).astype(np.float32)
        ours = reduce("stablehlo", x, dims=dims, out=out, op=op, init=init)
        assert ours.view(np.uint32).tolist() == eval_upstream(src, [x])[0].view(np.uint32).tolist()


def test_empty_inputs_reduce_to_the_init_value_or_nothing():
    src = """func.func @main(%x: tensor<0x3xf32>, %y: tensor<2x0xf32>) -> (tensor<0xf32>, tensor<2xf32>) {
  %i = stablehlo.constant dense<1.5> : tensor<f32>
  %a = stablehlo.reduce(%x init: %i) applies stablehlo.add across dimensions = [1] : (tensor<0x3xf32>, tensor<f32>) -> tensor<0xf32>
  %b = stablehlo.reduce(%y init: %i) applies stablehlo.add across dimensions = [1] : (tensor<2x0xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %a, %b : tensor<0xf32>, tensor<2xf32>
}"""
    for sem in ("stablehlo", "spec"):
        (r,) = run(parse_module(src), [np.zeros((0, 3), np.float32), np.zeros((2, 0), np.float32)],
                   semantics=sem)
        assert r.error is None, r.error.message
        assert r.results[0].shape == (0,) and r.results[1].tolist() == [1.5, 1.5]
