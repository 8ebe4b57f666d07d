"""Facts of an op that its interpreter function derives from the op alone (its types,
attributes), computed once per preparation (`runner.Preparation.memos`) instead of on
every run: a preparation lives only while its module is unchanged
(`qcomp.backends.compiled`), so the facts cannot go stale."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from xdsl.ir import Operation

T = TypeVar("T")


def static(interpreter: Any, op: Operation, compute: Callable[[Operation], T]) -> T:
    """`compute(op)`, remembered in the interpreter's preparation (computed afresh by
    an interpreter without one)."""
    memos = getattr(interpreter, "memos", None)
    if memos is None:
        return compute(op)
    facts = memos.get(compute)
    if facts is None:
        facts = memos[compute] = {}
    try:
        return facts[op]
    except KeyError:
        value = facts[op] = compute(op)
        return value
