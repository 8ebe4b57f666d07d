"""`qcomp.backends.xla_contractions`: integer convolutions and dot_generals handed to XLA
as exact float ones, depthwise convolutions as element-wise sums. Each program runs on
XLA and in qcomp's interpreter (the reference) with inputs at the ends of their range
(the bound's worst case) and random ones; results bit for bit. The rewrite itself is
checked on the program XLA compiles (which ops are left, which float type)."""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.backends import xla, xla_contractions
from qcomp.backends.xla_prepare import for_entry
from qcomp.interpreter import run
from qcomp.registry import make_context, parse_module

pytestmark = pytest.mark.skipif(not xla.is_available(),
                                reason="jax/jaxlib not installed (pip install 'qcomp[xla]')")


def _kernel(shape, dtype, seed=0, lo=-128, hi=128):
    w = np.random.default_rng(seed).integers(lo, hi, shape).astype(dtype)
    w.flat[0] = lo  # the type's extreme
    return w


def _dense(w: np.ndarray) -> str:
    return "dense<" + np.array2string(w, separator=", ", threshold=10**9).replace("\n", "") + ">"


def _program(body: str, args: str, result: str) -> str:
    return f"func.func @main({args}) -> {result} {{\n{body}\n  func.return %r : {result}\n}}\n"


