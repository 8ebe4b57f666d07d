"""The parser every qcomp tool uses: xDSL's, with MLIR's literal rules.

What differs from xDSL 0.74 (see docs/design.md, "Parsing"):
- `dense<...>` is read by `qcomp.ir.dense_text` (hex floats are bit patterns, ranges as
  in MLIR, a NumPy fast path for decimal lists);
- scalar literals that do not fit their type are diagnostics in MLIR's words (never
  an OverflowError);
- the parser records where each operation starts (`op_positions`) so diagnostics can
  point at it;
- string literals are lexed in linear time (xDSL's pattern backtracks exponentially on
  an unterminated string: 30 characters took minutes).
"""

from __future__ import annotations

import math
import re

from xdsl.context import Context
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ComplexType,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    TensorType,
    UnregisteredOp,
    VectorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from qcomp.ir.dense_complex import complex_from_text
from qcomp.ir.dense_text import LiteralError, dense_from_text, supported
from qcomp.ir.splat import dense_attr

_SCALAR = re.compile(
    r"(?P<minus>-?)\s*(?P<value>0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"
    r"\s*:\s*(?P<type>[A-Za-z0-9_]+)")


def _scalar_message(scalar: re.Match, error: Exception) -> str | None:
    """MLIR's words for a scalar literal that does not fit its type (None: not ours)."""
    value, type_name = scalar.group("value"), scalar.group("type")
    is_float_type = type_name.startswith(("f", "bf"))
    is_int_type = re.fullmatch(r"(?:[su]?i[0-9]+|index)", type_name) is not None
    if value.startswith("0x") and is_float_type:
        if scalar.group("minus"):
            return "hexadecimal float literal should not have a leading minus"
        return "hexadecimal float constant out of range for type"
    if ("." in value) and is_int_type:
        return "floating point value not valid for specified type"
    if is_float_type and isinstance(error, OverflowError | ValueError):
        return f"float literal '{scalar.group('minus')}{value}' out of range for type {type_name}"
    if is_int_type and not isinstance(error, ParseError):
        if scalar.group("minus") and type_name.startswith("ui"):
            return "negative integer literal not valid for unsigned integer type"
        return "integer constant out of range for attribute"
    return None


_RESULT_LIST = re.compile(
    r"(?:%[\w$.-]+(?::[0-9]+)?\s*,\s*)*%[\w$.-]+(?::[0-9]+)?\s*=\s*")


MAX_INTEGER_WIDTH = (1 << 24) - 1
"""MLIR's IntegerType::kMaxWidth."""
MAX_CONSTANT_BYTES = 4 << 30
"""The largest non-splat dense literal qcomp reads (the interpreter's default memory limit);
a splat of any size is held as one element."""
MAX_DIMENSION = (1 << 63) - 1
"""The largest tensor dimension MLIR represents (int64_t)."""


def _is_splat_text(body: str, element) -> bool:
    """Whether a `dense<...>` body is one element (a splat): no list, or a hex string of
    one element's bytes."""
    text = body.strip()
    if text.startswith('"'):
        size = getattr(element, "compile_time_size", 0)
        return len(text) - len('"0x"') == 2 * size
    return "[" not in text


_PLAIN_TENSOR = re.compile(r"tensor<(?:[0-9]+x)*(?:[su]?i[0-9]+|f16|bf16|f32|f64|index)>")
"""A ranked static tensor type of a builtin integer or float (no encoding)."""


class _LinearStringLexer(MLIRLexer):
    """MLIR's lexer with a string-literal pattern whose alternatives start with different
    characters, so a failed match backtracks once per character (xDSL's `[^"\\]+` inside
    `*` tries every split of the line)."""

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')
    _string_prefix = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*')

    def _lex_string_literal(self, start_pos):
        content = self.input.content
        stop = self._string_prefix.match(content, start_pos).end()
        if stop < len(content) and content[stop] == '"':
            return super()._lex_string_literal(start_pos)
        # MLIR's messages and positions: the bad escape, or where the line ends
        message = ("unknown escape in string literal" if content.startswith("\\", stop)
                   else "expected '\"' in string literal")
        raise ParseError(Span(stop, stop + 1, self.input), message)


