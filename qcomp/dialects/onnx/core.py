"""onnx-mlir's Constant, NoValue, Custom."""

from __future__ import annotations

from xdsl.irdl import IRDLOperation

CORE_OPS: list[type[IRDLOperation]] = []
