"""`xla_exact`'s rewrites as RewritePatterns: each step's count and the exact program
it leaves (the text the loops they replaced printed, byte for byte), the trailing
arguments in the order the walk first meets a constant's arithmetic user (not the
constants' own order) and their values. No XLA needed."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func

from qcomp.backends import xla_exact
from qcomp.ir import print_module
from qcomp.registry import make_context, parse_module


def _prepare(text: str, module_wide: bool) -> tuple[str, list[int | None], list[np.ndarray]]:
    m = parse_module(text, make_context())
    entry = next(op for op in m.ops if isinstance(op, func.FuncOp))
    counts = [xla_exact.spell_booleans(m), xla_exact.drop_identity_bitcasts(m),
              xla_exact.keep_zero_signs(m), xla_exact.widen_sub_byte_contractions(m)] if module_wide else []
    args = xla_exact._TrailingArgs(entry)
    counts += [xla_exact.hoist_float_constants(entry, args), xla_exact.fence(entry, args)]
    args.finish()
    return print_module(m), counts, args.values


def _module_wide_only(text: str) -> str:
    m = parse_module(text, make_context())
    for step in (xla_exact.spell_booleans, xla_exact.drop_identity_bitcasts,
                 xla_exact.keep_zero_signs, xla_exact.widen_sub_byte_contractions):
        step(m)
    return print_module(m)


EVERY_STEP = ("func.func @main(%x: tensor<4xf32>, %b: tensor<4xi1>, %p: tensor<4xi4>) "
              "-> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<i4>) {\n" + """\
  %c1 = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %c2 = stablehlo.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>
  %m = stablehlo.multiply %x, %c2 : tensor<4xf32>
  %a = stablehlo.add %m, %c1 : tensor<4xf32>
  %o = stablehlo.add %b, %b : tensor<4xi1>
  %s = stablehlo.sign %x : tensor<4xf32>
  %i = stablehlo.bitcast_convert %s : (tensor<4xf32>) -> tensor<4xf32>
  %d = stablehlo.dot_general %p, %p, contracting_dims = [0] x [0] : (tensor<4xi4>, tensor<4xi4>) -> tensor<i4>
  func.return %a, %o, %i, %d : tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<i4>
}
""")


def test_every_step_counts_its_rewrites_and_hoists_in_walk_order():
    text, counts, values = _prepare(EVERY_STEP, module_wide=True)
    assert counts == [1, 1, 1, 1, 2, 1]
    assert [v.dtype.name for v in values] == ["float32"] * 3
    assert [v.tolist() for v in values] == [[5.0, 6.0, 7.0, 8.0], [1.0, 2.0, 3.0, 4.0], -0.0]
    assert np.signbit(values[2])
    m = parse_module(EVERY_STEP, make_context())
    assert xla_exact.module_wide(m) == 4
    assert print_module(m) == _module_wide_only(EVERY_STEP)
    assert text == """\
module {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xi1>, %arg2: tensor<4xi4>, %arg3: tensor<4xf32>, \
%arg4: tensor<4xf32>, %arg5: tensor<f32>) -> (tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<i4>) {
    %0 = stablehlo.multiply %arg0, %arg3 : tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %arg5, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.add %0, %1 : tensor<4xf32>
    %3 = stablehlo.add %2, %arg4 : tensor<4xf32>
    %4 = stablehlo.or %arg1, %arg1 : tensor<4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<4xf32>
    %5 = stablehlo.compare EQ, %arg0, %cst : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %6 = stablehlo.sign %arg0 : tensor<4xf32>
    %7 = stablehlo.select %5, %arg0, %6 : tensor<4xi1>, tensor<4xf32>
    %8 = stablehlo.convert %arg2 : (tensor<4xi4>) -> tensor<4xi8>
    %9 = stablehlo.convert %arg2 : (tensor<4xi4>) -> tensor<4xi8>
    %10 = stablehlo.dot_general %8, %9, contracting_dims = [0] x [0] : (tensor<4xi8>, tensor<4xi8>) -> tensor<i8>
    %11 = stablehlo.convert %10 : (tensor<i8>) -> tensor<i4>
    return %3, %4, %7, %11 : tensor<4xf32>, tensor<4xi1>, tensor<4xf32>, tensor<i4>
  }
}
"""


DIVIDES = """func.func @main(%x: tensor<2x3xf32>, %s: tensor<f32>, %y: tensor<2x3xf64>) -> (tensor<2x3xf32>, tensor<2x3xf64>) {
  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
  %q = stablehlo.divide %x, %b : tensor<2x3xf32>
  %r = stablehlo.sqrt %x : tensor<2x3xf32>
  %t = stablehlo.divide %q, %r : tensor<2x3xf32>
  %e = stablehlo.exponential %y : tensor<2x3xf64>
  %u = stablehlo.divide %y, %e : tensor<2x3xf64>
  func.return %t, %u : tensor<2x3xf32>, tensor<2x3xf64>
}
"""


def test_divides_are_fenced_with_one_negative_zero_per_type():
    text, counts, values = _prepare(DIVIDES, module_wide=False)
    assert counts == [0, 3]
    assert [(v.dtype.name, v.shape, bool(np.signbit(v)), float(v)) for v in values] == [
        ("float32", (), True, 0.0), ("float64", (), True, 0.0)]
    assert text == """\
module {
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<f32>, %arg2: tensor<2x3xf64>, %arg3: tensor<f32>, \
%arg4: tensor<f64>) -> (tensor<2x3xf32>, tensor<2x3xf64>) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %1 = stablehlo.iota dim = 0 : tensor<6xf32>
    %2 = stablehlo.reshape %1 : (tensor<6xf32>) -> tensor<2x3xf32>
    %3 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<2x3xf32>
    %5 = stablehlo.add %0, %4 : tensor<2x3xf32>
    %6 = stablehlo.divide %arg0, %5 : tensor<2x3xf32>
    %7 = stablehlo.sqrt %arg0 : tensor<2x3xf32>
    %8 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %9 = stablehlo.add %7, %8 : tensor<2x3xf32>
    %10 = stablehlo.broadcast_in_dim %arg3, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %11 = stablehlo.add %6, %10 : tensor<2x3xf32>
    %12 = stablehlo.divide %11, %9 : tensor<2x3xf32>
    %13 = stablehlo.exponential %arg2 : tensor<2x3xf64>
    %14 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<f64>) -> tensor<2x3xf64>
    %15 = stablehlo.add %13, %14 : tensor<2x3xf64>
    %16 = stablehlo.divide %arg2, %15 : tensor<2x3xf64>
    return %12, %16 : tensor<2x3xf32>, tensor<2x3xf64>
  }
}
"""
