"""StableHLO attributes of the dynamic, linear-algebra, random and collective ops.

Printed as upstream `stablehlo-opt` prints them:

- `#stablehlo<fft_type RFFT>`, `#stablehlo<transpose NO_TRANSPOSE>`,
  `#stablehlo<rng_distribution UNIFORM>`, `#stablehlo<rng_algorithm THREE_FRY>`
- `#stablehlo.channel_handle<handle = 1, type = 0>` (both fields always printed)
- `#stablehlo.bounds<8, ?>`: a tensor encoding, the upper bound of each dynamic
  dimension (`?` for a static one or an unbounded one)
"""

from __future__ import annotations

from collections.abc import Sequence
from io import StringIO

from xdsl.dialects.builtin import ArrayAttr, IntAttr, TensorType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.str_enum import StrEnum

from qcomp.dialects.stablehlo.attrs import int_tuple, ints, parse_struct


class FftType(StrEnum):
    FFT = "FFT"
    IFFT = "IFFT"
    RFFT = "RFFT"
    IRFFT = "IRFFT"


class Transpose(StrEnum):
    TRANSPOSE_INVALID = "TRANSPOSE_INVALID"
    NO_TRANSPOSE = "NO_TRANSPOSE"
    TRANSPOSE = "TRANSPOSE"
    ADJOINT = "ADJOINT"


class RngDistribution(StrEnum):
    UNIFORM = "UNIFORM"
    NORMAL = "NORMAL"


class RngAlgorithm(StrEnum):
    DEFAULT = "DEFAULT"
    THREE_FRY = "THREE_FRY"
    PHILOX = "PHILOX"


@irdl_attr_definition
class FftTypeAttr(EnumAttribute[FftType], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<fft_type FFT>`."""

    name = "stablehlo.fft_type"


@irdl_attr_definition
class TransposeAttr(EnumAttribute[Transpose], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<transpose NO_TRANSPOSE>`."""

    name = "stablehlo.transpose"


@irdl_attr_definition
class RngDistributionAttr(EnumAttribute[RngDistribution], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<rng_distribution UNIFORM>`."""

    name = "stablehlo.rng_distribution"


@irdl_attr_definition
class RngAlgorithmAttr(EnumAttribute[RngAlgorithm], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<rng_algorithm THREE_FRY>`."""

    name = "stablehlo.rng_algorithm"


@irdl_attr_definition
class ChannelHandleAttr(ParametrizedAttribute):
    """`#stablehlo.channel_handle<handle = 1, type = 0>`: type 0 invalid, 1 device to
    device, 2 device to host, 3 host to device."""

    name = "stablehlo.channel_handle"
    handle: IntAttr
    type: IntAttr

    def __init__(self, handle: int, channel_type: int):
        super().__init__(IntAttr(handle), IntAttr(channel_type))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[IntAttr]:
        fields = parse_struct(parser, "channel_handle", {"handle": False, "type": False})
        return (IntAttr(int(fields.get("handle", 0))), IntAttr(int(fields.get("type", 0))))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<handle = {self.handle.data}, type = {self.type.data}>")


DYNAMIC = -(2**63)
"""MLIR's ShapedType::kDynamic, a bound printed as `?`."""


@irdl_attr_definition
class BoundsAttr(ParametrizedAttribute):
    """`#stablehlo.bounds<8, ?>`: per dimension, the upper bound of a dynamic size."""

    name = "stablehlo.bounds"
    bounds: ArrayAttr[IntAttr]

    def __init__(self, bounds: Sequence[int]):
        super().__init__(ints(bounds))

    @property
    def values(self) -> tuple[int, ...]:
        return int_tuple(self.bounds)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[ArrayAttr[IntAttr]]:
        def one() -> int:
            if parser.parse_optional_punctuation("?") is not None:
                return DYNAMIC
            return parser.parse_integer()

        values = parser.parse_comma_separated_list(parser.Delimiter.ANGLE, one)
        return (ints(values),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + ", ".join("?" if v == DYNAMIC else str(v)
                                             for v in self.values) + ">")


def bounds_error(t) -> str | None:
    """Upstream's check of a `#stablehlo.bounds` encoding against its tensor type
    (None when it fits, or when the type has no bounds)."""
    encoding = getattr(t, "encoding", None)
    if not isinstance(encoding, BoundsAttr):
        return None
    shape = list(t.get_shape())
    plain = TensorType(t.element_type, shape)
    out = StringIO()
    Printer(stream=out).print_attribute(plain)
    text = out.getvalue()
    bounds = encoding.values
    if len(bounds) != len(shape):
        return (f"Bounds length is {len(bounds)}, expected to be equal to rank({len(shape)}) "
                f"of the tensor '{text}'")
    for i, (d, b) in enumerate(zip(shape, bounds)):
        if d >= 0 and b != DYNAMIC:
            return (f"Static dimension {i} cannot have a bound, use ShapedType::kDynamic to "
                    f"indicate a missing bound in tensor '{text}'")
    return None


OP_ATTRS = [FftTypeAttr, TransposeAttr, RngDistributionAttr, RngAlgorithmAttr,
            ChannelHandleAttr, BoundsAttr]
