"""`qcomp.backends.xla_rescale` (TFLite's fixed-point rescale in float64 where a static
bound proves it exact) and `qcomp.backends.xla_bounds` (the bounds). Each program is
lowered by `stablehlo-legalize-quant-to-math{rescale=fixed-point}` and run on XLA and
in qcomp's interpreter (the reference: the i64 form) on every input value where the
input is small (all 256 x 256 pairs of an int8 add), else on the ends of the input
range and random values; results bit for bit. Which chains were rewritten is checked
on the program XLA compiles."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.backends import xla
from qcomp.backends.xla_bounds import Bounds
from qcomp.interpreter import run
from qcomp.ir import print_module
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
from qcomp.registry import make_context, parse_module

pytestmark = pytest.mark.skipif(not xla.is_available(),
                                reason="jax/jaxlib not installed (pip install 'qcomp[xla]')")


def _lowered(text: str):
    ctx = make_context()
    module = parse_module(text, ctx)
    LegalizeQuantToMathPass(rescale="fixed-point").apply(ctx, module)
    return module


def _agree(text: str, inputs: list[list[np.ndarray]]) -> str:
    """XLA and the interpreter agree on each input list; the text XLA compiled."""
    return _agreeing(text, inputs)[0].text


def _agreeing(text: str, inputs: list[list[np.ndarray]]):
    """XLA and the interpreter agree on each input list: the compiled function and its
    results (the first of each run)."""
    module = _lowered(text)
    (fn,) = xla.compile_module(module)
    assert fn.error is None, fn.error
    results = []
    for args in inputs:
        (want,) = run(module, args)
        got = fn.run(args)
        assert want.error is None and got.error is None, (want.error, got.error)
        np.testing.assert_array_equal(got.results[0], want.results[0])
        results.append(got.results[0])
    return fn, results


def _q(zp: int, s: float, shape: str, storage: str = "i8") -> str:
    return f"tensor<{shape}x!quant.uniform<{storage}:f32, {s}:{zp}>>"


@pytest.mark.parametrize("sa, za, sb, zb, so, zo", [
    (0.05, 3, 0.07, -5, 0.09, -2),
    (0.5, -128, 0.003, 127, 0.0007, 0),   # far-apart scales: large and tiny multipliers
    (0.02, 0, 0.02, 0, 0.04, -128),
])
def test_int8_add_every_pair_of_values(sa, za, sb, zb, so, zo):
    """TFLite's ADD: both inputs shifted left by 20 and rescaled (rewritten: `|v| * M`
    is at most 255 * 2^31), the sum rescaled to the output (too large for float64: stays
    i64)."""
    t_a, t_b, t_o = _q(za, sa, "256x256"), _q(zb, sb, "256x256"), _q(zo, so, "256x256")
    text = (f"func.func @main(%a: {t_a}, %b: {t_b}) -> {t_o} {{\n"
            f"  %r = stablehlo.add %a, %b : ({t_a}, {t_b}) -> {t_o}\n"
            f"  func.return %r : {t_o}\n}}\n")
    v = np.arange(-128, 128, dtype=np.int8)
    a, b = np.broadcast_to(v[:, None], (256, 256)).copy(), np.broadcast_to(v[None, :], (256, 256)).copy()
    compiled = _agree(text, [[a, b], [b, a]])
    # the last rescale stays i64: (p + 2^30) >> 31, the sign h >> 63, the rounding shift
    assert compiled.count("stablehlo.shift_right_arithmetic") == 3
    assert compiled.count("stablehlo.floor") == 2


def test_per_axis_requantize_every_value():
    """A per-axis requantize of every int8 value: each channel's own multiplier and
    shift (right shifts of 0 to 9 and a left shift), rewritten."""
    scales = [0.5, 0.01, 2.0, 0.001, 0.25, 3.9]
    t_in = "tensor<256x6x!quant.uniform<i8:f32:1, {" + ", ".join(f"{s}:{z}" for s, z in zip(scales, range(-3, 3))) + "}>>"
    t_out = _q(7, 0.03, "256x6")
    text = (f"func.func @main(%a: {t_in}) -> {t_out} {{\n"
            f"  %r = stablehlo.uniform_quantize %a : ({t_in}) -> {t_out}\n"
            f"  func.return %r : {t_out}\n}}\n")
    v = np.broadcast_to(np.arange(-128, 128, dtype=np.int8)[:, None], (256, 6)).copy()
    compiled = _agree(text, [[v]])
    assert "shift_right_arithmetic" not in compiled and "stablehlo.floor" in compiled


@pytest.mark.parametrize("s_in, z_in, s_out, z_out", [
    (0.05, 3, 0.3, -1),   # M 1/6: right shift 2
    (0.01, -7, 0.9, 5),   # right shift 7
])
def test_requantize_one_rounding_shift_every_value(s_in, z_in, s_out, z_out):
    """A per-tensor requantize whose right shift e >= 1 the lowering writes as one
    rounding shift, (h + 2^(e-1) + (h >> 63)) >> e, after h = (p + 2^30) >> 31:
    rewritten whole (rounded half away
    from zero in float64; no integer shift left), on every int8 value."""
    t_in, t_out = _q(z_in, s_in, "256"), _q(z_out, s_out, "256")
    text = (f"func.func @main(%a: {t_in}) -> {t_out} {{\n"
            f"  %r = stablehlo.uniform_quantize %a : ({t_in}) -> {t_out}\n"
            f"  func.return %r : {t_out}\n}}\n")
    lowered = print_module(_lowered(text))
    assert "stablehlo.and" not in lowered and lowered.count("shift_right_arithmetic") == 3
    compiled = _agree(text, [[np.arange(-128, 128, dtype=np.int8)]])
    assert "shift_right_arithmetic" not in compiled and "round_nearest_afz" in compiled


CONV = """func.func @main(%x: {tx}) -> {to} {{
  %w = stablehlo.constant() <{{value = {w} : {tw8}}}> : () -> {tw}
  %a = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1], pad = [[1, 1], [1, 1]]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({tx}, {tw}) -> {ta}
  %r = stablehlo.uniform_quantize %a : ({ta}) -> {to}
  func.return %r : {to}
}}
"""


def _conv(k: int, cin: int, wmax: int) -> tuple[str, np.ndarray]:
    rng = np.random.default_rng(k * cin + wmax)
    w = rng.integers(-wmax, wmax + 1, (k, k, cin, 4)).astype(np.int8)
    w.flat[0] = -wmax
    dense = "dense<" + np.array2string(w, separator=", ", threshold=10**9).replace("\n", "") + ">"
    ws = (0.02, 0.011, 0.0043, 0.05)
    scales = "{" + ", ".join(f"{s}" for s in ws) + "}"
    acc = "{" + ", ".join(f"{0.1 * s}" for s in ws) + "}"
    text = CONV.format(tx=_q(-4, 0.1, f"2x6x6x{cin}"), to=_q(5, 0.2, "2x6x6x4"),
                       tw=f"tensor<{k}x{k}x{cin}x4x!quant.uniform<i8:f32:3, {scales}>>",
                       tw8=f"tensor<{k}x{k}x{cin}x4xi8>", w=dense,
                       ta=f"tensor<2x6x6x4x!quant.uniform<i32:f32:3, {acc}>>")
    return text, w


def _edges(shape):
    rng = np.random.default_rng(3)
    return [[np.full(shape, -128, np.int8)], [np.full(shape, 127, np.int8)],
            [rng.integers(-128, 128, shape).astype(np.int8)],
            [rng.choice(np.array([-128, 127], np.int8), shape)]]


def test_convolution_output_rescale_is_rewritten():
    """A small convolution: its accumulator's bound (per output feature) makes the
    output rescale exact in float64."""
    text, _ = _conv(3, 3, 127)
    compiled = _agree(text, _edges((2, 6, 6, 3)))
    assert "shift_right_arithmetic" not in compiled


def test_long_convolution_keeps_the_integer_rescale():
    """K = 3 * 3 * 256 products of up to 128 * 127: `|v| * M` can pass 2^53, so the
    rescale stays in i64 (same results either way)."""
    text, _ = _conv(3, 256, 127)
    compiled = _agree(text, _edges((2, 6, 6, 256)))
    assert "shift_right_arithmetic" in compiled


def test_bounds_of_a_convolution_are_per_output_feature():
    """The interval of an i8 x i8 -> i32 convolution with a constant kernel: per output
    feature, the sum of each weight times the input's worst end; an add of a constant
    moves it; a clamp cuts it."""
    w = np.array([[1, -2, 0], [3, 4, -5]], np.int8).reshape(1, 1, 2, 3)
    text = """func.func @main(%x: tensor<1x4x4x2xi8>) -> tensor<1x4x4x3xi32> {
  %w = stablehlo.constant dense<[[[[1, -2, 0], [3, 4, -5]]]]> : tensor<1x1x2x3xi8>
  %c = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2xi8>, tensor<1x1x2x3xi8>) -> tensor<1x4x4x3xi32>
  %k = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
  %b = stablehlo.broadcast_in_dim %k, dims = [3] : (tensor<3xi32>) -> tensor<1x4x4x3xi32>
  %s = stablehlo.add %c, %b : tensor<1x4x4x3xi32>
  %lo = stablehlo.constant dense<-100> : tensor<i32>
  %hi = stablehlo.constant dense<100> : tensor<i32>
  %r = stablehlo.clamp %lo, %s, %hi : (tensor<i32>, tensor<1x4x4x3xi32>, tensor<i32>) -> tensor<1x4x4x3xi32>
  func.return %r : tensor<1x4x4x3xi32>
}
"""
    module = parse_module(text, make_context())
    block = next(iter(module.ops)).body.blocks.first
    ops = list(block.ops)
    bounds = Bounds(block)
    lo, hi = bounds[ops[1].results[0]]
    # a weight w meets -128 (w > 0) or 127 (w < 0) at the low end: exact per feature
    want_lo = [sum(min(int(v) * -128, int(v) * 127) for v in w[..., o].ravel()) for o in range(3)]
    want_hi = [sum(max(int(v) * -128, int(v) * 127) for v in w[..., o].ravel()) for o in range(3)]
    assert lo.shape == hi.shape == (1, 1, 1, 3)
    np.testing.assert_allclose(lo.ravel(), want_lo, rtol=2.0 ** -30)
    np.testing.assert_allclose(hi.ravel(), want_hi, rtol=2.0 ** -30)
    slo, shi = bounds[ops[4].results[0]]
    np.testing.assert_allclose(slo.ravel(), np.add(want_lo, [10, 20, 30]), rtol=2.0 ** -30)
    np.testing.assert_allclose(shi.ravel(), np.add(want_hi, [10, 20, 30]), rtol=2.0 ** -30)
    rlo, rhi = bounds[ops[7].results[0]]
    assert np.all(rlo >= -100) and np.all(rhi <= 100)
    assert bounds[block.args[0]][0].item() == -128 and bounds[block.args[0]][1].item() == 127


def test_bounds_of_a_wrapping_add_are_the_type_range():
    text = """func.func @main(%x: tensor<4xi8>) -> tensor<4xi8> {
  %c = stablehlo.constant dense<100> : tensor<4xi8>
  %r = stablehlo.add %x, %c : tensor<4xi8>
  func.return %r : tensor<4xi8>
}
"""
    module = parse_module(text, make_context())
    block = next(iter(module.ops)).body.blocks.first
    lo, hi = Bounds(block)[list(block.ops)[1].results[0]]
    assert (lo.min(), hi.max()) == (-128, 127)


def _requantize(zp_out: int, scales: list[float]) -> str:
    t_in = (f"tensor<65536x{len(scales)}x!quant.uniform<i16:f32:1, {{"
            + ", ".join(f"{s}:0" for s in scales) + "}>>")
    t_out = _q(zp_out, 0.5, f"65536x{len(scales)}")
    return (f"func.func @main(%a: {t_in}) -> {t_out} {{\n"
            f"  %r = stablehlo.uniform_quantize %a : ({t_in}) -> {t_out}\n"
            f"  func.return %r : {t_out}\n}}\n")


ONE_ROUNDING_SCALES = [0.5, 0.01, 2.0, 0.001, 0.25, 0.0039, 0.5 * 2 ** -9, 0.3]
"""Output scale 0.5: multipliers of right shifts e = 0 to 9 and a left shift."""


@pytest.mark.parametrize("zp, one", [(-128, True), (5, False)])
def test_one_rounding_on_every_int16_value(zp, one):
    """An i16 -> i8 per-axis requantize of every i16 value: with zero point -128 (the
    clamp floor at the zero point) the two roundings are one (no `round_nearest_afz`
    left, one `floor`); with 5 the rounding shift stays. Results bit for bit against the
    interpreter's i64 form and against `qcomp.quant.tflite.requantize` (TFLite's
    arithmetic) channel by channel."""
    from qcomp.quant.tflite import requantize

    text = _requantize(zp, ONE_ROUNDING_SCALES)
    v = np.broadcast_to(np.arange(-32768, 32768, dtype=np.int16)[:, None],
                        (65536, len(ONE_ROUNDING_SCALES))).copy()
    fn, (got,) = _agreeing(text, [[v]])
    compiled = fn.text
    for c, s in enumerate(ONE_ROUNDING_SCALES):
        want = requantize(v[:, c].astype(np.int64), np.float32(s), 0, np.float32(0.5), zp, -128, 127)
        np.testing.assert_array_equal(got[:, c], want)
    assert "stablehlo.divide" not in compiled and compiled.count("stablehlo.floor") == 1
    assert ("stablehlo.round_nearest_afz" not in compiled) == one
    assert _floors_into_clamps(fn.prepared) == one  # the program XLA compiled


def test_one_rounding_in_mobilenet_v2_is_litert_bit_for_bit():
    """The zoo's int8 MobileNetV2 (TF's converter: RELU6 outputs at zero point -128) on
    XLA against LiteRT's reference kernels: 34 of its 35 RELU6 rescales (stem, expansions,
    depthwise convolutions) take the one-rounding form; the head's, summed in i64 by the
    MEAN without a convert to the storage type, keeps both roundings."""
    pytest.importorskip("ai_edge_litert.interpreter")
    from pathlib import Path

    from qcomp.importers.tflite import import_tflite
    from tests.importers.tflite_models import run_litert

    model = (Path(__file__).parent.parent / "models" / "tflite" / "mobilenet_v2.tflite").read_bytes()
    ctx = make_context()
    module = parse_module(import_tflite(model), ctx)
    LegalizeQuantToMathPass(rescale="fixed-point").apply(ctx, module)
    (fn,) = xla.compile_module(module)
    assert fn.error is None, fn.error
    rng = np.random.default_rng(4)
    for x in (rng.integers(-128, 128, (1, 32, 32, 3)).astype(np.int8),
              np.full((1, 32, 32, 3), 127, np.int8), np.full((1, 32, 32, 3), -128, np.int8)):
        np.testing.assert_array_equal(fn.run([x]).results[0], run_litert(model, [x])[0])
    assert _floors_into_clamps(fn.prepared) == 34  # the program XLA compiled


def _floors_into_clamps(prepared) -> int:
    """A `floor` whose one use is the output clamp: the one-rounding form (the two-rounding
    form multiplies it by 2^-e)."""
    from qcomp.dialects import stablehlo as sh

    return sum(isinstance(op, sh.FloorOp) and [type(u.operation) for u in op.results[0].uses]
               == [sh.ClampOp] for op in prepared.walk())
