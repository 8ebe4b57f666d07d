"""litert-quantize-weights on random float FULLY_CONNECTED / CONV_2D /
DEPTHWISE_CONV_2D programs: the result passes litert-verify-int8, its weights are
torch's per-channel symmetric int8 ones, and run in qcomp's interpreter it stays
within the stated quantization error of the float result computed by NumPy / torch:

    |y_q - y| <= s_out/2 + s_in/2 * sum_k (|w_k| + s_w/2) + s_w/2 * sum_k |x_k| + s_b/2

(input, weight, bias and output rounding; the integer arithmetic between is exact).
"""

from __future__ import annotations

import numpy as np
import pytest

from qcomp.interpreter import run
from qcomp.passes.litert_quantize_weights import LitertQuantizeWeightsPass
from qcomp.passes.litert_verify_int8 import problems
from qcomp.quant import litert
from tests.passes.pass_helpers import run_pass

from tests.lazy import importorskip  # noqa: E402

torch = importorskip("torch")  # imported when a test first uses it


def _lit(a: np.ndarray) -> str:
    """A dense literal MLIR reads back exactly (float32 values, 9 significant digits)."""
    if a.ndim == 0:
        return f"{float(a):.9e}"
    return "[" + ", ".join(_lit(x) for x in a) + "]"


def _t(shape) -> str:
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def _cal(shape, lo, hi, v, name) -> str:
    c = f"tensor<{'x'.join(map(str, shape))}x!quant.calibrated<f32<{lo:.9e}:{hi:.9e}>>>"
    return (f"  %{name}c = quant.qcast {v} : {_t(shape)} to {c}\n"
            f"  %{name} = quant.dcast %{name}c : {c} to {_t(shape)}\n")


def _program(x, w, b, y, contraction: str, chan: int) -> str:
    """x -> calibrated -> contraction with constant w -> + broadcast b -> calibrated y."""
    out = y.shape
    return (f"func.func @main(%arg0: {_t(x.shape)}) -> {_t(out)} {{\n"
            + _cal(x.shape, x.min(), x.max(), "%arg0", "x")
            + f"  %w = stablehlo.constant dense<{_lit(w)}> : {_t(w.shape)}\n"
            + f"  %acc = {contraction} : ({_t(x.shape)}, {_t(w.shape)}) -> {_t(out)}\n"
            + f"  %b = stablehlo.constant dense<{_lit(b)}> : {_t(b.shape)}\n"
            + f"  %bb = stablehlo.broadcast_in_dim %b, dims = [{chan}] : ({_t(b.shape)}) -> {_t(out)}\n"
            + f"  %y = stablehlo.add %acc, %bb : {_t(out)}\n"
            + _cal(out, min(y.min(), 0.0) * 1.01, max(y.max(), 0.0) * 1.01, "%y", "r")
            + f"  return %r : {_t(out)}\n}}\n")


def _check(src, x, y, bound_terms, w, w_axis):
    module = run_pass(LitertQuantizeWeightsPass(), src)
    assert problems(module) == []  # litert-verify-int8 accepts it
    # the weights: torch's per-channel symmetric int8 scales, bit for bit
    obs = torch.ao.quantization.PerChannelMinMaxObserver(
        ch_axis=w_axis, dtype=torch.qint8, quant_min=-127, quant_max=127,
        qscheme=torch.per_channel_symmetric)
    obs(torch.from_numpy(w))
    t_scales = obs.calculate_qparams()[0].numpy()
    from qcomp.dialects.stablehlo import ConstantOp
    from qcomp.dialects.quant import quantized_element

    qw = next(quantized_element(o.results[0].type) for o in module.walk()
              if isinstance(o, ConstantOp) and quantized_element(o.results[0].type) is not None
              and quantized_element(o.results[0].type).storage_bitwidth == 8)
    assert np.array_equal(qw.scales.astype(np.float32), t_scales)
    assert qw.quantized_dimension == w_axis and qw.storage_min == -127
    got = run(module, [x])[0].results[0].astype(np.float64)
    s_in, _ = litert.activation_params(float(x.min()), float(x.max()))
    s_w = t_scales.astype(np.float64)
    s_out, _ = litert.activation_params(min(y.min(), 0.0) * 1.01, max(y.max(), 0.0) * 1.01)
    abs_w_sum, abs_x_sum = bound_terms(np.abs(w) + s_w_b(s_w, w, w_axis) / 2, np.abs(x))
    bound = s_out / 2 + s_in / 2 * abs_w_sum + abs_x_sum * s_w / 2 + s_in * s_w / 2
    err = np.abs(got - y)
    assert np.all(err <= bound * (1 + 1e-5) + 1e-6), (err.max(), bound.min())
    return err.max() / s_out


