"""Verifying a parsed module, for qcomp-opt and qcomp-run alike.

`verify_module` verifies each op on its own (outer ops before the ops they contain),
so the first error is reported at the op it is about, then the whole module (the
structure of regions and blocks); the message is MLIR's `'<op>' op <message>`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult
from xdsl.traits import NoTerminator
from xdsl.utils.exceptions import DiagnosticException, VerifyException

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
        _verify_structure(module)
    except DiagnosticException as e:
        return Diagnostic("error", str(e).strip(), op_offset(module, positions))
    return _dominance(module, positions)


def _verify_structure(op: Operation) -> None:
    """What `op.verify()` checks beyond each op's own verification (done above, op by
    op): the parent links of ops and blocks and MLIR's empty-block error, in the order
    `op.verify()` checks them. (`module.verify()` itself would verify every op again.)"""
    for region in op.regions:
        for block in region.blocks:
            for inner in block.ops:
                if inner.parent is not block:
                    raise ValueError("Parent pointer of operation does not refer to "
                                     "containing region")
                _verify_structure(inner)
            if block.first_op is None and len(region.blocks) == 1 \
                    and not op.has_trait(NoTerminator):
                raise VerifyException(
                    f"Operation {op.name} contains empty block in single-block region "
                    "that expects at least a terminator")
            if block.parent is not region:
                raise ValueError("Parent pointer of block does not refer to containing region")


def _dominance(module: ModuleOp, positions: dict[Operation, int]) -> Diagnostic | None:
    """MLIR's `operand #N does not dominate this use`: a value used before the op that
    defines it in the same block, inside that op's own regions, or outside the region
    that defines it (blocks of one multi-block region are not compared)."""
    order: dict[Operation, int] = {}
    for op in module.walk():
        for i, v in enumerate(op.operands):
            if not isinstance(v, OpResult):
                continue
            d = v.op
            anc = op
            while anc is not None and anc.parent_region() is not d.parent_region():
                anc = anc.parent_op()
            if anc is not None and anc.parent_block() is not d.parent_block():
                continue  # another block of the same region: a CFG question
            if anc is None or anc is d or _index(order, anc) < _index(order, d):
                return Diagnostic("error", f"operand #{i} does not dominate this use",
                                  op_offset(op, positions))
    return None


def _index(order: dict[Operation, int], op: Operation) -> int:
    """`op`'s position in its block (numbered once per block)."""
    if op not in order:
        block = op.parent_block()
        for k, o in enumerate(block.ops if block is not None else [op]):
            order[o] = k
    return order[op]
