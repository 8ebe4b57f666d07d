"""scatter, select_and_scatter, sort, reduce / reduce_window with general bodies, while,
if, case and map: qcomp's interpreter against StableHLO's reference interpreter in
jaxlib, bit for bit, on random inputs (REFERENCE.md §4).

Each program is run on a few seeded random inputs; the index inputs of scatter include
repeated and out-of-bounds indices, the float inputs ties, NaN and signed zeros — except
where a comparator uses TOTALORDER: upstream's interpreter compares floats with IEEE
`<` whatever the comparison type (Ops.cpp compareOp), the spec and qcomp by the total
order, so the two agree only without NaN and -0.
"""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.registry import parse_module
from tests.interpreter.jax_oracle import AVAILABLE, REASON, eval_upstream

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=REASON)

SEEDS = range(4)


def _floats(rng, shape, dtype=np.float32, special=True):
    x = rng.integers(-4, 5, size=shape).astype(dtype) * dtype(0.5)
    flat = x.reshape(-1)
    if flat.size > 3 and special:
        flat[rng.integers(0, flat.size)] = np.nan
        flat[rng.integers(0, flat.size)] = -0.0
    return x


def _check(src: str, args: list[np.ndarray]) -> None:
    (r,) = run(parse_module(src), args, semantics="stablehlo")
    assert r.error is None, r.error.message
    want = eval_upstream(src, args)
    assert len(r.results) == len(want)
    for got, exp in zip(r.results, want):
        got = np.asarray(got)
        assert got.shape == exp.shape
        assert got.tobytes() == exp.astype(got.dtype).tobytes(), (got, exp)


SCATTER = """func.func @main(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>, %u: tensor<4x3xf32>) -> tensor<5x3xf32> {
  %r = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    BODY
  }) : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}"""

BODIES = {
    "add": "%s = stablehlo.add %a, %b : tensor<f32>\n    stablehlo.return %s : tensor<f32>",
    "replace": "stablehlo.return %b : tensor<f32>",
    "max": "%s = stablehlo.maximum %b, %a : tensor<f32>\n    stablehlo.return %s : tensor<f32>",
    "general": ("%c = stablehlo.constant dense<2.0> : tensor<f32>\n"
                "    %m = stablehlo.multiply %a, %c : tensor<f32>\n"
                "    %s = stablehlo.subtract %m, %b : tensor<f32>\n"
                "    stablehlo.return %s : tensor<f32>"),
    "per-element": ("%m = stablehlo.reshape %a : (tensor<f32>) -> tensor<f32>\n"
                    "    %s = stablehlo.subtract %m, %b : tensor<f32>\n"
                    "    stablehlo.return %s : tensor<f32>"),
}


@pytest.mark.parametrize("body", list(BODIES))
@pytest.mark.parametrize("seed", SEEDS)
def test_scatter_bodies(body, seed):
    rng = np.random.default_rng(seed)
    idx = rng.integers(-1, 6, size=(4, 1)).astype(np.int32)  # repeats, out of bounds
    _check(SCATTER.replace("BODY", BODIES[body]),
           [_floats(rng, (5, 3)), idx, _floats(rng, (4, 3))])


SCATTER_BATCHED = """func.func @main(%x: tensor<2x4x3xi32>, %i: tensor<2x5x2xi64>, %u: tensor<2x5x3xi32>, %y: tensor<2x4x3xf32>, %v: tensor<2x5x3xf32>) -> (tensor<2x4x3xi32>, tensor<2x4x3xf32>) {
  %r:2 = "stablehlo.scatter"(%x, %y, %i, %u, %v) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1, 2], index_vector_dim = 2>}> ({
  ^bb0(%a: tensor<i32>, %c: tensor<f32>, %b: tensor<i32>, %d: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    %t = stablehlo.multiply %c, %d : tensor<f32>
    stablehlo.return %s, %t : tensor<i32>, tensor<f32>
  }) : (tensor<2x4x3xi32>, tensor<2x4x3xf32>, tensor<2x5x2xi64>, tensor<2x5x3xi32>, tensor<2x5x3xf32>) -> (tensor<2x4x3xi32>, tensor<2x4x3xf32>)
  return %r#0, %r#1 : tensor<2x4x3xi32>, tensor<2x4x3xf32>
}"""


@pytest.mark.parametrize("seed", SEEDS)
def test_scatter_two_operands_with_batching_dims(seed):
    rng = np.random.default_rng(seed)
    idx = np.stack([rng.integers(0, 4, size=(2, 5)), rng.integers(0, 2, size=(2, 5))],
                   axis=-1).astype(np.int64)
    _check(SCATTER_BATCHED, [rng.integers(-9, 9, (2, 4, 3)).astype(np.int32), idx,
                             rng.integers(-9, 9, (2, 5, 3)).astype(np.int32),
                             _floats(rng, (2, 4, 3)), _floats(rng, (2, 5, 3))])


