"""StableHLO attributes: enums, dimension-number structs and their text forms.

Printed exactly as upstream `stablehlo-opt` prints them:

- `#stablehlo<comparison_direction GT>`, `#stablehlo<comparison_type FLOAT>`,
  `#stablehlo<precision HIGH>`, `#stablehlo<result_accuracy_mode DEFAULT>`
- `#stablehlo.gather<offset_dims = [0], ..., index_vector_dim = 1>` (empty lists
  and a zero `index_vector_dim` are left out)
- `#stablehlo.dot<lhs_batching_dimensions = [0], ...>`
- `#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>` (or `#stablehlo.conv<raw ...>`)

The op-level pretty pieces (`contracting_dims = [1] x [0]`, `window = {...}`,
`precision = [...]`) live in `format.py`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, FloatData, IntAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from qcomp.dialects.stablehlo.parse_errors import op_error
from qcomp.ir.float_text import format_float


# ---------------------------------------------------------------------------
# Enums
# ---------------------------------------------------------------------------
class ComparisonDirection(StrEnum):
    EQ = "EQ"
    NE = "NE"
    GE = "GE"
    GT = "GT"
    LE = "LE"
    LT = "LT"


class ComparisonType(StrEnum):
    NOTYPE = "NOTYPE"
    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"


class Precision(StrEnum):
    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"


class ResultAccuracyMode(StrEnum):
    DEFAULT = "DEFAULT"
    HIGHEST = "HIGHEST"
    TOLERANCE = "TOLERANCE"


@irdl_attr_definition
class ComparisonDirectionAttr(EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<comparison_direction GT>`."""

    name = "stablehlo.comparison_direction"


@irdl_attr_definition
class ComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<comparison_type FLOAT>`."""

    name = "stablehlo.comparison_type"


@irdl_attr_definition
class PrecisionAttr(EnumAttribute[Precision], SpacedOpaqueSyntaxAttribute):
    """`#stablehlo<precision HIGH>`."""

    name = "stablehlo.precision"


@irdl_attr_definition
class ResultAccuracyModeAttr(EnumAttribute[ResultAccuracyMode]):
    """`#stablehlo.result_accuracy_mode<DEFAULT>`."""

    name = "stablehlo.result_accuracy_mode"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> ResultAccuracyMode:
        parser.parse_punctuation("<")
        value = parser.parse_str_enum(ResultAccuracyMode)
        parser.parse_punctuation(">")
        return value

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data.value}>")


