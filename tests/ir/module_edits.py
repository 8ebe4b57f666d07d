"""Edits of every kind an xDSL user can make to a module (`EDITS`, applied to a module
parsed from `SOURCE`), in a function body and in a nested region (a reducer): the
tests of `qcomp.ir.snapshot` and of `qcomp.backends.run`'s cache apply each."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, UnitAttr, i32
from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import Rewriter

SOURCE = """
func.func @main(%x: tensor<4x8xf32>, %z: tensor<f32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<1.000000e+00> : tensor<f32>
  %s = stablehlo.add %z, %c : tensor<f32>
  %sub = stablehlo.reduce(%x init: %s) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %d = stablehlo.subtract %a, %b : tensor<f32>
    %e = stablehlo.multiply %d, %d : tensor<f32>
    stablehlo.return %e : tensor<f32>
  }
  return %sub : tensor<4xf32>
}
func.func private @other(%y: tensor<f32>) -> tensor<f32> {
  return %y : tensor<f32>
}"""


def ops(module: ModuleOp) -> dict[str, Operation]:
    """The ops by name (the first of each), plus `@main` and `@other`."""
    out: dict[str, Operation] = {}
    for op in module.walk():
        if op.name == "func.func":
            out["@" + op.sym_name.data] = op
        out.setdefault(op.name, op)
    return out


def inner(module: ModuleOp) -> Block:
    """The reducer's block."""
    return ops(module)["stablehlo.reduce"].regions[0].blocks[0]


def add_op(m: ModuleOp) -> Operation:
    return ops(m)["stablehlo.add"]


EDITS: dict[str, Callable[[ModuleOp], None]] = {
    # operands
    "operand set by index": lambda m: add_op(m).operands.__setitem__(
        1, add_op(m).operands[0]),
    "operands replaced": lambda m: setattr(add_op(m), "operands",
                                           [add_op(m).operands[1], add_op(m).operands[0]]),
    "uses replaced": lambda m: add_op(m).results[0].replace_all_uses_with(
        ops(m)["stablehlo.constant"].results[0]),
    "nested operand": lambda m: inner(m).ops.first.operands.__setitem__(
        1, inner(m).args[0]),
    # ops inserted, erased, moved
    "op inserted at the front": lambda m: ops(m)["@main"].body.block.insert_op_before(
        ops(m)["stablehlo.constant"].clone(), ops(m)["stablehlo.constant"]),
    "op inserted in the middle": lambda m: ops(m)["@main"].body.block.insert_op_after(
        ops(m)["stablehlo.constant"].clone(), ops(m)["stablehlo.constant"]),
    "op appended": lambda m: ops(m)["@main"].body.block.add_op(
        ops(m)["stablehlo.constant"].clone()),
    "op inserted in a nested block": lambda m: inner(m).insert_op_before(
        ops(m)["stablehlo.constant"].clone(), inner(m).ops.first),
    "first op erased": lambda m: m.body.block.first_op.body.block.erase_op(
        _unused_first(m)),
    "op erased": lambda m: (add_op(m).results[0].replace_all_uses_with(
        ops(m)["@main"].body.block.args[1]), Rewriter.erase_op(add_op(m))),
    "nested op erased": lambda m: (
        inner(m).ops.first.next_op.operands.__setitem__(0, inner(m).args[0]),
        inner(m).ops.first.next_op.operands.__setitem__(1, inner(m).args[0]),
        inner(m).erase_op(inner(m).ops.first)),
    "op moved": lambda m: _move(ops(m)["stablehlo.add"], ops(m)["stablehlo.constant"]),
    "op moved to another block": lambda m: _move(ops(m)["stablehlo.constant"], inner(m).last_op),
    "function erased": lambda m: m.body.block.erase_op(ops(m)["@other"]),
    "function moved to the front": lambda m: _move(ops(m)["@other"], ops(m)["@main"]),
    "rewriter replace_op": lambda m: Rewriter.replace_op(
        ops(m)["stablehlo.constant"], ops(m)["stablehlo.constant"].clone()),
    "pattern rewriter": lambda m: PatternRewriter(add_op(m)).replace(
        add_op(m), add_op(m).clone()),
    # properties and attributes
    "property set": lambda m: ops(m)["@other"].properties.__setitem__(
        "sym_name", StringAttr("renamed")),
    "property deleted": lambda m: ops(m)["@other"].properties.pop("sym_visibility"),
    "property dict replaced": lambda m: setattr(
        ops(m)["@other"], "properties",
        {**ops(m)["@other"].properties, "sym_name": StringAttr("renamed")}),
    "attribute added": lambda m: add_op(m).attributes.__setitem__("tag", UnitAttr()),
    "nested attribute added": lambda m: inner(m).ops.first.attributes.__setitem__(
        "n", IntegerAttr(1, i32)),
    "attribute dict replaced": lambda m: setattr(add_op(m), "attributes", {"t": UnitAttr()}),
    # block arguments, blocks, regions
    "block argument inserted": lambda m: ops(m)["@other"].body.block.insert_arg(i32, 1),
    "block argument erased": lambda m: _erase_arg(ops(m)["@other"].body.block),
    "nested block argument inserted": lambda m: inner(m).insert_arg(i32, 2),
    "block added": lambda m: ops(m)["@other"].body.add_block(Block()),
    "block inserted at the front": lambda m: ops(m)["@other"].body.insert_block(Block(), 0),
    "regions replaced": lambda m: setattr(ops(m)["@other"], "regions", (Region(),)),
    "results replaced": lambda m: setattr(add_op(m), "results", add_op(m).results[:0]),
}


def _unused_first(m: ModuleOp) -> Operation:
    first = ops(m)["@main"].body.block.first_op
    first.results[0].replace_all_uses_with(ops(m)["@main"].body.block.args[1])
    return first


def _move(op: Operation, before: Operation) -> None:
    op.detach()
    before.parent.insert_op_before(op, before)


def _erase_arg(block: Block) -> None:
    block.last_op.operands = []
    block.erase_arg(block.args[0])
