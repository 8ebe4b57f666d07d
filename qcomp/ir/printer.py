"""The printer every qcomp tool uses: xDSL's, with mlir-opt's text.

What differs from xDSL 0.74: MLIR's float text and `dense<>` layout
(`qcomp.ir.dense_text`: MLIR's hex form for large constants), attribute dictionaries in
name order, MLIR's SSA names (`qcomp.ir.ssa_names`: `%arg0`, `%0`, `%cst`, `%0:2`), and
op names without the dialect an enclosing op makes the default (`module`, `return`,
`call` inside `func.func`), as MLIR's `OpAsmOpInterface::getDefaultDialect` does."""

from __future__ import annotations

import io
import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from xdsl.dialects.builtin import AnyFloat, ArrayAttr, DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, UnregisteredOp, f64, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue, TypeAttribute
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove

from qcomp.ir.dense_text import HEX_PRINT_LIMIT, dense_body_text, float_kind, supported
from qcomp.ir.float_text import bits_to_float, float_to_bits, format_float
from qcomp.ir.parser import paused_gc
from qcomp.ir.splat import one_element_if_splat, repeats_one_element
from qcomp.ir.ssa_names import SSANames

DEFAULT_DIALECTS = {"builtin.module": "builtin", "func.func": "func"}
"""The dialect each op makes the default for the ops nested in it (MLIR's
`getDefaultDialect`); the top level's is `builtin`."""


def _print_dense_without_type(printer: Printer, attr: DenseIntOrFPElementsAttr) -> None:
    limit = getattr(printer, "elements_hex_limit", HEX_PRINT_LIMIT)
    printer.print_string("dense<" + dense_body_text(attr, limit) + ">")