# ---------------------------------------------------------------------------
# Struct helpers
# ---------------------------------------------------------------------------
def ints(values: Sequence[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr([IntAttr(int(v)) for v in values])


def int_tuple(a: ArrayAttr[IntAttr]) -> tuple[int, ...]:
    return tuple(x.data for x in a.data)


def parse_int_list(parser: AttrParser) -> list[int]:
    """`[1, 2, 3]` (possibly empty)."""
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def format_int_list(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def parse_struct(parser: AttrParser, kind: str, fields: dict[str, bool],
                 opened: bool = False) -> dict[str, object]:
    """Read `<key = value, ...>` as upstream's parseStruct does.

    `fields` maps each keyword to True for an integer list, False for one integer;
    `opened`: the `<` was already read.
    """
    if not opened:
        parser.parse_punctuation("<")
    out: dict[str, object] = {}
    if parser.parse_optional_punctuation(">") is not None:
        return out
    while True:
        pos = parser.pos
        key = parser.parse_optional_identifier()
        if key is None or key not in fields:
            expected = ", ".join(f"`{k}`" for k in fields)
            parser.raise_error(f"expected one of: {expected}", pos)
        if key in out:
            parser.raise_error(f"duplicated `{key}` entry", pos)
        parser.parse_punctuation("=")
        out[key] = parse_int_list(parser) if fields[key] else parser.parse_integer()
        if parser.parse_optional_punctuation(",") is None:
            parser.parse_punctuation(">", f" in #stablehlo.{kind} attribute")
            return out


def format_struct(items: Sequence[tuple[str, object]]) -> str:
    """Upstream's printStruct: empty lists and zero integers are left out."""
    parts = []
    for key, value in items:
        if isinstance(value, tuple | list):
            if value:
                parts.append(f"{key} = {format_int_list(value)}")
        elif value != 0:
            parts.append(f"{key} = {value}")
    return "<" + ", ".join(parts) + ">"


# ---------------------------------------------------------------------------
# #stablehlo.gather
# ---------------------------------------------------------------------------
_GATHER_FIELDS = {
    "offset_dims": True,
    "collapsed_slice_dims": True,
    "operand_batching_dims": True,
    "start_indices_batching_dims": True,
    "start_index_map": True,
    "index_vector_dim": False,
}


@irdl_attr_definition
class GatherDimensionNumbersAttr(ParametrizedAttribute):
    """`#stablehlo.gather<...>`: how gather's result maps to operand and indices."""

    name = "stablehlo.gather"

    offset_dims_attr: ArrayAttr[IntAttr]
    collapsed_slice_dims_attr: ArrayAttr[IntAttr]
    operand_batching_dims_attr: ArrayAttr[IntAttr]
    start_indices_batching_dims_attr: ArrayAttr[IntAttr]
    start_index_map_attr: ArrayAttr[IntAttr]
    index_vector_dim_attr: IntAttr

    @staticmethod
    def get(offset_dims: Sequence[int] = (), collapsed_slice_dims: Sequence[int] = (),
            operand_batching_dims: Sequence[int] = (),
            start_indices_batching_dims: Sequence[int] = (),
            start_index_map: Sequence[int] = (), index_vector_dim: int = 0,
            ) -> GatherDimensionNumbersAttr:
        return GatherDimensionNumbersAttr(
            ints(offset_dims), ints(collapsed_slice_dims), ints(operand_batching_dims),
            ints(start_indices_batching_dims), ints(start_index_map), IntAttr(index_vector_dim))

    @property
    def offset_dims(self) -> tuple[int, ...]:
        return int_tuple(self.offset_dims_attr)

    @property
    def collapsed_slice_dims(self) -> tuple[int, ...]:
        return int_tuple(self.collapsed_slice_dims_attr)

    @property
    def operand_batching_dims(self) -> tuple[int, ...]:
        return int_tuple(self.operand_batching_dims_attr)

    @property
    def start_indices_batching_dims(self) -> tuple[int, ...]:
        return int_tuple(self.start_indices_batching_dims_attr)

    @property
    def start_index_map(self) -> tuple[int, ...]:
        return int_tuple(self.start_index_map_attr)

    @property
    def index_vector_dim(self) -> int:
        return self.index_vector_dim_attr.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        f = parse_struct(parser, "gather", _GATHER_FIELDS)
        return GatherDimensionNumbersAttr.get(
            f.get("offset_dims", ()), f.get("collapsed_slice_dims", ()),  # type: ignore[arg-type]
            f.get("operand_batching_dims", ()), f.get("start_indices_batching_dims", ()),  # type: ignore[arg-type]
            f.get("start_index_map", ()), f.get("index_vector_dim", 0),  # type: ignore[arg-type]
        ).parameters

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(format_struct([
            ("offset_dims", self.offset_dims),
            ("collapsed_slice_dims", self.collapsed_slice_dims),
            ("operand_batching_dims", self.operand_batching_dims),
            ("start_indices_batching_dims", self.start_indices_batching_dims),
            ("start_index_map", self.start_index_map),
            ("index_vector_dim", self.index_vector_dim),
        ]))


# ---------------------------------------------------------------------------
# #stablehlo.dot
# ---------------------------------------------------------------------------
_DOT_FIELDS = {
    "lhs_batching_dimensions": True,
    "rhs_batching_dimensions": True,
    "lhs_contracting_dimensions": True,
    "rhs_contracting_dimensions": True,
}


@irdl_attr_definition
class DotDimensionNumbersAttr(ParametrizedAttribute):
    """`#stablehlo.dot<...>`: batching and contracting dimensions of dot_general."""

    name = "stablehlo.dot"

    lhs_batching_dimensions_attr: ArrayAttr[IntAttr]
    rhs_batching_dimensions_attr: ArrayAttr[IntAttr]
    lhs_contracting_dimensions_attr: ArrayAttr[IntAttr]
    rhs_contracting_dimensions_attr: ArrayAttr[IntAttr]

    @staticmethod
    def get(lhs_batching: Sequence[int] = (), rhs_batching: Sequence[int] = (),
            lhs_contracting: Sequence[int] = (), rhs_contracting: Sequence[int] = (),
            ) -> DotDimensionNumbersAttr:
        return DotDimensionNumbersAttr(ints(lhs_batching), ints(rhs_batching),
                                       ints(lhs_contracting), ints(rhs_contracting))

    @property
    def lhs_batching_dimensions(self) -> tuple[int, ...]:
        return int_tuple(self.lhs_batching_dimensions_attr)

    @property
    def rhs_batching_dimensions(self) -> tuple[int, ...]:
        return int_tuple(self.rhs_batching_dimensions_attr)

    @property
    def lhs_contracting_dimensions(self) -> tuple[int, ...]:
        return int_tuple(self.lhs_contracting_dimensions_attr)

    @property
    def rhs_contracting_dimensions(self) -> tuple[int, ...]:
        return int_tuple(self.rhs_contracting_dimensions_attr)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        f = parse_struct(parser, "dot", _DOT_FIELDS)
        return DotDimensionNumbersAttr.get(*(f.get(k, ()) for k in _DOT_FIELDS)).parameters  # type: ignore[misc]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(format_struct([
            ("lhs_batching_dimensions", self.lhs_batching_dimensions),
            ("rhs_batching_dimensions", self.rhs_batching_dimensions),
            ("lhs_contracting_dimensions", self.lhs_contracting_dimensions),
            ("rhs_contracting_dimensions", self.rhs_contracting_dimensions),
        ]))


