"""The block programs' quantized kernels under `--semantics spec`
(`qcomp.interpreter.quantized_kernels`): uniform_quantize, dot_general and convolution
by constant weights, uniform_dequantize. A prepared module's second run executes them;
its results equal the first run's (the interpreter functions) bit for bit, and both
equal an exact integer NumPy oracle written here from the spec's formulas (int64 sums,
float64 rescale): on edge values (saturating, NaN and infinite inputs, ties, rows and
columns of the largest magnitudes) and with a K whose partial sums float32 cannot hold
(the kernels must then sum in float64); whole and in two halves on two threads."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from qcomp.dialects import stablehlo as sh
from qcomp.interpreter import quantized_kernels
from tests.interpreter.diff_programs import QType, tensor
from tests.interpreter.test_straight_line import kernel_ops, run_twice


@pytest.fixture(autouse=True, params=["whole", "halves"])
def halves(request, monkeypatch):
    """Each test twice: results computed whole, and in two halves on two threads (every
    result large enough; `quantized_kernels.in_halves`)."""
    if request.param == "halves":
        monkeypatch.setattr(quantized_kernels, "HALVES_MIN_SIZE", 1)


def _hex(a: np.ndarray) -> str:
    return '"0x' + np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes().hex().upper() + '"'


def _program(x_shape, w: np.ndarray, qx: QType, qw: QType, qo: QType, out_shape, op: str) -> str:
    xt, wt, ot = tensor(x_shape, qx.text()), tensor(w.shape, qw.text()), tensor(out_shape, qo.text())
    f32x, f32o = tensor(x_shape, "f32"), tensor(out_shape, "f32")
    st = tensor(out_shape, qo.container_ir())
    return "\n".join([
        f"func.func @main(%x: {f32x}) -> ({f32o}, {st}) {{",
        f'  %w = "stablehlo.constant"() <{{value = dense<{_hex(w)}> : '
        f"{tensor(w.shape, qw.container_ir())}}}> : () -> {wt}",
        f"  %q = stablehlo.uniform_quantize %x : ({f32x}) -> {xt}",
        f"  %r = {op} : ({xt}, {wt}) -> {ot}",
        f"  %d = stablehlo.uniform_dequantize %r : ({ot}) -> {f32o}",
        f"  %s = stablehlo.bitcast_convert %r : ({ot}) -> {st}",
        f"  func.return %d, %s : {f32o}, {st}",
        "}"])


# -- the oracle: the spec's formulas, exact integers in int64 ------------------------------

def quantize(x: np.ndarray, q: QType) -> np.ndarray:
    """round_half_to_even(clamp(x / f32(s) + f32(z))) in float32; NaN -> 0 (then clamped)."""
    lo, hi = q.range()
    with np.errstate(all="ignore"):
        v = x / np.float32(q.scales[0]) + np.float32(q.zero_points[0])
    v = np.rint(np.clip(v, np.float32(lo), np.float32(hi)))
    return np.clip(np.where(np.isnan(v), 0, v), lo, hi).astype(np.int64)


def rescale(acc: np.ndarray, sl: float, sr: np.ndarray, qo: QType, axis: int) -> np.ndarray:
    """clamp(rint(f64(acc) * (s_l * s_r) / s_o + z_o)) in float64, per-axis along `axis`."""
    shape = [1] * acc.ndim
    shape[axis] = -1
    so = np.asarray(qo.scales, np.float64)
    zo = np.asarray(qo.zero_points, np.float64)
    if qo.axis is not None:
        so, zo = so.reshape(shape), zo.reshape(shape)
    real = acc.astype(np.float64) * (np.float64(sl) * np.asarray(sr, np.float64).reshape(
        shape if np.size(sr) > 1 else ()))
    lo, hi = qo.range()
    return np.clip(np.rint(real / so + zo), lo, hi).astype(np.int64)


def dequantize(q: np.ndarray, qo: QType, axis: int) -> np.ndarray:
    shape = [1] * q.ndim
    shape[axis] = -1
    so = np.asarray(qo.scales, np.float32)
    zo = np.asarray(qo.zero_points, np.int64)
    if qo.axis is not None:
        so, zo = so.reshape(shape), zo.reshape(shape)
    return (q - zo).astype(np.float32) * so


def edge_input(shape, qx: QType, seed: int) -> np.ndarray:
    """Random values over the storage range and beyond, with ties, NaN, infinities, a
    row of the largest positive and one of the largest negative values."""
    rng = np.random.default_rng(seed)
    lo, hi = qx.range()
    s, z = qx.scales[0], qx.zero_points[0]
    x = ((rng.integers(lo, hi, shape, endpoint=True) - z + rng.choice([0.0, 0.5, -0.5, 0.25], shape))
         * s).astype(np.float32)
    flat = x.reshape(-1, shape[-1])
    flat[0] = 1e30
    flat[-1] = -1e30
    specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 2.5 * s], np.float32)
    flat[1, :len(specials)] = specials[:flat.shape[1]]
    return x


def edge_weights(shape, qw: QType, seed: int, out_axis: int) -> np.ndarray:
    """Random weights of the storage range; the first output channel all the largest
    odd magnitude (partial sums reach K * 127 * max|lhs|, odd)."""
    rng = np.random.default_rng(seed)
    lo, hi = qw.range()
    w = rng.integers(lo, hi, shape, endpoint=True)
    first = [slice(None)] * len(shape)
    first[out_axis] = 0
    w[tuple(first)] = hi if hi % 2 else hi - 1
    return w.astype(qw.np_storage())


def check(text, x, expect_q, qo, axis, kernels):
    first, second, programs = run_twice(text, [x])
    assert kernel_ops(programs) >= kernels
    (d1, s1), (d2, s2) = first, second
    assert s2.astype(np.int64).tolist() == expect_q.tolist()
    assert d2.tobytes() == dequantize(expect_q, qo, axis).tobytes()
    assert d1.tobytes() == d2.tobytes() and s1.tobytes() == s2.tobytes()


EXACT = None


def exact_result(qx: QType, sw: tuple[float, ...], axis: int) -> QType:
    """i32 results whose scales are s_l * s_r: the result storage is the sum itself."""
    scales = tuple(qx.scales[0] * v for v in sw)
    return QType("i32", scales, (0,) * len(scales), axis if len(scales) > 1 else None)


DOT_CASES = [
    # (m, k, n, lhs type, rhs per-axis, rhs zero point, result type)
    (6, 7, 5, QType("i8", (0.03,), (3,)), False, 0, QType("i8", (0.5,), (-2,))),
    (6, 7, 5, QType("i8", (0.03,), (-128,)), True, 0, QType("i8", (0.05,), (9,))),
    (4, 1024, 3, QType("i8", (0.03,), (0,)), True, 0, QType("i8", (0.7,), (1,))),  # f32 at its limit
    # K odd: K * 127 * 127 is odd and above 2^24, so float32 cannot even hold the sum
    # (EXACT: i32 results scaled by s_l * s_r, so each result is the integer sum itself)
    (4, 2047, 3, QType("i8", (0.03,), (5,)), True, 0, EXACT),  # needs f64
    (4, 2047, 3, QType("i8", (0.03,), (0,)), False, -7, EXACT),
    (3, 300, 4, QType("i16", (0.001,), (-300,)), True, 0, QType("i32", (0.0001,) * 4, (0,) * 4, 1)),
]


@pytest.mark.parametrize("case", range(len(DOT_CASES)))
def test_quantized_dot_kernel_equals_the_interpreter_and_exact_integers(case):
    m, k, n, qx, per_axis, zw, qo = DOT_CASES[case]
    rng = np.random.default_rng(case)
    sw = tuple(float(v) for v in rng.uniform(0.002, 0.004, n)) if per_axis else (0.0031,)
    qw = QType("i8", sw, (0,) * n, 1) if per_axis else QType("i8", sw, (zw,))
    w = edge_weights((k, n), qw, case, 1)
    qo = qo or exact_result(qx, sw, 1)
    x = edge_input((m, k), qx, case)
    op = "stablehlo.dot_general %q, %w, contracting_dims = [1] x [0]"
    text = _program((m, k), w, qx, qw, qo, (m, n), op)
    acc = (quantize(x, qx) - qx.zero_points[0]) @ (w.astype(np.int64) - zw)
    expect = rescale(acc, qx.scales[0], np.asarray(sw), qo, 1)
    check(text, x, expect, qo, 1, {sh.UniformQuantizeOp, sh.DotGeneralOp, sh.UniformDequantizeOp})


def test_batched_quantized_dot_kernel():
    """Batch dimensions, a 3-D lhs and the rhs's per-axis dimension in the middle."""
    qx, qo = QType("i8", (0.02,), (4,)), QType("i8", (0.4,), (-3,))
    sw = (0.003, 0.002, 0.0025)
    qw = QType("i8", sw, (0, 0, 0), 1)
    x = edge_input((2, 5, 9), qx, 7)
    w = edge_weights((2, 3, 9), qw, 7, 1)
    op = ("stablehlo.dot_general %q, %w, batching_dims = [0] x [0], "
          "contracting_dims = [2] x [2]")
    text = _program((2, 5, 9), w, qx, qw, qo, (2, 5, 3), op)
    acc = np.einsum("bmk,bnk->bmn", quantize(x, qx) - 4, w.astype(np.int64))
    expect = rescale(acc, 0.02, np.asarray(sw), qo, 2)
    check(text, x, expect, qo, 2, {sh.DotGeneralOp})


