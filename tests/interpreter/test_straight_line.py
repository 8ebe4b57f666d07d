"""Straight-line block programs (`qcomp.interpreter.straight_line`): a prepared module's
second run executes each block's program (folded constants, integer kernels, the pad
and convolution kernels); its results equal the first run's (the interpreter functions,
op by op) bit for bit, dtype and shape, on edge values of every integer width; the
kernels are checked to be the ones running. Exact integer oracles (Python ints) for
division and shifts, jax for convolutions (`tests/interpreter/jax_oracle.py` tests the
op-by-op kernels against it)."""

from __future__ import annotations

import numpy as np
import pytest

import qcomp
from qcomp.dialects import stablehlo as sh
from qcomp.registry import make_context, parse_module

WIDTHS = [8, 16, 32, 64]


def edge_values(width: int, n: int, seed: int) -> np.ndarray:
    dt = np.dtype(f"int{width}")
    lo, hi = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
    edges = [lo, lo + 1, -(1 << (width - 2)), -3, -2, -1, 0, 1, 2, 3, hi - 1, hi]
    rng = np.random.default_rng(seed)
    vals = np.concatenate([np.array(edges, dt), rng.integers(lo, hi, n - len(edges), dtype=dt,
                                                             endpoint=True)])
    return rng.permutation(vals)


def run_twice(text: str, inputs: list[np.ndarray]):
    """(the first run's results, the second's, the handle's block programs)."""
    handle = qcomp.compile(parse_module(text, make_context()), backend="numpy")
    first = handle.run(inputs)
    second = handle.run(inputs)
    for a, b in zip(first, second, strict=True):
        assert a.error is None and b.error is None, (a.error, b.error)
        for x, y in zip(a.results, b.results, strict=True):
            assert x.dtype == y.dtype and x.shape == y.shape
            assert np.array_equal(x, y)
    return first[0].results, second[0].results, list(handle.preparation.programs.values())


def kernel_ops(programs) -> set[type]:
    """The op classes that ran through a kernel of the program."""
    return {type(step[1]) for p in programs for step in p.steps if step[0] is not None}


BINARY = {"add": sh.AddOp, "subtract": sh.SubtractOp, "multiply": sh.MultiplyOp,
          "and": sh.AndOp, "or": sh.OrOp, "xor": sh.XorOp, "maximum": sh.MaximumOp,
          "minimum": sh.MinimumOp}


@pytest.mark.parametrize("width", WIDTHS)
def test_integer_elementwise_programs_equal_the_interpreter(width):
    t = f"tensor<64xi{width}>"
    body = "\n".join(f"  %{n} = stablehlo.{n} %x, %y : {t}" for n in BINARY)
    names = ", ".join(f"%{n}" for n in BINARY)
    text = f"""func.func @main(%x: {t}, %y: {t}) -> ({", ".join([t] * (len(BINARY) + 6))}) {{
{body}
  %lo = stablehlo.constant dense<-5> : tensor<i{width}>
  %hi = stablehlo.constant dense<7> : tensor<i{width}>
  %cl = stablehlo.clamp %lo, %x, %hi : (tensor<i{width}>, {t}, tensor<i{width}>) -> {t}
  %ge = stablehlo.compare GE, %x, %y, SIGNED : ({t}, {t}) -> tensor<64xi1>
  %sel = stablehlo.select %ge, %x, %y : tensor<64xi1>, {t}
  %b = stablehlo.convert %ge : (tensor<64xi1>) -> {t}
  %w = stablehlo.convert %x : ({t}) -> tensor<64xi64>
  %n = stablehlo.convert %w : (tensor<64xi64>) -> tensor<64xi8>
  %nw = stablehlo.convert %n : (tensor<64xi8>) -> {t}
  %k = stablehlo.constant dense<{width - 1}> : tensor<i{width}>
  %kb = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<i{width}>) -> {t}
  %sra = stablehlo.shift_right_arithmetic %x, %kb : {t}
  %shl = stablehlo.shift_left %y, %kb : {t}
  return {names}, %cl, %sel, %b, %nw, %sra, %shl : {", ".join([t] * (len(BINARY) + 6))}
}}"""
    x, y = edge_values(width, 64, width), edge_values(width, 64, width + 1)
    _, got, programs = run_twice(text, [x, y])
    assert kernel_ops(programs) >= {*BINARY.values(), sh.ClampOp, sh.CompareOp, sh.SelectOp,
                                    sh.ConvertOp, sh.ShiftRightArithmeticOp, sh.ShiftLeftOp}
    xi, yi = x.astype(object), y.astype(object)
    assert [int(v) for v in got[-2]] == [int(v) >> (width - 1) for v in xi]
    mask = (1 << width) - 1
    wrapped = [((int(v) << (width - 1)) & mask) for v in yi]
    assert [int(v) & mask for v in got[-1]] == wrapped
    assert [int(v) for v in got[len(BINARY)]] == [min(max(int(v), -5), 7) for v in xi]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("k", [0, 1, 5])