# ---------------------------------------------------------------------------
# #stablehlo.conv
# ---------------------------------------------------------------------------
_CONV_RAW_FIELDS = {
    "input_batch_dimension": False,
    "input_feature_dimension": False,
    "input_spatial_dimensions": True,
    "kernel_input_feature_dimension": False,
    "kernel_output_feature_dimension": False,
    "kernel_spatial_dimensions": True,
    "output_batch_dimension": False,
    "output_feature_dimension": False,
    "output_spatial_dimensions": True,
}


@irdl_attr_definition
class ConvDimensionNumbersAttr(ParametrizedAttribute):
    """`#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`: convolution layouts."""

    name = "stablehlo.conv"

    input_batch_dimension_attr: IntAttr
    input_feature_dimension_attr: IntAttr
    input_spatial_dimensions_attr: ArrayAttr[IntAttr]
    kernel_input_feature_dimension_attr: IntAttr
    kernel_output_feature_dimension_attr: IntAttr
    kernel_spatial_dimensions_attr: ArrayAttr[IntAttr]
    output_batch_dimension_attr: IntAttr
    output_feature_dimension_attr: IntAttr
    output_spatial_dimensions_attr: ArrayAttr[IntAttr]

    @staticmethod
    def get(input_batch_dimension: int, input_feature_dimension: int,
            input_spatial_dimensions: Sequence[int],
            kernel_input_feature_dimension: int, kernel_output_feature_dimension: int,
            kernel_spatial_dimensions: Sequence[int],
            output_batch_dimension: int, output_feature_dimension: int,
            output_spatial_dimensions: Sequence[int]) -> ConvDimensionNumbersAttr:
        return ConvDimensionNumbersAttr(
            IntAttr(input_batch_dimension), IntAttr(input_feature_dimension),
            ints(input_spatial_dimensions),
            IntAttr(kernel_input_feature_dimension), IntAttr(kernel_output_feature_dimension),
            ints(kernel_spatial_dimensions),
            IntAttr(output_batch_dimension), IntAttr(output_feature_dimension),
            ints(output_spatial_dimensions))

    input_batch_dimension = property(lambda self: self.input_batch_dimension_attr.data)
    input_feature_dimension = property(lambda self: self.input_feature_dimension_attr.data)
    input_spatial_dimensions = property(lambda self: int_tuple(self.input_spatial_dimensions_attr))
    kernel_input_feature_dimension = property(
        lambda self: self.kernel_input_feature_dimension_attr.data)
    kernel_output_feature_dimension = property(
        lambda self: self.kernel_output_feature_dimension_attr.data)
    kernel_spatial_dimensions = property(lambda self: int_tuple(self.kernel_spatial_dimensions_attr))
    output_batch_dimension = property(lambda self: self.output_batch_dimension_attr.data)
    output_feature_dimension = property(lambda self: self.output_feature_dimension_attr.data)
    output_spatial_dimensions = property(lambda self: int_tuple(self.output_spatial_dimensions_attr))

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        if parser.parse_optional_keyword("raw") is not None:
            f = parse_struct(parser, "conv", _CONV_RAW_FIELDS, opened=True)
            return ConvDimensionNumbersAttr.get(
                *(f.get(k, () if is_list else 0) for k, is_list in _CONV_RAW_FIELDS.items())  # type: ignore[misc]
            ).parameters
        attr = parse_conv_dimensions(parser)
        parser.parse_punctuation(">")
        return attr.parameters

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<" + format_conv_dimensions(self) + ">")