SELECT_AND_SCATTER = """func.func @main(%x: tensor<5x6xf32>, %s: tensor<3x3xf32>) -> tensor<5x6xf32> {
  %init = stablehlo.constant dense<0.5> : tensor<f32>
  %r = "stablehlo.select_and_scatter"(%x, %s, %init) <{padding = dense<[[1, 1], [0, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare DIRECTION, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<5x6xf32>, tensor<3x3xf32>, tensor<f32>) -> tensor<5x6xf32>
  return %r : tensor<5x6xf32>
}"""


@pytest.mark.parametrize("direction", ["GE", "LT"])
@pytest.mark.parametrize("seed", SEEDS)
def test_select_and_scatter(direction, seed):
    rng = np.random.default_rng(seed)
    _check(SELECT_AND_SCATTER.replace("DIRECTION", direction),
           [_floats(rng, (5, 6), special=False), rng.normal(size=(3, 3)).astype(np.float32)])


SORT = """func.func @main(%k: tensor<3x7xf32>, %v: tensor<3x7xi32>) -> (tensor<3x7xf32>, tensor<3x7xi32>) {
  %r:2 = "stablehlo.sort"(%k, %v) <{dimension = DIM : i64, is_stable = true}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    BODY
  }) : (tensor<3x7xf32>, tensor<3x7xi32>) -> (tensor<3x7xf32>, tensor<3x7xi32>)
  return %r#0, %r#1 : tensor<3x7xf32>, tensor<3x7xi32>
}"""

COMPARATORS = {
    "lt-total": ("%p = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> "
                 "tensor<i1>\n    stablehlo.return %p : tensor<i1>"),
    "gt-total": ("%p = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> "
                 "tensor<i1>\n    stablehlo.return %p : tensor<i1>"),
    "values-desc": ("%p = stablehlo.compare LT, %d, %c, SIGNED : (tensor<i32>, tensor<i32>) -> "
                    "tensor<i1>\n    stablehlo.return %p : tensor<i1>"),
    "lexicographic": (  # by value, then by key descending (the pairwise path)
        "%lt = stablehlo.compare LT, %c, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    %eq = stablehlo.compare EQ, %c, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
        "    %gt = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %and = stablehlo.and %eq, %gt : tensor<i1>\n"
        "    %or = stablehlo.or %lt, %and : tensor<i1>\n"
        "    stablehlo.return %or : tensor<i1>"),
}


@pytest.mark.parametrize("comparator", list(COMPARATORS))
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("seed", SEEDS[:2])
def test_sort(comparator, dim, seed):
    rng = np.random.default_rng(seed)
    src = SORT.replace("BODY", COMPARATORS[comparator]).replace("DIM", str(dim))
    _check(src, [_floats(rng, (3, 7), special=False), rng.integers(-3, 3, (3, 7)).astype(np.int32)])


ARGMAX = """func.func @main(%x: tensor<4x6xf32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %i = stablehlo.iota dim = 1 : tensor<4x6xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %r:2 = stablehlo.reduce(%x init: %ninf), (%i init: %zero) across dimensions = [1] : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
   reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>)  {
    %gt = stablehlo.compare GT, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %nan = stablehlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %pick = stablehlo.or %gt, %nan : tensor<i1>
    %eq = stablehlo.compare EQ, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %b, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %first = stablehlo.or %pick, %tie : tensor<i1>
    %v = stablehlo.select %pick, %a, %c : tensor<i1>, tensor<f32>
    %j = stablehlo.select %first, %b, %d : tensor<i1>, tensor<i32>
    stablehlo.return %v, %j : tensor<f32>, tensor<i32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi32>
}"""

CUMMAX_WINDOW = """func.func @main(%x: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %r = "stablehlo.reduce_window"(%x, %ninf) <{padding = dense<[[7, 0], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 8, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %h = stablehlo.constant dense<0.5> : tensor<f32>
    %s = stablehlo.multiply %a, %h : tensor<f32>
    %t = stablehlo.add %s, %b : tensor<f32>
    %m = stablehlo.maximum %t, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) : (tensor<8x3xf32>, tensor<f32>) -> tensor<8x3xf32>
  return %r : tensor<8x3xf32>
}"""


@pytest.mark.parametrize("seed", SEEDS)
def test_reduce_with_argmax_body(seed):
    _check(ARGMAX, [_floats(np.random.default_rng(seed), (4, 6))])