def test_division_by_a_power_of_two_rounds_toward_zero(width, k):
    if k >= width - 1:
        pytest.skip("no such power of two")
    t = f"tensor<64xi{width}>"
    text = f"""func.func @main(%x: {t}) -> {t} {{
  %c = stablehlo.constant dense<{1 << k}> : tensor<i{width}>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i{width}>) -> {t}
  %q = stablehlo.divide %x, %b : {t}
  return %q : {t}
}}"""
    x = edge_values(width, 64, k)
    first, second, programs = run_twice(text, [x])
    assert sh.DivideOp in kernel_ops(programs)

    def trunc(a: int) -> int:
        q = abs(a) >> k
        return q if a >= 0 else -q
    assert [int(v) for v in second[0]] == [trunc(int(v)) for v in x]


def test_int64_min_divided_rounds_toward_zero_in_the_interpreter_too():
    """INT64_MIN has no int64 magnitude: the op-by-op kernel's quotient is exact too."""
    text = """func.func @main(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi64> {
  %q = stablehlo.divide %x, %y : tensor<4xi64>
  return %q : tensor<4xi64>
}"""
    lo = -(1 << 63)
    x = np.array([lo, lo, 5, lo], np.int64)
    y = np.array([1 << 31, lo, lo, -1], np.int64)
    first, _, _ = run_twice(text, [x, y])
    assert first[0].tolist() == [-(1 << 32), 1, 0, lo]


CONV = """func.func @main(%x: tensor<1x{h}x{h}x{c}xi8>) -> tensor<1x{oh}x{oh}x{o}xi32> {{
  %w = stablehlo.constant dense<{w}> : tensor<{kh}x{kh}x{i}x{o}xi8>
  %y = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [{s}, {s}], pad = [[{p}, {p}], [{p}, {p}]], rhs_dilate = [{d}, {d}]}} {{batch_group_count = 1 : i64, feature_group_count = {g} : i64}} : (tensor<1x{h}x{h}x{c}xi8>, tensor<{kh}x{kh}x{i}x{o}xi8>) -> tensor<1x{oh}x{oh}x{o}xi32>
  %z = stablehlo.constant dense<-128> : tensor<i8>
  %q = stablehlo.pad %x, %z, low = [0, 1, 0, 0], high = [0, {oh}, {oh}, 0], interior = [0, 0, 0, 0] : (tensor<1x{h}x{h}x{c}xi8>, tensor<i8>) -> tensor<1x{ph}x{pw}x{c}xi8>
  %r = stablehlo.slice %q [0:1, 0:{oh}, 0:{oh}, 0:1] : (tensor<1x{ph}x{pw}x{c}xi8>) -> tensor<1x{oh}x{oh}x1xi8>
  %e = stablehlo.convert %r : (tensor<1x{oh}x{oh}x1xi8>) -> tensor<1x{oh}x{oh}x1xi32>
  %f = stablehlo.broadcast_in_dim %e, dims = [0, 1, 2, 3] : (tensor<1x{oh}x{oh}x1xi32>) -> tensor<1x{oh}x{oh}x{o}xi32>
  %out = stablehlo.add %y, %f : tensor<1x{oh}x{oh}x{o}xi32>
  return %out : tensor<1x{oh}x{oh}x{o}xi32>
}}"""

