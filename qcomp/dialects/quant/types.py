"""MLIR's quantized types: `!quant.uniform`, `!quant.any`, `!quant.calibrated`.

One xDSL type, `UniformQuantizedType` (`!quant.uniform`), covers MLIR's three
uniform flavours, told apart by its quantized dimensions:

- per-tensor   `!quant.uniform<i8:f32, 0.01:50>`             (no dimension)
- per-axis     `!quant.uniform<i8:f32:1, {0.2:20,0.1:10}>`   (one dimension, block 1)
- sub-channel  `!quant.uniform<i8:f32:{0:1, 1:2}, {{...}}>`  (dimension:block pairs)

`real = (stored - zero_point) * scale`. As in MLIR, the type does not bound the zero
point by the storage range (StableHLO's ops do: `qcomp.dialects.stablehlo.kinds`).

The storage is kept as MLIR keeps it: its builtin type as written (`i8`, `si8`, `ui8`;
the keyword `u8` is the signless `i8`; or a float `f8E5M2`, `f8E4M3FN`, `f4E2M1FN`) and
MLIR's Signed flag, so each spelling prints back as written and two spellings are two
types. tosa-opt (LLVM 24) shows it: a value of `!quant.uniform<ui8:f32, 1.0>` returned
as `!quant.uniform<u8:f32, 1.0>` is "type of return operand 0 ... doesn't match function
result type", as is `si8` for `i8`; `quant.scast` takes `u8` and `i8` types to and from
`i8` only (their storage type), and `si8` / `ui8` types to no integer type at all.
qcomp's passes use the storage as an integer of a signedness (`storage`: signless `iN`
when signed, `uiN` when unsigned), which is the same for `u8` and `ui8`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatData,
    IntAttr,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    irdl_attr_definition,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects.quant.storage import (
    StorageAccessors,
    print_storage,
    storage_params,
)
from qcomp.dialects.quant.syntax import (
    EXPRESSED_TYPES,
    MAX_STORAGE_BITS,
    QuantParseError,
    body_end,
    expressed_kind,
    expressed_limits,
    float_kind,
    mlir_double_text,
    parse_quant_body,
    storage_parts,
)
from qcomp.ir.float_text import format_float
from qcomp.quant.ranges import storage_range

storage_type_range = storage_range
"""The older name of `qcomp.quant.ranges.storage_range` (the package re-exports it)."""


_PARSED: dict[tuple[str, str], Attribute] = {}
"""The type read from each (mnemonic, body text): a program spells each per-axis type
(hundreds of scales) again at every use. Types are immutable; bodies that fail are not
kept, so each error is found and reported where it is."""
_PARSED_LIMIT = 4096


def _parse_with(parser: AttrParser, mnemonic: str) -> Attribute:
    token = parser._current_token  # pyright: ignore[reportPrivateUsage]
    start = token.span.start + 1
    if token.text != "<":
        parser.raise_error(f"expected '<' after 'quant.{mnemonic}'")
    # MLIR reports the type's own checks (getChecked) at its mnemonic
    name_at = token.span.start - len(mnemonic)
    if token.span.input.content[name_at:token.span.start] != mnemonic:
        name_at = token.span.start
    content = token.span.input.content
    end = body_end(content, start)
    if end is None:
        body = parser._parse_dialect_symbol_body()  # pyright: ignore[reportPrivateUsage]
    else:  # as xDSL's _parse_dialect_symbol_body leaves the parser
        body = content[start:end]
        parser._resume_from(end + 1)  # pyright: ignore[reportPrivateUsage]
    known = _PARSED.get((mnemonic, body))
    if known is not None:
        return known
    try:
        t = parse_quant_body(mnemonic, body, _QUANT_TYPES)
        if len(_PARSED) >= _PARSED_LIMIT:
            del _PARSED[next(iter(_PARSED))]
        _PARSED[mnemonic, body] = t
        return t
    except QuantParseError as e:
        from xdsl.utils.lexer import Position  # noqa: F401  (documentation of the type)

        parser.raise_error(e.message, start + e.offset, start + e.offset + 1)
    except VerifyException as e:
        parser.raise_error(str(e), name_at, start + len(body) + 1)


def _print_param(scale: float, zp: int) -> str:
    return format_float(scale) + (f":{zp}" if zp != 0 else "")


def _ints(a: ArrayAttr[IntAttr]) -> tuple[int, ...]:
    return tuple(x.data for x in a.data)


@irdl_attr_definition
class UniformQuantizedType(StorageAccessors, ParametrizedAttribute, TypeAttribute):
    """`!quant.uniform`: affine quantization, `real = (q - zero_point) * scale`."""

    name = "quant.uniform"

    storage_type_attr: Attribute
    signed_attr: IntAttr
    expressed_type: Attribute
    storage_min_attr: IntAttr
    storage_max_attr: IntAttr
    quantized_dimensions_attr: ArrayAttr[IntAttr]
    block_sizes_attr: ArrayAttr[IntAttr]
    params_shape_attr: ArrayAttr[IntAttr]
    scales_attr: ArrayAttr[FloatData]
    zero_points_attr: ArrayAttr[IntAttr]

    # -- construction ------------------------------------------------------------
    @staticmethod
    def build(
        storage: Attribute,
        expressed: Attribute,
        scales: Sequence[float],
        zero_points: Sequence[int],
        *,
        quantized_dimensions: Sequence[int] = (),
        block_sizes: Sequence[int] = (),
        params_shape: Sequence[int] | None = None,
        storage_min: int | None = None,
        storage_max: int | None = None,
        spelling: str | None = None,
        signed: bool | None = None,
    ) -> UniformQuantizedType:
        """`storage`: a builtin integer type, with `spelling` (`i`, `si`, `u`, `ui`) or
        MLIR's `signed` flag when its signedness alone does not say (`storage_params`),
        or a float storage type."""
        storage_type, flag = storage_params(storage, spelling, signed)
        lo, hi = storage_parts(storage_type, flag.data == 1)[2]
        if params_shape is None:
            params_shape = [] if not quantized_dimensions else [len(scales)]
        return UniformQuantizedType(
            storage_type,
            flag,
            expressed,
            IntAttr(lo if storage_min is None else storage_min),
            IntAttr(hi if storage_max is None else storage_max),
            ArrayAttr([IntAttr(d) for d in quantized_dimensions]),
            ArrayAttr([IntAttr(b) for b in block_sizes]),
            ArrayAttr([IntAttr(s) for s in params_shape]),
            ArrayAttr([FloatData(float(s)) for s in scales]),
            ArrayAttr([IntAttr(int(z)) for z in zero_points]),
        )

    @staticmethod
    def per_tensor(storage: Attribute, expressed: Attribute, scale: float,
                   zero_point: int = 0, storage_min: int | None = None,
                   storage_max: int | None = None, spelling: str | None = None,
                   signed: bool | None = None) -> UniformQuantizedType:
        return UniformQuantizedType.build(storage, expressed, [scale], [zero_point],
                                          storage_min=storage_min, storage_max=storage_max,
                                          spelling=spelling, signed=signed)

    @staticmethod
    def per_axis(storage: Attribute, expressed: Attribute, axis: int,
                 scales: Sequence[float], zero_points: Sequence[int],
                 storage_min: int | None = None,
                 storage_max: int | None = None, spelling: str | None = None,
                 signed: bool | None = None) -> UniformQuantizedType:
        return UniformQuantizedType.build(
            storage, expressed, scales, zero_points, quantized_dimensions=[axis],
            storage_min=storage_min, storage_max=storage_max, spelling=spelling,
            signed=signed)

    def with_params(self, scales: Sequence[float], zero_points: Sequence[int]) -> UniformQuantizedType:
        return UniformQuantizedType.build(
            self.storage_type, self.expressed_type, scales, zero_points,
            quantized_dimensions=self.quantized_dimensions, block_sizes=self.block_sizes,
            params_shape=self.params_shape, storage_min=self.storage_min,
            storage_max=self.storage_max, signed=self.is_signed)

    # -- accessors ---------------------------------------------------------------

    @property
    def quantized_dimensions(self) -> tuple[int, ...]:
        return _ints(self.quantized_dimensions_attr)

    @property
    def block_sizes(self) -> tuple[int, ...]:
        return _ints(self.block_sizes_attr)

    @property
    def params_shape(self) -> tuple[int, ...]:
        return _ints(self.params_shape_attr)

    @property
    def is_per_tensor(self) -> bool:
        return not self.params_shape

    @property
    def is_per_axis(self) -> bool:
        # per-axis: one quantized dimension and no block sizes (sub-channel types
        # always carry one block size per quantized dimension)
        return len(self.quantized_dimensions) == 1 and not self.block_sizes

    @property
    def is_blockwise(self) -> bool:
        return not self.is_per_tensor and not self.is_per_axis

    @property
    def quantized_dimension(self) -> int:
        """The quantized axis of a per-axis type."""
        if not self.is_per_axis:
            raise ValueError("quantized_dimension of a type that is not per-axis")
        return self.quantized_dimensions[0]

    @property
    def scales(self) -> np.ndarray:
        """Scales as float64, shaped like the parameter tensor."""
        flat = np.array([s.data for s in self.scales_attr.data], dtype=np.float64)
        return flat.reshape(self.params_shape) if self.params_shape else flat.reshape(())

    @property
    def zero_points(self) -> np.ndarray:
        """Zero points as int64, shaped like the parameter tensor."""
        flat = np.array([z.data for z in self.zero_points_attr.data], dtype=np.int64)
        return flat.reshape(self.params_shape) if self.params_shape else flat.reshape(())

    @property
    def scale(self) -> float:
        if not self.is_per_tensor:
            raise ValueError("scale of a type that is not per-tensor")
        return self.scales_attr.data[0].data

    @property
    def zero_point(self) -> int:
        if not self.is_per_tensor:
            raise ValueError("zero_point of a type that is not per-tensor")
        return self.zero_points_attr.data[0].data

    def _broadcast(self, params: np.ndarray, shape: Sequence[int]) -> np.ndarray:
        rank = len(shape)
        if self.is_per_tensor:
            return params.reshape((1,) * rank)
        if self.is_per_axis:
            out = [1] * rank
            out[self.quantized_dimension] = params.size
            return params.reshape(out)
        # sub-channel: expand each blocked dimension by its block size
        full = params
        block = [1] * rank
        for d, b in zip(self.quantized_dimensions, self.block_sizes):
            block[d] = b
        if full.ndim != rank:
            full = full.reshape(tuple(full.shape) + (1,) * (rank - full.ndim))
        for d in range(rank):
            if block[d] > 1:
                full = np.repeat(full, block[d], axis=d)
        return full

    def broadcast_scales(self, shape: Sequence[int]) -> np.ndarray:
        """Scales shaped to broadcast against a tensor of `shape`."""
        return self._broadcast(self.scales, shape)

    def broadcast_zero_points(self, shape: Sequence[int]) -> np.ndarray:
        """Zero points shaped to broadcast against a tensor of `shape`."""
        return self._broadcast(self.zero_points, shape)

    # -- text ----------------------------------------------------------------------
    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        t = _parse_with(parser, "uniform")
        assert isinstance(t, UniformQuantizedType)
        return t.parameters

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + self.body_text() + ">")

    def body_text(self) -> str:
        """The text inside `<...>`, made once per type object (a per-axis type's
        hundreds of scales are printed at every use of a value of its type)."""
        text = self.__dict__.get("_body_text")
        if text is None:
            text = self._make_body_text()
            object.__setattr__(self, "_body_text", text)  # not a parameter: eq/hash ignore it
        return text

    def _make_body_text(self) -> str:
        head = print_storage(self.storage_type, self.is_signed, self.storage_min,
                              self.storage_max)
        head += ":" + _type_text(self.expressed_type)
        scales = [s.data for s in self.scales_attr.data]
        zps = [z.data for z in self.zero_points_attr.data]
        if self.is_per_tensor:
            return f"{head}, {_print_param(scales[0], zps[0])}"
        if self.is_per_axis:
            inner = ",".join(_print_param(s, z) for s, z in zip(scales, zps))
            return f"{head}:{self.quantized_dimension}, {{{inner}}}"
        blocks = ", ".join(f"{d}:{b}" for d, b in zip(self.quantized_dimensions, self.block_sizes))
        kind = float_kind(self.expressed_type) or "f64"
        items = [format_float(s, kind) + (f":{z}" if z else "") for s, z in zip(scales, zps)]
        return f"{head}:{{{blocks}}}, {_nest(items, self.params_shape)}"

    # -- verification ----------------------------------------------------------------
    def verify(self) -> None:
        kind = expressed_kind(self.expressed_type)
        if type(self.expressed_type) not in EXPRESSED_TYPES.values():
            raise VerifyException("expressed type must be a float type other than f80 and f128")
        width = self.storage_bitwidth
        if width == 0 or width > MAX_STORAGE_BITS:
            raise VerifyException(f"illegal storage type size: {width}")
        verify_storage_range(self)
        scales = [s.data for s in self.scales_attr.data]
        zps = [z.data for z in self.zero_points_attr.data]
        if len(scales) != len(zps):
            raise VerifyException(
                f"illegal number of scales and zeroPoints: {len(scales)}, {len(zps)}")
        if len(scales) != math.prod(self.params_shape):
            raise VerifyException("number of scales does not match the parameter shape")
        if self.is_blockwise and len(self.quantized_dimensions) != len(self.block_sizes):
            raise VerifyException("quantized dimensions and block sizes differ in number")
        if self.is_per_axis and len(self.params_shape) != 1:
            raise VerifyException("per-axis quantization parameters must be a flat list")
        if len(set(self.quantized_dimensions)) != len(self.quantized_dimensions):
            raise VerifyException("quantized dimensions must be unique")
        for d in self.quantized_dimensions:
            if d < 0:
                raise VerifyException(f"illegal quantized dimension: {d}")
        for b in self.block_sizes:
            if b <= 0:
                raise VerifyException(f"illegal block size: {b}")
        lo_s, hi_s = expressed_limits(kind)
        for s in scales:
            if not math.isfinite(s) or s <= 0:
                raise VerifyException(f"illegal scale: {mlir_double_text(s)}")
            if s < lo_s or s > hi_s:
                raise VerifyException(
                    f"scale {mlir_double_text(s)} out of expressed type range "
                    f"[{mlir_double_text(lo_s)}, {mlir_double_text(hi_s)}]")

    def verify_for_shape(self, shape: Sequence[int]) -> None:
        """Check that the type fits a tensor of `shape` (-1 marks a dynamic size)."""
        rank = len(shape)
        if self.is_per_tensor:
            return
        if self.is_per_axis:
            axis = self.quantized_dimension
            # MLIR's wording (QuantOps.cpp, verifyPerAxisQuantization)
            if axis >= rank:
                raise VerifyException("quantized dimension must be less than tensor rank")
            size = shape[axis]
            if size >= 0 and size != len(self.scales_attr.data):
                raise VerifyException(
                    "quantized dimension size does not match number of scales")
            return
        # MLIR's wording (QuantOps.cpp, verifySubChannelQuantization)
        params_shape = self.params_shape
        blocks = dict(zip(self.quantized_dimensions, self.block_sizes))
        for d in self.quantized_dimensions:
            if d >= rank:
                raise VerifyException(
                    f"quantized dimension {d} must be less than tensor rank {rank}")
        if len(params_shape) != rank:
            raise VerifyException(
                f"Rank of scales {len(params_shape)} must match the rank of the tensor {rank}")
        for d in range(rank):
            size = shape[d]
            if size < 0:
                continue
            block = blocks.get(d, size)
            if block != 0 and size % block != 0:
                raise VerifyException(
                    f"tensor dimension size {size} at axis {d} must be divisible by "
                    f"the corresponding block size {block}")
            expected = size // block if block else 0
            if params_shape[d] != expected:
                # (upstream prints the expected count in both places)
                raise VerifyException(
                    f"dimension size {params_shape[d]} of scales tensor at axis {d} should "
                    f"match (tensor dimension at axis / block sizes at axis) = {expected}")


def _type_text(t: Attribute) -> str:
    from io import StringIO

    out = StringIO()
    Printer(stream=out).print_attribute(t)
    return out.getvalue()


def _nest(items: list[str], shape: Sequence[int]) -> str:
    """`items` (row-major) as nested `{...}` lists of `shape`; iterative, so a params
    shape of any rank prints (innermost lists first, then each level around them)."""
    level = list(items)
    for n in reversed(list(shape)[1:] or [len(items)]):
        groups = max(len(level) // n, 1) if n else 1
        size = len(level) // groups if groups else 0
        level = ["{" + ", ".join(level[g * size:(g + 1) * size]) + "}" for g in range(groups)]
    if len(shape) > 1:
        level = ["{" + ", ".join(level) + "}"]
    return level[0] if level else "{}"


def verify_storage_range(t: StorageAccessors) -> None:
    """MLIR's QuantizedType::verifyInvariants: min < max, both inside the storage type."""
    lo, hi = storage_parts(t.storage_type, t.is_signed)[2]
    if t.storage_min < lo or t.storage_max > hi or t.storage_max - t.storage_min <= 0:
        raise VerifyException(
            f"illegal storage min and storage max: ({t.storage_min}:{t.storage_max})")


