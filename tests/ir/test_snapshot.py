"""`qcomp.ir.snapshot.Snapshot`: every kind of edit an xDSL user can make to a module —
in a function body or in a nested region (a reducer) — makes `unchanged()` false; a
module left alone, or one where an attribute is replaced by an equal one, stays
unchanged."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import StringAttr, UnitAttr

from qcomp.ir.snapshot import Snapshot
from qcomp.registry import parse_module
from tests.ir.module_edits import EDITS, SOURCE, ops


@pytest.mark.parametrize("edit", EDITS)
def test_every_edit_is_seen(edit):
    module = parse_module(SOURCE)
    snapshot = Snapshot(module)
    assert snapshot.unchanged()
    EDITS[edit](module)
    assert not snapshot.unchanged()


def test_an_unchanged_module_stays_unchanged():
    module = parse_module(SOURCE)
    snapshot = Snapshot(module)
    for op in module.walk():  # reading (and re-setting the same values) changes nothing
        _ = (op.operands, op.results, op.regions, op.properties, op.attributes)
        for k, v in list(op.properties.items()):
            op.properties[k] = v
    assert snapshot.unchanged()
    assert Snapshot(module).unchanged()


def test_an_equal_property_replacement_is_no_change():
    module = parse_module(SOURCE)
    snapshot = Snapshot(module)
    ops(module)["@other"].properties["sym_name"] = StringAttr("other")
    assert snapshot.unchanged()


def test_the_top_ops_fields_are_read_too():
    """The top module's dict lacks `_next_op` (its class default is read): setting it,
    or its attributes, is a change."""
    module = parse_module(SOURCE)
    assert "_next_op" not in vars(module)
    snapshot = Snapshot(module)
    module.attributes["sym_name"] = StringAttr("m")
    assert not snapshot.unchanged()
    snapshot = Snapshot(module)
    module._next_op = ops(module)["@other"]
    assert not snapshot.unchanged()


def test_an_op_keeping_a_field_outside_its_dict_is_never_unchanged():
    """The check reads the fields from the ops' instance dicts: an op whose class keeps
    one elsewhere (here a property) would hide its edits, so such a module is always
    taken as changed (prepared again), never as unchanged."""
    module = parse_module(SOURCE)
    op = ops(module)["stablehlo.add"]
    store = {"tag": UnitAttr()}
    op.__class__ = type("KeepsAttributes", (type(op),), {
        "attributes": property(lambda self: store, lambda self, value: None)})
    assert not Snapshot(module).unchanged()
    assert Snapshot(parse_module(SOURCE)).unchanged()
