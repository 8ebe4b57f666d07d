"""The parser every qcomp tool uses: xDSL's, with MLIR's literal rules.

What differs from xDSL 0.74 (see docs/design.md, "Parsing"):
- `dense<...>` is read by `qcomp.ir.dense_text` (hex floats are bit patterns, ranges as
  in MLIR, a NumPy fast path for decimal lists);
- scalar literals that do not fit their type are diagnostics in MLIR's words (never
  an OverflowError);
- the parser records where each operation starts (`op_positions`) so diagnostics can
  point at it;
- string literals are lexed in linear time (xDSL's pattern backtracks exponentially on
  an unterminated string: 30 characters took minutes);
- a one-line op whose text, with its SSA uses blanked out, was read before (with operands
  of the same types, in the same default dialect) is built from that first op's parse
  (`_LineTemplate`): a large program spells the same few op lines thousands of times;
- short dense literals, plain tensor types and function types of them are read once per
  spelling (`_dense_of`, `_read_by_spelling`).
"""

from __future__ import annotations

import gc
import math
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

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
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span, Token
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from qcomp.ir.dense_complex import complex_from_text
from qcomp.ir.dense_text import LiteralError, dense_from_text, supported
from qcomp.ir.plain_types import PLAIN_FUNCTION, PLAIN_TENSOR, plain_function, plain_tensor
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

_SUFFIX_ID = r"(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
"""MLIR's suffix-id, as the lexer reads it after `%` and `#`."""
_USE = re.compile(rf"(%{_SUFFIX_ID}(?:#[0-9]+)?)")
"""An SSA use `%name` or `%name#index`, as a capture group for `re.split`."""
_RESULT_NAMES = re.compile(rf"%({_SUFFIX_ID})\s*(?:,\s*|=\s*)")
_ONE_RESULT_NAME = re.compile(rf"%({_SUFFIX_ID})\s*=\s*")
_DENSE_BODY = re.compile(r'dense<([^<>%"{}]*|"0x[0-9A-Fa-f]*")>')
"""A `dense<...>` literal whose body a line template leaves out (a hex string, or numbers
and brackets); its attribute is read from each line's own body."""


def _blank_dense(line: str) -> tuple[str, list[str]]:
    """`line` with its dense literals' bodies left out, and those bodies."""
    if "dense<" not in line:
        return line, []
    pieces = _DENSE_BODY.split(line)
    return "dense<\0>".join(pieces[0::2]), pieces[1::2]


@dataclass(frozen=True, slots=True)
class _LineTemplate:
    """A one-line op parsed once: its class, result types, properties, attributes and
    location, the operand types its uses had, and which use is each operand.

    The parse of an op's text is a function of that text, the dialect stack and its
    operands' types; what changes from line to line is only which values the uses name.
    """

    op_type: type[Operation]
    operand_types: tuple[Attribute, ...]
    operand_uses: tuple[int, ...]
    result_types: tuple[Attribute, ...]
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]
    location: Attribute
    result_names: int
    dense_slots: tuple[tuple[bool, str, Attribute], ...] = ()
    """For each `dense<...>` body of the line, in order: where its attribute goes (a
    property or not, and its name) and its type."""


_SHARED_DENSE_LENGTH = 64
"""Dense literal bodies up to this long are read once per parse (`_dense_of`)."""

MAX_INTEGER_WIDTH = (1 << 24) - 1
"""MLIR's IntegerType::kMaxWidth."""
MAX_CONSTANT_BYTES = 4 << 30
"""The largest non-splat dense literal qcomp reads (the interpreter's default memory limit);
a splat of any size is held as one element."""
MAX_DIMENSION = (1 << 63) - 1
"""The largest tensor dimension MLIR represents (int64_t)."""


def _oversized(body: str, type) -> bool:
    """Whether a dense literal is larger than qcomp holds (a splat never is)."""
    element = type.get_element_type()
    bits = getattr(element, "bitwidth", None) or 64
    count = math.prod(type.get_shape())
    return not _is_splat_text(body, element) and count * max(bits, 8) // 8 > MAX_CONSTANT_BYTES


