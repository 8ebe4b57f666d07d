"""Facts of the StableHLO ops qcomp does not define yet. Such ops reach the passes only
as unregistered operations (`--allow-unregistered-dialect`, generic form); this table
is the one place their names are written.

`quantization_of(op)` is the op's declared `Quantization`, or this table's entry for
an unregistered op.
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Operation

from qcomp.dialects.facts import Quantization

UNDEFINED_OPS: dict[str, Quantization] = {}
"""name -> facts, for the ops upstream's quantization passes name that qcomp lacks."""


def op_name(op: Operation) -> str:
    """The op's full name, also for an op of an unregistered dialect."""
    if isinstance(op, UnregisteredOp):
        return op.op_name.data
    return op.name


def quantization_of(op: Operation) -> Quantization | None:
    """`op`'s quantization facts: declared on its class, or `UNDEFINED_OPS`'s entry."""
    if isinstance(op, UnregisteredOp):
        return UNDEFINED_OPS.get(op.op_name.data)
    return op.get_trait(Quantization)