CONV_CASES = [
    # (h, w, c, o, lhs type, rhs per-axis, rhs zero point, result type)
    (6, 5, 3, 4, QType("i8", (0.03,), (3,)), True, 0, QType("i8", (0.5,), (-2,))),
    (5, 5, 2, 3, QType("i8", (0.03,), (-100,)), False, 4, QType("i8", (0.05,), (7,))),
    (4, 4, 255, 2, QType("i8", (0.03,), (-9,)), True, 0, EXACT),  # needs f64
]


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_quantized_convolution_kernel_equals_the_interpreter_and_exact_integers(case):
    """NHWC x HWIO, padding 1 (filled with the lhs zero point, whose products the kernel
    sums then removes)."""
    h, wd, c, o, qx, per_axis, zw, qo = CONV_CASES[case]
    rng = np.random.default_rng(10 + case)
    sw = tuple(float(v) for v in rng.uniform(0.002, 0.004, o)) if per_axis else (0.0031,)
    qw = QType("i8", sw, (0,) * o, 3) if per_axis else QType("i8", sw, (zw,))
    w = edge_weights((3, 3, c, o), qw, case, 3)
    qo = qo or exact_result(qx, sw, 3)
    x = edge_input((1, h, wd, c), qx, case)
    x[:, :3, :3, :] = 1e30  # one window all the largest lhs value (K * 127 * 127 odd)
    op = ("stablehlo.convolution(%q, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
          "window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}")
    text = _program((1, h, wd, c), w, qx, qw, qo, (1, h, wd, o), op)
    zl = qx.zero_points[0]
    xp = np.pad(quantize(x, qx), ((0, 0), (1, 1), (1, 1), (0, 0)), constant_values=zl) - zl
    win = sliding_window_view(xp, (3, 3), axis=(1, 2))  # (1, h, w, c, 3, 3)
    acc = np.einsum("nhwcij,ijco->nhwo", win, w.astype(np.int64) - zw)
    expect = rescale(acc, qx.scales[0], np.asarray(sw), qo, 3)
    check(text, x, expect, qo, 3, {sh.UniformQuantizeOp, sh.ConvolutionOp, sh.UniformDequantizeOp})