CONVS = [  # (h, c, kh, o, groups, stride, pad, dilation)
    (6, 3, 3, 4, 1, 1, 0, 1), (7, 3, 3, 5, 1, 2, 1, 1), (6, 4, 1, 8, 1, 1, 0, 1),
    (7, 4, 1, 3, 1, 2, 0, 1), (8, 6, 3, 6, 6, 1, 1, 1), (9, 4, 3, 4, 4, 2, 1, 1),
    (9, 2, 2, 3, 1, 1, 2, 2), (8, 4, 3, 8, 2, 1, 1, 1),
]


@pytest.mark.parametrize("case", CONVS)
@pytest.mark.parametrize("big", [False, True])
def test_convolution_and_pad_kernels_equal_the_interpreter_and_jax(case, big):
    h, c, kh, o, g, s, p, d = case
    rng = np.random.default_rng(sum(case))
    i = c // g
    eff = (kh - 1) * d + 1
    oh = (h + 2 * p - eff) // s + 1
    lo, hi = (-128, 127) if big else (-3, 3)  # big: partial sums past float32's 2^24
    w = rng.integers(lo, hi, (kh, kh, i, o), endpoint=True).astype(np.int8)
    text = CONV.format(h=h, c=c, kh=kh, o=o, i=i, g=g, s=s, p=p, d=d, oh=oh, ph=h + 1 + oh,
                       pw=h + oh, w=_dense(w))
    x = rng.integers(-128, 127, (1, h, h, c), endpoint=True).astype(np.int8)
    _, (got,), programs = run_twice(text, [x])
    ops = kernel_ops(programs)
    assert sh.PadOp in ops and (sh.ConvolutionOp in ops or (g > 1 and i > 1))

    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    want = jax.lax.conv_general_dilated(
        x.astype(np.int64), w.astype(np.int64), (s, s), [(p, p), (p, p)], rhs_dilation=(d, d),
        dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=g)
    padded = np.pad(x, [(0, 0), (1, oh), (0, oh), (0, 0)], constant_values=-128)
    want = np.asarray(want) + padded[:, :oh, :oh, :1].astype(np.int64)
    assert np.array_equal(got, want.astype(np.int32))


def _dense(a: np.ndarray) -> str:
    return '"0x' + np.ascontiguousarray(a).tobytes().hex().upper() + '"'


def test_captured_values_checks_and_failures_each_run():
    """A nested region reads the block's values; a check records in every run; an op
    that fails when folded fails in every run, with its diagnostic."""
    text = """func.func @main(%x: tensor<4xi32>, %n: tensor<i64>) -> tensor<4xi32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %c = stablehlo.constant dense<3> : tensor<4xi32>
  %d = stablehlo.add %c, %c : tensor<4xi32>
  %w:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i64>, tensor<4xi32>
  cond {
    %t = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    %j = stablehlo.add %i, %one : tensor<i64>
    %s = stablehlo.multiply %acc, %d : tensor<4xi32>
    stablehlo.return %j, %s : tensor<i64>, tensor<4xi32>
  }
  check.expect_eq_const %d, dense<6> : tensor<4xi32>
  return %w#1 : tensor<4xi32>
}"""
    module = parse_module(text, make_context())
    handle = qcomp.compile(module, backend="numpy")
    x = np.array([1, -2, 3, 1 << 30], np.int32)
    runs = [handle.run([x, np.array(n, np.int64)])[0] for n in (3, 3, 0, 5)]
    for r, n in zip(runs, (3, 3, 0, 5)):
        assert r.error is None and len(r.checks) == 1 and r.checks[0].passed
        want = x.astype(np.int64) * 6 ** n
        assert np.array_equal(r.results[0], (want & 0xFFFFFFFF).astype(np.uint32).view(np.int32))
