"""Make the LiteRT model zoo under tests/models/tflite/ with TensorFlow's own converter.

TensorFlow is a tools-only dependency (the tests need only `ai-edge-litert`); install it
in a venv of its own and run this script with that venv's Python:

    python3 -m venv tfvenv && tfvenv/bin/pip install tensorflow-cpu==2.21.0
    tfvenv/bin/python tools/make_tflite_models.py            # every model
    tfvenv/bin/python tools/make_tflite_models.py cnn dscnn  # some

Each model is a small Keras model (seeded weights; `keras.applications` models with
`weights=None`, their batch-norm statistics drawn from a seeded generator so that
activations vary) converted with full-integer quantization: a representative dataset of
16 seeded inputs, int8 (or, for `*_16x8`, int16 activations with int8 weights:
`EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8`) inside, and int8 / int16
input and output unless the name ends in `_float_io` (float input and output: QUANTIZE /
DEQUANTIZE at the edges). The files are deterministic for one TensorFlow version
(2.21.0 made the committed ones); `tests/models/tflite/README.md` lists them.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "tests" / "models" / "tflite"


def _keras():
    import tensorflow as tf

    return tf, tf.keras


def _set_bn_statistics(model, rng) -> None:
    """Random but plausible batch-norm statistics (untrained models would otherwise have
    mean 0 and variance 1 everywhere)."""
    _, keras = _keras()
    for layer in model.layers:
        sub = getattr(layer, "layers", None)
        if sub:
            _set_bn_statistics(layer, rng)
        if isinstance(layer, keras.layers.BatchNormalization):
            shapes = [w.shape for w in layer.get_weights()]
            values = []
            for w, shape in zip(layer.weights, shapes, strict=True):
                name = w.name
                if "gamma" in name:
                    values.append(rng.uniform(0.5, 1.5, shape))
                elif "beta" in name:
                    values.append(rng.normal(0.0, 0.2, shape))
                elif "moving_mean" in name:
                    values.append(rng.normal(0.0, 0.2, shape))
                else:
                    values.append(rng.uniform(0.5, 2.0, shape))
            layer.set_weights([v.astype(np.float32) for v in values])


def cnn():
    _, keras = _keras()
    L = keras.layers
    return keras.Sequential([
        keras.Input((32, 32, 3), batch_size=1),
        L.Conv2D(8, 3, padding="same", activation="relu"),
        L.MaxPooling2D(2),
        L.Conv2D(16, 3, padding="same", activation="relu6"),
        L.AveragePooling2D(2),
        L.Flatten(),
        L.Dense(10),
        L.Softmax(),
    ]), (1, 32, 32, 3)


def mobilenet_v1():
    _, keras = _keras()
    return keras.applications.MobileNet(input_shape=(32, 32, 3), alpha=0.25, weights=None,
                                        classes=10), (1, 32, 32, 3)


def mobilenet_v2():
    _, keras = _keras()
    return keras.applications.MobileNetV2(input_shape=(32, 32, 3), alpha=0.35, weights=None,
                                          classes=10), (1, 32, 32, 3)


def mobilenet_v3_small():
    _, keras = _keras()
    return keras.applications.MobileNetV3Small(input_shape=(32, 32, 3), alpha=0.75,
                                               weights=None, classes=10,
                                               include_preprocessing=False), (1, 32, 32, 3)


def dscnn():
    """A keyword-spotting depthwise-separable CNN (MFCC 49x10 input)."""
    _, keras = _keras()
    L = keras.layers
    x = inp = keras.Input((49, 10, 1), batch_size=1)
    x = L.Conv2D(32, (10, 4), strides=(2, 2), padding="same")(x)
    x = L.BatchNormalization()(x)
    x = L.ReLU()(x)
    for _ in range(2):
        x = L.DepthwiseConv2D(3, padding="same")(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
        x = L.Conv2D(32, 1)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
    x = L.GlobalAveragePooling2D()(x)
    x = L.Dense(12)(x)
    return keras.Model(inp, L.Softmax()(x)), (1, 49, 10, 1)


def squeeze_excite():
    """An EfficientNet-style block: expand, depthwise, squeeze-excite, project, residual."""
    _, keras = _keras()
    L = keras.layers
    x = inp = keras.Input((16, 16, 16), batch_size=1)
    h = L.Conv2D(48, 1, activation="swish")(x)
    h = L.DepthwiseConv2D(3, padding="same", activation="swish")(h)
    s = L.GlobalAveragePooling2D(keepdims=True)(h)
    s = L.Conv2D(8, 1, activation="swish")(s)
    s = L.Conv2D(48, 1, activation="sigmoid")(s)
    h = L.Multiply()([h, s])
    h = L.Conv2D(16, 1)(h)
    return keras.Model(inp, L.Add()([x, h])), (1, 16, 16, 16)


def transformer():
    """A small encoder layer: multi-head attention, layer norm, GELU MLP (the tanh
    approximation: the converter has no 16x8 kernel for the exact GELU's NEG)."""
    _, keras = _keras()
    L = keras.layers
    x = inp = keras.Input((16, 32), batch_size=1)
    a = L.MultiHeadAttention(num_heads=4, key_dim=8)(x, x)
    x = L.LayerNormalization()(L.Add()([x, a]))
    h = L.Dense(64)(x)
    h = L.Activation(lambda v: keras.activations.gelu(v, approximate=True))(h)
    h = L.Dense(32)(h)
    x = L.LayerNormalization()(L.Add()([x, h]))
    return keras.Model(inp, x), (1, 16, 32)


def _layer_norm_from_ops(x):
    """(x - mean) rsqrt(var + 1e-3) over the last axis, written with MEAN, SUB, MUL,
    ADD and RSQRT (keras' LayerNormalization converts with a NEG, which the 16x8
    converter refuses)."""
    _, keras = _keras()
    ops = keras.ops
    d = ops.subtract(x, ops.mean(x, axis=-1, keepdims=True))
    v = ops.mean(ops.multiply(d, d), axis=-1, keepdims=True)
    return ops.multiply(d, ops.rsqrt(ops.add(v, 1e-3)))


def transformer_ops_norm():
    """`transformer` with its layer norms written as `_layer_norm_from_ops` (the 16x8
    transformer: every operator has an int16 kernel)."""
    _, keras = _keras()
    L = keras.layers
    x = inp = keras.Input((16, 32), batch_size=1)
    a = L.MultiHeadAttention(num_heads=4, key_dim=8)(x, x)
    x = _layer_norm_from_ops(L.Add()([x, a]))
    h = L.Dense(64)(x)
    h = L.Activation(lambda v: keras.activations.gelu(v, approximate=True))(h)
    h = L.Dense(32)(h)
    x = _layer_norm_from_ops(L.Add()([x, h]))
    return keras.Model(inp, x), (1, 16, 32)


def unet():
    """A small U-Net: two downsamplings, transposed-convolution and resize upsampling."""
    _, keras = _keras()
    L = keras.layers
    x = inp = keras.Input((32, 32, 3), batch_size=1)
    c1 = L.Conv2D(8, 3, padding="same", activation="relu")(x)
    p1 = L.MaxPooling2D(2)(c1)
    c2 = L.Conv2D(16, 3, padding="same", activation="relu")(p1)
    p2 = L.MaxPooling2D(2)(c2)
    b = L.Conv2D(16, 3, padding="same", activation="relu")(p2)
    u2 = L.Conv2DTranspose(16, 2, strides=2)(b)
    c3 = L.Conv2D(16, 3, padding="same", activation="relu")(L.Concatenate()([u2, c2]))
    u1 = L.UpSampling2D(2, interpolation="bilinear")(c3)
    c4 = L.Conv2D(8, 3, padding="same", activation="relu")(L.Concatenate()([u1, c1]))
    return keras.Model(inp, L.Conv2D(2, 1)(c4)), (1, 32, 32, 3)


def activations():
    """Swish, LeakyReLU, nearest upsampling and Maximum (issue 26's second model)."""
    _, keras = _keras()
    L = keras.layers
    x = inp = keras.Input((8, 8, 4), batch_size=1)
    a = L.Conv2D(8, 3, padding="same", activation="swish")(x)
    b = L.LeakyReLU(negative_slope=0.2)(L.Conv2D(8, 3, padding="same")(x))
    m = L.Maximum()([a, b])
    u = L.UpSampling2D(2)(m)
    return keras.Model(inp, L.Conv2D(4, 1)(u)), (1, 8, 8, 4)


ARCHITECTURES = {
    "cnn": cnn, "mobilenet_v1": mobilenet_v1, "mobilenet_v2": mobilenet_v2,
    "mobilenet_v3_small": mobilenet_v3_small, "dscnn": dscnn,
    "squeeze_excite": squeeze_excite, "transformer": transformer, "unet": unet,
    "activations": activations,
}
VARIANT_ONLY = {"transformer_ops_norm": transformer_ops_norm}  # no int8 model of their own
VARIANTS = {  # model name -> (architecture, mode, float input/output)
    **{name: (name, "int8", False) for name in ARCHITECTURES},
    "cnn_float_io": ("cnn", "int8", True),
    "mobilenet_v2_float_io": ("mobilenet_v2", "int8", True),
    "cnn_16x8": ("cnn", "16x8", False),
    "mobilenet_v2_16x8": ("mobilenet_v2", "16x8", False),
    "transformer_16x8": ("transformer_ops_norm", "16x8", False),
}


def convert(name: str) -> bytes:
    tf, keras = _keras()
    arch, mode, float_io = VARIANTS[name]
    keras.utils.set_random_seed(2026)
    model, shape = {**ARCHITECTURES, **VARIANT_ONLY}[arch]()
    rng = np.random.default_rng(2026)
    _set_bn_statistics(model, rng)
    data = [rng.standard_normal(shape).astype(np.float32) for _ in range(16)]
    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = lambda: ([d] for d in data)
    if mode == "16x8":
        conv.target_spec.supported_ops = [
            tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        io_type = tf.int16
    else:
        conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        io_type = tf.int8
    if not float_io:
        conv.inference_input_type = io_type
        conv.inference_output_type = io_type
    return conv.convert()


def main(argv: list[str]) -> None:
    names = argv or list(VARIANTS)
    unknown = sorted(set(names) - set(VARIANTS))
    if unknown:
        raise SystemExit(f"unknown model(s) {unknown}; known: {', '.join(VARIANTS)}")
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names:
        data = convert(name)
        (OUT / f"{name}.tflite").write_bytes(data)
        print(f"{name}.tflite: {len(data)} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