UNKNOWN_TYPE_MESSAGES: dict[str, str] = {}
"""A dialect's message for a type name it does not have, by dialect (`{}`: the name
after the dialect's `.`), as that dialect's MLIR type parser words it; a dialect
registers its own (qcomp/dialects/quant: `unknown quantized type {}`)."""


ALLOWS_UNKNOWN_OPERATIONS: set[str] = set()
"""Dialects whose unknown ops, in the generic form, parse as unregistered ops (MLIR's
`allowUnknownOperations()`: mlir-opt's `test` dialect; qcomp-opt adds `test` when it
loads xDSL's)."""


class QcompParser(Parser):
    """xDSL's parser with MLIR's `dense<>` rules and op source positions.

    `op_positions` maps each parsed operation to the offset of its name in the input
    (MLIR's op location), so diagnostics can point at the op.
    """

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:
        super().__init__(ctx, "", name)
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._parser_state = ParserState(_LinearStringLexer(Input(text, name)))
        self.op_positions: dict[Operation, int] = {}
        self._tensor_types: dict[str, Attribute] = {}

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        # like MLIR, an op is located at its name, after any `%r:2, %s =`
        results = _RESULT_LIST.match(self.lexer.input.content, start)
        at = results.end() if results is not None else start
        self._generic_at = at if self.lexer.input.content.startswith('"', at) else None
        op = super().parse_operation()
        self.op_positions[op] = results.end() if results is not None else start
        return op

    def _get_op_by_name(self, name: str):
        generic = getattr(self, "_generic_at", None) is not None
        if generic and name.partition(".")[0] in ALLOWS_UNKNOWN_OPERATIONS and \
                self.ctx.get_optional_op(name) is None:
            return UnregisteredOp.with_name(name)
        return super()._get_op_by_name(name)

    def _parse_dialect_type_or_attribute_body(self, attr_name, is_type, is_opaque,
                                              starting_opaque_pos):
        dialect, dot, mnemonic = attr_name.partition(".")
        unknown = is_type and dot and self.ctx.get_optional_type(attr_name) is None
        message = None
        if unknown and self.ctx.get_optional_dialect(dialect) is not None:  # loads it
            message = UNKNOWN_TYPE_MESSAGES.get(dialect)
        if message is not None:
            end = self._current_token.span.start
            start = self.lexer.input.content.rfind(mnemonic, 0, end)
            raise ParseError(Span(start, start + len(mnemonic), self.lexer.input),
                             message.format(mnemonic))
        return super()._parse_dialect_type_or_attribute_body(attr_name, is_type, is_opaque,
                                                             starting_opaque_pos)

    def _parse_optional_builtin_parametrized_type(self):
        """xDSL's, remembering each plain `tensor<AxBx...xT>` spelling's type: a large
        program spells the same few types thousands of times."""
        token = self._current_token
        if token.kind != MLIRTokenKind.BARE_IDENT or token.text != "tensor":
            return super()._parse_optional_builtin_parametrized_type()
        plain = _PLAIN_TENSOR.match(self.lexer.input.content, token.span.start)
        if plain is None:
            return super()._parse_optional_builtin_parametrized_type()
        known = self._tensor_types.get(plain.group())
        if known is not None:
            self._resume_from(plain.end())
            return known
        t = super()._parse_optional_builtin_parametrized_type()
        if self._current_token.span.start >= plain.end():  # it read exactly that text
            self._tensor_types[plain.group()] = t
        return t

    def _parse_optional_integer_or_float_type(self):
        # MLIR's limits: widths up to 2^24 - 1 bits (IntegerType::kMaxWidth)
        token = self._current_token
        match = (self._builtin_integer_type_regex.match(token.text)
                 if token.kind == MLIRTokenKind.BARE_IDENT else None)
        if match is not None:
            digits = match.group(1)
            if int(digits) >= 1 << 32:  # MLIR's getAsInteger into `unsigned` fails
                self.raise_error("invalid integer width", token.span)
            if int(digits) > MAX_INTEGER_WIDTH:
                self.raise_error(f"integer bitwidth is limited to {MAX_INTEGER_WIDTH} bits",
                                 token.span)
        return super()._parse_optional_integer_or_float_type()

    def parse_shape_dimension(self, allow_dynamic: bool = True) -> int:
        token = self._current_token
        size = super().parse_shape_dimension(allow_dynamic)
        if size > MAX_DIMENSION:  # MLIR stores sizes as int64_t
            self.raise_error("invalid dimension", token.span)
        return size

    def parse_optional_builtin_int_or_float_attr(self):
        start = self._current_token.span.start
        scalar = _SCALAR.match(self.lexer.input.content, start)
        if (scalar is not None and scalar.group("minus") and scalar.group("value")
                .startswith("0x") and scalar.group("type").startswith(("f", "bf"))):
            at = scalar.start("value")
            self.raise_error("hexadecimal float literal should not have a leading minus",
                             Span(at, scalar.end("value"), self.lexer.input))
        try:
            attr = super().parse_optional_builtin_int_or_float_attr()
            if attr is not None:
                attr.verify()
            return attr
        except Exception as e:  # xDSL raises several kinds here
            if scalar is None:
                raise
            msg = _scalar_message(scalar, e)
            if msg is None:
                raise
            at = scalar.start("value")
            self.raise_error(msg, Span(at, scalar.end("value"), self.lexer.input))

    def _parse_dense_literal_type(self):
        # xDSL rebuilds an IRDL constraint on every call (~25 ms); plain checks here
        type = self.expect(self.parse_optional_type, "Dense attribute must be typed!")
        if not (isinstance(type, TensorType | VectorType | MemRefType) and isinstance(
                type.get_element_type(), IntegerType | IndexType | AnyFloat | ComplexType)):
            self.raise_error("Expected memref, vector or tensor type of "
                             "integer, index, float, or complex type")
        if any(dim == DYNAMIC_INDEX for dim in type.get_shape()):
            self.raise_error("Dense literal attribute should have a static shape.")
        return type

    def parse_dense_int_or_fp_elements_attr(self, type) -> DenseIntOrFPElementsAttr:
        lt = self._current_token.span.start
        content = self.lexer.input.content
        if self._current_token.text != "<":
            self.raise_error("expected '<' in dense attribute")
        gt = content.find(">", lt + 1)
        if gt < 0:
            self.raise_error("expected '>' in dense attribute")
        body = content[lt + 1:gt]
        self._resume_from(gt + 1)
        explicit_type = type is None
        if explicit_type:
            self.parse_punctuation(":", " in dense attribute")
            type = self._parse_dense_literal_type()
        element = type.get_element_type()
        count = math.prod(type.get_shape())
        bits = getattr(element, "bitwidth", None) or 64
        splat = _is_splat_text(body, element)
        if not splat and count * max(bits, 8) // 8 > MAX_CONSTANT_BYTES:
            # a splat is held as one element (qcomp.ir.splat); other literals element by element
            self.raise_error(
                f"dense literal of {count} elements is larger than qcomp holds "
                f"({MAX_CONSTANT_BYTES >> 30} GiB): only a splat is held as one element",
                Span(lt, gt + 1, self.lexer.input))
        if (attr := complex_from_text(body, type)) is not None:
            return attr
        if not supported(element):
            # complex and exotic widths: xDSL's own reader (a splat read as one element)
            end = self._current_token.span.start
            self._resume_from(lt)
            read_type = TensorType(element, []) if splat and count != 1 else type
            attr = super().parse_dense_int_or_fp_elements_attr(read_type)
            if read_type is not type:
                attr = dense_attr(type, attr.data.data)
            if explicit_type:
                self._resume_from(end)
            return attr
        try:
            return dense_from_text(body, type)
        except LiteralError as e:
            at = lt + 1 + e.offset
            self.raise_error(e.message, Span(at, at + 1, self.lexer.input))


def parse_module(text: str, ctx: Context, name: str = "<stdin>") -> ModuleOp:
    """Parse a module in `ctx` the MLIR way (`qcomp.registry.parse_module` supplies
    qcomp's context)."""
    return QcompParser(ctx, text, name).parse_module()
