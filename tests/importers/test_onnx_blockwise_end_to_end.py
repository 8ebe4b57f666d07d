"""Blockwise 4-bit weights end to end: float models built with `onnx.helper` (MatMul;
MatMul -> Add with a 3-D activation), their weight quantized by onnxruntime's own 4-bit
blockwise weight quantizer (`matmul_nbits_quantizer.MatMulNBitsQuantizer` with
`DefaultWeightOnlyQuantConfig`: block sizes 32, 64, 128, symmetric and asymmetric), in
both of its formats:

- QOperator: com.microsoft MatMulNBits (B packed two nibbles a byte, uint8 packed zero
  points when asymmetric);
- QDQ: DequantizeLinear(int4 / uint4 weight, block_size, axis 0) -> MatMul;

imported, lowered by

    onnx-legalize-qdq-to-quant, onnx-legalize-to-stablehlo     (both: the hybrid
        stablehlo.dot_general with the 4-bit sub-channel weight, checked in the IR)
    stablehlo-legalize-quant-to-math  (rescale=float; fixed-point and stablehlo too)

run in qcomp's interpreter (and on XLA through `qcomp-run --backend xla`'s runner),
and compared with onnxruntime on the same inputs, element by element. The two formats
of one quantization reach the same IR text.

The bound. Both sides compute y = A @ W (+ bias) in float32 from the same float32 weight
W = (q - zp) * s: qcomp's dequantization rounds once, and so does onnxruntime's
(MatMulNBits' fp32 path, accuracy_level 0, dequantizes B blocks to float and runs MLAS
sgemm; DequantizeLinear then MatMul does the same in two nodes). They differ only in
the order (and fusing, FMA) of the K products' summation. Any float32 summation order
of sum_k a_k w_k is within gamma_K * sum_k |a_k w_k| of the exact sum, gamma_K =
K u / (1 - K u), u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms,
3.1); so two orders differ by at most 2 gamma_K (|A| @ |W|), and the bias Add rounds
each side once more (u |y| each):

    |y_qcomp - y_ort| <= 2 gamma_K (|A| @ |W|) + u (|y_qcomp| + |y_ort|)

W for the bound is unpacked here from the model's initializers (this file's own code).
Measured: the largest |difference| / bound, printed by the first test, is 0.002 to 0.004
(the bound is the worst case; the orders' errors are far smaller and partly cancel).

Where onnxruntime computes otherwise: its default graph optimizations fuse the QDQ form
into MatMulNBits with accuracy_level 4 (session option
`session.qdq_matmulnbits_accuracy_level`, default 4), which quantizes A to int8 per block
before an integer dot: 1e-2 off on these inputs, far outside the bound. The QDQ form is
compared with onnxruntime's node-by-node session (optimizations off) and with its fused
session at accuracy level 0 (fp32), both within the bound.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.lazy import installed, lazy_module

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
# onnxruntime's 4-bit quantizer (it needs onnx_ir), imported when a test first uses it:
# onnx_ir and sympy cost each worker's collection a second of CPU
if not installed("onnx_ir"):
    pytest.skip("onnxruntime's matmul_nbits_quantizer needs onnx_ir", allow_module_level=True)
nbits = lazy_module("onnxruntime.quantization.matmul_nbits_quantizer")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnxruntime.quantization import QuantFormat  # noqa: E402

from qcomp.importers.onnx import import_model  # noqa: E402
from qcomp.interpreter import run  # noqa: E402
from qcomp.registry import PASSES, make_context  # noqa: E402

ONNX_PASSES = ["onnx-legalize-qdq-to-quant", "onnx-legalize-to-stablehlo"]
U = 2.0**-24
K, N = 256, 16


def float_model(rng, with_add: bool):
    """x[3, K] @ w[K, N], or x[2, 3, K] @ w[K, N] + b[N]."""
    w = numpy_helper.from_array((rng.standard_normal((K, N)) * 0.1).astype(np.float32), "w")
    nodes = [helper.make_node("MatMul", ["x", "w"], ["mm" if with_add else "y"], name="mm")]
    inits = [w]
    shape = [2, 3, K] if with_add else [3, K]
    if with_add:
        nodes.append(helper.make_node("Add", ["mm", "b"], ["y"], name="add"))
        inits.append(numpy_helper.from_array(
            (rng.standard_normal(N) * 0.1).astype(np.float32), "b"))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape[:-1] + [N])],
                          inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)]), tuple(shape)


def quantize(model, block: int, symmetric: bool, fmt, bits: int = 4):
    """onnxruntime's blockwise weight quantizer (RTN, `DefaultWeightOnlyQuantConfig`)."""
    config = nbits.DefaultWeightOnlyQuantConfig(block_size=block, is_symmetric=symmetric,
                                                quant_format=fmt, bits=bits)
    q = nbits.MatMulNBitsQuantizer(onnx.ModelProto.FromString(model.SerializeToString()),
                                   algo_config=config)
    q.process()
    return q.model.model


