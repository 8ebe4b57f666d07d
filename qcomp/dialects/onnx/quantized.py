"""onnx-mlir's QLinearMatMul, QLinearConv, MatMulInteger, ConvInteger, com.microsoft quantized ops."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.irdl import IRDLOperation

CONTRIB_VERIFIERS: dict[str, Callable] = {}
"""`onnx.Custom` verifiers by function_name (com.microsoft ops)."""

QUANTIZED_OPS: list[type[IRDLOperation]] = []
