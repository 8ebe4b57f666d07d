"""Has a module changed since? `Snapshot(module).unchanged()` answers without walking it.

A snapshot keeps a flat list of the module's ops, regions and blocks (its nodes), and
for each a copy of the node's instance dict (`vars(node)`: every field xDSL keeps on
it), the op's property and attribute dicts copied too; `unchanged` compares each
node's dict now with its copy, one C-level dict compare a node: the same keys, each
value the same object (identity first), or equal (so the live property and attribute
dicts are compared by content with their copies; xDSL attributes are immutable, so
setting one replaces the object, and an equal replacement changes nothing). Every
edit an xDSL user can make changes one of those fields:

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

A field first set on a node (one whose class default was read before: the top op's
`_next_op`) adds a key, which is a change too. The nodes reachable from the module
are those reached from its `regions` through these fields, so when every node's dict
is as it was, the module is: nothing in it was inserted, erased, moved or replaced.
The other fields (`parent`, `_prev_op`, `location`, the use tuples) are compared as
well: an edit of them alone counts as a change (never missed, at worst prepared again).
A check builds nothing (no tuple, no list: no GC) and costs one dict compare a node,
about 1.1K instructions an op on a lowered MobileNetV2 (docs/benchmarks.md).
"""

from __future__ import annotations

from operator import eq

from xdsl.ir import Block, Operation, Region


def _state(node: Operation | Block | Region) -> dict:
    """`vars(node)` copied; an op's property and attribute dicts copied in it."""
    state = dict(vars(node))
    if isinstance(node, Operation):
        state["properties"] = dict(node.properties)
        state["attributes"] = dict(node.attributes)
    return state


class Snapshot:
    """The state of `module` now; `unchanged()` is true while it still is (module
    docstring). Holds the module's nodes (they stay alive with it)."""

    __slots__ = ("_states", "module", "nodes")

    def __init__(self, module: Operation) -> None:
        self.module = module
        ops: list[Operation] = list(module.walk())
        regions: list[Region] = [r for op in ops for r in op.regions]
        blocks: list[Block] = [b for r in regions for b in r.blocks]
        self.nodes: list[Operation | Block | Region] = [*regions, *blocks, *ops]
        self._states = list(map(_state, self.nodes))

    def unchanged(self) -> bool:
        """Whether the module is as it was when the snapshot was taken."""
        return all(map(eq, map(vars, self.nodes), self._states))


__all__ = ["Snapshot"]
