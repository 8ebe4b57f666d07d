"""The printer every qcomp tool uses: xDSL's, with MLIR's float text and `dense<>` layout
(`qcomp.ir.dense_text`: MLIR's hex form for large constants)."""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from xdsl.dialects.builtin import AnyFloat, DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Operation
from xdsl.printer import Printer

from qcomp.ir.dense_text import HEX_PRINT_LIMIT, dense_body_text, float_kind, supported
from qcomp.ir.float_text import bits_to_float, float_to_bits, format_float


def _print_dense_without_type(printer: Printer, attr: DenseIntOrFPElementsAttr) -> None:
    limit = getattr(printer, "elements_hex_limit", HEX_PRINT_LIMIT)
    printer.print_string("dense<" + dense_body_text(attr, limit) + ">")


@dataclass(eq=False, repr=False)
class QcompPrinter(Printer):
    """xDSL's printer with MLIR's float text and dense-attribute layout.

    `elements_hex_limit`: MLIR's `-mlir-print-elementsattrs-with-hex-if-larger`
    (non-splat constants with more elements print as hex; -1 never)."""

    elements_hex_limit: int = HEX_PRINT_LIMIT

    def print_attribute(self, attribute: Attribute) -> None:
        if (isinstance(attribute, DenseIntOrFPElementsAttr)
                and supported(attribute.get_element_type())):
            _print_dense_without_type(self, attribute)
            self.print_string(" : ")
            self.print_attribute(attribute.get_type())
            return
        super().print_attribute(attribute)

    def print_op_attributes(self, attributes: Mapping[str, Attribute], *,
                            reserved_attr_names: Iterable[str] = (),
                            print_keyword: bool = False) -> bool:
        """A declarative format's `attr-dict`, sorted by name as MLIR's dictionaries are."""
        return super().print_op_attributes(dict(sorted(attributes.items())),
                                           reserved_attr_names=reserved_attr_names,
                                           print_keyword=print_keyword)

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
                 elements_hex_limit: int = HEX_PRINT_LIMIT) -> str:
    """Text of `op` as qcomp prints it (MLIR float and dense layout), with a newline."""
    out = io.StringIO()
    QcompPrinter(stream=out, print_generic_format=generic,
                 elements_hex_limit=elements_hex_limit).print_op(op)
    out.write("\n")
    return out.getvalue()