_NON_SPATIAL = {"b": "batch", "f": "feature", "i": "in", "o": "out"}


def _parse_conv_layout(parser: AttrParser, allowed: str) -> tuple[list[int], dict[str, int]]:
    """One `[b, 0, 1, f]` list: spatial dims by position and letter positions."""
    spatial: dict[int, int] = {}
    letters: dict[str, int] = {}
    left = list(allowed)
    parser.parse_punctuation("[")
    index = 0
    while True:
        pos = parser.pos
        value = parser.parse_optional_integer(allow_boolean=False, allow_negative=True)
        if value is not None:
            if value < 0:
                op_error(parser, f"Unexpected dimension {value}", pos)
            if value in spatial:
                op_error(parser, f"Duplicate entries for spatial dimension {value}", pos)
            spatial[value] = index
        else:
            word = parser.parse_optional_identifier()
            if word is None:
                op_error(parser, "expected integer or keyword", pos)
            if len(word) != 1 or word not in left:
                if len(word) == 1 and word in allowed:
                    op_error(parser, f"Duplicate entries for non-spatial dimension {word}", pos)
                expected = ", ".join(f"'{c}'" for c in left)
                op_error(parser, f"Unexpected keyword {word}" if not left else
                                   f"Unexpected keyword {word} expecting {expected}", pos)
            left.remove(word)
            letters[word] = index
        index += 1
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation("]")
    if left:
        op_error(parser, "Expected dimensions " + ", ".join(f"{c}" for c in left) + " not specified")
    for d in range(len(spatial)):
        if d not in spatial:
            op_error(parser, f"Expected spatial dimension {d} not specified")
    return [spatial[d] for d in range(len(spatial))], letters


def parse_conv_dimensions(parser: AttrParser) -> ConvDimensionNumbersAttr:
    """`[b, 0, f]x[0, i, o]->[b, 0, f]`."""
    in_sp, in_nl = _parse_conv_layout(parser, "bf")
    if parser.parse_optional_identifier() != "x":
        op_error(parser, "expected 'x'")
    k_sp, k_nl = _parse_conv_layout(parser, "io")
    parser.parse_punctuation("->")
    out_sp, out_nl = _parse_conv_layout(parser, "bf")
    return ConvDimensionNumbersAttr.get(in_nl["b"], in_nl["f"], in_sp, k_nl["i"], k_nl["o"],
                                        k_sp, out_nl["b"], out_nl["f"], out_sp)


def _format_conv_layout(spatial: Sequence[int], letters: dict[int, str]) -> str:
    items: list[str] = [""] * (len(spatial) + len(letters))
    for pos, letter in letters.items():
        if 0 <= pos < len(items):
            items[pos] = letter
    for i, pos in enumerate(spatial):
        if 0 <= pos < len(items):
            items[pos] = str(i)
    return "[" + ", ".join(items) + "]"


def format_conv_dimensions(d: ConvDimensionNumbersAttr) -> str:
    return (
        _format_conv_layout(d.input_spatial_dimensions,
                            {d.input_batch_dimension: "b", d.input_feature_dimension: "f"})
        + "x"
        + _format_conv_layout(d.kernel_spatial_dimensions,
                              {d.kernel_input_feature_dimension: "i",
                               d.kernel_output_feature_dimension: "o"})
        + "->"
        + _format_conv_layout(d.output_spatial_dimensions,
                              {d.output_batch_dimension: "b", d.output_feature_dimension: "f"})
    )