@dataclass(eq=False, repr=False)
class QcompPrinter(Printer):
    """xDSL's printer with MLIR's float text and dense-attribute layout.

    `elements_hex_limit`: MLIR's `-mlir-print-elementsattrs-with-hex-if-larger`
    (non-splat constants with more elements print as hex; -1 never)."""

    elements_hex_limit: int = HEX_PRINT_LIMIT
    names: SSANames | None = None
    """MLIR's names for the values being printed (None: xDSL's, from the input's names)."""
    default_dialects: list[str] = field(default_factory=lambda: ["builtin"])
    _type_texts: dict[int, tuple[Attribute, str]] = field(default_factory=dict, init=False)
    """Each type's text by the type's id (with the type, so the id stays its own): a large
    program prints the same few types thousands of times."""

    def print_string(self, text: str, *, indent: int | None = None) -> None:
        if "\n" in text:
            return super().print_string(text, indent=indent)
        self._current_column += len(text)
        (self.stream or sys.stdout).write(text)

    _op_texts: dict[tuple, tuple[tuple, str]] = field(default_factory=dict, init=False)
    """Op text with its values' names left out (`_op_key`), as a `str.format` template of
    their names (with the objects of the key): a large program prints the same few op
    lines thousands of times with other names."""
    _placeholders: dict[SSAValue, str] | None = field(default=None, init=False)

    def print_ssa_value(self, value: SSAValue) -> str:
        if self._placeholders is not None:
            # an op printing a value not its own has no reusable text (`print_op`)
            name = self._placeholders.get(value, "\0")
            self.print_string(f"%{name}")
            return name
        name = self.names.values.get(value) if self.names is not None else None
        if name is None:
            return super().print_ssa_value(value)
        self.print_string(f"%{name}")
        return name

    def _print_results(self, op: Operation) -> None:
        group = self.names.groups.get(op) if self.names is not None else None
        if group is None:
            return super()._print_results(op)
        self.print_string(f"%{group[0]}:{group[1]} = ")

    def _populate_block_name(self, block: Block, block_index: int | None = None) -> None:
        if self.names is None or block_index is None:
            return super()._populate_block_name(block, block_index)
        self._blocks[block] = f"bb{block_index}"  # MLIR numbers blocks per region

    def _op_name(self, op: Operation) -> str:
        dialect, _, rest = op.name.partition(".")
        if dialect == self.default_dialects[-1] and "." not in rest:
            return rest
        return op.name

    def _op_key(self, op: Operation) -> tuple[tuple, tuple] | None:
        """What an op's text is a function of, besides its values' names (None: not
        cached): its class, the default dialect, its attributes, properties, location and
        value types (by identity: hashing attributes costs more than printing them; the
        cache keeps the objects alive, so an id in a key is never another object's)."""
        names = self.names
        if (names is None or op.regions or op._successors or op in names.groups
                or isinstance(op, UnregisteredOp) or op in self.diagnostic.op_messages):
            return None
        properties, attributes = op.properties, op.attributes
        operands, results = op._operands, op.results
        objects = (*properties.values(), *attributes.values(),
                   *[v.type for v in operands], *[v.type for v in results], op.location)
        return (type(op), self.default_dialects[-1], *properties, None, *attributes,
                len(operands), len(results), *map(id, objects)), objects

    def print_op(self, op: Operation) -> None:
        """`_print_op`, reusing the text of an op that differs only in its values' names."""
        key = self._op_key(op)
        if key is None:
            return self._print_op(op)
        values = (*op.results, *op._operands)
        get = self.names.values.get
        names = [get(v) for v in values]
        known = self._op_texts.get(key[0])
        if known is not None and None not in names:
            text = known[1].format(*names)
            self._current_column += len(text)
            (self.stream or sys.stdout).write(text)
            return None
        if None in names or len(set(values)) != len(values) or _unique_text(op):
            return self._print_op(op)
        stream, column, line = self.stream, self._current_column, self._current_line
        self.stream = io.StringIO()
        self._placeholders = {v: f"\0{i}\0" for i, v in enumerate(values)}
        try:
            self._print_op(op)
            text = self.stream.getvalue()
        finally:
            self.stream, self._placeholders = stream, None
            self._current_column, self._current_line = column, line
        parts = text.split("\0")
        if "\n" in text or len(parts) % 2 == 0 or not all(
                part.isdigit() for part in parts[1::2]):
            return self._print_op(op)
        literal = [part.replace("{", "{{").replace("}", "}}") for part in parts[0::2]]
        fmt = "".join(f"{literal[i // 2]}{{{parts[i + 1]}}}" if i + 1 < len(parts)
                      else literal[i // 2] for i in range(0, len(parts), 2))
        self._op_texts[key[0]] = (key[1], fmt)
        return self.print_op(op)

    def _print_op(self, op: Operation) -> None:
        """xDSL's `Printer.print_op`, with the default dialect left off custom forms."""
        scope = bool(op.get_traits_of_type(IsolatedFromAbove))
        begin_op_pos = self._current_column
        self._print_results(op)
        if scope:
            self.enter_scope()
        use_custom_format = False
        if isinstance(op, UnregisteredOp):
            self.print_string(f'"{op.op_name.data}"')
        elif self.print_generic_format or Operation.print is type(op).print:
            self.print_string(f'"{op.name}"')
        else:
            self.print_string(self._op_name(op))
            use_custom_format = True
        end_op_pos = self._current_column
        for message in self.diagnostic.op_messages.get(op, ()):
            self._add_message_on_next_line(message, begin_op_pos, end_op_pos)
        self.default_dialects.append(DEFAULT_DIALECTS.get(op.name, ""))
        try:
            if isinstance(op, UnregisteredOp):
                op_name = op.op_name
                del op.attributes["op_name__"]
                self.print_op_with_default_format(op)
                op.attributes["op_name__"] = op_name
            elif use_custom_format:
                op.print(self)
                if self.print_debuginfo:
                    self.print_string(" ")
                    self.print_attribute(op.location)
            else:
                self.print_op_with_default_format(op)
        finally:
            self.default_dialects.pop()
        if scope:
            self.exit_scope()

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, TypeAttribute):
            known = self._type_texts.get(id(attribute))
            if known is not None and known[0] is attribute:
                self.print_string(known[1])
                return
            stream, column, line = self.stream, self._current_column, self._current_line
            callbacks = list(self._next_line_callback)
            self.stream = io.StringIO()
            try:
                self._print_attribute(attribute)
                text = self.stream.getvalue()
            finally:
                self.stream = stream
                self._current_column, self._current_line = column, line
                self._next_line_callback = callbacks
            if "\n" in text:  # printed where it is (its lines are indented from there)
                self._print_attribute(attribute)
                return
            self._type_texts[id(attribute)] = (attribute, text)
            self.print_string(text)
            return
        self._print_attribute(attribute)

    def _print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, DenseIntOrFPElementsAttr):
            if supported(attribute.get_element_type()):
                _print_dense_without_type(self, attribute)
                self.print_string(" : ")
                self.print_attribute(attribute.get_type())
                return
            # complex and exotic widths: xDSL's text, a splat by its bits as MLIR's
            # isSplat (xDSL compares values: a NaN splat printed as a list)
            attribute = one_element_if_splat(attribute)
        if isinstance(attribute, ArrayAttr):
            # MLIR prints array elements with AttrTypeElision::May: no `: i64` / `: f64`
            with self.in_square_brackets():
                self.print_list(attribute.data, self._print_elided)
            return
        super().print_attribute(attribute)

    def _print_elided(self, attribute: Attribute) -> None:
        if isinstance(attribute, IntegerAttr) and attribute.type == i64:
            self.print_int(attribute.value.data, attribute.type)
        elif isinstance(attribute, FloatAttr) and attribute.type == f64:
            self.print_float(attribute.value.data, attribute.type)
        else:
            self.print_attribute(attribute)

    def print_op_attributes(self, attributes: Mapping[str, Attribute], *,
                            reserved_attr_names: Iterable[str] = (),
                            print_keyword: bool = False) -> bool:
        """A declarative format's `attr-dict`, sorted by name as MLIR's dictionaries are."""
        return super().print_op_attributes(dict(sorted(attributes.items())),
                                           reserved_attr_names=reserved_attr_names,
                                           print_keyword=print_keyword)

    def _print_op_properties(self, properties: dict[str, Attribute]) -> None:
        """The generic form's `<{...}>`, sorted by name as MLIR's property dictionaries are."""
        super()._print_op_properties(dict(sorted(properties.items())))

    def print_float(self, value: float, type: AnyFloat):
        kind = float_kind(type)
        if kind is None:
            return super().print_float(value, type)
        if math.isnan(value):
            # keep the payload the storage would keep
            self.print_string(format_float(value, kind))
            return
        self.print_string(format_float(bits_to_float(float_to_bits(value, kind), kind), kind))


