"""onnx-mlir's the float ops of QDQ models."""

from __future__ import annotations

from xdsl.irdl import IRDLOperation

FLOAT_OPS: list[type[IRDLOperation]] = []
