"""com.microsoft Attention and EmbedLayerNormalization, and what onnxruntime 1.32's
quantizer writes of them and of LSTM (`quantize_dynamic`: QAttention after a
DynamicQuantizeLinear, QEmbedLayerNormalization with uint8 tables, DynamicQuantizeLSTM;
`quantize_static` QOperator: QEmbedLayerNormalization with int8 tables; QDQ: the float
EmbedLayerNormalization between DequantizeLinear / QuantizeLinear) against onnxruntime's
unoptimized session (one thread), on one-op models of random shapes and attributes; the
program `onnx-legalize-to-stablehlo` makes of each gives the interpreter's bits.

Within float tolerance, not bit for bit: onnxruntime's softmax, sigmoid and tanh are
MLAS's approximations (`MlasComputeSoftmax`, `MlasComputeLogistic`, `MlasComputeTanh`),
its layer normalization sums the hidden dimension left to right in one float, and its
GEMMs block their sums; qcomp's exponential / logistic / tanh are correctly rounded and
its reductions are StableHLO's. The quantized products themselves are exact (int32), so
QAttention's `present` (K and V) and a DynamicQuantizeLSTM with HardSigmoid / Relu
activations come out bit for bit.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from qcomp.importers.onnx import import_model  # noqa: E402
from qcomp.interpreter import run  # noqa: E402
from qcomp.registry import PASSES, make_context  # noqa: E402
from tests.importers.test_onnx_lstm import lstm_case, session  # noqa: E402

SEEDS = range(int(os.environ.get("QCOMP_ONNX_SEQUENCE_SEEDS", "3")))
"""CI's sample; `tools/onnx_sequence_ops.py` runs many more."""
MS = "com.microsoft"
F32 = np.float32


def _model(node, ins, outs, inits):
    g = helper.make_graph([node], node.op_type, ins, outs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17),
                                            helper.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m


