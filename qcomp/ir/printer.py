"""The printer every qcomp tool uses: xDSL's, with mlir-opt's text.

What differs from xDSL 0.74: MLIR's float text and `dense<>` layout
(`qcomp.ir.dense_text`: MLIR's hex form for large constants), attribute dictionaries in
name order, MLIR's SSA names (`qcomp.ir.ssa_names`: `%arg0`, `%0`, `%cst`, `%0:2`), and
op names without the dialect an enclosing op makes the default (`module`, `return`,
`call` inside `func.func`), as MLIR's `OpAsmOpInterface::getDefaultDialect` does."""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from xdsl.dialects.builtin import AnyFloat, ArrayAttr, DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr, UnregisteredOp, f64, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove

from qcomp.ir.dense_text import HEX_PRINT_LIMIT, dense_body_text, float_kind, supported
from qcomp.ir.float_text import bits_to_float, float_to_bits, format_float
from qcomp.ir.splat import one_element_if_splat
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

    def print_ssa_value(self, value: SSAValue) -> str:
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

    def print_op(self, op: Operation) -> None:
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


def print_module(op: Operation, generic: bool = False,
                 elements_hex_limit: int = HEX_PRINT_LIMIT,
                 keep_ssa_names: bool = False, debuginfo: bool = False) -> str:
    """Text of `op` as mlir-opt prints it, with a newline.

    `keep_ssa_names`: values keep the input's names (xDSL's uniquing) instead of MLIR's;
    `debuginfo`: every op's location follows it (`loc(...)`, mlir-opt's
    `--mlir-print-debuginfo`)."""
    out = io.StringIO()
    names = None if keep_ssa_names else SSANames.of(op, generic)
    QcompPrinter(stream=out, print_generic_format=generic, print_debuginfo=debuginfo,
                 elements_hex_limit=elements_hex_limit, names=names).print_op(op)
    out.write("\n")
    return out.getvalue()


def type_text(t: Attribute) -> str:
    """A type or attribute as qcomp prints it (MLIR's text), for diagnostics."""
    out = io.StringIO()
    QcompPrinter(stream=out).print_attribute(t)
    return out.getvalue()