def test_requantize_kernel_after_a_dot():
    """The MLP's chain: a per-axis i8 dot result requantized to per-tensor i8
    (quantize(dequantize(q)) in float32)."""
    qx, sw = QType("i8", (0.03,), (3,)), (0.0021, 0.0037, 0.003, 0.0025)
    qw, qa = QType("i8", sw, (0,) * 4, 1), QType("i8", tuple(0.03 * v for v in sw), (0,) * 4, 1)
    qh = QType("i8", (0.5,), (-2,))
    x, w = edge_input((6, 33), qx, 3), edge_weights((33, 4), qw, 3, 1)
    text = _program((6, 33), w, qx, qw, qa, (6, 4), "stablehlo.dot_general %q, %w, contracting_dims = [1] x [0]")
    at, ht = tensor((6, 4), qa.text()), tensor((6, 4), qh.text())
    text = text.replace(f"  %d = stablehlo.uniform_dequantize %r : ({at})",
                        f"  %h = stablehlo.uniform_quantize %r : ({at}) -> {ht}\n"
                        f"  %d = stablehlo.uniform_dequantize %h : ({ht})")
    _, second, programs = run_twice(text, [x])
    assert kernel_ops(programs) >= {sh.UniformQuantizeOp, sh.DotGeneralOp, sh.UniformDequantizeOp}
    assert sum(isinstance(step[1], sh.UniformQuantizeOp) and step[0] is not None
               for p in programs for step in p.steps) == 2
    acc = (quantize(x, qx) - 3) @ w.astype(np.int64)
    a = rescale(acc, 0.03, np.asarray(sw), qa, 1)
    real = a.astype(np.float32) * np.asarray(qa.scales, np.float32)
    h = quantize(real, qh)
    assert second[0].tobytes() == dequantize(h, qh, 1).tobytes()
    assert second[1].astype(np.int64).tolist() == a.tolist()


