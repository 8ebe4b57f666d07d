"""MLIR text the MLIR way: the parser (`parser.py`), the printer (`printer.py`), dense
literal text (`dense_text.py`), float text (`float_text.py`) and contexts
(`context.py`). Nothing here knows a dialect; `qcomp.registry` supplies qcomp's."""

from qcomp.ir.context import new_context
from qcomp.ir.dense_text import HEX_PRINT_LIMIT, LiteralError
from qcomp.ir.parser import QcompParser, parse_module
from qcomp.ir.printer import QcompPrinter, print_located, print_module

__all__ = ["HEX_PRINT_LIMIT", "LiteralError", "QcompParser", "QcompPrinter", "new_context",
           "parse_module", "print_located", "print_module"]
