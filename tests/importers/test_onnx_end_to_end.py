"""End to end: float models built with `onnx.helper`, quantized by onnxruntime's own
`quantize_static` (QDQ format, per-channel int8 weights, uint8 activations, calibrated on
random data), imported (`qcomp.importers.onnx`), lowered by

    onnx-legalize-qdq-to-quant, onnx-legalize-to-stablehlo,
    [stablehlo-legalize-qdq-to-quantized-op,] stablehlo-legalize-quant-to-math

to StableHLO integer and float math, run in qcomp's interpreter and compared with
onnxruntime on the same inputs. (stablehlo-legalize-qdq-to-quantized-op fuses only the
Reshape here, which moves the stored integers: StableHLO's dot_general and convolution
need one storage type for lhs and rhs (spec C17 / C31), and onnxruntime quantizes
activations to uint8 and weights to int8.)

- Against onnxruntime with graph optimizations off (it runs the QDQ graph node by node:
  QuantizeLinear, DequantizeLinear, float Conv / MatMul / Softmax): equal, element for
  element, on every input drawn (both quantize `x / s` in float32 and round half to
  even; the float ops' sums differ in order only below what one quantization step
  hides, and the result is re-quantized).
- Against onnxruntime with its default optimizations (the QDQ groups become its
  integer kernels, QLinearConv / QLinearMatMul, which requantize with their own
  fixed-point / float rounding): within one quantization step of the output's scale,
  the step the two roundings of the same real number may differ by.
"""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
quantization = pytest.importorskip("onnxruntime.quantization")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from qcomp.importers.onnx import import_model  # noqa: E402
from qcomp.interpreter import run  # noqa: E402
from qcomp.registry import PASSES, make_context  # noqa: E402

LOWER = ["onnx-legalize-qdq-to-quant", "onnx-legalize-to-stablehlo",
         "stablehlo-legalize-quant-to-math"]
LOWER_FUSED = ["onnx-legalize-qdq-to-quant", "onnx-legalize-to-stablehlo",
               "stablehlo-legalize-qdq-to-quantized-op", "stablehlo-legalize-quant-to-math"]


def _init(rng, name, shape, scale):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def cnn(rng):
    """Conv -> Relu -> Reshape -> MatMul -> Add."""
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("Reshape", ["r", "shape"], ["f"]),
             helper.make_node("MatMul", ["f", "m"], ["mm"]),
             helper.make_node("Add", ["mm", "bias"], ["y"])]
    inits = [_init(rng, "w", (4, 3, 3, 3), 0.3), _init(rng, "b", (4,), 0.3),
             numpy_helper.from_array(np.array([1, 144], np.int64), "shape"),
             _init(rng, "m", (144, 5), 0.1), _init(rng, "bias", (5,), 0.3)]
    g = helper.make_graph(nodes, "cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), (1, 3, 6, 6)


def cnn_pool(rng):
    """Conv -> Relu -> MaxPool -> Conv -> GlobalAveragePool -> Flatten -> Gemm."""
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], kernel_shape=[3, 3],
                              auto_pad="SAME_UPPER"),
             helper.make_node("GlobalAveragePool", ["c2"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "wg", "bg"], ["y"], transB=1)]
    inits = [_init(rng, "w1", (4, 3, 3, 3), 0.3), _init(rng, "b1", (4,), 0.3),
             _init(rng, "w2", (6, 4, 3, 3), 0.3), _init(rng, "b2", (6,), 0.3),
             _init(rng, "wg", (3, 6), 0.5), _init(rng, "bg", (3,), 0.3)]
    g = helper.make_graph(nodes, "cnn_pool",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])], inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), (1, 3, 8, 8)


def attention(rng):
    """A transformer block's core: MatMul -> Softmax -> MatMul."""
    nodes = [helper.make_node("MatMul", ["x", "wq"], ["s"]),
             helper.make_node("Softmax", ["s"], ["p"], axis=-1),
             helper.make_node("MatMul", ["p", "x"], ["y"])]
    g = helper.make_graph(nodes, "attention",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8])],
                          [_init(rng, "wq", (8, 4), 0.5)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), (1, 4, 8)


def quantize(model, shape, rng, tmp_path):
    class Reader(quantization.CalibrationDataReader):
        def __init__(self):
            self.it = iter([{"x": rng.standard_normal(shape).astype(np.float32)}
                            for _ in range(8)])

        def get_next(self):
            return next(self.it, None)

    src, dst = tmp_path / "float.onnx", tmp_path / "qdq.onnx"
    onnx.save(model, src)
    quantization.quantize_static(
        str(src), str(dst), Reader(), quant_format=quantization.QuantFormat.QDQ,
        per_channel=True, activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8)
    return onnx.load(dst)


