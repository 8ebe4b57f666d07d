"""qcomp's interpreter on the dynamic, complex, linear-algebra and random ops against
upstream: StableHLO's reference interpreter (jaxlib) where it runs the op, bit for bit
unless the op's numerics are implementation-defined (fft: a few ulps), and jaxlib's
XLA for the ops the reference interpreter leaves to decompositions (batch norm,
cholesky, rng_bit_generator). Inputs are random, drawn per seed.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.registry import parse_module
from tests.interpreter.jax_oracle import AVAILABLE, REASON, eval_upstream, eval_xla
from tests.sampling import FULL

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=REASON)

SEEDS = range(6)


def _ours(src: str, args: list[np.ndarray]) -> list[np.ndarray]:
    (r,) = run(parse_module(src), list(args), semantics="stablehlo")
    assert r.error is None, r.error
    return r.results


def _same(src: str, args: list[np.ndarray], oracle=eval_upstream, bits: bool = False) -> None:
    """Same shapes, dtypes and bytes (`bits`: same bytes, for XLA's buffers of random
    bits, which it hands back unsigned)."""
    theirs = oracle(src, args)
    ours = _ours(src, args)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        assert a.itemsize == b.itemsize
        assert bits or a.dtype == b.dtype or a.dtype.kind == b.dtype.kind
        assert a.tobytes() == np.asarray(b, order="C").tobytes(), (a, b)


def _t(shape, dtype: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + dtype + ">"


@pytest.mark.parametrize("seed", SEEDS)
def test_dynamic_slice_and_update_clamp_starts(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=2))
    sizes = [int(rng.integers(0, d + 1)) for d in shape]
    x = rng.integers(-50, 50, size=shape).astype(np.int32)
    starts = [np.array(rng.integers(-3, 7), np.int64) for _ in shape]
    upd = rng.integers(-50, 50, size=sizes).astype(np.int32)
    src = f"""