@pytest.mark.parametrize("seed", SEEDS)
def test_reduce_window_with_general_body(seed):
    _check(CUMMAX_WINDOW, [np.random.default_rng(seed).normal(size=(8, 3)).astype(np.float32)])


CONTROL = """func.func @main(%x: tensor<4xf32>, %n1: tensor<1xi64>, %k1: tensor<1xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %n = stablehlo.reshape %n1 : (tensor<1xi64>) -> tensor<i64>
  %k = stablehlo.reshape %k1 : (tensor<1xi32>) -> tensor<i32>
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %w:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i64>, tensor<4xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %j = stablehlo.add %i, %one : tensor<i64>
    %s = stablehlo.multiply %acc, %acc : tensor<4xf32>
    %h = stablehlo.sine %s : tensor<4xf32>
    stablehlo.return %j, %h : tensor<i64>, tensor<4xf32>
  }
  %b = stablehlo.compare GT, %n, %one : (tensor<i64>, tensor<i64>) -> tensor<i1>
  %f = "stablehlo.if"(%b) ({
    %e = stablehlo.exponential %x : tensor<4xf32>
    stablehlo.return %e : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  %c = "stablehlo.case"(%k) ({
    %e = stablehlo.negate %f : tensor<4xf32>
    stablehlo.return %e : tensor<4xf32>
  }, {
    %m = "stablehlo.map"(%x, %f) <{dimensions = array<i64: 0>}> ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>):
      %t = stablehlo.atan2 %p, %q : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %m : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %w#1, %f, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}"""


@pytest.mark.parametrize("n,k", [(0, 0), (3, 1), (2, 7), (1, -1)])
def test_while_if_case_map(n, k):
    x = np.random.default_rng(n).normal(size=4).astype(np.float32)
    _check(CONTROL, [x, np.array([n], np.int64), np.array([k], np.int32)])


PER_ELEMENT = """func.func @main(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3xf32>) {
  %m = "stablehlo.map"(%x, %y) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.reshape %a : (tensor<f32>) -> tensor<1xf32>
    %s = stablehlo.reshape %r : (tensor<1xf32>) -> tensor<f32>
    %t = stablehlo.subtract %s, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %z = stablehlo.constant dense<1.0> : tensor<f32>
  %d = stablehlo.reduce(%x init: %z) across dimensions = [1] : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %r = stablehlo.reshape %b : (tensor<f32>) -> tensor<1xf32>
    %s = stablehlo.reshape %r : (tensor<1xf32>) -> tensor<f32>
    %t = stablehlo.subtract %a, %s : tensor<f32>
    %h = stablehlo.constant dense<0.5> : tensor<f32>
    %u = stablehlo.multiply %t, %h : tensor<f32>
    stablehlo.return %u : tensor<f32>
  }
  return %m, %d : tensor<3x4xf32>, tensor<3xf32>
}"""


@pytest.mark.parametrize("seed", SEEDS[:2])
def test_bodies_run_per_element(seed):
    """Bodies with a non-elementwise op (reshape) run once per element: map, and a
    non-associative reduce body (order matters)."""
    rng = np.random.default_rng(seed)
    _check(PER_ELEMENT, [rng.normal(size=(3, 4)).astype(np.float32),
                         rng.normal(size=(3, 4)).astype(np.float32)])


def test_a_while_loop_stops_at_the_runs_iteration_limit():
    """`--verify-numerics` bounds each `while` (its random inputs can set a trip count of
    ~2**31): the run ends in a diagnostic at the loop, and without a limit it counts on."""
    from qcomp.interpreter.stablehlo_control_functions import WHILE_ITERATION_LIMIT

    module = parse_module("""
func.func @count(%n: tensor<i32>) -> tensor<i32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %m = %n) : tensor<i32>, tensor<i32>
   cond {
    %lt = stablehlo.compare LT, %i, %m : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %next = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %next, %m : tensor<i32>, tensor<i32>
  }
  return %r#0 : tensor<i32>
}""")
    token = WHILE_ITERATION_LIMIT.set(5)
    try:
        (ok,) = run(module, [np.int32(5)], entry="count")
        (stopped,) = run(module, [np.int32(6)], entry="count")
    finally:
        WHILE_ITERATION_LIMIT.reset(token)
    assert int(ok.results[0]) == 5
    assert stopped.error is not None and stopped.error.message == (
        "'stablehlo.while' ran 5 iterations without ending (the limit of this run)")
    (unlimited,) = run(module, [np.int32(6)], entry="count")
    assert int(unlimited.results[0]) == 6