# ---------------------------------------------------------------------------
# #stablehlo.result_accuracy
# ---------------------------------------------------------------------------
@irdl_attr_definition
class ResultAccuracyAttr(ParametrizedAttribute):
    """`#stablehlo.result_accuracy<atol = 0.0, rtol = 0.0, ulps = 0, mode = #stablehlo.result_accuracy_mode<DEFAULT>>`."""

    name = "stablehlo.result_accuracy"

    atol: FloatData
    rtol: FloatData
    ulps: IntAttr
    mode: ResultAccuracyModeAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        atol, rtol, ulps = 0.0, 0.0, 0
        if parser.parse_optional_keyword("atol") is not None:
            parser.parse_punctuation("=")
            atol = parser.parse_float()
            parser.parse_punctuation(",")
        if parser.parse_optional_keyword("rtol") is not None:
            parser.parse_punctuation("=")
            rtol = parser.parse_float()
            parser.parse_punctuation(",")
        if parser.parse_optional_keyword("ulps") is not None:
            parser.parse_punctuation("=")
            ulps = parser.parse_integer()
            parser.parse_punctuation(",")
        parser.parse_keyword("mode")
        parser.parse_punctuation("=")
        mode = parser.parse_attribute()
        if not isinstance(mode, ResultAccuracyModeAttr):
            parser.raise_error("expected #stablehlo<result_accuracy_mode ...>")
        parser.parse_punctuation(">")
        return (FloatData(atol), FloatData(rtol), IntAttr(ulps), mode)

    def print_parameters(self, printer: Printer) -> None:
        text = "<"
        if self.atol.data != 0:
            text += f"atol = {format_float(self.atol.data)}, "
        if self.rtol.data != 0:
            text += f"rtol = {format_float(self.rtol.data)}, "
        if self.ulps.data != 0:
            text += f"ulps = {self.ulps.data}, "
        printer.print_string(text + "mode = ")
        printer.print_attribute(self.mode)
        printer.print_string(">")

    def verify(self) -> None:
        if self.atol.data < 0 or self.rtol.data < 0 or self.ulps.data < 0:
            raise VerifyException("Negative tolerance")


# ---------------------------------------------------------------------------
# #stablehlo.dot_algorithm
# ---------------------------------------------------------------------------
_ALG_TYPES = ("lhs_precision_type", "rhs_precision_type", "accumulation_type")
_ALG_INTS = ("lhs_component_count", "rhs_component_count", "num_primitive_operations")


@irdl_attr_definition
class DotAlgorithmAttr(ParametrizedAttribute):
    """`#stablehlo.dot_algorithm<lhs_precision_type = tf32, ..., allow_imprecise_accumulation = false>`."""

    name = "stablehlo.dot_algorithm"

    lhs_precision_type: Attribute
    rhs_precision_type: Attribute
    accumulation_type: Attribute
    lhs_component_count: IntAttr
    rhs_component_count: IntAttr
    num_primitive_operations: IntAttr
    allow_imprecise_accumulation: IntAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        params: list[Attribute] = []
        for i, key in enumerate((*_ALG_TYPES, *_ALG_INTS, "allow_imprecise_accumulation")):
            if i:
                parser.parse_punctuation(",")
            parser.parse_keyword(key)
            parser.parse_punctuation("=")
            if key in _ALG_TYPES:
                params.append(parser.parse_type())
            elif key in _ALG_INTS:
                params.append(IntAttr(parser.parse_integer()))
            else:
                params.append(IntAttr(int(parser.parse_boolean())))
        parser.parse_punctuation(">")
        return params

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        for i, key in enumerate(_ALG_TYPES):
            printer.print_string(f"{', ' if i else ''}{key} = ")
            printer.print_attribute(getattr(self, key))
        for key in _ALG_INTS:
            printer.print_string(f", {key} = {getattr(self, key).data}")
        flag = "true" if self.allow_imprecise_accumulation.data else "false"
        printer.print_string(f", allow_imprecise_accumulation = {flag}>")


STABLEHLO_ATTRS = [
    ComparisonDirectionAttr,
    ComparisonTypeAttr,
    PrecisionAttr,
    ResultAccuracyModeAttr,
    ResultAccuracyAttr,
    GatherDimensionNumbersAttr,
    DotDimensionNumbersAttr,
    ConvDimensionNumbersAttr,
    DotAlgorithmAttr,
]