def quantized(model, tmp_path, how: str, feeds=None, per_channel: bool = False):
    """`model` as onnxruntime's quantizer writes it: `dynamic`, `qoperator` or `qdq`
    (weights per channel: one scale per output column)."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        QuantFormat,
        quantize_dynamic,
        quantize_static,
    )

    src, dst = tmp_path / "float.onnx", tmp_path / f"{how}.onnx"
    onnx.save(model, src)
    if how == "dynamic":
        quantize_dynamic(str(src), str(dst), per_channel=per_channel)
    else:
        class Reader(CalibrationDataReader):
            def __init__(self):
                self.it = iter([feeds])

            def get_next(self):
                return next(self.it, None)

        fmt = QuantFormat.QDQ if how == "qdq" else QuantFormat.QOperator
        quantize_static(str(src), str(dst), Reader(), quant_format=fmt)
    return onnx.load(str(dst))


def check(model, feeds, rtol=1e-5, atol=1e-5, ops=()):
    """qcomp against onnxruntime, then the legalized program against the interpreter."""
    assert {n.op_type for n in model.graph.node} >= set(ops), [n.op_type for n in model.graph.node]
    want = session(model).run(None, feeds)
    module = import_model(model)
    args = list(feeds.values())
    (r,) = run(module, args)
    assert r.error is None, r.error
    for got, w in zip(r.results, want, strict=True):
        assert got.dtype == w.dtype and got.shape == w.shape
        np.testing.assert_allclose(got, w, rtol=rtol, atol=atol)
    PASSES["onnx-legalize-to-stablehlo"]()().apply(make_context(), module)
    module.verify()
    assert not [o for o in module.walk() if o.name == "onnx.Custom"]
    (lowered,) = run(module, args)
    assert lowered.error is None, lowered.error
    for a, b in zip(lowered.results, r.results, strict=True):
        assert np.array_equal(a, b, equal_nan=True)
    return r.results, want


# -- Attention / QAttention -------------------------------------------------------------

def attention_case(seed: int, state: bool = True):
    """A one-Attention model of random sizes and mask form; with `state`, maybe a past
    (present then has P + S keys), an attention_bias broadcast over batch and / or heads
    (onnxruntime takes one or the other), mask_filter_value, past_sequence_length."""
    rng = np.random.default_rng(seed)
    bs, s, heads, hd = (int(v) for v in rng.integers(1, 5, 4))
    hin = int(rng.integers(1, 9))
    hh = heads * hd
    inits = [numpy_helper.from_array(rng.standard_normal((hin, 3 * hh)).astype(F32), "W"),
             numpy_helper.from_array(rng.standard_normal((3 * hh,)).astype(F32), "B")]
    feeds = {"X": rng.standard_normal((bs, s, hin)).astype(F32)}
    names = ["X", "W", "B", "", "", "", ""]
    extra = str(rng.choice(["none", "past", "bias"])) if state else "none"
    p = int(rng.integers(1, 4)) if extra == "past" else 0
    t = s + p
    kind = str(rng.choice(["none", "lengths", "ends_starts", "lengths_starts", "raw", "raw3d",
                           "dummy"]))
    if kind != "none":
        shape = {"lengths": (bs,), "ends_starts": (2 * bs,), "lengths_starts": (3 * bs + 2,),
                 "raw": (bs, t), "raw3d": (bs, s, t), "dummy": (int(rng.choice([1, bs])), 1)}[kind]
        hi = t + 1 if kind.startswith(("lengths", "ends")) else 2
        feeds["M"] = rng.integers(0, hi, shape).astype(np.int32)
        names[3] = "M"
    if extra == "past":
        feeds["past"] = rng.standard_normal((2, bs, heads, p, hd)).astype(F32)
        names[4] = "past"
        if rng.integers(0, 2):  # read only with past_present_share_buffer
            feeds["past_len"] = np.array(p, np.int32)
            names[6] = "past_len"
    if extra == "bias":
        shape = (int(rng.choice([1, bs])), int(rng.choice([1, heads])), s, t)
        feeds["bias"] = rng.standard_normal(shape).astype(F32)
        names[5] = "bias"
    while names[-1] == "":
        names.pop()
    ins = [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype),
                                         list(v.shape)) for k, v in feeds.items()]
    attrs = {"num_heads": heads, "unidirectional": int(rng.integers(0, 2))}
    if rng.integers(0, 3) == 0:
        attrs["scale"] = float(rng.uniform(0.1, 1))
    if state and rng.integers(0, 3) == 0:
        attrs["mask_filter_value"] = float(rng.uniform(-50, -1))
    outs = ["Y", "present"][:1 + int(p > 0 or rng.integers(0, 2))]
    node = helper.make_node("Attention", names, outs, domain=MS, **attrs)
    model = _model(node, ins, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                               for o in outs], inits)
    return model, feeds


@pytest.mark.parametrize("seed", SEEDS)
def test_attention_matches_onnxruntime(seed):
    """Also the output types the importer infers: present [2, B, N, P + S, H]."""
    model, feeds = attention_case(seed)
    _, want = check(model, feeds, ops=("Attention",))
    (fn,) = import_model(model).ops
    assert [tuple(t.get_shape()) for t in fn.function_type.outputs.data] == \
        [w.shape for w in want]


@pytest.mark.parametrize("seed", SEEDS)
def test_quantize_dynamic_attention_matches_onnxruntime(seed, tmp_path):
    """Odd seeds quantize the weights per channel (a scale per output column)."""
    model, feeds = attention_case(seed)
    q = quantized(model, tmp_path, "dynamic", per_channel=bool(seed % 2))
    got, want = check(q, feeds, ops=("DynamicQuantizeLinear", "QAttention"))
    if len(got) > 1:  # K and V: int32 products scaled once, as onnxruntime does
        assert np.array_equal(got[1], want[1])


# -- EmbedLayerNormalization / QEmbedLayerNormalization ---------------------------------

def embed_case(seed: int, positions: bool = True):
    rng = np.random.default_rng(seed)
    bs, s, hh = (int(v) for v in rng.integers(1, 6, 3))
    vocab, npos = int(rng.integers(2, 12)), s + int(rng.integers(0, 3))
    tables = {"word": (vocab, hh), "position": (npos, hh), "segment": (2, hh),
              "gamma": (hh,), "beta": (hh,)}
    inits = [numpy_helper.from_array(rng.standard_normal(v).astype(F32), k)
             for k, v in tables.items()]
    seg, mask = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    pos = positions and bool(rng.integers(0, 2))
    feeds = {"ids": rng.integers(0, vocab, (bs, s)).astype(np.int32)}
    names = ["ids", "seg" if seg else "", "word", "position", "segment" if seg else "",
             "gamma", "beta", "mask" if mask else ""]
    if seg:
        feeds["seg"] = rng.integers(0, 2, (bs, s)).astype(np.int32)
    if mask:
        feeds["mask"] = rng.integers(0, 2, (bs, s)).astype(np.int32)
    if pos:
        feeds["pos"] = rng.integers(0, npos, (bs, s)).astype(np.int32)
        names.append("pos")
    ins = [helper.make_tensor_value_info(k, TensorProto.INT32, [bs, s]) for k in feeds]
    outs = ["Y", "mask_index", "sum"][:2 + int(rng.integers(0, 2))]
    node = helper.make_node("EmbedLayerNormalization", names, outs, domain=MS,
                            epsilon=float(rng.choice([1e-12, 1e-5])))
    types = {"mask_index": TensorProto.INT32}
    model = _model(node, ins, [helper.make_tensor_value_info(o, types.get(o, TensorProto.FLOAT),
                                                             None) for o in outs],
                   [i for i in inits if seg or i.name != "segment"])
    return model, feeds


@pytest.mark.parametrize("seed", SEEDS)
def test_embed_layer_norm_matches_onnxruntime(seed):
    check(*embed_case(seed), ops=("EmbedLayerNormalization",))


@pytest.mark.parametrize("how", ["dynamic", "qoperator", "qdq"])
@pytest.mark.parametrize("seed", SEEDS)
def test_quantized_embed_layer_norm_matches_onnxruntime(seed, how, tmp_path):
    """quantize_dynamic (uint8 tables) and quantize_static QOperator (int8):
    QEmbedLayerNormalization (a node with embedding_sum stays float); QDQ: the float op
    between DequantizeLinear and QuantizeLinear (its result quantized then: equal, or
    one step apart)."""
    model, feeds = embed_case(seed, positions=False)
    q = quantized(model, tmp_path, how, feeds)
    # the quantizer leaves a node with embedding_sum float
    two = len(model.graph.node[0].output) == 2
    fused = "QEmbedLayerNormalization" if how != "qdq" and two else "EmbedLayerNormalization"
    step = 1e-5
    if how == "qdq":  # one step of the output's quantization
        step = max(float(numpy_helper.to_array(t)) for t in q.graph.initializer
                   if t.name.endswith("_scale") and t.name.startswith(("Y", "sum")))
    check(q, feeds, atol=step * 1.001, ops=(fused,))


# -- DynamicQuantizeLSTM ----------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_quantize_dynamic_lstm_matches_onnxruntime(seed, tmp_path):
    """Every product quantizes its float operand over the rows that count, as
    onnxruntime's one-thread kernel does (with more threads onnxruntime quantizes each
    thread's share of the batch on its own). Odd seeds quantize per channel (a scale per
    direction and gate column)."""
    model, feeds, _ = lstm_case(seed)
    check(quantized(model, tmp_path, "dynamic", per_channel=bool(seed % 2)), feeds,
          ops=("DynamicQuantizeLSTM",))


@pytest.mark.parametrize("how", ["qdq", "qoperator"])
@pytest.mark.parametrize("op", ["LSTM", "Attention"])
def test_quantize_static_leaves_lstm_and_attention_float(op, how, tmp_path):
    """Neither QDQRegistry nor QLinearOpsRegistry has LSTM or Attention: quantize_static
    writes the float op as it was, which imports and runs as the float op."""
    model, feeds = lstm_case(5)[:2] if op == "LSTM" else attention_case(1)
    q = quantized(model, tmp_path, how, feeds)
    assert [n.op_type for n in q.graph.node] == [op]
    check(q, feeds)


def dynamic_axes(model):
    """`model` with its graph inputs' sizes unknown (`dim_param`), as exporters write
    batch and sequence axes."""
    m = onnx.ModelProto.FromString(model.SerializeToString())
    for vi in m.graph.input:
        for i, d in enumerate(vi.type.tensor_type.shape.dim):
            d.dim_param = f"{vi.name}_{i}"
    return m


@pytest.mark.parametrize("form", ["lstm", "dynamic_quantize_lstm", "attention", "q_attention",
                                  "embed_layer_norm", "q_embed_layer_norm"])
def test_unknown_sizes_run_as_the_inputs_are(form, tmp_path):
    """Inputs of unknown sizes (dynamic axes): the interpreter runs each op on its
    operands' run-time shapes (`Lowering(shaped_by_operands=True)`); the legalization
    still needs static shapes and leaves the op, with a remark."""
    base, quantize = form.removeprefix("q_").removeprefix("dynamic_quantize_"), \
        form.startswith(("q_", "dynamic_"))
    model, feeds = {"lstm": lambda: lstm_case(4)[:2], "attention": lambda: attention_case(0),
                    "embed_layer_norm": lambda: embed_case(0, positions=False)}[base]()
    if quantize:
        model = quantized(model, tmp_path, "dynamic")
    model = dynamic_axes(model)
    want = session(model).run(None, feeds)
    module = import_model(model)
    (fn,) = module.ops
    assert all(-1 in a.type.get_shape() for a in fn.body.block.args)
    (r,) = run(module, list(feeds.values()))
    assert r.error is None, r.error
    for got, w in zip(r.results, want, strict=True):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5)
    PASSES["onnx-legalize-to-stablehlo"]()().apply(make_context(), module)
    assert {o.name for o in module.walk()} & {"onnx.LSTM", "onnx.Custom"}


@pytest.mark.parametrize("what", ["do_rotary", "mask_4d", "past_present_share_buffer"])
def test_what_onnxruntimes_cpu_kernel_rejects_is_a_diagnostic_at_the_op(what):
    """do_rotary, a 4-D (Megatron) mask_index and past_present_share_buffer with past:
    onnxruntime's CPU kernel fails on each; the interpreter's error is one line at the
    op, and onnx-legalize-to-stablehlo leaves the op (with a remark)."""
    rng = np.random.default_rng(0)
    bs, s, heads, hd, hin, p = 2, 3, 2, 2, 4, 2
    feeds = {"X": rng.standard_normal((bs, s, hin)).astype(F32)}
    names, attrs, outs = ["X", "W", "B"], {"num_heads": heads}, ["Y"]
    if what == "do_rotary":
        attrs["do_rotary"] = 1
    elif what == "mask_4d":
        feeds["M"] = np.ones((bs, 1, 4, 4), np.int32)
        names.append("M")
    else:
        attrs["past_present_share_buffer"] = 1
        feeds["past"] = rng.standard_normal((2, bs, heads, p, hd)).astype(F32)
        feeds["past_len"] = np.array(p, np.int32)
        names += ["", "past", "", "past_len"]
        outs.append("present")
    inits = [numpy_helper.from_array(rng.standard_normal((hin, 3 * heads * hd)).astype(F32), "W"),
             numpy_helper.from_array(rng.standard_normal((3 * heads * hd,)).astype(F32), "B")]
    ins = [helper.make_tensor_value_info(k, helper.np_dtype_to_tensor_dtype(v.dtype),
                                         list(v.shape)) for k, v in feeds.items()]
    node = helper.make_node("Attention", names, outs, domain=MS, **attrs)
    model = _model(node, ins, [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                               for o in outs], inits)
    with pytest.raises(Exception, match="not supported|past_sequence_length"):
        session(model).run(None, feeds)
    module = import_model(model)
    (r,) = run(module, list(feeds.values()))
    why = {"do_rotary": "Attention with do_rotary is not supported (onnxruntime's CPU kernel "
                        "has no rotary embedding)",
           "mask_4d": "Attention's 4-D (Megatron) mask_index is not supported (onnxruntime's "
                      "CPU kernel has none)",
           "past_present_share_buffer": "Attention with past_present_share_buffer is not "
                                        "supported (onnxruntime's CPU kernel rejects it)"}[what]
    assert why in str(r.error) and "\n" not in str(r.error).strip()
    PASSES["onnx-legalize-to-stablehlo"]()().apply(make_context(), module)
    assert [o for o in module.walk() if o.name == "onnx.Custom"]
