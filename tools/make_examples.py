"""Make the model examples the README's tour uses (deterministic; the files are committed):

- `examples/cnn_qdq.onnx`: a small float CNN (Conv -> Relu -> MaxPool -> Conv ->
  GlobalAveragePool -> Flatten -> Gemm) built with `onnx.helper` and quantized by
  onnxruntime's own `quantize_static` (QDQ format, per-channel int8 weights, uint8
  activations, calibrated on 8 seeded random inputs);
- `examples/cnn_qdq_input.npz`: one input for it, keyed by the graph input's name (`x`);
- `examples/cnn_int8.tflite` (only with `--tflite`, which needs TensorFlow: a tools-only
  dependency, `python3 -m venv tfvenv && tfvenv/bin/pip install tensorflow-cpu==2.21.0`,
  then run this script with that venv's Python): a small Keras CNN converted by
  TensorFlow's converter with full-integer quantization (int8 input and output,
  representative dataset), and `examples/cnn_int8_input.npz` (int8, keyed `arg0`).

    python3 tools/make_examples.py            # the ONNX example
    tfvenv/bin/python tools/make_examples.py --tflite
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _float_cnn(rng):
    from onnx import TensorProto, helper, numpy_helper

    def init(name, shape, scale):
        return numpy_helper.from_array((rng.standard_normal(shape) * scale)
                                       .astype(np.float32), name)

    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1]),
             helper.make_node("GlobalAveragePool", ["c2"], ["g"]),
             helper.make_node("Flatten", ["g"], ["f"]),
             helper.make_node("Gemm", ["f", "wg", "bg"], ["y"], transB=1)]
    inits = [init("w1", (8, 3, 3, 3), 0.3), init("b1", (8,), 0.3),
             init("w2", (8, 8, 3, 3), 0.2), init("b2", (8,), 0.3),
             init("wg", (4, 8), 0.5), init("bg", (4,), 0.3)]
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model


def make_onnx() -> None:
    import onnx
    from onnxruntime import quantization

    rng = np.random.default_rng(2026)
    samples = [rng.standard_normal((1, 3, 16, 16)).astype(np.float32) for _ in range(9)]

    class Reader(quantization.CalibrationDataReader):
        def __init__(self):
            self.it = iter({"x": s} for s in samples[:8])

        def get_next(self):
            return next(self.it, None)

    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "float.onnx"
        onnx.save(_float_cnn(rng), src)
        quantization.quantize_static(
            str(src), str(EXAMPLES / "cnn_qdq.onnx"), Reader(),
            quant_format=quantization.QuantFormat.QDQ, per_channel=True,
            activation_type=quantization.QuantType.QUInt8,
            weight_type=quantization.QuantType.QInt8)
    np.savez(EXAMPLES / "cnn_qdq_input.npz", x=samples[8])


def make_tflite() -> None:
    import tensorflow as tf

    tf.keras.utils.set_random_seed(2026)
    model = tf.keras.Sequential([
        tf.keras.Input((16, 16, 3), batch_size=1),
        tf.keras.layers.Conv2D(8, 3, padding="same", activation="relu"),
        tf.keras.layers.MaxPooling2D(2),
        tf.keras.layers.DepthwiseConv2D(3, padding="same", activation="relu6"),
        tf.keras.layers.Conv2D(8, 1),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(4),
        tf.keras.layers.Softmax(),
    ])
    rng = np.random.default_rng(2026)
    data = [rng.standard_normal((1, 16, 16, 3)).astype(np.float32) for _ in range(16)]
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = lambda: ([d] for d in data)
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    (EXAMPLES / "cnn_int8.tflite").write_bytes(conv.convert())
    x = rng.integers(-128, 128, (1, 16, 16, 3)).astype(np.int8)
    np.savez(EXAMPLES / "cnn_int8_input.npz", arg0=x)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tflite", action="store_true",
                    help="make the .tflite example (needs tensorflow) instead of the ONNX one")
    args = ap.parse_args()
    if args.tflite:
        make_tflite()
    else:
        make_onnx()


if __name__ == "__main__":
    main()
