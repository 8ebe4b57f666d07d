"""Has a module changed since? `Snapshot(module).unchanged()` answers without walking it.

A snapshot keeps a flat list of the module's ops, regions and blocks, and for each the
fields an edit changes; `unchanged` reads them again and compares, nodes and tuples by identity, property and attribute dicts by
content with the copies taken (values by identity first: xDSL attributes are
immutable, so setting one replaces the object, and an equal replacement changes
nothing). Every edit an xDSL user can make changes one of those fields:

- an op inserted, erased, moved: the `_next_op` of the op before it, or its block's
  `_first_op` (at the front of a block, or when a block is emptied);
- a block inserted, erased, moved: the `_next_block` of the block before it, or its
  region's `_first_block`; a region replaced: the op's `regions` tuple;
- operands, results, successors replaced (`op.operands = ...`, `op.operands[i] = v`,
  `replace_all_uses_with`): xDSL gives the op new `_operands` / `results` /
  `_successors` tuples;
- block arguments inserted or erased: the block's `_args` tuple; value types are
  read-only in xDSL (a new type is a new value, so new operand tuples);
- a property or attribute set, deleted or its dict replaced: the dict's content.

The nodes reachable from the module are those reached from its `regions` through
these fields, so when every recorded field is as it was, the module is: nothing in
it was inserted, erased, moved or replaced.

An op's fields are read straight from its instance dict (`vars(op)`, captured when the
snapshot is taken, with one C-level `itemgetter`), not through attribute look-up (the
type's MRO searched first: a third of the check): sound while each op still has that
dict object (checked, by identity: `op.__dict__ = ...` is an edit) and the dict still
has every field (a field deleted is a change). Ops whose dict lacked a field when the
snapshot was taken (the top `ModuleOp` reads its class's `_next_op`) are read with
`attrgetter`, as blocks and regions are. A check builds one tuple and does one compare
per node, no generator walk (docs/benchmarks.md, session 12).
"""

from __future__ import annotations

from operator import attrgetter, eq, is_, itemgetter

from xdsl.ir import Block, Operation, Region

_FIELDS = ("_next_op", "_operands", "results", "_successors", "regions", "properties",
           "attributes")
_OP = attrgetter(*_FIELDS)
_OP_ITEMS = itemgetter(*_FIELDS)
_BLOCK = attrgetter("_first_op", "_next_block", "_args")
_REGION = attrgetter("_first_block")


def _state(fields: tuple) -> tuple:
    """An op's fields as recorded: its property and attribute dicts copied."""
    n, o, r, s, g, p, a = fields
    return n, o, r, s, g, dict(p), dict(a)


class Snapshot:
    """The state of `module` now; `unchanged()` is true while it still is (module
    docstring). Holds the module's nodes (they stay alive with it)."""

    __slots__ = ("_block_state", "_dicts", "_op_state", "_other_state", "_region_state",
                 "blocks", "module", "ops", "other_ops", "regions")

    def __init__(self, module: Operation) -> None:
        self.module = module
        ops: list[Operation] = list(module.walk())
        self.ops = [op for op in ops if all(f in vars(op) for f in _FIELDS)]
        self.other_ops = [op for op in ops if not all(f in vars(op) for f in _FIELDS)]
        self.regions: list[Region] = [r for op in ops for r in op.regions]
        self.blocks: list[Block] = [b for r in self.regions for b in r.blocks]
        self._dicts = list(map(vars, self.ops))
        self._op_state = list(map(_state, map(_OP_ITEMS, self._dicts)))
        self._other_state = list(map(_state, map(_OP, self.other_ops)))
        self._block_state = list(map(_BLOCK, self.blocks))
        self._region_state = list(map(_REGION, self.regions))

    def unchanged(self) -> bool:
        """Whether the module is as it was when the snapshot was taken."""
        try:
            return (list(map(_REGION, self.regions)) == self._region_state
                    and all(map(eq, map(_BLOCK, self.blocks), self._block_state))
                    and all(map(eq, map(_OP, self.other_ops), self._other_state))
                    and all(map(is_, map(vars, self.ops), self._dicts))
                    and all(map(eq, map(_OP_ITEMS, self._dicts), self._op_state)))
        except KeyError:  # a field deleted from an op's dict
            return False


__all__ = ["Snapshot"]
