"""Make the ONNX model zoo (tests/models/onnx/): small float models of the kinds people
quantize, built with `onnx.helper` from seeded weights, then quantized by onnxruntime's own
tools in each format they write. Deterministic: the same onnx / onnxruntime give the same
bytes.

Architectures (`ARCHS`): a CNN with BatchNormalization (`cnn_bn`: run through
`quant_pre_process`, which folds BatchNormalization into the Conv; `cnn_bn_raw`: quantized
as built, BatchNormalization kept), a ResNet basic block, a MobileNetV2 inverted residual
(depthwise Conv, Clip as ReLU6, HardSigmoid, HardSwish), an EfficientNet-style
squeeze-excite block (GlobalAveragePool, Sigmoid, Mul), a BERT-style encoder layer
(LayerNormalization, Erf-GELU, Softmax with an attention mask via Equal/Where/Add,
Reshape/Transpose for heads), a GPT-style decoder block (Gather embedding, RMSNorm as
Pow/ReduceMean/Add/Sqrt/Div, Split, rotary-style Slice/Neg/Concat/Mul, causal mask by
Where, SiLU-gated MLP) and an MLP with Sigmoid/Tanh/Concat/Mul.

Modes (`MODES`), each written `<arch>.<mode>.onnx`:

| mode | onnxruntime call |
|---|---|
| `float` | the float model (after `quant_pre_process` where the others use it) |
| `qdq_u8` | `quantize_static` QDQ, uint8 activations, int8 weights per channel |
| `qdq_s8` | `quantize_static` QDQ, int8 activations (symmetric), int8 weights per tensor |
| `qdq_rr` | `quantize_static` QDQ, uint8 / int8 per channel, `reduce_range=True` |
| `qop` | `quantize_static` QOperator, uint8 activations, int8 weights per tensor |
| `dyn` | `quantize_dynamic`, uint8 weights |
| `nbits_qop` | `MatMulNBitsQuantizer` 4-bit, block 32, asymmetric: com.microsoft MatMulNBits |
| `nbits_qdq` | `MatMulNBitsQuantizer` 4-bit, block 32, symmetric, QDQ: blockwise int4 DequantizeLinear |

The `nbits_*` modes only for the models with MatMul weights. Calibration: 8 seeded inputs
(`inputs(arch, seed)`, which the zoo runner uses too).

    python3 tools/make_onnx_models.py [--out tests/models/onnx] [arch ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.importers.onnx_zoo import ZOO, inputs

OPSET = 17


def _h():
    from onnx import TensorProto, helper, numpy_helper

    return TensorProto, helper, numpy_helper


class _Graph:
    """A float graph under construction: nodes, seeded initializers, fresh names."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list = []
        self.inits: list = []
        self.n = 0

    def w(self, shape, scale=0.3, name=None, value=None):
        _, _, nh = _h()
        self.n += 1
        name = name or f"w{self.n}"
        arr = value if value is not None else self.rng.standard_normal(shape) * scale
        self.inits.append(nh.from_array(np.asarray(arr).astype(
            np.asarray(arr).dtype if value is not None else np.float32), name))
        return name

    def op(self, op_type, inputs, outputs=1, **attrs):
        _, helper, _ = _h()
        self.n += 1
        outs = [f"{op_type.lower()}{self.n}_{i}" for i in range(outputs)]
        self.nodes.append(helper.make_node(op_type, list(inputs), outs,
                                           name=f"{op_type.lower()}{self.n}", **attrs))
        return outs[0] if outputs == 1 else outs

    def model(self, name, inputs, outputs):
        TP, helper, _ = _h()
        vi = [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs]
        vo = [helper.make_tensor_value_info(n, TP.FLOAT, s) for n, s in outputs]
        # rename the last node outputs to the graph outputs
        for (n, _), src in zip(outputs, self.outs):
            for node in self.nodes:
                for i, o in enumerate(node.output):
                    if o == src:
                        node.output[i] = n
                for i, o in enumerate(node.input):
                    if o == src:
                        node.input[i] = n
        g = helper.make_graph(self.nodes, name, vi, vo, self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="qcomp tools/make_onnx_models.py")
        m.ir_version = 8
        return m

    # layers
    def conv(self, x, cin, cout, k=3, group=1, bias=True, stride=1):
        w = self.w((cout, cin // group, k, k), 0.8 / np.sqrt(cin // group * k * k) * 2)
        ins = [x, w] + ([self.w((cout,), 0.1)] if bias else [])
        p = k // 2
        return self.op("Conv", ins, kernel_shape=[k, k], pads=[p, p, p, p], group=group,
                       strides=[stride, stride])

    def bn(self, x, c):
        return self.op("BatchNormalization", [
            x, self.w((c,), value=(1 + 0.2 * self.rng.standard_normal(c)).astype(np.float32)),
            self.w((c,), 0.1),
            self.w((c,), 0.1),
            self.w((c,), value=(0.5 + self.rng.random(c)).astype(np.float32))], epsilon=1e-5)

    def linear(self, x, k, n, bias=True):
        y = self.op("MatMul", [x, self.w((k, n), 1 / np.sqrt(k))])
        return self.op("Add", [y, self.w((n,), 0.1)]) if bias else y

    def const(self, value):
        return self.w(None, value=np.asarray(value))


def cnn_bn(g: _Graph):
    """Conv-BN-Relu, Conv-BN-Relu, GlobalAveragePool, Flatten, Gemm."""
    TP = _h()[0]
    y = g.op("Relu", [g.bn(g.conv("x", 3, 8, bias=False), 8)])
    y = g.op("Relu", [g.bn(g.conv(y, 8, 8, bias=False), 8)])
    y = g.op("Flatten", [g.op("GlobalAveragePool", [y])])
    g.outs = [g.op("Gemm", [y, g.w((4, 8), 0.4), g.w((4,), 0.1)], transB=1)]
    return [("x", TP.FLOAT, [1, 3, 8, 8])], [("y", [1, 4])]


def resnet_block(g: _Graph):
    """x -> Conv-BN-Relu -> Conv-BN -> + x -> Relu."""
    TP = _h()[0]
    y = g.op("Relu", [g.bn(g.conv("x", 8, 8, bias=False), 8)])
    y = g.bn(g.conv(y, 8, 8, bias=False), 8)
    g.outs = [g.op("Relu", [g.op("Add", [y, "x"])])]
    return [("x", TP.FLOAT, [1, 8, 8, 8])], [("y", [1, 8, 8, 8])]


def mobilenet_v2(g: _Graph):
    """Expand 1x1 -> Clip(0, 6) -> depthwise 3x3 -> HardSwish -> project 1x1 -> + x, and
    the HardSigmoid gate of MobileNetV3 on the sum."""
    TP = _h()[0]
    y = g.op("Clip", [g.conv("x", 8, 16, k=1), g.const(np.float32(0)), g.const(np.float32(6))])
    y = g.op("HardSwish", [g.conv(y, 16, 16, k=3, group=16)])
    y = g.op("Add", [g.conv(y, 16, 8, k=1), "x"])
    g.outs = [g.op("Mul", [y, g.op("HardSigmoid", [y], alpha=1 / 6, beta=0.5)])]
    return [("x", TP.FLOAT, [1, 8, 8, 8])], [("y", [1, 8, 8, 8])]


def squeeze_excite(g: _Graph):
    """Conv-Relu, then x * Sigmoid(Conv(Relu(Conv(GlobalAveragePool(x)))))."""
    TP = _h()[0]
    y = g.op("Relu", [g.conv("x", 8, 8)])
    s = g.op("GlobalAveragePool", [y])
    s = g.op("Relu", [g.conv(s, 8, 2, k=1)])
    s = g.op("Sigmoid", [g.conv(s, 2, 8, k=1)])
    g.outs = [g.op("Mul", [y, s])]
    return [("x", TP.FLOAT, [1, 8, 8, 8])], [("y", [1, 8, 8, 8])]


def _heads(g, x, s, h, d):
    """[1, s, h*d] -> [1, h, s, d]."""
    return g.op("Transpose", [g.op("Reshape", [x, g.const(np.array([1, s, h, d]))])],
                perm=[0, 2, 1, 3])


def _merge(g, x, s, h, d):
    return g.op("Reshape", [g.op("Transpose", [x], perm=[0, 2, 1, 3]),
                            g.const(np.array([1, s, h * d]))])


def bert_layer(g: _Graph):
    """Self-attention (2 heads, mask: Equal(mask, 0) -> Where(-1e4, 0) -> Add) + residual
    -> LayerNormalization -> Erf-GELU feed-forward + residual -> LayerNormalization."""
    TP = _h()[0]
    s, e, h = 8, 32, 2
    d = e // h
    q, k, v = (_heads(g, g.linear("x", e, e), s, h, d) for _ in range(3))
    kt = g.op("Transpose", [k], perm=[0, 1, 3, 2])
    scores = g.op("Div", [g.op("MatMul", [q, kt]), g.const(np.float32(np.sqrt(d)))])
    pad = g.op("Equal", ["mask", g.const(np.int64(0))])
    bias = g.op("Where", [pad, g.const(np.float32(-1e4)), g.const(np.float32(0))])
    bias = g.op("Unsqueeze", [bias, g.const(np.array([1, 2]))])
    p = g.op("Softmax", [g.op("Add", [scores, bias])], axis=-1)
    a = g.linear(_merge(g, g.op("MatMul", [p, v]), s, h, d), e, e)
    x1 = g.op("LayerNormalization", [g.op("Add", [a, "x"]), g.w((e,), value=np.ones(e, np.float32)),
                                     g.w((e,), 0.1)], axis=-1, epsilon=1e-5)
    f = g.linear(x1, e, 2 * e)
    erf = g.op("Erf", [g.op("Div", [f, g.const(np.float32(np.sqrt(2)))])])
    gelu = g.op("Mul", [g.op("Mul", [f, g.op("Add", [erf, g.const(np.float32(1))])]),
                        g.const(np.float32(0.5))])
    f = g.linear(gelu, 2 * e, e)
    g.outs = [g.op("LayerNormalization", [g.op("Add", [f, x1]),
                                          g.w((e,), value=np.ones(e, np.float32)),
                                          g.w((e,), 0.1)], axis=-1, epsilon=1e-5)]
    return [("x", TP.FLOAT, [1, s, e]), ("mask", TP.INT64, [1, s])], [("y", [1, s, e])]


def _rmsnorm(g, x, e):
    ms = g.op("ReduceMean", [g.op("Pow", [x, g.const(np.float32(2))])], axes=[-1], keepdims=1)
    r = g.op("Sqrt", [g.op("Add", [ms, g.const(np.float32(1e-5))])])
    return g.op("Mul", [g.op("Div", [x, r]), g.w((e,), value=np.ones(e, np.float32))])


def _rotary(g, x, s, d, cos, sin):
    """x * cos + rotate_half(x) * sin, rotate_half = Concat(-x[..., d/2:], x[..., :d/2])."""
    half = d // 2
    lo = g.op("Slice", [x, g.const(np.array([0])), g.const(np.array([half])),
                        g.const(np.array([-1]))])
    hi = g.op("Slice", [x, g.const(np.array([half])), g.const(np.array([d])),
                        g.const(np.array([-1]))])
    rot = g.op("Concat", [g.op("Neg", [hi]), lo], axis=-1)
    return g.op("Add", [g.op("Mul", [x, cos]), g.op("Mul", [rot, sin])])


def gpt_block(g: _Graph):
    """Gather embedding -> RMSNorm -> fused QKV MatMul -> Split -> rotary q, k -> causal
    attention (Where on a constant lower-triangular mask) -> residual -> RMSNorm ->
    SiLU-gated MLP -> residual -> LM head."""
    TP = _h()[0]
    s, e, h, vocab = 8, 32, 2, 64
    d = e // h
    x = g.op("Gather", [g.w((vocab, e), 1.0), "ids"], axis=0)
    qkv = g.linear(_rmsnorm(g, x, e), e, 3 * e, bias=False)
    q, k, v = g.op("Split", [qkv, g.const(np.array([e, e, e]))], outputs=3, axis=-1)
    pos = np.arange(s)[:, None] / (10000 ** (np.arange(d // 2) * 2 / d))[None, :]
    cos = g.const(np.concatenate([np.cos(pos)] * 2, -1).astype(np.float32))
    sin = g.const(np.concatenate([np.sin(pos)] * 2, -1).astype(np.float32))
    q, k, v = (_heads(g, t, s, h, d) for t in (q, k, v))
    q, k = _rotary(g, q, s, d, cos, sin), _rotary(g, k, s, d, cos, sin)
    scores = g.op("Mul", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]),
                          g.const(np.float32(1 / np.sqrt(d)))])
    causal = g.const(np.tril(np.ones((s, s), bool)))
    scores = g.op("Where", [causal, scores, g.const(np.float32(-1e4))])
    p = g.op("Softmax", [scores], axis=-1)
    x = g.op("Add", [x, g.linear(_merge(g, g.op("MatMul", [p, v]), s, h, d), e, e, bias=False)])
    n = _rmsnorm(g, x, e)
    gate = g.linear(n, e, 2 * e, bias=False)
    silu = g.op("Mul", [gate, g.op("Sigmoid", [gate])])
    up = g.linear(n, e, 2 * e, bias=False)
    x = g.op("Add", [x, g.linear(g.op("Mul", [silu, up]), 2 * e, e, bias=False)])
    g.outs = [g.linear(x, e, vocab, bias=False)]
    return [("ids", TP.INT64, [1, s])], [("logits", [1, s, vocab])]


def mlp(g: _Graph):
    """Concat(Sigmoid(x W1 + b1), Tanh(x W2 + b2)) gated by Sigmoid of itself, then Gemm."""
    TP = _h()[0]
    a = g.op("Sigmoid", [g.linear("x", 32, 32)])
    b = g.op("Tanh", [g.linear("x", 32, 32)])
    c = g.op("Concat", [a, b], axis=-1)
    gated = g.op("Mul", [c, g.op("Sigmoid", [g.linear(c, 64, 64)])])
    g.outs = [g.op("Gemm", [gated, g.w((64, 8), 0.2), g.w((8,), 0.1)])]
    return [("x", TP.FLOAT, [2, 32])], [("y", [2, 8])]


ARCHS = {"cnn_bn": cnn_bn, "cnn_bn_raw": cnn_bn, "resnet_block": resnet_block,
         "mobilenet_v2": mobilenet_v2, "squeeze_excite": squeeze_excite,
         "bert_layer": bert_layer, "gpt_block": gpt_block, "mlp": mlp}
PREPROCESS = {a: a != "cnn_bn_raw" for a in ARCHS}
"""Whether the float model goes through `quant_pre_process` first (as users do)."""
WITH_MATMUL = ("bert_layer", "gpt_block", "mlp")
MODES = ("float", "qdq_u8", "qdq_s8", "qdq_rr", "qop", "dyn", "nbits_qop", "nbits_qdq")


def modes_of(arch: str) -> tuple[str, ...]:
    return tuple(m for m in MODES if not m.startswith("nbits") or arch in WITH_MATMUL)


def float_model(arch: str):
    g = _Graph(seed=sum(map(ord, arch)))
    ins, outs = ARCHS[arch](g)
    return g.model(arch, ins, outs)


class _Reader:
    def __init__(self, model, n=8):
        self.feeds = iter([inputs(model, 100 + i) for i in range(n)])

    def get_next(self):
        return next(self.feeds, None)

    def rewind(self):
        pass


def _static_options(mode: str) -> dict:
    from onnxruntime.quantization import QuantFormat, QuantType

    u8, s8 = QuantType.QUInt8, QuantType.QInt8
    return {
        "qdq_u8": dict(quant_format=QuantFormat.QDQ, activation_type=u8, weight_type=s8,
                       per_channel=True),
        "qdq_s8": dict(quant_format=QuantFormat.QDQ, activation_type=s8, weight_type=s8,
                       extra_options={"ActivationSymmetric": True}),
        "qdq_rr": dict(quant_format=QuantFormat.QDQ, activation_type=u8, weight_type=s8,
                       per_channel=True, reduce_range=True),
        "qop": dict(quant_format=QuantFormat.QOperator, activation_type=u8, weight_type=s8),
    }[mode]


def _quantize(mode: str, raw: Path, fl: Path, path: Path) -> None:
    """Write `raw` (the model as built; `fl`: after `quant_pre_process`) quantized in
    `mode` to `path`."""
    import onnx
    from onnxruntime.quantization import (
        QuantFormat,
        QuantType,
        quantize_dynamic,
        quantize_static,
    )

    if mode == "float":
        onnx.save(onnx.load(fl), path)
    elif mode == "dyn":
        quantize_dynamic(str(fl), str(path), weight_type=QuantType.QUInt8)
    elif mode.startswith("nbits"):
        from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

        # on the model as built: quant_pre_process turns MatMul + Add into
        # Reshape / Gemm / Reshape, which MatMulNBitsQuantizer skips
        q = MatMulNBitsQuantizer(onnx.load(raw), bits=4, block_size=32,
                                 is_symmetric=mode == "nbits_qdq",
                                 quant_format=QuantFormat.QDQ if mode == "nbits_qdq"
                                 else QuantFormat.QOperator)
        q.process()
        q.model.save_model_to_file(str(path))
    else:
        quantize_static(str(fl), str(path), _Reader(onnx.load(fl)), **_static_options(mode))


def make(arch: str, out: Path) -> list[Path]:
    """Write `arch`'s float model and its quantized models to `out`; their paths (a mode
    onnxruntime's quantizer fails on is printed and skipped)."""
    import onnx
    from onnxruntime.quantization.shape_inference import quant_pre_process

    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.onnx"
        onnx.save(float_model(arch), raw)
        fl = raw
        if PREPROCESS[arch]:
            fl = Path(tmp) / "float.onnx"
            quant_pre_process(str(raw), str(fl))
        for mode in modes_of(arch):
            path = out / f"{arch}.{mode}.onnx"
            try:
                _quantize(mode, raw, fl, path)
            except Exception as e:  # noqa: BLE001 - onnxruntime's quantizer gives up
                print(f"{path.name}: onnxruntime's quantizer fails: "
                      f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
                continue
            written.append(path)
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archs", nargs="*", help="architectures (default: all)")
    ap.add_argument("--out", type=Path, default=ZOO)
    args = ap.parse_args()
    for arch in args.archs or ARCHS:
        for p in make(arch, args.out):
            print(p, p.stat().st_size)


if __name__ == "__main__":
    main()
