"""Model importers: `.onnx` into the `onnx` dialect (qcomp.importers.onnx), `.tflite` as
quantized StableHLO (qcomp.importers.tflite)."""
