"""Model importers: a model file (.tflite, .onnx) as quantized StableHLO text."""
