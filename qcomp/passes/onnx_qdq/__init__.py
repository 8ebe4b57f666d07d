"""The QDQ node groups of `onnx-fuse-qdq` / `onnx-unfuse-qdq` and onnxruntime's rules
for them (`onnxruntime/core/optimizer/qdq_transformer/selectors_actions/`)."""
