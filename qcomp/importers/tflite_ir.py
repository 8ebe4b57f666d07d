"""The pieces of `.tflite` import the operator translations share: tensors, their MLIR
types and constants, and the text emitter."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


class ImportFailure(Exception):
    """A model qcomp cannot import; the message names the operator where there is one."""


_NP = {"FLOAT32": np.float32, "INT32": np.int32, "INT8": np.int8, "INT64": np.int64,
       "INT16": np.int16, "UINT8": np.uint8, "BOOL": np.bool_}
_MLIR = {"FLOAT32": "f32", "INT32": "i32", "INT8": "i8", "INT64": "i64", "INT16": "i16",
         "UINT8": "ui8", "BOOL": "i1"}


def fmt_float(x: float) -> str:
    """An f64 literal MLIR reads back to exactly `x`."""
    return f"{float(x):.17e}"


@dataclass
class Tensor:
    """One TFLite tensor: shape, element type, quantization, constant data."""

    index: int
    name: str
    shape: tuple[int, ...]
    dtype: str                              # schema TensorType name (INT8, FLOAT32, ...)
    scales: np.ndarray | None = None        # f32 scales as float64
    zero_points: np.ndarray | None = None
    axis: int = 0
    data: np.ndarray | None = None

    @property
    def quantized(self) -> bool:
        return self.scales is not None and self.dtype in ("INT8", "INT16", "INT32", "UINT8")

    @property
    def per_axis(self) -> bool:
        return self.quantized and self.scales.size > 1

    @property
    def scale(self) -> float:
        return float(self.scales[0])

    @property
    def zero_point(self) -> int:
        return int(self.zero_points[0])

    def element(self, symmetric_weight: bool = False) -> str:
        """The MLIR element type: `!quant.uniform<...>` for a quantized tensor."""
        base = _MLIR[self.dtype]
        if not self.quantized:
            return base
        storage = base
        if symmetric_weight and self.dtype == "INT8" and not np.any(self.zero_points) and \
                self.data is not None and int(self.data.min(initial=0)) >= -127:
            storage = "i8<-127:127>"
        if self.per_axis:
            pairs = ", ".join(f"{fmt_float(s)}:{int(z)}" if z else fmt_float(s)
                              for s, z in zip(self.scales, self.zero_points))
            return f"!quant.uniform<{storage}:f32:{self.axis}, {{{pairs}}}>"
        return f"!quant.uniform<{storage}:f32, {fmt_float(self.scale)}:{self.zero_point}>"

    def type(self, shape=None, symmetric_weight: bool = False) -> str:
        return tensor_type(self.shape if shape is None else shape,
                           self.element(symmetric_weight))


def tensor_type(shape, element: str) -> str:
    dims = "".join(f"{d}x" for d in shape)
    return f"tensor<{dims}{element}>"


def dense(values: np.ndarray) -> str:
    """A `dense<...>` literal of an integer or float array (nested lists, or a splat)."""
    flat = values.reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return f"dense<{_scalar(flat[0])}>"
    if values.ndim == 0:
        return f"dense<{_scalar(values)}>"

    def nest(a):
        if a.ndim == 1:
            return "[" + ", ".join(_scalar(v) for v in a) + "]"
        return "[" + ", ".join(nest(x) for x in a) + "]"
    return f"dense<{nest(values)}>"


def constant(values, shape, element: str, storage: str) -> str:
    """`stablehlo.constant` text of `values` (storage integers for a quantized element)."""
    if element.startswith("!quant"):
        return (f"stablehlo.constant() <{{value = {dense(np.asarray(values))} : "
                f"{tensor_type(shape, storage)}}}> : () -> {tensor_type(shape, element)}")
    return f"stablehlo.constant {dense(np.asarray(values))} : {tensor_type(shape, element)}"


def _scalar(v) -> str:
    if isinstance(v, (np.floating, float)):
        return fmt_float(float(v))
    if isinstance(v, (np.bool_, bool)):
        return "true" if v else "false"
    return str(int(v))


class Body:
    """The body of one decomposition function (`%0, %1, ...`)."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def emit(self, text: str) -> str:
        name = f"%{len(self.lines)}"
        self.lines.append(f"    {name} = {text}")
        return name


@dataclass
class Emitter:
    """The text of `@main` and its decomposition functions, built op by op."""

    lines: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    values: dict[int, str] = field(default_factory=dict)
    counter: int = 0

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, text: str) -> str:
        """`%vN = text`; returns `%vN`."""
        name = self.fresh()
        self.lines.append(f"    {name} = {text}")
        return name


@dataclass
class OpContext:
    """What an operator translation sees: its tensors, options and the emitter."""

    index: int
    name: str
    inputs: list[Tensor | None]
    outputs: list[Tensor]
    options: object
    out: Emitter

    def fail(self, message: str) -> ImportFailure:
        return ImportFailure(f"operator {self.index} ({self.name}): {message}")

    def value(self, t: Tensor, shape=None, symmetric_weight: bool = False) -> str:
        """The SSA value of tensor `t` (a constant is emitted on first use)."""
        key = t.index if shape is None else (t.index, tuple(shape))
        if key in self.out.values:
            return self.out.values[key]
        if t.data is None:
            raise self.fail(f"tensor {t.index} ('{t.name}') is read before it is written")
        data = t.data if shape is None else t.data.reshape(shape)
        v = self.out.emit(constant(data, data.shape, t.element(symmetric_weight),
                                   _MLIR[t.dtype]))
        self.out.values[key] = v
        return v


__all__ = ["Body", "Emitter", "ImportFailure", "OpContext", "Tensor", "constant", "dense", "fmt_float",
           "tensor_type"]