def _unpack(packed: np.ndarray, bits: int = 4) -> np.ndarray:
    b = packed.astype(np.uint8).reshape(-1)
    return b if bits == 8 else np.stack([b & 15, b >> 4], axis=-1).reshape(-1)


def dequantized_weight(qmodel) -> np.ndarray:
    """W[K, N] in float32, unpacked from the quantized model's initializers."""
    inits = {t.name: numpy_helper.to_array(t) for t in qmodel.graph.initializer}
    node = next(n for n in qmodel.graph.node if n.op_type in ("MatMulNBits", "DequantizeLinear"))
    if node.op_type == "MatMulNBits":
        a = {x.name: x.i for x in node.attribute}
        bs, nb, bits = a["block_size"], K // a["block_size"], a["bits"]
        q = _unpack(inits[node.input[1]], bits).reshape(N, K).astype(np.float32)
        s = inits[node.input[2]].reshape(N, nb)
        zp = (_unpack(inits[node.input[3]], bits).reshape(N, -1)[:, :nb].astype(np.float32)
              if len(node.input) > 3 and node.input[3]
              else np.full((N, nb), 1 << (bits - 1), np.float32))
        blk = np.arange(K) // bs
        return ((q - zp[:, blk]) * s[:, blk]).T
    bs = next(x.i for x in node.attribute if x.name == "block_size")
    q = inits[node.input[0]].astype(np.float32)
    s = inits[node.input[1]]
    zp = (inits[node.input[2]].astype(np.float32) if len(node.input) > 2 and node.input[2]
          else np.zeros_like(s))
    return (q - np.repeat(zp, bs, axis=0)) * np.repeat(s, bs, axis=0)


def bound(x: np.ndarray, w: np.ndarray, got: np.ndarray, want: np.ndarray) -> np.ndarray:
    gamma = K * U / (1 - K * U)
    mags = np.abs(x.astype(np.float64)) @ np.abs(w.astype(np.float64))
    return 2 * gamma * mags + U * (np.abs(got) + np.abs(want))


def lower(qmodel, rescale: str | None = "float"):
    module = import_model(qmodel)
    ctx = make_context()
    for name in ONNX_PASSES:
        PASSES[name]()().apply(ctx, module)
    module.verify()
    hybrid = str(module)
    if rescale is not None:
        PASSES["stablehlo-legalize-quant-to-math"]()(rescale=rescale).apply(ctx, module)
        module.verify()
    return module, hybrid


def session(qmodel, level=None, accuracy_level: str | None = None):
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    if level is not None:
        so.graph_optimization_level = level
    if accuracy_level is not None:
        so.add_session_config_entry("session.qdq_matmulnbits_accuracy_level", accuracy_level)
    return ort.InferenceSession(qmodel.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])


def check_within(got, want, x, w, worst: list[float]):
    got, want = got.reshape(-1, N), want.reshape(-1, N)
    b = bound(x, w, got, want)
    diff = np.abs(got.astype(np.float64) - want)
    assert np.all(diff <= b), (f"{int(np.sum(diff > b))} elements past the bound, "
                               f"max excess {np.max(diff - b)}")
    worst.append(float(np.max(diff / b)))


def _run(module, x) -> np.ndarray:
    (r,) = run(module, [x])
    assert r.error is None, r.error
    return np.asarray(r.results[0])