func.func @main(%x: {_t(shape, 'i32')}, %u: {_t(sizes, 'i32')}, %i: tensor<i64>, %j: tensor<i64>) -> ({_t(sizes, 'i32')}, {_t(shape, 'i32')}) {{
  %0 = stablehlo.dynamic_slice %x, %i, %j, sizes = [{sizes[0]}, {sizes[1]}] : ({_t(shape, 'i32')}, tensor<i64>, tensor<i64>) -> {_t(sizes, 'i32')}
  %1 = stablehlo.dynamic_update_slice %x, %u, %i, %j : ({_t(shape, 'i32')}, {_t(sizes, 'i32')}, tensor<i64>, tensor<i64>) -> {_t(shape, 'i32')}
  return %0, %1 : {_t(sizes, 'i32')}, {_t(shape, 'i32')}
}}"""
    _same(src, [x, upd, *starts])


@pytest.mark.parametrize("seed", SEEDS)
def test_shape_operand_ops(seed):
    """dynamic_broadcast_in_dim, dynamic_reshape, dynamic_iota, dynamic_pad,
    real_dynamic_slice (against upstream's slice: its interpreter lacks the op),
    get_dimension_size with constant shape operands."""
    rng = np.random.default_rng(seed)
    a, b = (int(v) for v in rng.integers(1, 4, size=2))
    x = rng.standard_normal((a, b)).astype(np.float32)
    lo, hi, it = (rng.integers(-1, 3, size=2) for _ in range(3))
    it = np.abs(it)
    out = [d + lo[i] + max(d - 1, 0) * it[i] + hi[i] for i, d in enumerate((a, b))]
    start = [int(rng.integers(0, a)), int(rng.integers(0, b))]
    stride = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
    sl = [-(-(d - s) // st) for d, s, st in zip((a, b), start, stride)]
    out = [int(o) for o in out]
    if min(out) < 0:
        return
    src = f"""
func.func @main(%x: tensor<{a}x{b}xf32>, %v: tensor<f32>) -> (tensor<3x{a}x{b}xf32>, tensor<{b}x{a}xf32>, tensor<{a}x{b}xi32>, tensor<{out[0]}x{out[1]}xf32>, tensor<{sl[0]}x{sl[1]}xf32>, tensor<i32>) {{
  %s3 = stablehlo.constant dense<[3, {a}, {b}]> : tensor<3xi64>
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s3, dims = [1, 2] : (tensor<{a}x{b}xf32>, tensor<3xi64>) -> tensor<3x{a}x{b}xf32>
  %s2 = stablehlo.constant dense<[{b}, {a}]> : tensor<2xi32>
  %1 = stablehlo.dynamic_reshape %x, %s2 : (tensor<{a}x{b}xf32>, tensor<2xi32>) -> tensor<{b}x{a}xf32>
  %s4 = stablehlo.constant dense<[{a}, {b}]> : tensor<2xi64>
  %2 = stablehlo.dynamic_iota %s4, dim = 1 : (tensor<2xi64>) -> tensor<{a}x{b}xi32>
  %lo = stablehlo.constant dense<[{lo[0]}, {lo[1]}]> : tensor<2xi64>
  %hi = stablehlo.constant dense<[{hi[0]}, {hi[1]}]> : tensor<2xi64>
  %in = stablehlo.constant dense<[{it[0]}, {it[1]}]> : tensor<2xi64>
  %3 = stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (tensor<{a}x{b}xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<{out[0]}x{out[1]}xf32>
  %st = stablehlo.constant dense<[{start[0]}, {start[1]}]> : tensor<2xi64>
  %li = stablehlo.constant dense<[{a}, {b}]> : tensor<2xi64>
  %sd = stablehlo.constant dense<[{stride[0]}, {stride[1]}]> : tensor<2xi64>
  %4 = {{slice_op}}
  %5 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<{a}x{b}xf32>) -> tensor<i32>
  return %0, %1, %2, %3, %4, %5 : tensor<3x{a}x{b}xf32>, tensor<{b}x{a}xf32>, tensor<{a}x{b}xi32>, tensor<{out[0]}x{out[1]}xf32>, tensor<{sl[0]}x{sl[1]}xf32>, tensor<i32>
}}"""
    ours = src.replace("{slice_op}", f"stablehlo.real_dynamic_slice %x, %st, %li, %sd : "
                       f"(tensor<{a}x{b}xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> "
                       f"tensor<{sl[0]}x{sl[1]}xf32>")
    # upstream's interpreter has no real_dynamic_slice: it runs the slice it means
    theirs = src.replace("{slice_op}", f"stablehlo.slice %x [{start[0]}:{a}:{stride[0]}, "
                         f"{start[1]}:{b}:{stride[1]}] : (tensor<{a}x{b}xf32>) -> "
                         f"tensor<{sl[0]}x{sl[1]}xf32>")
    args = [x, np.array(rng.standard_normal(), np.float32)]
    for a_, b_ in zip(_ours(ours, args), eval_upstream(theirs, args)):
        assert a_.tobytes() == b_.tobytes() and a_.shape == b_.shape


@pytest.mark.parametrize("seed", SEEDS)
def test_dynamic_gather_and_conv(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-9, 9, size=(5, 4)).astype(np.int64)
    idx = rng.integers(-2, 6, size=(3, 1)).astype(np.int64)
    lhs = rng.integers(-5, 5, size=(1, 7, 2)).astype(np.int64)
    k = rng.integers(-3, 3, size=(3, 2, 2)).astype(np.int64)
    p0, p1, stride = int(rng.integers(0, 3)), int(rng.integers(0, 3)), int(rng.integers(1, 3))
    n = (7 + p0 + p1 - 3) // stride + 1
    src = f"""
func.func @main(%x: tensor<5x4xi64>, %i: tensor<3x1xi64>, %l: tensor<1x7x2xi64>, %k: tensor<3x2x2xi64>) -> (tensor<3x2x4xi64>, tensor<1x{n}x2xi64>) {{
  %ss = stablehlo.constant dense<[2, 4]> : tensor<2xi64>
  %0 = "stablehlo.dynamic_gather"(%x, %i, %ss) {{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0], index_vector_dim = 1>}} : (tensor<5x4xi64>, tensor<3x1xi64>, tensor<2xi64>) -> tensor<3x2x4xi64>
  %p = stablehlo.constant dense<[[{p0}, {p1}]]> : tensor<1x2xi64>
  %1 = "stablehlo.dynamic_conv"(%l, %k, %p) {{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<[b, 0, f]x[0, i, o]->[b, 0, f]>, feature_group_count = 1 : i64, window_strides = array<i64: {stride}>}} : (tensor<1x7x2xi64>, tensor<3x2x2xi64>, tensor<1x2xi64>) -> tensor<1x{n}x2xi64>
  return %0, %1 : tensor<3x2x4xi64>, tensor<1x{n}x2xi64>
}}"""
    _same(src, [x, idx, lhs, k])


@pytest.mark.parametrize("seed", SEEDS)
def test_complex_elementwise(seed):
    """complex / real / imag / is_finite / reverse, and complex in maximum, minimum,
    atan2, compare, convert (jaxlib's Python API passes no complex arrays: the
    program builds its complex values and returns their parts)."""
    rng = np.random.default_rng(seed)
    parts = [rng.choice([0.0, -0.0, 1.5, -2.0, np.inf, np.nan, 3.25], size=6),
             rng.choice([0.0, -0.0, 1.5, -2.0, np.inf, 0.5], size=6),
             rng.choice([0.0, 1.5, -2.0], size=6), rng.choice([0.0, 1.5, 2.5], size=6)]
    c, f = "tensor<6xcomplex<f64>>", "tensor<6xf64>"
    complex_results = ["%3", "%4", "%5", "%6"]
    split = "\n".join(f"  %re{i} = stablehlo.real {v} : ({c}) -> {f}\n"
                       f"  %im{i} = stablehlo.imag {v} : ({c}) -> {f}"
                       for i, v in enumerate(complex_results))
    outs = ", ".join(f"%re{i}, %im{i}" for i in range(4))
    src = f"""