_UNIQUE_DENSE_BYTES = 64
"""A dense attribute that is not a splat and has more stored bytes is taken to be spelled
once (weights): an op holding one prints directly, without making a text to reuse."""


def _unique_text(op: Operation) -> bool:
    """Whether `op` holds a large non-splat dense attribute (whose text will not be
    printed again)."""
    return any(isinstance(a, DenseIntOrFPElementsAttr)
               and len(a.data.data) > _UNIQUE_DENSE_BYTES
               and not repeats_one_element(
                   a.data.data, getattr(a.get_element_type(), "compile_time_size", 0) or 1)
               for a in (*op.properties.values(), *op.attributes.values()))


def print_module(op: Operation, generic: bool = False,
                 elements_hex_limit: int = HEX_PRINT_LIMIT,
                 keep_ssa_names: bool = False, debuginfo: bool = False) -> str:
    """Text of `op` as mlir-opt prints it, with a newline.

    `keep_ssa_names`: values keep the input's names (xDSL's uniquing) instead of MLIR's;
    `debuginfo`: every op's location follows it (`loc(...)`, mlir-opt's
    `--mlir-print-debuginfo`)."""
    out = io.StringIO()
    with paused_gc():
        names = None if keep_ssa_names else SSANames.of(op, generic)
        QcompPrinter(stream=out, print_generic_format=generic, print_debuginfo=debuginfo,
                     elements_hex_limit=elements_hex_limit, names=names).print_op(op)
    out.write("\n")
    return out.getvalue()


def print_located(module: Operation, origins: Mapping[Operation, str]) -> str:
    """`module`'s text with each op of `origins` located at its origin
    (`loc("operator 3 (CONV_2D)")`): an importer's output, whose diagnostics then name
    the model's operator or node, not a line of text the user never saw."""
    from xdsl.dialects.builtin import NameLoc, NoneAttr, StringAttr

    for op, where in origins.items():
        op.location = NameLoc(StringAttr(where), NoneAttr())
    return print_module(module, debuginfo=True)


def type_text(t: Attribute) -> str:
    """A type or attribute as qcomp prints it (MLIR's text), for diagnostics."""
    out = io.StringIO()
    QcompPrinter(stream=out).print_attribute(t)
    return out.getvalue()