@pytest.mark.parametrize("with_add", [False, True], ids=["matmul", "matmul_add"])
@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
@pytest.mark.parametrize("block", [32, 64, 128])
def test_quantizer_formats_against_onnxruntime(block, symmetric, with_add):
    rng = np.random.default_rng(block + 2 * symmetric + with_add)
    model, shape = float_model(rng, with_add)
    qop = quantize(model, block, symmetric, QuantFormat.QOperator)
    qdq = quantize(model, block, symmetric, QuantFormat.QDQ)
    assert [n.op_type for n in qop.graph.node][0] == "MatMulNBits"
    assert [n.op_type for n in qdq.graph.node][:2] == ["DequantizeLinear", "MatMul"]
    if symmetric:  # about half the blocks: the sign that maps the largest |w| to -8,
        # which the pass reflects into positive scales (onnx_quant.positive_scales)
        assert any(np.any(numpy_helper.to_array(t) < 0) for t in qop.graph.initializer
                   if t.name.endswith("_scales"))
    storage = "i4"  # u4 weights (asymmetric) are re-biased to signless i4
    weight_type = f"x!quant.uniform<{storage}:f32:{{0:{block}, 1:1}}"
    lowered, hybrids, worst = {}, [], []
    for name, qmodel in (("nbits", qop), ("qdq", qdq)):
        module, hybrid = lower(qmodel)
        # the hybrid form: one dot_general, float A, the 4-bit sub-channel weight
        assert hybrid.count("stablehlo.dot_general") == 1 and weight_type in hybrid
        assert "onnx.Custom" not in hybrid and "DequantizeLinear" not in hybrid
        assert "uniform_dequantize" not in hybrid
        lowered[name] = module
        hybrids.append(hybrid)
    assert hybrids[0] == hybrids[1]  # the two formats reach the same IR
    w = dequantized_weight(qop)
    np.testing.assert_array_equal(w, dequantized_weight(qdq))  # one quantization, two forms
    ort_nbits = session(qop)
    ort_qdq = session(qdq, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    ort_qdq_fused = session(qdq, accuracy_level="0")
    for _ in range(3):
        x = rng.standard_normal(shape).astype(np.float32)
        got = _run(lowered["nbits"], x)
        np.testing.assert_array_equal(got, _run(lowered["qdq"], x))
        for s in (ort_nbits, ort_qdq, ort_qdq_fused):
            check_within(got, s.run(None, {"x": x})[0], x.reshape(-1, K), w, worst)
    print(f"block {block}: largest |difference| / bound = {max(worst):.3g}")


@pytest.mark.parametrize("symmetric", [True, False], ids=["sym", "asym"])
def test_eight_bit_matmul_nbits(symmetric):
    """bits = 8 (u8 storage, zero point 128 by default; re-biased to i8): the same
    hybrid dot_general and the same bound."""
    rng = np.random.default_rng(8 + symmetric)
    model, shape = float_model(rng, True)
    qop = quantize(model, 32, symmetric, QuantFormat.QOperator, bits=8)
    assert [(a.name, a.i) for a in qop.graph.node[0].attribute if a.name == "bits"] == [("bits", 8)]
    module, hybrid = lower(qop)
    assert "x!quant.uniform<i8:f32:{0:32, 1:1}" in hybrid and "onnx.Custom" not in hybrid
    w, ort_nbits = dequantized_weight(qop), session(qop)
    for _ in range(3):
        x = rng.standard_normal(shape).astype(np.float32)
        check_within(_run(module, x), ort_nbits.run(None, {"x": x})[0], x.reshape(-1, K), w, [])


@pytest.mark.parametrize("rescale", ["fixed-point", "stablehlo"])
def test_other_rescale_modes_give_the_float_result(rescale):
    """The hybrid form dequantizes the weight exactly in every mode (f32 behind an
    optimization_barrier under `stablehlo`); with the u4 -> i4 re-bias upstream's
    signless reading is right too: the same bits as rescale=float."""
    rng = np.random.default_rng(5)
    model, shape = float_model(rng, True)
    qop = quantize(model, 32, False, QuantFormat.QOperator)
    x = rng.standard_normal(shape).astype(np.float32)
    a = _run(lower(qop, "float")[0], x)
    b = _run(lower(qop, rescale)[0], x)
    np.testing.assert_array_equal(a, b)


def test_default_onnxruntime_fuses_qdq_at_accuracy_level_4():
    """The departure the module docstring names: onnxruntime's default session turns the
    QDQ form into MatMulNBits at accuracy_level 4 (int8 activations), outside the fp32
    bound; qcomp computes the fp32 meaning."""
    rng = np.random.default_rng(9)
    model, shape = float_model(rng, False)
    qdq = quantize(model, 32, False, QuantFormat.QDQ)
    module, _ = lower(qdq)
    x = rng.standard_normal(shape).astype(np.float32)
    got = _run(module, x)
    want = session(qdq).run(None, {"x": x})[0]
    b = bound(x, dequantized_weight(qdq), got, want)
    assert np.any(np.abs(got - want) > b)


@pytest.mark.parametrize("fmt", [QuantFormat.QOperator, QuantFormat.QDQ], ids=["nbits", "qdq"])
@pytest.mark.parametrize("rescale", ["float", None], ids=["lowered", "hybrid"])
def test_xla_backend(fmt, rescale):
    """On XLA (`qcomp-run --backend xla`'s runner), the float-lowered program and the
    hybrid one (which the backend lowers itself) are within the same bound of
    onnxruntime."""
    pytest.importorskip("jax")
    from qcomp.backends.dispatch import run as run_backend

    rng = np.random.default_rng(3)
    model, shape = float_model(rng, True)
    qmodel = quantize(model, 64, fmt is QuantFormat.QDQ, fmt)
    module, _ = lower(qmodel, rescale)
    x = rng.standard_normal(shape).astype(np.float32)
    (r,) = run_backend(module, [x], backend="xla")
    assert r.error is None, r.error
    got = np.asarray(r.results[0])
    want = session(qmodel, ort.GraphOptimizationLevel.ORT_DISABLE_ALL).run(None, {"x": x})[0]
    check_within(got, want, x.reshape(-1, K), dequantized_weight(qmodel), [])