@irdl_attr_definition
class AnyQuantizedType(StorageAccessors, ParametrizedAttribute, TypeAttribute):
    """`!quant.any<i8:f32>`: quantized storage whose parameters are not yet chosen."""

    name = "quant.any"

    storage_type_attr: Attribute
    signed_attr: IntAttr
    expressed: Attribute  # NoneAttr-like: an empty ArrayAttr when absent
    storage_min_attr: IntAttr
    storage_max_attr: IntAttr

    @staticmethod
    def build(storage: Attribute, expressed: Attribute | None, smin: int, smax: int,
              spelling: str | None = None, signed: bool | None = None) -> AnyQuantizedType:
        storage_type, flag = storage_params(storage, spelling, signed)
        return AnyQuantizedType(storage_type, flag,
                                expressed if expressed is not None else ArrayAttr([]),
                                IntAttr(smin), IntAttr(smax))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        t = _parse_with(parser, "any")
        assert isinstance(t, AnyQuantizedType)
        return t.parameters

    def print_parameters(self, printer: Printer) -> None:
        text = print_storage(self.storage_type, self.is_signed, self.storage_min,
                              self.storage_max)
        if not isinstance(self.expressed, ArrayAttr):
            text += ":" + _type_text(self.expressed)
        printer.print_string(f"<{text}>")

    def verify(self) -> None:
        verify_storage_range(self)