def _is_splat_text(body: str, element) -> bool:
    """Whether a `dense<...>` body is one element (a splat): no list, or a hex string of
    one element's bytes."""
    text = body.strip()
    if text.startswith('"'):
        size = getattr(element, "compile_time_size", 0)
        return len(text) - len('"0x"') == 2 * size
    return "[" not in text


class _LinearStringLexer(MLIRLexer):
    """MLIR's lexer with a string-literal pattern whose alternatives start with different
    characters, so a failed match backtracks once per character (xDSL's `[^"\\]+` inside
    `*` tries every split of the line)."""

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"')
    _string_prefix = re.compile(r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*')

    _common_token = re.compile(
        r"(?://[^\n]*+\n?+|\s++)*+(?:(?P<bare>[a-zA-Z_][a-zA-Z0-9_$.]*)|"
        r"(?P<percent>%(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))|(?P<arrow>->)|"
        r"(?P<punctuation>[:,()}\[\]<>=+*?|]))", re.ASCII)
    """The most common tokens, with the whitespace and comments before them, in one match
    (xDSL's `lex` for the rest); the same tokens as xDSL's lexer. The possessive `*+`
    keep a failed match from backtracking into a comment."""
    _punctuation = {
        ":": MLIRTokenKind.COLON, ",": MLIRTokenKind.COMMA, "(": MLIRTokenKind.L_PAREN,
        ")": MLIRTokenKind.R_PAREN, "}": MLIRTokenKind.R_BRACE,
        "[": MLIRTokenKind.L_SQUARE, "]": MLIRTokenKind.R_SQUARE, "<": MLIRTokenKind.LESS,
        ">": MLIRTokenKind.GREATER, "=": MLIRTokenKind.EQUAL, "+": MLIRTokenKind.PLUS,
        "*": MLIRTokenKind.STAR, "?": MLIRTokenKind.QUESTION,
        "|": MLIRTokenKind.VERTICAL_BAR}

    def lex(self) -> Token:
        match = self._common_token.match(self.input.content, self.pos)
        if match is None:
            return super().lex()
        group = match.lastgroup
        start, end = match.start(group), match.end()
        self.pos = end
        if group == "bare":
            kind = MLIRTokenKind.BARE_IDENT
        elif group == "percent":
            kind = MLIRTokenKind.PERCENT_IDENT
        elif group == "arrow":
            kind = MLIRTokenKind.ARROW
        else:
            kind = self._punctuation[match.group(group)]
        return Token(kind, Span(start, end, self.input))

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
        self._function_types: dict[str, Attribute] = {}
        self._element_types: dict[str, Attribute | None] = {}
        self._line_templates: dict[tuple, _LineTemplate | None] = {}
        self._dense_read: list[tuple[int, Attribute]] = []
        self._dense_attrs: dict[tuple[str, int], tuple[Attribute, Attribute]] = {}

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        content = self.lexer.input.content
        # like MLIR, an op is located at its name, after any `%r:2, %s =`
        results = _RESULT_LIST.match(content, start)
        at = results.end() if results is not None else start
        eol = content.find("\n", at)
        if eol < 0:
            eol = len(content)
        line, bodies = _blank_dense(content[at:eol].rstrip())
        parts = _USE.split(line)
        key = ("%".join(parts[0::2]), tuple(self._parser_state.dialect_stack))
        template = self._line_templates.get(key)
        if template is not None and (op := self._from_template(
                template, parts[1::2], bodies, content, start, at, eol)) is not None:
            return op
        self._generic_at = at if content.startswith('"', at) else None
        outer, self._dense_read = self._dense_read, []
        try:
            op = super().parse_operation()
            dense_read = self._dense_read
        finally:
            self._dense_read = outer
        self.op_positions[op] = at
        if template is None and key not in self._line_templates:
            self._line_templates[key] = self._template_of(op, parts[1::2], content, start,
                                                          at, eol, bodies, dense_read)
        return op

    def _used_values(self, uses: list[str]) -> list[SSAValue] | None:
        """The values `%name` / `%name#i` uses name, or None if one is not defined yet."""
        values = []
        for use in uses:
            name, _, index = use[1:].partition("#")
            defined = self.ssa_values.get(name)
            i = int(index) if index else 0
            if defined is None or i >= len(defined):
                return None
            values.append(defined[i])
        return values

    def _template_of(self, op: Operation, uses: list[str], content: str, start: int,
                     at: int, eol: int, bodies: list[str],
                     dense_read: list[tuple[int, Attribute]]) -> _LineTemplate | None:
        """`op`'s template, if its text was exactly the rest of its line, every use named a
        distinct defined value (not its own result), each operand is one use, and each
        dense literal of the line became one of its properties or attributes."""
        if (op.regions or op.successors or isinstance(op, UnregisteredOp)
                or self._current_token.span.start <= eol
                or content[eol:self._current_token.span.start].strip()):
            return None
        names = _RESULT_NAMES.findall(content, start, at)
        if len(names) not in (0, len(op.results)) or \
                len(names) != content.count("%", start, at):
            return None
        for name, result in zip(names, op.results, strict=False):
            if result.name_hint != (SSAValue.extract_valid_name(name)
                                    if SSAValue.is_valid_name(name) else None):
                return None
        values = self._used_values(uses)
        if values is None or len(set(values)) != len(values) or \
                len(values) != len(op.operands):
            return None
        position = {value: i for i, value in enumerate(values)}
        uses_of = tuple(position.get(operand, -1) for operand in op.operands)
        if -1 in uses_of or len(set(uses_of)) != len(uses_of) or \
                any(getattr(value, "owner", None) is op for value in values):
            return None
        slots = _dense_slots(op, content, bodies, dense_read)
        if slots is None:
            return None
        return _LineTemplate(type(op), tuple(v.type for v in values), uses_of,
                             tuple(r.type for r in op.results), dict(op.properties),
                             dict(op.attributes), op.location, len(names), slots)

    def _from_template(self, template: _LineTemplate, uses: list[str], bodies: list[str],
                       content: str, start: int, at: int, eol: int) -> Operation | None:
        """The op of this line built from `template`, or None (parse it the usual way)."""
        values = self._used_values(uses)
        if values is None or len(values) != len(template.operand_types):
            return None
        for v, t in zip(values, template.operand_types):
            if v.type is not t and v.type != t:
                return None
        properties, attributes = template.properties, template.attributes
        if template.dense_slots:
            properties, attributes = dict(properties), dict(attributes)
            for body, (is_property, name, type) in zip(bodies, template.dense_slots,
                                                       strict=True):
                try:
                    attr = self._dense_of(body, type)
                except LiteralError:
                    return None  # the usual parse says where
                if attr is None:
                    return None
                (properties if is_property else attributes)[name] = attr
        if template.result_names == 1:  # the common `%name = `
            one = _ONE_RESULT_NAME.fullmatch(content, start, at)
            names = [one] if one is not None else []
        else:
            names = list(_RESULT_NAMES.finditer(content, start, at))
            if content.count("%", start, at) != len(names):
                return None
        if len(names) != template.result_names:
            return None
        op = template.op_type.create(
            operands=[values[i] for i in template.operand_uses],
            result_types=template.result_types, properties=properties,
            attributes=attributes, location=template.location)
        ssa_values, forward = self.ssa_values, self.forward_ssa_references
        for match, result in zip(names, op.results, strict=False):
            name = match.group(1)
            if name in ssa_values or name in forward:  # xDSL's diagnostics and fix-ups
                self._register_ssa_definition(
                    name, (result,),
                    Span(match.start(), match.start() + 1 + len(name), self.lexer.input))
                continue
            ssa_values[name] = (result,)
            if SSAValue.is_valid_name(name):
                result.name_hint = name
        self._resume_from(eol)
        self.op_positions[op] = at
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

    def _read_by_spelling(self, spelling: re.Pattern, known: dict[str, Attribute], read,
                          build=None):
        """`read()` (one of xDSL's type readers), remembered by the text `spelling` matches
        here when it read exactly that text: a large program spells the same few types
        thousands of times. `build(text)`, if given, makes the type of a matched text
        directly (None: `read()`)."""
        plain = spelling.match(self.lexer.input.content, self._current_token.span.start)
        if plain is None:
            return read()
        text = plain.group()
        if (t := known.get(text)) is not None or (
                build is not None and (t := build(text)) is not None):
            known[text] = t
            self._resume_from(plain.end())
            return t
        t = read()
        if self._current_token.span.start >= plain.end():
            known[plain.group()] = t
        return t

    def _parse_optional_builtin_parametrized_type(self):
        """xDSL's, each plain `tensor<AxBx...xT>` read once per spelling."""
        token = self._current_token
        if token.kind != MLIRTokenKind.BARE_IDENT or token.text != "tensor":
            return super()._parse_optional_builtin_parametrized_type()
        return self._read_by_spelling(PLAIN_TENSOR, self._tensor_types,
                                      super()._parse_optional_builtin_parametrized_type,
                                      self._plain_tensor)

    def _plain_tensor(self, text: str) -> Attribute | None:
        return plain_tensor(text, self._element_types)

    def _plain_function(self, text: str) -> Attribute | None:
        return plain_function(text, self._tensor_types, self._element_types)

    def parse_optional_function_type(self):
        """xDSL's, each function type of plain tensors read once per spelling."""
        if self._current_token.kind != MLIRTokenKind.L_PAREN:
            return None
        return self._read_by_spelling(PLAIN_FUNCTION, self._function_types,
                                      super().parse_optional_function_type,
                                      self._plain_function)

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
        if _oversized(body, type):
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
            splat = _is_splat_text(body, element)
            read_type = TensorType(element, []) if splat and count != 1 else type
            attr = super().parse_dense_int_or_fp_elements_attr(read_type)
            if read_type is not type:
                attr = dense_attr(type, attr.data.data)
            if explicit_type:
                self._resume_from(end)
            return attr
        try:
            attr = self._dense_of(body, type)
        except LiteralError as e:
            at = lt + 1 + e.offset
            self.raise_error(e.message, Span(at, at + 1, self.lexer.input))
        self._dense_read.append((lt + 1, attr))
        return attr

    def _dense_of(self, body: str, type: Attribute) -> Attribute | None:
        """`dense_from_text(body, type)` (None: larger than qcomp holds), one attribute
        for each short body and type: a large program spells the same few splats
        (`dense<0> : tensor<i64>`) hundreds of times, and one object for them all lets
        the printer reuse its text (attributes are immutable)."""
        short = len(body) <= _SHARED_DENSE_LENGTH
        if short:
            known = self._dense_attrs.get((body, id(type)))
            if known is not None and known[0] is type:
                return known[1]
        if _oversized(body, type):
            return None
        attr = dense_from_text(body, type)
        if short:
            self._dense_attrs[(body, id(type))] = (type, attr)
        return attr


def _dense_slots(op: Operation, content: str, bodies: list[str],
                 dense_read: list[tuple[int, Attribute]]
                 ) -> tuple[tuple[bool, str, Attribute], ...] | None:
    """Where each dense literal of `op`'s line went: each body was read by
    `dense_from_text` (`dense_read`: offset and attribute, in order) into exactly one of
    the op's properties or attributes; None if not."""
    if len(dense_read) != len(bodies):
        return None
    slots = []
    for body, (offset, attr) in zip(bodies, dense_read, strict=True):
        if not content.startswith(body, offset) or content[offset + len(body)] != ">":
            return None
        found = [(True, k) for k, v in op.properties.items() if v is attr] + \
                [(False, k) for k, v in op.attributes.items() if v is attr]
        if len(found) != 1:
            return None
        slots.append((*found[0], attr.type))
    return tuple(slots)


@contextmanager
def paused_gc() -> Iterator[None]:
    """Python's cycle collector paused while a module is parsed or printed: every object
    made then stays alive, and the collections a large module triggers walk the whole heap
    (10-15% of parsing a 1.6 MB module with jax imported)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            resume_gc()


def resume_gc() -> None:
    """The cycle collector on again after a pause in which what was made stays alive (a
    module, imported modules): that joins the oldest generation at once, or the first
    young collection would walk all of it."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
    gc.enable()


def parse_module(text: str, ctx: Context, name: str = "<stdin>") -> ModuleOp:
    """Parse a module in `ctx` the MLIR way (`qcomp.registry.parse_module` supplies
    qcomp's context)."""
    with paused_gc():
        return QcompParser(ctx, text, name).parse_module()