func.func @main(%re: {f}, %im: {f}, %wr: {f}, %wi: {f}) -> ({", ".join([f] * 10)}, tensor<6xi1>, tensor<6xi1>, tensor<6xf32>, tensor<6xi32>) {{
  %z = stablehlo.complex %re, %im : {c}
  %w = stablehlo.complex %wr, %wi : {c}
  %0 = stablehlo.real %z : ({c}) -> {f}
  %1 = stablehlo.imag %z : ({c}) -> {f}
  %2 = stablehlo.is_finite %re : ({f}) -> tensor<6xi1>
  %3 = stablehlo.reverse %z, dims = [0] : {c}
  %4 = stablehlo.maximum %z, %w : {c}
  %5 = stablehlo.minimum %z, %w : {c}
  %6 = stablehlo.atan2 %w, %w : {c}
  %7 = stablehlo.compare EQ, %z, %w, FLOAT : ({c}, {c}) -> tensor<6xi1>
  %8 = stablehlo.convert %w : ({c}) -> tensor<6xf32>
  %9 = stablehlo.convert %w : ({c}) -> tensor<6xi32>
{split}
  return %0, %1, {outs}, %2, %7, %8, %9 : {", ".join([f] * 10)}, tensor<6xi1>, tensor<6xi1>, tensor<6xf32>, tensor<6xi32>
}}"""
    args = [p.astype(np.float64) for p in parts]
    theirs, ours = eval_upstream(src, args), _ours(src, args)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if i in (8, 9):  # atan2: log / sqrt of complex, libm's last bits
            np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)
            continue
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", SEEDS)
def test_bit_ops(seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(-2**31, 2**31, size=8, dtype=np.int64).astype(np.int32)
    u = rng.integers(0, 2**16, size=8, dtype=np.int64).astype(np.uint16)
    b = rng.integers(0, 2, size=64).astype(np.bool_)
    src = """
