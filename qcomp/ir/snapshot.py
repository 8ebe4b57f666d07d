"""Has a module changed since? `Snapshot(module).unchanged()` answers without walking it.

A snapshot keeps a flat list of the module's ops, regions and blocks, and for each the
fields an edit changes; `unchanged` reads them again and compares, nodes and tuples by
identity, property and attribute dicts by content with the copies taken (values by
identity first: xDSL attributes are immutable, so setting one replaces the object, and
an equal replacement changes nothing). Every edit an xDSL user can make changes one of
those fields:

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

An op's fields are plain instance attributes (xDSL's `Operation` is a dataclass
without slots), so they are the values of its instance dict, and one
`gc.get_referents(*dicts)` (C, no Python per op) lists the values of every op's dict
in order: a field set to another object, or set on an op that read a class default
before (the top module's `_next_op`), changes that list. With the non-empty property
and attribute dicts compared to their copies (one list compare) and the empty ones
still empty (`any`: most are; 5,302 of MobileNetV2's 7,720), a check costs about
0.25 us an op on a lowered MobileNetV2 (3,860 ops: 1.2 ms; reading the seven fields
with `attrgetter`s and comparing tuples took 2.4 ms). An op of a class that keeps one
of the fields elsewhere (a slot, a property) is never taken as unchanged.
"""

from __future__ import annotations

import gc
from operator import attrgetter

from xdsl.ir import Block, Operation, Region

_FIELDS = ("_next_op", "_operands", "results", "_successors", "regions", "properties",
           "attributes")
_BLOCK = attrgetter("_first_op", "_next_block", "_args")
_REGION = attrgetter("_first_block")
_PLAIN: dict[type, bool] = {}
"""Op classes whose `_FIELDS` live in the instance dict (no descriptor on the class)."""


def _plain(cls: type) -> bool:
    plain = _PLAIN.get(cls)
    if plain is None:
        plain = _PLAIN[cls] = cls.__dictoffset__ != 0 and not any(
            hasattr(type(getattr(cls, f, None)), "__set__") for f in _FIELDS)
    return plain


class Snapshot:
    """The state of `module` now; `unchanged()` is true while it still is (module
    docstring). Holds the module's nodes (they stay alive with it)."""

    __slots__ = ("_block_state", "_empty_tables", "_fields", "_op_dicts", "_region_state",
                 "_table_copies", "_tables", "blocks", "module", "ops", "regions")

    def __init__(self, module: Operation) -> None:
        self.module = module
        self.ops: list[Operation] = list(module.walk())
        self.regions: list[Region] = [r for op in self.ops for r in op.regions]
        self.blocks: list[Block] = [b for r in self.regions for b in r.blocks]
        self._block_state = list(map(_BLOCK, self.blocks))
        self._region_state = list(map(_REGION, self.regions))
        tables = [t for op in self.ops for t in (op.properties, op.attributes)]
        self._tables = [t for t in tables if t]
        self._table_copies = list(map(dict, self._tables))
        self._empty_tables = [t for t in tables if not t]
        self._op_dicts = list(map(vars, self.ops)) if all(
            _plain(c) for c in {type(op) for op in self.ops}) else None
        self._fields = None if self._op_dicts is None else gc.get_referents(*self._op_dicts)

    def unchanged(self) -> bool:
        """Whether the module is as it was when the snapshot was taken."""
        return (self._op_dicts is not None
                and gc.get_referents(*self._op_dicts) == self._fields
                and self._tables == self._table_copies
                and not any(self._empty_tables)
                and list(map(_BLOCK, self.blocks)) == self._block_state
                and list(map(_REGION, self.regions)) == self._region_state)


__all__ = ["Snapshot"]
