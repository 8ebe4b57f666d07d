"""SSA value names as mlir-opt prints them (MLIR's `SSANameState`, AsmPrinter.cpp).

- Entry-block arguments of every region are `%argN`; other block arguments and
  unnamed results are `%N`. Both counters, and the suffix counter of named values,
  carry from a region into the regions nested in it, which are numbered after the
  whole enclosing region (breadth first); sibling regions start from the same counts.
- An op may name its results (`asm_result_names()` on the op class, MLIR's
  `OpAsmOpInterface::getAsmResultNames`: `stablehlo.constant` is `%cst` or `%c`); a
  name already used in the region or an enclosing one gets `_K`, with one counter K
  per naming context (`%cst`, `%cst_0`, `%c_1`).
- An op may name the entry-block arguments of its regions (`asm_block_arg_names(region)`,
  MLIR's `getAsmBlockArgumentNames`: `stablehlo.while`'s `%iterArg`), uniqued like
  result names in the region's context.
- The results of an op with several unnamed results are one group: `%0:2 = ...`,
  used as `%0#0`, `%0#1`.
- The generic form (`--mlir-print-op-generic`) ignores the ops' names (all numbered)
  and numbers uniquely through the whole op: the counters run on from region to region
  in worklist order (the last-pushed region first) instead of starting again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Block, Operation, Region, SSAValue

_IDENT_PUNCTUATION = "$._-"


def _arith_constant_names(op: Operation) -> Sequence[str | None]:
    """MLIR's `arith.constant` names: `%true`/`%false`, `%c5_i32`, `%c0` (index), `%cst`."""
    value = op.properties.get("value") or op.attributes.get("value")
    if isinstance(value, IntegerAttr):
        t = op.results[0].type
        if isinstance(t, IntegerType) and t.width.data == 1:
            return ["true" if value.value.data else "false"]
        suffix = "" if isinstance(t, IndexType) else f"_{t}"
        return [f"c{value.value.data}{suffix}"]
    return ["cst"]


FOREIGN_RESULT_NAMES: dict[str, Callable[[Operation], Sequence[str | None]]] = {
    "arith.constant": _arith_constant_names,
}
"""Result names of ops whose classes are xDSL's, not qcomp's."""


def sanitize_identifier(name: str) -> str:
    """MLIR's `sanitizeIdentifier`: other characters become `_`, a leading digit gets `_`."""
    text = "".join(c if c.isalnum() or c in _IDENT_PUNCTUATION else "_" for c in name)
    return "_" + text if text[:1].isdigit() else text


def result_names(op: Operation) -> Sequence[str | None]:
    """The names `op` gives its results (None: numbered)."""
    own = getattr(op, "asm_result_names", None)
    if own is not None:
        return own()
    foreign = FOREIGN_RESULT_NAMES.get(op.name)
    return foreign(op) if foreign is not None else ()


@dataclass
class SSANames:
    """The names of every value and block under one op, computed once, MLIR's way."""

    values: dict[SSAValue, str] = field(default_factory=dict)
    """Each value's name as used (`arg0`, `3`, `cst_1`, `0#1`)."""
    groups: dict[Operation, tuple[str, int]] = field(default_factory=dict)
    """Ops printing `%N:K = `: their number and result count."""

    @staticmethod
    def of(top: Operation, generic: bool = False) -> SSANames:
        names = SSANames()
        names._number(top, generic)
        return names

    def _number(self, top: Operation, generic: bool) -> None:
        # one naming context per region: counters and the names used in enclosing regions
        stack: list[tuple[Region, int, int, int, frozenset[str]]] = [
            (r, 0, 0, 0, frozenset()) for r in top.regions]
        self._number_op(top, generic, _Context(0, 0, 0, set()))
        unique = _Context(0, 0, 0, set())
        while stack:
            region, value_id, arg_id, conflict_id, used = stack.pop()
            # the generic form numbers uniquely across the whole op (MLIR's
            # shouldPrintUniqueSSAIDs): counters run on in worklist order
            ctx = unique if generic else _Context(value_id, arg_id, conflict_id, set(used))
            for block in region.blocks:
                self._number_block(block, ctx, generic)
            snapshot = frozenset(ctx.used)
            for block in region.blocks:
                for op in block.ops:
                    for nested in op.regions:
                        stack.append((nested, ctx.value_id, ctx.arg_id, ctx.conflict_id,
                                      snapshot))

    def _number_block(self, block: Block, ctx: _Context, generic: bool) -> None:
        entry = block.parent is not None and block.parent.blocks.first is block
        owner = block.parent.parent if entry else None
        named = getattr(owner, "asm_block_arg_names", None)
        if named is not None and not generic:  # MLIR's getAsmBlockArgumentNames
            for arg, name in zip(block.args, named(block.parent)):
                self.values[arg] = ctx.unique(sanitize_identifier(name))
            for op in block.ops:
                self._number_op(op, generic, ctx)
            return
        for arg in block.args:
            if entry:
                self.values[arg] = ctx.unique(f"arg{ctx.arg_id}")
                ctx.arg_id += 1
            else:
                self.values[arg] = ctx.next_number()
        for op in block.ops:
            self._number_op(op, generic, ctx)

    def _number_op(self, op: Operation, generic: bool, ctx: _Context) -> None:
        results = op.results
        if not results:
            return
        names = () if generic else result_names(op)
        if any(names):
            for result, name in zip(results, names):
                self.values[result] = (ctx.unique(sanitize_identifier(name)) if name
                                       else ctx.next_number())
            for result in results[len(names):]:
                self.values[result] = ctx.next_number()
            return
        number = ctx.next_number()
        if len(results) == 1:
            self.values[results[0]] = number
            return
        self.groups[op] = (number, len(results))
        for i, result in enumerate(results):
            self.values[result] = f"{number}#{i}"


@dataclass
class _Context:
    value_id: int
    arg_id: int
    conflict_id: int
    used: set[str]

    def next_number(self) -> str:
        self.value_id += 1
        return str(self.value_id - 1)

    def unique(self, name: str) -> str:
        if name in self.used:
            while f"{name}_{self.conflict_id}" in self.used:
                self.conflict_id += 1
            name = f"{name}_{self.conflict_id}"
            self.conflict_id += 1
        self.used.add(name)
        return name
