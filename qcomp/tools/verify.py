"""Verifying a parsed module, for qcomp-opt and qcomp-run alike.

`verify_module` verifies each op on its own (outer ops before the ops they contain),
so the first error is reported at the op it is about, then the whole module (the
structure of regions and blocks); the message is MLIR's `'<op>' op <message>`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException

from qcomp.ir.errors import UnprefixedVerifyException
from qcomp.tools.cli import op_offset
from qcomp.tools.diagnostics import Diagnostic


def op_message(op: Operation, error: Exception) -> str:
    """`'<op>' op <message>` unless xDSL's message names the op already."""
    msg = str(error).strip() or type(error).__name__
    if isinstance(error, UnprefixedVerifyException):
        return msg
    if msg.startswith("'") or msg.startswith("Operation "):
        return msg
    return f"'{op.name}' op {msg}"


def verify_module(module: ModuleOp, positions: dict[Operation, int]) -> Diagnostic | None:
    """First verifier error, at its op (outer ops before the ops they contain), or None."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except DiagnosticException as e:
            return Diagnostic("error", op_message(op, e), op_offset(op, positions))
    try:
        module.verify()
    except DiagnosticException as e:
        return Diagnostic("error", str(e).strip(), op_offset(module, positions))
    return None