def _inputs(shape, dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(1)
    return [np.full(shape, info.min, dtype), np.full(shape, info.max, dtype),
            rng.integers(info.min, int(info.max) + 1, shape).astype(dtype)]


def _agree(text: str, inputs) -> str:
    """Run `text` on XLA and in the interpreter for each input; the printed `@main`
    XLA compiled."""
    module = parse_module(text, make_context())
    (fn,) = xla.compile_module(module)
    assert fn.error is None, fn.error
    for x in inputs:
        (want,) = run(module, [x])
        got = fn.run([x])
        assert want.error is None and got.error is None
        assert got.results[0].dtype == want.results[0].dtype
        np.testing.assert_array_equal(got.results[0], want.results[0])
    return fn.text


DEPTHWISE = """  %w = stablehlo.constant {w} : tensor<3x3x1x{c}xi8>
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [{s}, {s}], pad = [[1, {p}], [0, 1]], rhs_dilate = [{d}, {d}]}} {{batch_group_count = 1 : i64, feature_group_count = {c} : i64}} : (tensor<2x9x8x{c}xi8>, tensor<3x3x1x{c}xi8>) -> tensor<{out}xi32>"""


def _out(s, p, d, c):
    h = (9 + 1 + p - (2 * d + 1)) // s + 1
    w = (8 + 0 + 1 - (2 * d + 1)) // s + 1
    return f"2x{h}x{w}x{c}"


@pytest.mark.parametrize("s, p, d", [(1, 1, 1), (2, 0, 1), (2, 1, 2)])
def test_depthwise_convolution_is_elementwise(s, p, d):
    c = 5
    out = _out(s, p, d, c)
    body = DEPTHWISE.format(w=_dense(_kernel((3, 3, 1, c), np.int8)), c=c, s=s, p=p, d=d, out=out)
    text = _agree(_program(body, f"%x: tensor<2x9x8x{c}xi8>", f"tensor<{out}xi32>"),
                  _inputs((2, 9, 8, c), np.int8))
    assert "stablehlo.convolution" not in text
    assert text.count("stablehlo.slice") == 9 and text.count("stablehlo.multiply") == 9


def test_depthwise_wraps_as_the_convolution_does():
    """An i16 result of i8 products wraps; the element-wise sum wraps the same way."""
    c = 3
    body = DEPTHWISE.format(w=_dense(np.full((3, 3, 1, c), -128, np.int8)), c=c, s=1, p=1,
                            d=1, out=_out(1, 1, 1, c)).replace("xi32>", "xi16>")
    text = _agree(_program(body, f"%x: tensor<2x9x8x{c}xi8>", f"tensor<{_out(1, 1, 1, c)}xi16>"),
                  _inputs((2, 9, 8, c), np.int8))
    assert "stablehlo.convolution" not in text


CONV = """  %w = stablehlo.constant {w} : tensor<{k}x3x3x{ci}x{et}>
  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[o, 0, 1, i]->[b, 0, 1, f], window = {{stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : (tensor<1x6x6x{ci}x{et}>, tensor<{k}x3x3x{ci}x{et}>) -> tensor<1x6x6x{k}x{rt}>"""


@pytest.mark.parametrize("et, dtype, rt, want", [("i8", np.int8, "i32", "f32"),
                                                 ("i16", np.int16, "i64", "f64"),
                                                 ("i16", np.int16, "i32", "i32")])
def test_convolution_as_exact_float(et, dtype, rt, want):
    """i16 products summed can pass 2^31: into an i32 result they wrap, so that
    convolution stays integer."""
    info = np.iinfo(dtype)
    w = _kernel((2, 3, 3, 4), dtype, lo=int(info.min), hi=int(info.max) + 1)
    body = CONV.format(w=_dense(w), k=2, ci=4, et=et, rt=rt)
    text = _agree(_program(body, f"%x: tensor<1x6x6x4x{et}>", f"tensor<1x6x6x2x{rt}>"),
                  _inputs((1, 6, 6, 4), dtype))
    assert f"-> tensor<1x6x6x2x{want}>" in text


DOT = """  %r = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<3x{k}x{et}>, tensor<{k}x2x{et}>) -> tensor<3x2x{rt}>"""


def test_dot_general_bound_picks_the_float_type(monkeypatch):
    """i8 x i8 summed over K: f32 up to K * 128 * 128 = 2^24 (K = 1024), f64 above; an
    i32 result that could wrap (i32 operands) stays integer; past `FLOAT_MAX_K` it
    stays integer."""
    assert "f32" not in lowered_dot(1024)
    monkeypatch.setattr(xla_contractions, "FLOAT_MAX_K", 2048)
    assert "tensor<3x2xf32>" in lowered_dot(1024)
    assert "tensor<3x2xf64>" in lowered_dot(1025)
    assert "f32" not in lowered_dot(4, "i32") and "f64" not in lowered_dot(4, "i32")


def lowered_dot(k, et="i8", rt="i32"):
    text = _program(DOT.format(k=k, et=et, rt=rt),
                    f"%x: tensor<3x{k}x{et}>, %y: tensor<{k}x2x{et}>", f"tensor<3x2x{rt}>")
    return str(for_entry(parse_module(text, make_context()), "main").module)


def test_dot_general_at_the_f32_bound_is_exact(monkeypatch):
    monkeypatch.setattr(xla_contractions, "FLOAT_MAX_K", 2048)
    k = 1024
    text = _program(DOT.format(k=k, et="i8", rt="i32"),
                    f"%x: tensor<3x{k}xi8>, %y: tensor<{k}x2xi8>", "tensor<3x2xi32>")
    module = parse_module(text, make_context())
    (fn,) = xla.compile_module(module)
    assert "tensor<3x2xf32>" in fn.text
    lo = np.full((3, k), -128, np.int8)
    for y in (np.full((k, 2), -128, np.int8), _kernel((k, 2), np.int8, seed=3)):
        (want,) = run(module, [lo, y])
        got = fn.run([lo, y])
        np.testing.assert_array_equal(got.results[0], want.results[0])
    assert int(run(module, [lo, np.full((k, 2), -128, np.int8)])[0].results[0][0, 0]) == 1 << 24


def test_constant_kernel_bound_is_per_output_feature():
    """A constant kernel bounds by its own largest per-output sum of magnitudes."""
    w = np.zeros((2, 3, 3, 4), np.int8)
    w[0] = 1
    w[1, 0, 0, 0] = -7
    module = parse_module(_program(CONV.format(w=_dense(w), k=2, ci=4, et="i8", rt="i32"),
                                   "%x: tensor<1x6x6x4xi8>", "tensor<1x6x6x2xi32>"),
                          make_context())
    conv = next(op for op in module.walk() if op.name == "stablehlo.convolution")
    assert xla_contractions.contraction_bound(conv) == 128 * 36


def test_long_depthwise_kernels_stay_convolutions(monkeypatch):
    monkeypatch.setattr(xla_contractions, "DEPTHWISE_MAX_TAPS", 8)
    c = 5
    body = DEPTHWISE.format(w=_dense(_kernel((3, 3, 1, c), np.int8)), c=c, s=1, p=1, d=1,
                            out=_out(1, 1, 1, c))
    module = parse_module(_program(body, f"%x: tensor<2x9x8x{c}xi8>", f"tensor<{_out(1, 1, 1, c)}xi32>"),
                          make_context())
    assert xla_contractions.depthwise_as_elementwise(module) == 0


WIDENED = """  %k = stablehlo.constant {w} : tensor<3x3x1x{c}x{kt}>
  %w = stablehlo.convert %k : (tensor<3x3x1x{c}x{kt}>) -> tensor<3x3x1x{c}xi32>
  %xi = stablehlo.convert %x : (tensor<2x9x8x{c}xi16>) -> tensor<2x9x8x{c}xi32>
  %r = stablehlo.convolution(%xi, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {{stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]}} {{batch_group_count = 1 : i64, feature_group_count = {c} : i64}} : (tensor<2x9x8x{c}xi32>, tensor<3x3x1x{c}xi32>) -> tensor<2x9x8x{c}xi32>"""
"""A 16x8 model's depthwise convolution as `stablehlo-legalize-quant-to-math` writes it:
i16 activations and the i8 kernel both converted to the i32 accumulator type."""


def test_a_widened_constant_kernel_is_a_constant_kernel():
    """The 16x8 depthwise convolution becomes the element-wise sum (XLA would otherwise
    make its grouped f64 convolution a dense one: 16.5 -> 0.2 ms of thread time on the
    zoo's 16x8 MobileNetV2), and the kernel's own values bound a contraction."""
    c = 4
    w = _kernel((3, 3, 1, c), np.int8)
    text = _agree(_program(WIDENED.format(w=_dense(w), c=c, kt="i8"), f"%x: tensor<2x9x8x{c}xi16>",
                           f"tensor<2x9x8x{c}xi32>"), _inputs((2, 9, 8, c), np.int16))
    assert "stablehlo.convolution" not in text and text.count("stablehlo.multiply") == 9


def test_a_narrowing_convert_of_a_constant_is_not_its_values():
    """`convert(i32 constant) : i8` wraps 200 to -56: the kernel's values are not the
    constant's, so the bound and the depthwise rewrite do not read through it."""
    module = parse_module(_program(
        "  %k = stablehlo.constant dense<200> : tensor<4xi32>\n"
        "  %r = stablehlo.convert %k : (tensor<4xi32>) -> tensor<4xi8>",
        "", "tensor<4xi8>"), make_context())
    convert = next(op for op in module.walk() if op.name == "stablehlo.convert")
    assert xla_contractions._constant(convert.results[0]) is None
    widened = parse_module(_program(
        "  %k = stablehlo.constant dense<-128> : tensor<4xi8>\n"
        "  %r = stablehlo.convert %k : (tensor<4xi8>) -> tensor<4xi32>",
        "", "tensor<4xi32>"), make_context())
    convert = next(op for op in widened.walk() if op.name == "stablehlo.convert")
    assert xla_contractions._constant(convert.results[0]).tolist() == [-128] * 4


NCHW = """  %r = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {{stride = [2, 1], pad = [[1, 1], [1, 0]], rhs_dilate = [1, 2]}} {{batch_group_count = 1 : i64, feature_group_count = 3 : i64}} : (tensor<2x3x7x6x{e}>, tensor<3x1x3x2x{e}>) -> tensor<2x3x4x5x{e}>"""
"""A depthwise convolution in NCHW (as ONNX's Conv) whose kernel is an argument."""


def test_a_float_depthwise_convolution_is_elementwise_and_close():
    """f32, the kernel an argument (a QDQ model's dequantized weights are computed, not
    constants): its taps are sliced from it; the sum is the interpreter's (float64,
    one rounding) within float32's error of 6 products."""
    text = _program(NCHW.format(e="f32"), "%x: tensor<2x3x7x6xf32>, %w: tensor<3x1x3x2xf32>",
                    "tensor<2x3x4x5xf32>")
    module = parse_module(text, make_context())
    (fn,) = xla.compile_module(module)
    assert fn.error is None and "stablehlo.convolution" not in fn.text
    assert fn.text.count("stablehlo.multiply") == 6
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 7, 6)).astype(np.float32)
    w = rng.standard_normal((3, 1, 3, 2)).astype(np.float32)
    (want,) = run(module, [x, w])
    got = fn.run([x, w])
    assert got.error is None
    np.testing.assert_allclose(got.results[0], want.results[0], rtol=0, atol=6 * 4e-7 * 16)