def test_halves_in_a_forked_child():
    """A child forked after the helper thread started makes its own helper (the parent's
    thread does not exist in it) instead of waiting on it forever."""
    import multiprocessing

    quantized_kernels.in_halves(np.add, (4, 2), np.float64, np.ones((4, 2)), 1.0)
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        got = pool.apply_async(_halves_sum).get(timeout=60)
    assert got == 16.0


def _halves_sum() -> float:
    return float(quantized_kernels.in_halves(np.add, (4, 2), np.float64, np.ones((4, 2)), 1.0).sum())


def _near(q: QType, factor: float) -> QType:
    return QType(q.storage, tuple(s * factor for s in q.scales), q.zero_points, q.axis,
                 q.storage_min, q.storage_max)


IDENTITY_CASES = [
    # (result type from the exact one, whether the rescale is the identity)
    (lambda q: q, True),
    (lambda q: _near(q, 1 + 2e-7), False),  # s_res not s_l * s_r: rounded
    (lambda q: QType(q.storage, q.scales, (0,) + (5,) * (len(q.scales) - 1), q.axis), False),
    (lambda q: QType("i32", q.scales, q.zero_points, q.axis, -5000, 5000), False),  # clamped
]


@pytest.mark.parametrize("case", range(len(IDENTITY_CASES)))
@pytest.mark.parametrize("op_kind", ["dot", "conv"])
def test_i32_accumulator_results_skip_the_rescale_only_when_exact(case, op_kind, monkeypatch):
    """An i32 result scaled by s_l * s_r (zero points 0, the sums inside its range) is the
    exact sum itself: the kernel converts the float sums instead of rescaling them
    (`qcomp.quant.accumulator.rescale_is_identity`). Scales off by 2e-7, a zero point or
    a storage range the sums can leave take the rescale, and every result equals the
    oracle's."""
    make, identity = IDENTITY_CASES[case]
    calls = []
    rescale_scaled = quantized_kernels.rescale_scaled
    monkeypatch.setattr(quantized_kernels, "rescale_scaled",
                        lambda *a, **k: calls.append(1) or rescale_scaled(*a, **k))
    qx, sw = QType("i8", (0.03,), (3,)), (0.0021, 0.0037, 0.003, 0.0025)
    qw = QType("i8", sw, (0,) * 4, 1 if op_kind == "dot" else 3)
    axis = 1 if op_kind == "dot" else 3
    qo = make(exact_result(qx, sw, axis))
    if op_kind == "dot":
        x, w = edge_input((6, 700), qx, 5), edge_weights((700, 4), qw, 5, 1)
        text = _program((6, 700), w, qx, qw, qo, (6, 4),
                        "stablehlo.dot_general %q, %w, contracting_dims = [1] x [0]")
        acc = (quantize(x, qx) - 3) @ w.astype(np.int64)
    else:
        x, w = edge_input((1, 5, 4, 60), qx, 6), edge_weights((3, 3, 60, 4), qw, 6, 3)
        x[:, :3, :3, :] = 1e30
        text = _program((1, 5, 4, 60), w, qx, qw, qo, (1, 5, 4, 4), (
            "stablehlo.convolution(%q, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            "window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, "
            "feature_group_count = 1 : i64}"))
        xp = np.pad(quantize(x, qx), ((0, 0), (1, 1), (1, 1), (0, 0)), constant_values=3) - 3
        acc = np.einsum("nhwcij,ijco->nhwo", sliding_window_view(xp, (3, 3), axis=(1, 2)),
                        w.astype(np.int64))
    expect = rescale(acc, 0.03, np.asarray(sw), qo, axis)
    assert (expect.tolist() == acc.tolist()) == identity  # the cases do what they say
    first, second, _ = run_twice(text, [x])  # the second run's kernels call rescale_scaled
    assert (not calls) == identity
    assert second[1].astype(np.int64).tolist() == expect.tolist()
    assert second[0].tobytes() == dequantize(expect, qo, axis).tobytes()
    assert first[0].tobytes() == second[0].tobytes() and first[1].tobytes() == second[1].tobytes()