def s_w_b(s_w, w, axis):
    shape = [1] * w.ndim
    shape[axis] = s_w.size
    return s_w.reshape(shape)


@pytest.mark.parametrize("seed", range(3))
def test_fully_connected(seed):
    rng = np.random.default_rng(seed)
    n, k, c = 3, 16, 5
    x = rng.uniform(-2, 3, (n, k)).astype(np.float32)
    w = (rng.standard_normal((k, c)) * rng.uniform(0.01, 2, c)).astype(np.float32)
    b = rng.uniform(-1, 1, c).astype(np.float32)
    y = x.astype(np.float64) @ w.astype(np.float64) + b
    src = _program(x, w, b, y, "stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]", 1)
    # sum_k |w_k| per channel (broadcast over rows), sum_k |x_k| per row
    ratio = _check(src, x, y, lambda aw, ax: (aw.sum(0)[None, :], ax.sum(1)[:, None]), w, 1)
    print(f"fully_connected seed {seed}: max error {ratio:.2f} output steps")
    assert ratio < 3  # a few output steps at most on these shapes


def _conv_terms(groups):
    def terms(aw, ax):
        xt = torch.from_numpy(ax.astype(np.float64)).permute(0, 3, 1, 2)
        ones = torch.ones_like(xt)
        wt = torch.from_numpy(aw.astype(np.float64)).permute(3, 2, 0, 1)
        sw = torch.nn.functional.conv2d(ones, wt, groups=groups)  # sum |w| per window
        sx = torch.nn.functional.conv2d(xt, torch.ones_like(wt), groups=groups)
        return sw.permute(0, 2, 3, 1).numpy(), sx.permute(0, 2, 3, 1).numpy()
    return terms


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("depthwise", [False, True])
def test_convolution(seed, depthwise):
    rng = np.random.default_rng(10 + seed)
    cin, mult = 3, 2
    cout = cin * mult if depthwise else 4
    groups = cin if depthwise else 1
    x = rng.uniform(-1, 2, (1, 5, 5, cin)).astype(np.float32)
    w = (rng.standard_normal((3, 3, 1 if depthwise else cin, cout))
         * rng.uniform(0.05, 1, cout)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, cout).astype(np.float32)
    xt = torch.from_numpy(x.astype(np.float64)).permute(0, 3, 1, 2)
    wt = torch.from_numpy(w.astype(np.float64)).permute(3, 2, 0, 1)  # HWIO -> OIHW
    y = torch.nn.functional.conv2d(xt, wt, torch.from_numpy(b.astype(np.float64)),
                                   groups=groups).permute(0, 2, 3, 1).numpy()
    conv = ("stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], "
            "window = {stride = [1, 1]} {batch_group_count = 1 : i64, "
            f"feature_group_count = {groups} : i64}}")
    src = _program(x, w, b, y, conv, 3)
    ratio = _check(src, x, y, _conv_terms(groups), w, 3)
    print(f"convolution depthwise={depthwise} seed {seed}: max error {ratio:.2f} output steps")
    assert ratio < 4


def test_option_ranges_and_no_range_error():
    src = ("func.func @main(%arg0: tensor<1x2xf32>) -> tensor<1x2xf32> {\n"
           "  %w = stablehlo.constant dense<[[1.0, -2.0], [0.5, 0.25]]> : tensor<2x2xf32>\n"
           "  %0 = stablehlo.dot_general %arg0, %w, contracting_dims = [1] x [0] : "
           "(tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>\n"
           "  return %0 : tensor<1x2xf32>\n}\n")
    module = run_pass(LitertQuantizeWeightsPass(activation_min=-4.0, activation_max=4.0), src)
    assert problems(module) == []
    # activation-min/max give input and output the range [-4, 4] (scale 8/255)
    got = run(module, [np.array([[1.0, 2.0]], np.float32)])[0].results[0]
    assert np.abs(got - np.array([[2.0, -1.5]])).max() <= 8 / 255 * 3
    from qcomp.passes.utils.diagnostics import PassDiagnostic

    with pytest.raises(PassDiagnostic, match="no range for the input of stablehlo.dot_general"):
        run_pass(LitertQuantizeWeightsPass(), src)