@pytest.mark.parametrize("e", ["f16", "bf16"])
def test_half_float_depthwise_convolutions_stay_convolutions(e):
    """A sum in 16-bit floats would round at every step: those stay XLA's."""
    module = parse_module(_program(NCHW.format(e=e), f"%x: tensor<2x3x7x6x{e}>, "
                                   f"%w: tensor<3x1x3x2x{e}>", f"tensor<2x3x4x5x{e}>"),
                          make_context())
    assert xla_contractions.depthwise_as_elementwise(module) == 0


def test_an_integer_depthwise_kernel_that_is_an_argument_is_sliced():
    text = _program(NCHW.format(e="i32"), "%x: tensor<2x3x7x6xi32>, %w: tensor<3x1x3x2xi32>",
                    "tensor<2x3x4x5xi32>")
    module = parse_module(text, make_context())
    (fn,) = xla.compile_module(module)
    assert fn.error is None and "stablehlo.convolution" not in fn.text
    rng = np.random.default_rng(3)
    x = rng.integers(-2**31, 2**31, (2, 3, 7, 6)).astype(np.int32)  # products that wrap
    w = rng.integers(-2**31, 2**31, (3, 1, 3, 2)).astype(np.int32)
    (want,) = run(module, [x, w])
    np.testing.assert_array_equal(fn.run([x, w]).results[0], want.results[0])