func.func @main(%x: tensor<8xi32>, %u: tensor<8xui16>, %b: tensor<64xi1>) -> (tensor<8xi32>, tensor<8xi32>, tensor<8xui16>, tensor<i64>, tensor<64xi1>) {
  %0 = stablehlo.popcnt %x : tensor<8xi32>
  %1 = stablehlo.count_leading_zeros %x : tensor<8xi32>
  %2 = stablehlo.count_leading_zeros %u : tensor<8xui16>
  %3 = stablehlo.bitcast_convert %b : (tensor<64xi1>) -> tensor<i64>
  %4 = stablehlo.bitcast_convert %3 : (tensor<i64>) -> tensor<64xi1>
  return %0, %1, %2, %3, %4 : tensor<8xi32>, tensor<8xi32>, tensor<8xui16>, tensor<i64>, tensor<64xi1>
}"""
    _same(src, [x, u, b])


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["FFT", "IFFT", "RFFT", "IRFFT"])
def test_fft(seed, kind):
    """complex<f64> (upstream's interpreter aborts on complex<f32> fft) and powers of
    two, within 1e-13 of the largest magnitude: its radix-2 steps and NumPy's FFT
    round differently."""
    rng = np.random.default_rng(seed)
    n = int(rng.choice([1, 2, 4, 8]))  # upstream's radix-2 steps need powers of two
    real_in = (3, 4, n)
    complex_in = real_in if kind in ("FFT", "IFFT") else (3, 4, n // 2 + 1)
    out = complex_in if kind in ("FFT", "IFFT") else (3, 4, n // 2 + 1) if kind == "RFFT" else real_in
    f_in, c_in = _t(real_in, "f64"), _t(complex_in, "complex<f64>")
    if kind == "RFFT":
        args = [rng.standard_normal(real_in).astype(np.float64)]
        head, it = f"%x: {f_in}", f_in
        make = ""
    else:
        args = [rng.standard_normal(complex_in).astype(np.float64) for _ in range(2)]
        p = _t(complex_in, "f64")
        head, it = f"%re: {p}, %im: {p}", c_in
        make = f"%x = stablehlo.complex %re, %im : {c_in}"
    if kind == "IRFFT":
        ot, rets, types = _t(out, "f64"), "%0", _t(out, "f64")
        split = ""
    else:
        ot, f_out = _t(out, "complex<f64>"), _t(out, "f64")
        split = (f"%r = stablehlo.real %0 : ({ot}) -> {f_out}\n"
                 f"  %i = stablehlo.imag %0 : ({ot}) -> {f_out}")
        rets, types = "%r, %i", f"{f_out}, {f_out}"
    src = f"""
func.func @main({head}) -> ({types}) {{
  {make}
  %0 = stablehlo.fft %x, type = {kind}, length = [4, {n}] : ({it}) -> {ot}
  {split}
  return {rets} : {types}
}}"""
    theirs, ours = eval_upstream(src, args), _ours(src, args)
    scale = max(max(float(np.max(np.abs(t))) for t in theirs), 1.0)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-13 * scale)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("left_side", [True, False])
def test_triangular_solve_bit_exact(seed, left_side):
    """Unbatched (upstream's interpreter reads the diagonal of a batched `a` at an
    index without its batch dimensions and aborts) and real (it crashes conjugating
    real values for ADJOINT; the complex test below has ADJOINT)."""
    rng = np.random.default_rng(seed)
    n, m = 4, 3
    a = (rng.standard_normal((n, n)) + 4 * np.eye(n)).astype(np.float32)
    b = rng.standard_normal((n, m) if left_side else (m, n)).astype(np.float32)
    lower = bool(rng.integers(0, 2))
    unit = bool(rng.integers(0, 2))
    trans = ["NO_TRANSPOSE", "TRANSPOSE"][int(rng.integers(0, 2))]
    bt = _t(b.shape, "f32")
    src = f"""
func.func @main(%a: tensor<{n}x{n}xf32>, %b: {bt}) -> {bt} {{
  %0 = "stablehlo.triangular_solve"(%a, %b) {{left_side = {str(left_side).lower()}, lower = {str(lower).lower()}, transpose_a = #stablehlo<transpose {trans}>, unit_diagonal = {str(unit).lower()}}} : (tensor<{n}x{n}xf32>, {bt}) -> {bt}
  return %0 : {bt}
}}"""
    _same(src, [a, b])


@pytest.mark.parametrize("seed", SEEDS)
def test_triangular_solve_complex_adjoint(seed):
    rng = np.random.default_rng(seed)
    parts = [rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 3)),
             rng.standard_normal((3, 2)), rng.standard_normal((3, 2))]
    c, cb = "tensor<3x3xcomplex<f64>>", "tensor<3x2xcomplex<f64>>"
    src = f"""
func.func @main(%ar: tensor<3x3xf64>, %ai: tensor<3x3xf64>, %br: tensor<3x2xf64>, %bi: tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x2xf64>) {{
  %a = stablehlo.complex %ar, %ai : {c}
  %b = stablehlo.complex %br, %bi : {cb}
  %x = "stablehlo.triangular_solve"(%a, %b) {{left_side = true, lower = true, transpose_a = #stablehlo<transpose ADJOINT>, unit_diagonal = false}} : ({c}, {cb}) -> {cb}
  %re = stablehlo.real %x : ({cb}) -> tensor<3x2xf64>
  %im = stablehlo.imag %x : ({cb}) -> tensor<3x2xf64>
  return %re, %im : tensor<3x2xf64>, tensor<3x2xf64>
}}"""
    _same(src, parts)


def test_triangular_solve_batched():
    """Batched: each matrix solved as the unbatched op solves it (qcomp's own results,
    per batch element, the upstream-checked path above)."""
    rng = np.random.default_rng(7)
    a = (rng.standard_normal((3, 4, 4)) + 4 * np.eye(4)).astype(np.float32)
    b = rng.standard_normal((3, 4, 2)).astype(np.float32)
    one = """
func.func @main(%a: tensor<{s}4x4xf32>, %b: tensor<{s}4x2xf32>) -> tensor<{s}4x2xf32> {{
  %0 = "stablehlo.triangular_solve"(%a, %b) {{left_side = true, lower = false, transpose_a = #stablehlo<transpose TRANSPOSE>, unit_diagonal = false}} : (tensor<{s}4x4xf32>, tensor<{s}4x2xf32>) -> tensor<{s}4x2xf32>
  return %0 : tensor<{s}4x2xf32>
}}"""
    (batched,) = _ours(one.format(s="3x"), [a, b])
    for k in range(3):
        (single,) = eval_upstream(one.format(s=""), [a[k], b[k]])
        assert batched[k].tobytes() == single.tobytes()


@pytest.mark.parametrize("seed", SEEDS)
def test_batch_norm_and_cholesky_against_xla(seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    g = rng.standard_normal((2, 3, 4)).astype(np.float32)
    s, o = rng.standard_normal(3).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    m = rng.standard_normal((2, 3, 3))
    spd = (m @ np.swapaxes(m, -1, -2) + 3 * np.eye(3)).astype(np.float32)
    src = """
func.func @main(%x: tensor<2x3x4xf32>, %g: tensor<2x3x4xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %a: tensor<2x3x3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>) {
  %t:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %v = stablehlo.abs %o : tensor<3xf32>
  %d:3 = "stablehlo.batch_norm_grad"(%x, %s, %t#1, %v, %g) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %l = stablehlo.cholesky %a, lower = true : tensor<2x3x3xf32>
  %u = stablehlo.cholesky %a : tensor<2x3x3xf32>
  return %t#0, %t#1, %t#2, %d#0, %d#1, %d#2, %l, %u : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x3xf32>, tensor<2x3x3xf32>
}"""
    args = [x, g, s, o, spd]
    theirs, ours = eval_xla(src, args), _ours(src, args)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-5)


RNG_ALGORITHMS = ["THREE_FRY", "PHILOX", "DEFAULT"]
RNG_OUTPUTS = ["ui32", "ui64", "ui8", "i32", "f32", "i16"]
RNG_SHAPES = [(), (5,), (3, 4), (2, 3, 5), (7, 1, 3)]


def _rng_case(algorithm: str, out: str) -> tuple[np.ndarray, list[tuple[int, ...]]]:
    """The state and the output shapes of one (algorithm, output type): in CI two of the
    shapes, in turn so every shape runs with every algorithm (QCOMP_FULL=1: every shape)."""
    rng = np.random.default_rng(hash((algorithm, out)) % 2**32)
    words = 3 if algorithm == "PHILOX" and out == "ui64" else 2
    state = rng.integers(0, 2**63, size=words, dtype=np.uint64)
    k = RNG_OUTPUTS.index(out)
    return state, RNG_SHAPES if FULL else [RNG_SHAPES[k % 5], RNG_SHAPES[(k + 3) % 5]]


def _rng_program(cases: list[tuple[str, str]]) -> str:
    """`@main` taking one state per (algorithm, output type) of `cases` and returning,
    case after case, each of its shapes' (new state, bits)."""
    args, ops, types, results = [], [], [], []
    for c, (algorithm, out) in enumerate(cases):
        state, shapes = _rng_case(algorithm, out)
        st = f"tensor<{state.size}xui64>"
        args.append(f"%s{c}: {st}")
        for n, shape in enumerate(shapes):
            ops.append(f"  %r{c}_{n}:2 = stablehlo.rng_bit_generator %s{c}, algorithm = "
                       f"{algorithm} : ({st}) -> ({st}, {_t(shape, out)})")
            types += [st, _t(shape, out)]
            results.append(f"%r{c}_{n}#0, %r{c}_{n}#1")
    return (f"func.func @main({', '.join(args)}) -> ({', '.join(types)}) {{\n"
            + "\n".join(ops) + f"\n  return {', '.join(results)} : {', '.join(types)}\n}}")


RNG_CASES = [(a, o) for a in RNG_ALGORITHMS for o in RNG_OUTPUTS]


@functools.cache
def _rng_on_xla() -> dict[tuple[str, str], list[np.ndarray]]:
    """XLA's results for every (algorithm, output type), from one program of all of them
    (one XLA compile for the 18 tests, not one each: ~0.3 CPU-s a compile of its own,
    the cases' ops are independent, each reads its own state argument)."""
    outs = eval_xla(_rng_program(RNG_CASES), [_rng_case(a, o)[0] for a, o in RNG_CASES])
    by_case, pos = {}, 0
    for case in RNG_CASES:
        n = 2 * len(_rng_case(*case)[1])
        by_case[case], pos = outs[pos:pos + n], pos + n
    assert pos == len(outs)
    return by_case


@pytest.mark.parametrize("algorithm", RNG_ALGORITHMS)
@pytest.mark.parametrize("out", RNG_OUTPUTS)
def test_rng_bit_generator_bit_exact_with_xla(algorithm, out):
    """Each (algorithm, output type): the interpreter on a program of its shapes' ops
    (each reads the same state) against XLA's run of those ops (`_rng_on_xla`: every
    case's ops in one program, compiled once)."""
    state, _ = _rng_case(algorithm, out)
    _same(_rng_program([(algorithm, out)]), [state],
          oracle=lambda src, args: _rng_on_xla()[algorithm, out], bits=True)


COMPLEX_UNARY = ["abs", "sqrt", "rsqrt", "exponential", "exponential_minus_one", "log",
                 "log_plus_one", "sine", "cosine", "tan", "tanh", "logistic", "cbrt", "sign",
                 "negate"]
COMPLEX_BINARY = ["add", "subtract", "multiply", "divide", "power", "atan2"]


@pytest.mark.parametrize("element", ["f32", "f64"])
@pytest.mark.parametrize("op", COMPLEX_UNARY + COMPLEX_BINARY)
def test_complex_arithmetic_bit_exact(op, element):
    """Every complex elementwise op as upstream computes it: its formulas, each step
    rounded where its Element arithmetic rounds (cbrt on complex<f64>: within 2 ulps,
    its compiled pow/sin/cos sequence is not reproduced exactly)."""
    n = 300
    rng = np.random.default_rng(len(op))
    dt = np.float64 if element == "f64" else np.float32
    parts = [(rng.standard_normal(n) * 10.0 ** rng.integers(-2, 2, n)).astype(dt)
             for _ in range(4)]
    for p in parts:
        p[:12] = rng.choice(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0], dt), 12)
    c, f = f"tensor<{n}xcomplex<{element}>>", f"tensor<{n}x{element}>"
    if op in COMPLEX_BINARY:
        body = f"%r = stablehlo.{op} %x, %y : {c}"
    elif op == "abs":
        body = (f"%m = stablehlo.abs %x : ({c}) -> {f}\n  %z = stablehlo.constant dense<0.0> : {f}\n"
                f"  %r = stablehlo.complex %m, %z : {c}")
    else:
        body = f"%r = stablehlo.{op} %x : {c}"
    src = f"""
func.func @main(%a: {f}, %b: {f}, %c: {f}, %d: {f}) -> ({f}, {f}) {{
  %x = stablehlo.complex %a, %b : {c}
  %y = stablehlo.complex %c, %d : {c}
  {body}
  %re = stablehlo.real %r : ({c}) -> {f}
  %im = stablehlo.imag %r : ({c}) -> {f}
  return %re, %im : {f}, {f}
}}"""
    theirs, ours = eval_upstream(src, parts), _ours(src, parts)
    for a, b in zip(ours, theirs):
        if op == "cbrt" and element == "f64":
            np.testing.assert_array_max_ulp(a, b, maxulp=2)
            continue
        np.testing.assert_array_equal(a, b)
