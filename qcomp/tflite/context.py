"""What an operator's `build` sees: its tensors (`Tensor`), its options, and a
`Builder` inserting into `@main` (`OpContext`), plus the IR pieces builds share
(quantized element types, constants, `tfl.*` composites with their decomposition)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DictionaryAttr,
    FlatSymbolRefAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    TensorType,
    f32,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.quant import UniformQuantizedType
from qcomp.ir.splat import dense_attr, is_splat_array, splat_attr
from qcomp.passes.utils.builder import Builder


class ImportFailure(Exception):
    """A model qcomp cannot import; the message names the operator where there is one."""


NUMPY = {"FLOAT32": np.float32, "INT32": np.int32, "INT8": np.int8, "INT64": np.int64,
         "INT16": np.int16, "UINT8": np.uint8, "BOOL": np.bool_}
ELEMENT: dict[str, Attribute] = {"FLOAT32": f32, "INT32": i32, "INT8": i8, "INT64": i64,
                                 "INT16": i16, "UINT8": IntegerType(8, Signedness.UNSIGNED),
                                 "BOOL": i1}
STORAGE_RANGE = {"INT8": (-128, 127), "UINT8": (0, 255), "INT16": (-32768, 32767),
                 "INT32": (-(1 << 31), (1 << 31) - 1)}


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
    def label(self) -> str:
        return f"tensor {self.index} ('{self.name}')"

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

    def like(self, shape=None, **changes) -> Tensor:
        """This tensor's parameters with another shape (and other fields changed)."""
        fields = {"index": self.index, "name": self.name,
                  "shape": tuple(self.shape if shape is None else shape),
                  "dtype": self.dtype, "scales": self.scales,
                  "zero_points": self.zero_points, "axis": self.axis, "data": None}
        fields.update(changes)
        return Tensor(**fields)

    def element(self, symmetric_weight: bool = False) -> Attribute:
        """The element type: `!quant.uniform<...>` for a quantized tensor (storage
        `i8<-127:127>` for a symmetric int8 weight whose data is in that range)."""
        base = ELEMENT[self.dtype]
        if not self.quantized:
            return base
        lo = hi = None
        if symmetric_weight and self.dtype == "INT8" and not np.any(self.zero_points) and \
                self.data is not None and int(self.data.min(initial=0)) >= -127:
            lo, hi = -127, 127
        spelling = "ui" if self.dtype == "UINT8" else None  # `ui8`, as the schema says
        if self.per_axis:
            return UniformQuantizedType.build(
                base, f32, [float(s) for s in self.scales],
                [int(z) for z in self.zero_points], quantized_dimensions=[self.axis],
                storage_min=lo, storage_max=hi, spelling=spelling)
        return UniformQuantizedType.build(base, f32, [self.scale], [self.zero_point],
                                          storage_min=lo, storage_max=hi, spelling=spelling)

    def type(self, shape=None, symmetric_weight: bool = False) -> TensorType:
        return TensorType(self.element(symmetric_weight),
                          list(self.shape if shape is None else shape))


def tensor_of(shape, element: Attribute) -> TensorType:
    return TensorType(element, list(shape))


def f32_tensor(shape) -> TensorType:
    return TensorType(f32, list(shape))


def dense(values, t: TensorType):
    """The dense attribute of `values` in the (integer, float or bool) tensor type `t`."""
    shape = tuple(t.get_shape())
    a = np.asarray(values)
    a = np.broadcast_to(a, shape) if a.size == 1 else a.reshape(shape)
    e = t.element_type
    if is_splat_array(a) and a.size:
        v = a.reshape(-1)[0]
        return splat_attr(t, bool(v) if e == i1 else
                          int(v) if isinstance(e, IntegerType) else float(v))
    if isinstance(e, IntegerType):
        dtype = np.bool_ if e == i1 else np.dtype(e.format)  # type: ignore[attr-defined]
        return dense_attr(t, np.ascontiguousarray(a.astype(dtype)).tobytes())
    return dense_attr(t, np.ascontiguousarray(a.astype(np.float32)).tobytes())


def constant(b: Builder, values, shape, element: Attribute, storage: Attribute) -> SSAValue:
    """`stablehlo.constant` of `values` (storage integers for a quantized `element`)."""
    if isinstance(element, UniformQuantizedType):
        return b.emit(sh.ConstantOp(dense(values, tensor_of(shape, storage)),
                                    tensor_of(shape, element)))
    return b.emit(sh.ConstantOp(dense(values, tensor_of(shape, element))))


class _Inserter:
    """What `Builder` needs of a rewriter, outside any pattern."""

    @staticmethod
    def insert(op: Operation, point: InsertPoint) -> None:
        Rewriter.insert_op(op, point)