def lowered(qmodel, passes):
    module = import_model(qmodel)
    ctx = make_context()
    for name in passes:
        PASSES[name]()().apply(ctx, module)
    module.verify()
    text = str(module)
    assert "onnx." not in text.replace("onnx.name", "") and "!quant" not in text
    return module


def session(qmodel, level):
    so = ort.SessionOptions()
    so.graph_optimization_level = level
    return ort.InferenceSession(qmodel.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])


def output_scale(qmodel) -> float:
    """The scale of the QuantizeLinear that produces the graph output's DequantizeLinear."""
    by_out = {n.output[0]: n for n in qmodel.graph.node}
    dq = by_out[qmodel.graph.output[0].name]
    assert dq.op_type == "DequantizeLinear"
    inits = {t.name: numpy_helper.to_array(t) for t in qmodel.graph.initializer}
    return float(inits[dq.input[1]])


@pytest.mark.parametrize("build", [cnn, cnn_pool, attention])
@pytest.mark.parametrize("passes", [LOWER, LOWER_FUSED], ids=["qdq", "fused"])
def test_quantize_static_model(build, passes, tmp_path):
    rng = np.random.default_rng(7)
    model, shape = build(rng)
    qmodel = quantize(model, shape, rng, tmp_path)
    module = lowered(qmodel, passes)
    plain = session(qmodel, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    fused = session(qmodel, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    step = output_scale(qmodel)
    exact = 0
    for _ in range(12):
        x = rng.standard_normal(shape).astype(np.float32)
        (r,) = run(module, [x])
        assert r.error is None, r.error
        got = np.asarray(r.results[0])
        want = plain.run(None, {"x": x})[0]
        if passes is LOWER:
            np.testing.assert_array_equal(got, want)
        else:
            # quantized ops requantize in the integer domain: one step at most
            assert np.max(np.abs(got - want)) <= step * 1.0001
        exact += int(np.array_equal(got, want))
        np.testing.assert_allclose(got, fused.run(None, {"x": x})[0], rtol=0,
                                   atol=step * 1.0001)
    if passes is LOWER:
        assert exact == 12


@pytest.mark.parametrize("build", [cnn, cnn_pool, attention])
def test_fuse_and_unfuse_qdq(build, tmp_path):
    """onnx-fuse-qdq makes the QLinear ops onnxruntime's optimizer makes (QLinearConv,
    QLinearMatMul, com.microsoft QLinearAdd, ...): run in qcomp's interpreter they agree
    with onnxruntime's optimized session within one output step (its kernels requantize
    in fixed point) for the CNN; the attention block chains two QLinearMatMul around a
    float Softmax, so a one-step difference at the first (its own scale) reaches the
    output through Softmax and the second: two output steps there. onnx-unfuse-qdq gives back the QDQ graph: equal to onnxruntime's
    QDQ graph run node by node, and lowered to integer math as the imported one is."""
    rng = np.random.default_rng(11)
    model, shape = build(rng)
    qmodel = quantize(model, shape, rng, tmp_path)
    ctx = make_context()
    fused = import_model(qmodel)
    PASSES["onnx-fuse-qdq"]()().apply(ctx, fused)
    fused.verify()
    text = str(fused)
    assert "QLinear" in text and '"onnx.MatMul"' not in text and '"onnx.Conv"' not in text
    unfused = import_model(qmodel)
    for name in ("onnx-fuse-qdq", "onnx-unfuse-qdq", *LOWER):
        PASSES[name]()().apply(ctx, unfused)
    unfused.verify()
    plain = session(qmodel, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    optimized = session(qmodel, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    step = output_scale(qmodel) * (2 if build is attention else 1)
    for _ in range(8):
        x = rng.standard_normal(shape).astype(np.float32)
        (r,) = run(fused, [x])
        assert r.error is None, r.error
        np.testing.assert_allclose(np.asarray(r.results[0]), optimized.run(None, {"x": x})[0],
                                   rtol=0, atol=step * 1.0001)
        (u,) = run(unfused, [x])
        assert u.error is None, u.error
        np.testing.assert_array_equal(np.asarray(u.results[0]), plain.run(None, {"x": x})[0])
