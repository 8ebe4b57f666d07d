"""Model importers: `.onnx` (qcomp.importers.onnx) into the `onnx` dialect."""