def block_builder(block: Block) -> Builder:
    """A `Builder` appending to `block`."""
    return Builder(_Inserter(), point=InsertPoint.at_end(block))  # type: ignore[arg-type]


@dataclass
class Module:
    """`@main` and its decomposition functions, built operator by operator."""

    module: ModuleOp
    main: Block
    values: dict = field(default_factory=dict)
    """Tensor index (or (index, shape)) -> its SSA value."""

    @property
    def builder(self) -> Builder:
        """Inserts before `@main`'s last op (a placeholder return until the end)."""
        assert self.main.last_op is not None
        return Builder(_Inserter(), point=InsertPoint.before(self.main.last_op))  # type: ignore[arg-type]


@dataclass
class OpContext:
    """What an operator's `build` sees: its tensors, options and the module."""

    index: int
    name: str
    inputs: list[Tensor | None]
    outputs: list[Tensor]
    options: object
    out: Module
    b: Builder = field(init=False)

    def __post_init__(self) -> None:
        self.b = self.out.builder

    @property
    def where(self) -> str:
        return f"operator {self.index} ({self.name})"

    def fail(self, message: str) -> ImportFailure:
        return ImportFailure(f"{self.where}: {message}")

    def option(self, name: str, default=None):
        return default if self.options is None else getattr(self.options, name, default)

    def value(self, t: Tensor, shape=None, symmetric_weight: bool = False) -> SSAValue:
        """The SSA value of tensor `t` (a constant is emitted on first use)."""
        key = t.index if shape is None else (t.index, tuple(shape))
        if key in self.out.values:
            return self.out.values[key]
        if t.data is None:
            raise self.fail(f"{t.label} is read before it is written")
        data = t.data if shape is None else t.data.reshape(shape)
        v = constant(self.b, data, data.shape, t.element(symmetric_weight), ELEMENT[t.dtype])
        self.out.values[key] = v
        return v

    def function(self, name: str, arg_types: list[Attribute], result: Attribute,
                 body: Callable[[Builder, list[SSAValue]], SSAValue]) -> str:
        """A private `func.func @<name>_<index>` after the others, its body made by
        `body(builder, args)`; returns its name."""
        fname = f"{name}_{self.index}"
        block = Block(arg_types=arg_types)
        r = body(block_builder(block), list(block.args))
        block.add_op(func.ReturnOp(r))
        f = func.FuncOp(fname, (arg_types, [result]), Region(block), "private")
        self.out.module.body.block.add_op(f)
        return fname

    def composite(self, name: str, attrs: dict[str, Attribute], operands: list[SSAValue],
                  result: Attribute, body: Callable[[Builder, list[SSAValue]], SSAValue]
                  ) -> SSAValue:
        """`stablehlo.composite "name"` of `operands` with its decomposition."""
        fname = self.function(name, [v.type for v in operands], result, body)
        return self.b.emit(sh.CompositeOp.create(
            operands=operands, result_types=[result],
            properties={"name": StringAttr(name),
                        "composite_attributes": DictionaryAttr(attrs),
                        "decomposition": FlatSymbolRefAttr(fname)}))


def check_scales(t: Tensor) -> str | None:
    """What is wrong with `t`'s quantization (None: nothing): scales positive, finite
    and no smaller than f32's smallest normal (1/scale must be finite in f32, as
    LiteRT's kernels divide by it), one zero point per scale, each in the storage range,
    the quantized dimension inside the shape."""
    if t.scales is None:
        return None
    for s in t.scales:
        if not math.isfinite(s) or s < np.finfo(np.float32).tiny:
            return f"scale {float(s):g} is not a positive finite normal f32"
    if t.zero_points.size != t.scales.size:
        return (f"{t.zero_points.size} zero points for {t.scales.size} scales")
    lo, hi = STORAGE_RANGE.get(t.dtype, (None, None))
    if lo is not None:
        bad = [int(z) for z in t.zero_points if not lo <= z <= hi]
        if bad:
            return f"zero point {bad[0]} is outside the {t.dtype} range [{lo}, {hi}]"
    if t.scales.size > 1 and not 0 <= t.axis < len(t.shape):
        return f"quantized dimension {t.axis} is outside its rank {len(t.shape)}"
    if t.scales.size > 1 and t.shape[t.axis] != t.scales.size:
        return (f"{t.scales.size} scales for dimension {t.axis} of size "
                f"{t.shape[t.axis]}")
    return None


def type_problem(t: Tensor) -> str | None:
    """The quant type verifier's objection to `t`'s element type (None: none)."""
    try:
        t.element()
    except (VerifyException, ValueError) as e:
        return str(e)
    return None


__all__ = ["ELEMENT", "NUMPY", "STORAGE_RANGE", "ImportFailure", "Module", "OpContext",
           "Tensor", "block_builder", "check_scales", "constant", "dense", "f32_tensor",
           "tensor_of", "type_problem"]
