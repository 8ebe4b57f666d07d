"""onnx-mlir's QLinearMatMul, QLinearConv, MatMulInteger, ConvInteger, com.microsoft quantized ops."""

from __future__ import annotations

from xdsl.irdl import IRDLOperation

QUANTIZED_OPS: list[type[IRDLOperation]] = []
