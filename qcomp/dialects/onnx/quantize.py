"""onnx-mlir's QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, Cast, CastLike."""

from __future__ import annotations

from xdsl.irdl import IRDLOperation

QUANTIZE_OPS: list[type[IRDLOperation]] = []