@irdl_attr_definition
class CalibratedQuantizedType(ParametrizedAttribute, TypeAttribute):
    """`!quant.calibrated<f32<-1.0:1.0>>`: an expressed type with a calibrated range."""

    name = "quant.calibrated"

    expressed: Attribute
    min_value: FloatData
    max_value: FloatData

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        t = _parse_with(parser, "calibrated")
        assert isinstance(t, CalibratedQuantizedType)
        return t.parameters

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<{_type_text(self.expressed)}<{format_float(self.min_value.data)}:"
            f"{format_float(self.max_value.data)}>>")

    def verify(self) -> None:
        if self.min_value.data >= self.max_value.data:
            raise VerifyException(f"illegal min and max: ({mlir_double_text(self.min_value.data)}:"
                                  f"{mlir_double_text(self.max_value.data)})")


QuantType = UniformQuantizedType | AnyQuantizedType | CalibratedQuantizedType


def element_type(t: Attribute) -> Attribute:
    """Element type of a tensor type (ranked or unranked), or the type itself."""
    return t.element_type if isinstance(t, TensorType | UnrankedTensorType) else t


def quantized_element(t: Attribute) -> UniformQuantizedType | None:
    """The `!quant.uniform` element type of `t` (a tensor or a scalar), if any."""
    e = element_type(t)
    return e if isinstance(e, UniformQuantizedType) else None


def _with_element(t: Attribute, element: Attribute) -> Attribute:
    """`t` (a tensor or a scalar) with `element` as its element type."""
    if isinstance(t, TensorType):
        return TensorType(element, t.shape, t.encoding)
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(element)
    return element


def expressed_of(t: Attribute) -> Attribute:
    """`t` with its quantized element type replaced by the expressed type."""
    q = quantized_element(t)
    return t if q is None else _with_element(t, q.expressed_type)


def storage_of(t: Attribute) -> Attribute:
    """`t` with its quantized element type replaced by the storage type."""
    q = quantized_element(t)
    return t if q is None else _with_element(t, q.storage)


_QUANT_TYPES = {"uniform": UniformQuantizedType, "any": AnyQuantizedType,
                "calibrated": CalibratedQuantizedType}