def _tflite_fully_connected(x_q: tuple, w: np.ndarray, w_scales, b: np.ndarray, out: tuple):
    """A one-op int8 FULLY_CONNECTED .tflite model (TFLite's [out, in] weights,
    per-channel on dimension 0), built with the schema's object API."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as s

    def qp(scales, zps):
        q = s.QuantizationParametersT()
        q.scale, q.zeroPoint, q.quantizedDimension = list(map(float, scales)), list(map(int, zps)), 0
        return q

    def tensor(name, shape, ttype, buf, q):
        t = s.TensorT()
        t.name, t.shape, t.type, t.buffer, t.quantization = name, list(shape), ttype, buf, q
        return t

    c, k = w.shape
    buffers = [s.BufferT() for _ in range(5)]
    buffers[1].data, buffers[2].data = list(w.tobytes()), list(b.tobytes())
    s_b = [float(np.float32(x_q[0]) * np.float32(sw)) for sw in w_scales]
    T = s.TensorType
    tensors = [tensor("x", [1, k], T.INT8, 3, qp([x_q[0]], [x_q[1]])),
               tensor("w", [c, k], T.INT8, 1, qp(w_scales, [0] * c)),
               tensor("b", [c], T.INT32, 2, qp(s_b, [0] * c)),
               tensor("y", [1, c], T.INT8, 4, qp([out[0]], [out[1]]))]
    op = s.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, [0, 1, 2], [3]
    op.builtinOptionsType = s.BuiltinOptions.FullyConnectedOptions
    op.builtinOptions = s.FullyConnectedOptionsT()
    sg = s.SubGraphT()
    sg.tensors, sg.inputs, sg.outputs, sg.operators = tensors, [0], [3], [op]
    code = s.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = s.BuiltinOperator.FULLY_CONNECTED
    code.version = 1
    m = s.ModelT()
    m.version, m.operatorCodes, m.subgraphs, m.buffers = 3, [code], [sg], buffers
    fb = flatbuffers.Builder(1024)
    fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
    return bytes(fb.Output())


@pytest.mark.parametrize("seed", range(3))
def test_litert_runs_the_quantized_weights(seed):
    """LiteRT's reference FULLY_CONNECTED accepts the pass's weights, bias and
    parameters (its Prepare checks them) and computes what qcomp's interpreter computes
    on the quantized program, to within one output step (TFLite rescales in fixed
    point, qcomp's interpreter by the spec's exact rounding)."""
    litert_rt = pytest.importorskip("ai_edge_litert.interpreter")
    from qcomp.dialects.quant import quantized_element
    from qcomp.dialects.stablehlo import ConstantOp, UniformQuantizeOp
    from qcomp.passes.quant_to_math.dot import constant_values

    rng = np.random.default_rng(20 + seed)
    n, k, c = 4, 12, 5
    x = rng.uniform(-3, 2, (n, k)).astype(np.float32)
    w = (rng.standard_normal((k, c)) * rng.uniform(0.01, 2, c)).astype(np.float32)
    b = rng.uniform(-1, 1, c).astype(np.float32)
    y = x.astype(np.float64) @ w.astype(np.float64) + b
    module = run_pass(LitertQuantizeWeightsPass(), _program(
        x, w, b, y, "stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]", 1))
    consts = {quantized_element(o.results[0].type).storage_bitwidth: o for o in module.walk()
              if isinstance(o, ConstantOp) and quantized_element(o.results[0].type) is not None}
    quants = [quantized_element(o.results[0].type) for o in module.walk()
              if isinstance(o, UniformQuantizeOp)]
    q_in, q_out = quants[0], quants[-1]
    qw = quantized_element(consts[8].results[0].type)
    w_q = constant_values(consts[8].results[0]).astype(np.int8)
    b_q = constant_values(consts[32].results[0]).astype(np.int32)
    model = _tflite_fully_connected((q_in.scale, q_in.zero_point), np.ascontiguousarray(w_q.T),
                                    qw.scales, b_q, (q_out.scale, q_out.zero_point))
    interp = litert_rt.Interpreter(
        model_content=model,
        experimental_op_resolver_type=litert_rt.OpResolverType.BUILTIN_REF)
    interp.allocate_tensors()
    ours = run(module, [x])[0].results[0].astype(np.float64)
    ours_q = np.rint(ours / np.float32(q_out.scale)).astype(np.int64) + q_out.zero_point
    # the spec's uniform_quantize of x (round half to even), row by row into LiteRT
    x_q = np.clip(np.rint(x.astype(np.float64) / np.float32(q_in.scale)) + q_in.zero_point,
                  -128, 127).astype(np.int8)
    theirs = []
    for row in x_q:
        interp.set_tensor(interp.get_input_details()[0]["index"], row[None, :])
        interp.invoke()
        theirs.append(interp.get_tensor(interp.get_output_details()[0]["index"])[0])
    theirs = np.array(theirs, np.int64)
    assert np.abs(theirs - ours_q).max() <= 1
    print(f"seed {seed}: {int((theirs == ours_q).sum())} of {theirs.size} equal")


def test_two_layers_stay_int8_between():
    """FC -> FC: the second contraction takes the first one's int8 result (no
    dequantize/quantize between), and the error bound composes: layer 2's input error
    is layer 1's output error e1, so
    |y2_q - y2| <= s2/2 + sum_k (e1_k (|w2_k| + s_w2/2) + |h_k| s_w2/2) + s_b2/2."""
    from qcomp.dialects.stablehlo import DotGeneralOp, UniformDequantizeOp, UniformQuantizeOp

    rng = np.random.default_rng(7)
    x = rng.uniform(-1, 1, (3, 6)).astype(np.float32)
    w1 = rng.standard_normal((6, 4)).astype(np.float32)
    w2 = rng.standard_normal((4, 2)).astype(np.float32)
    b1, b2 = rng.uniform(-1, 1, 4).astype(np.float32), rng.uniform(-1, 1, 2).astype(np.float32)
    h = x.astype(np.float64) @ w1 + b1
    y = h @ w2.astype(np.float64) + b2
    r1 = (min(h.min(), 0.0) * 1.01, max(h.max(), 0.0) * 1.01)
    r2 = (min(y.min(), 0.0) * 1.01, max(y.max(), 0.0) * 1.01)
    src = _program(x, w1, b1, h, "stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]", 1)
    body = src.split("  return %r")[0].replace(f"-> {_t(h.shape)} {{", f"-> {_t(y.shape)} {{")
    src = (body + f"  %w2 = stablehlo.constant dense<{_lit(w2)}> : {_t(w2.shape)}\n"
           f"  %acc2 = stablehlo.dot_general %r, %w2, contracting_dims = [1] x [0] : "
           f"({_t(h.shape)}, {_t(w2.shape)}) -> {_t(y.shape)}\n"
           f"  %b2 = stablehlo.constant dense<{_lit(b2)}> : {_t(b2.shape)}\n"
           f"  %bb2 = stablehlo.broadcast_in_dim %b2, dims = [1] : ({_t(b2.shape)}) -> {_t(y.shape)}\n"
           f"  %y2 = stablehlo.add %acc2, %bb2 : {_t(y.shape)}\n"
           + _cal(y.shape, *r2, "%y2", "r2") + f"  return %r2 : {_t(y.shape)}\n}}\n")
    module = run_pass(LitertQuantizeWeightsPass(), src)
    assert problems(module) == []
    ops = list(module.walk())
    dots = [o for o in ops if isinstance(o, DotGeneralOp)]
    assert isinstance(dots[1].operands[0].owner, UniformQuantizeOp)  # layer 1's int8 output
    assert sum(isinstance(o, UniformDequantizeOp) for o in ops) == 1
    got = run(module, [x])[0].results[0].astype(np.float64)
    s_in, _ = litert.activation_params(float(x.min()), float(x.max()))
    s1, _ = litert.activation_params(*r1)
    s2, _ = litert.activation_params(*r2)
    sw1, sw2 = litert.weight_scales(w1, 1).astype(np.float64), litert.weight_scales(w2, 1).astype(np.float64)
    e1 = (s1 / 2 + s_in / 2 * (np.abs(w1) + sw1 / 2).sum(0)[None, :]
          + np.abs(x).sum(1)[:, None] * sw1 / 2 + s_in * sw1 / 2)
    e2 = (s2 / 2 + e1 @ (np.abs(w2) + sw2 / 2) + np.abs(h) @ np.broadcast_to(sw2 / 2, w2.shape)
          + s1 * sw2 / 2)
    assert np.all(np.abs(got - y) <= e2 * (1 + 1e-5) + 1e-6)
