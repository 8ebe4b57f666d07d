"""Dynamic shapes through the quantization passes: a program whose quantized tensors
have `?` dimensions, lowered by `stablehlo-legalize-quant-to-math` in every rescale
mode (scales and zero points applied with `chlo.broadcast_*`, as upstream does), runs
in the interpreter on concrete inputs and equals, bit for bit, the static lowering of
the same program at the drawn shapes. The QDQ passes keep `?` dimensions too.
Fully quantized dot_general and convolution: `float` and `fixed-point` centre the
operands; `stablehlo` builds upstream's zero-point offset with `get_dimension_size` and
`dynamic_broadcast_in_dim`.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qcomp.interpreter import run
from qcomp.ir import print_module
from qcomp.passes.stablehlo_legalize_qdq_to_quantized_op import StablehloLegalizeQDQToQuantizedOpPass
from qcomp.passes.stablehlo_legalize_quant_to_math import LegalizeQuantToMathPass
from qcomp.registry import make_context, parse_module
from tests.sampling import examples

SETTINGS = settings(max_examples=examples(full=25, ci=12), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SEMANTICS = {"float": "spec", "fixed-point": "spec", "stablehlo": "stablehlo"}


def _t(shape, element: str) -> str:
    return "tensor<" + "".join(f"{'?' if d is None else d}x" for d in shape) + element + ">"


def _lower(src: str, rescale: str, qdq: bool = False):
    ctx = make_context()
    module = parse_module(src, ctx)
    module.verify()
    if qdq:
        StablehloLegalizeQDQToQuantizedOpPass().apply(ctx, module)
    LegalizeQuantToMathPass(rescale=rescale).apply(ctx, module)
    module.verify()
    text = print_module(module)
    assert "!quant" not in text
    return module, text


def _run(module, inputs, semantics):
    (r,) = run(module, inputs, semantics=semantics)
    assert r.error is None, r.error.message
    return r.results


def _same(dynamic_src: str, static_src: str, inputs, rescale: str, qdq: bool = False):
    dyn, text = _lower(dynamic_src, rescale, qdq)
    static, _ = _lower(static_src, rescale, qdq)
    sem = SEMANTICS[rescale]
    for got, want in zip(_run(dyn, inputs, sem), _run(static, inputs, sem), strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), text
    return text


@st.composite
def shapes(draw):
    shape = [draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 3)))]
    dynamic = [draw(st.booleans()) for _ in shape]
    if not any(dynamic):
        dynamic[draw(st.integers(0, len(shape) - 1))] = True
    return shape, [None if d else n for n, d in zip(shape, dynamic)]


@st.composite
def quant_types(draw, shape):
    storage = draw(st.sampled_from(["i8", "u8", "i16"]))
    lo = {"i8": -128, "u8": 0, "i16": -32768}[storage]
    scale = lambda: float(np.float32(draw(st.floats(0.01, 2.0))))  # noqa: E731
    zp = lambda: draw(st.integers(lo, lo + 40 if storage == "u8" else 20))  # noqa: E731
    if draw(st.booleans()):
        axis = draw(st.integers(0, len(shape) - 1))
        params = ", ".join(f"{scale()}:{zp()}" for _ in range(shape[axis]))
        return f"!quant.uniform<{storage}:f32:{axis}, {{{params}}}>"
    return f"!quant.uniform<{storage}:f32, {scale()}:{zp()}>"


def _chain(shape, q_in: str, q_out: str, op: str) -> str:
    f, a, b = _t(shape, "f32"), _t(shape, q_in), _t(shape, q_out)
    return "\n".join([
        f"func.func @main(%x: {f}, %y: {f}) -> {f} {{",
        f"  %qx = stablehlo.uniform_quantize %x : ({f}) -> {a}",
        f"  %rx = stablehlo.uniform_quantize %qx : ({a}) -> {b}",
        f"  %qy = stablehlo.uniform_quantize %y : ({f}) -> {b}",
        f"  %s = stablehlo.{op} %rx, %qy : {b}",
        f"  %e = stablehlo.exponential %s : {b}",
        f"  %m = stablehlo.maximum %e, %qy : {b}",
        f"  %d = stablehlo.uniform_dequantize %m : ({b}) -> {f}",
        f"  return %d : {f}",
        "}"])


@SETTINGS
@given(st.data())
def test_quantize_requantize_elementwise(data):
    shape, dynamic = data.draw(shapes())
    q_in = data.draw(quant_types(shape))
    q_out = data.draw(quant_types(shape))
    if ":f32:" in q_out:  # the elementwise ops take per-tensor operands only
        q_out = q_out.split(":f32:")[0] + ":f32, 0.37:1>"
    if ":f32:" in q_in and ":f32:" in q_out:
        return
    op = data.draw(st.sampled_from(["add", "multiply", "subtract"]))
    rescale = data.draw(st.sampled_from(sorted(SEMANTICS)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    inputs = [(rng.standard_normal(shape) * 20).astype(np.float32) for _ in range(2)]
    text = _same(_chain(dynamic, q_in, q_out, op), _chain(shape, q_in, q_out, op), inputs,
                 rescale)
    assert "chlo.broadcast_" in text


def _hybrid(m, k, n, q: str) -> str:
    a, w, qw, r = _t([m, k], "f32"), _t([k, n], "i8"), _t([k, n], q), _t([m, n], "f32")
    return "\n".join([
        f"func.func @main(%a: {a}, %w: {w}) -> {r} {{",
        f"  %qw = stablehlo.bitcast_convert %w : ({w}) -> {qw}",
        f"  %r = stablehlo.dot_general %a, %qw, contracting_dims = [1] x [0] : ({a}, {qw}) -> {r}",
        f"  return %r : {r}",
        "}"])


@SETTINGS
@given(st.data())
def test_hybrid_dot_general_dynamic_batch(data):
    m, k, n = (data.draw(st.integers(1, 5)) for _ in range(3))
    scales = [float(np.float32(data.draw(st.floats(0.01, 2.0)))) for _ in range(n)]
    q = "!quant.uniform<i8:f32:1, {" + ", ".join(map(str, scales)) + "}>"
    rescale = data.draw(st.sampled_from(sorted(SEMANTICS)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    inputs = [rng.standard_normal((m, k)).astype(np.float32),
              rng.integers(-128, 128, (k, n)).astype(np.int8)]
    dynamic_k = None if data.draw(st.booleans()) else k  # the rhs dynamic too
    _same(_hybrid(None, dynamic_k, n, q), _hybrid(m, k, n, q), inputs, rescale)


def _qdq(shape, q: str) -> str:
    f, t = _t(shape, "f32"), _t(shape, q)
    return "\n".join([
        f"func.func @main(%x: {f}, %y: {f}) -> {f} {{",
        f"  %qx = stablehlo.uniform_quantize %x : ({f}) -> {t}",
        f"  %dx = stablehlo.uniform_dequantize %qx : ({t}) -> {f}",
        f"  %qy = stablehlo.uniform_quantize %y : ({f}) -> {t}",
        f"  %dy = stablehlo.uniform_dequantize %qy : ({t}) -> {f}",
        f"  %s = stablehlo.add %dx, %dy : {f}",
        f"  %qs = stablehlo.uniform_quantize %s : ({f}) -> {t}",
        f"  %ds = stablehlo.uniform_dequantize %qs : ({t}) -> {f}",
        f"  return %ds : {f}",
        "}"])


@SETTINGS
@given(st.data())
def test_qdq_fused_then_lowered(data):
    shape, dynamic = data.draw(shapes())
    q = f"!quant.uniform<i8:f32, {float(np.float32(data.draw(st.floats(0.01, 2.0))))}:3>"
    rescale = data.draw(st.sampled_from(sorted(SEMANTICS)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    inputs = [(rng.standard_normal(shape) * 10).astype(np.float32) for _ in range(2)]
    _same(_qdq(dynamic, q), _qdq(shape, q), inputs, rescale, qdq=True)


def _quantized_dot(m, k, n, ql: str, qr: str, qo: str) -> str:
    a, w, o = _t([m, k], "i8"), _t([k, n], "i8"), _t([m, n], "i8")
    qa, qw, qo_t = _t([m, k], ql), _t([k, n], qr), _t([m, n], qo)
    return "\n".join([
        f"func.func @main(%a: {a}, %w: {w}) -> {o} {{",
        f"  %qa = stablehlo.bitcast_convert %a : ({a}) -> {qa}",
        f"  %qw = stablehlo.bitcast_convert %w : ({w}) -> {qw}",
        f"  %r = stablehlo.dot_general %qa, %qw, contracting_dims = [1] x [0] : ({qa}, {qw}) -> {qo_t}",
        f"  %o = stablehlo.bitcast_convert %r : ({qo_t}) -> {o}",
        f"  return %o : {o}",
        "}"])


@SETTINGS
@given(st.data())
def test_quantized_dot_general_dynamic(data):
    """Fully quantized: the kernel runs on the centred operands (q - z, zero points through
    chlo.broadcast_subtract), then the float or fixed-point rescale."""
    m, k, n = (data.draw(st.integers(1, 5)) for _ in range(3))
    scale = lambda: float(np.float32(data.draw(st.floats(0.01, 2.0))))  # noqa: E731
    ql = f"!quant.uniform<i8:f32, {scale()}:{data.draw(st.integers(-20, 20))}>"
    rescale = data.draw(st.sampled_from(sorted(SEMANTICS)))
    if rescale != "stablehlo" and data.draw(st.booleans()):
        qr = "!quant.uniform<i8:f32:1, {" + ", ".join(f"{scale()}:0" for _ in range(n)) + "}>"
    else:
        qr = f"!quant.uniform<i8:f32, {scale()}>"  # the rhs zero point is 0 (spec C15)
    qo = f"!quant.uniform<i8:f32, {scale() * 4}:{data.draw(st.integers(-20, 20))}>"
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    inputs = [rng.integers(-128, 128, (m, k)).astype(np.int8),
              rng.integers(-128, 128, (k, n)).astype(np.int8)]
    dynamic_k = None if data.draw(st.booleans()) else k
    _same(_quantized_dot(None, dynamic_k, n, ql, qr, qo), _quantized_dot(m, k, n, ql, qr, qo),
          inputs, rescale)


def _quantized_conv(n, h, w, c, o, pad, ql: str, qr: str, qo: str, const_w=None) -> str:
    hh, ww = h + 2 * pad - 2 if h is not None else None, w + 2 * pad - 2 if w is not None else None
    a, k, r = _t([n, h, w, c], "i8"), _t([3, 3, c, o], "i8"), _t([n, hh, ww, o], "i8")
    qa, qk, qr_t = _t([n, h, w, c], ql), _t([3, 3, c, o], qr), _t([n, hh, ww, o], qo)
    if const_w is None:
        head = [f"func.func @main(%a: {a}, %k: {k}) -> {r} {{"]
    else:
        vals = ", ".join(str(int(v)) for v in const_w.reshape(-1))
        head = [f"func.func @main(%a: {a}) -> {r} {{",
                f"  %k = stablehlo.constant dense<[{vals}]> : tensor<{const_w.size}xi8>",
                f"  %k4 = stablehlo.reshape %k : (tensor<{const_w.size}xi8>) -> {k}"]
    kname = "%k4" if const_w is not None else "%k"
    return "\n".join(head + [
        f"  %qa = stablehlo.bitcast_convert %a : ({a}) -> {qa}",
        f"  %qk = stablehlo.bitcast_convert {kname} : ({k}) -> {qk}",
        f"  %r = stablehlo.convolution(%qa, %qk) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],"
        f" window = {{stride = [1, 1], pad = [[{pad}, {pad}], [{pad}, {pad}]]}}"
        f" {{batch_group_count = 1 : i64, feature_group_count = 1 : i64}} : ({qa}, {qk}) -> {qr_t}",
        f"  %o = stablehlo.bitcast_convert %r : ({qr_t}) -> {r}",
        f"  return %o : {r}",
        "}"])


@SETTINGS
@given(st.data())
def test_quantized_convolution_dynamic(data):
    """A fully quantized NHWC convolution with a dynamic batch (and spatial) size, padded
    (the lhs zero point padded in by upstream's lowering), weights an argument or a
    constant: the dynamic lowering equals the static one in every rescale mode."""
    n, h, w = data.draw(st.integers(1, 3)), data.draw(st.integers(3, 5)), data.draw(st.integers(3, 5))
    c, o = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    pad = data.draw(st.integers(0, 1))
    scale = lambda: float(np.float32(data.draw(st.floats(0.01, 2.0))))  # noqa: E731
    ql = f"!quant.uniform<i8:f32, {scale()}:{data.draw(st.integers(-20, 20))}>"
    qr = f"!quant.uniform<i8:f32, {scale()}>"
    qo = f"!quant.uniform<i8:f32, {scale() * 8}:{data.draw(st.integers(-20, 20))}>"
    rescale = data.draw(st.sampled_from(sorted(SEMANTICS)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    x = rng.integers(-128, 128, (n, h, w, c)).astype(np.int8)
    k = rng.integers(-128, 128, (3, 3, c, o)).astype(np.int8)
    const = k if data.draw(st.booleans()) else None
    inputs = [x] if const is not None else [x, k]
    spatial = data.draw(st.booleans())
    dyn = _quantized_conv(None, None if spatial else h, None if spatial else w, c, o, pad,
                          ql, qr, qo, const)
    text = _same(dyn, _quantized_conv(n, h, w, c, o, pad, ql, qr, qo, const), inputs, rescale)
    assert "?x" in text
