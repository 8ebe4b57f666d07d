"""StableHLO loads a module at a time (`qcomp.dialects.stablehlo.index`,
`qcomp.ir.context.QcompContext`): the index read from the sources names every op and
attribute of the whole dialect, with its class's module; a context loads the modules of
the names a program uses, and the whole dialect after them without clashing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.utils.exceptions import ParseError

from qcomp.dialects.stablehlo import StableHLO
from qcomp.dialects.stablehlo.index import INDEX, definitions
from qcomp.ir import print_module
from qcomp.registry import make_context, parse_module

ROOT = Path(__file__).resolve().parents[2]
ADD = ("func.func @f(%a: tensor<2xi32>) -> tensor<2xi32> {\n"
       "  %0 = stablehlo.add %a, %a : tensor<2xi32>\n"
       "  return %0 : tensor<2xi32>\n}\n")


def test_the_index_names_every_op_and_attribute_with_its_module():
    whole = [*StableHLO.operations, *StableHLO.attributes]
    names = INDEX.names()
    assert set(names) == {cls.name for cls in whole}
    for cls in whole:
        assert cls.__module__.rsplit(".", 1)[1] in names[cls.name], cls
        assert cls in definitions(cls.name)
        assert INDEX.module_of_class(cls.__name__) == cls.__module__.rsplit(".", 1)[1]
    loaded = {cls for name in names for cls in definitions(name)}
    assert loaded == set(whole)
    assert definitions("stablehlo.no_such_op") == []


def test_a_context_loads_the_used_modules_then_the_whole_dialect():
    ctx = make_context()
    module = parse_module(ADD, ctx)
    assert "stablehlo" not in {d.name for d in ctx.loaded_dialects}
    assert ctx.get_optional_op("stablehlo.add").__module__ == "qcomp.dialects.stablehlo.binary"
    copy = ctx.clone()
    copy.load_registered_dialect("stablehlo")
    assert {op.name for op in StableHLO.operations} <= set(copy._loaded_ops)
    assert copy.get_optional_op("stablehlo.add") is ctx.get_optional_op("stablehlo.add")
    assert print_module(parse_module(print_module(module), copy)) == print_module(module)


def test_an_unknown_op_is_the_same_diagnostic():
    with pytest.raises(ParseError) as e:
        parse_module(ADD.replace("stablehlo.add", "stablehlo.no_such_op"), make_context())
    assert str(e.value) == (
        "<stdin>:2:29\n  %0 = stablehlo.no_such_op %a, %a : tensor<2xi32>\n"
        "                            ^^\n"
        "                            Operation stablehlo.no_such_op is not registered\n")


def test_a_program_imports_only_its_ops_modules():
    code = ("import json, sys\nfrom qcomp.registry import make_context, parse_module\n"
            f"parse_module({ADD!r}, make_context()).verify()\n"
            "import qcomp.dialects.stablehlo as sh\n"
            "print(json.dumps([sorted(sys.modules), 'StableHLO' in vars(sh)]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout
    modules, whole = json.loads(out)
    loaded = {m.rsplit(".", 1)[1] for m in modules if m.startswith("qcomp.dialects.stablehlo.")}
    assert not whole
    assert {"binary", "elementwise"} <= loaded
    assert not loaded & {"ops", "reduce", "control", "scatter", "sort", "dynamic", "complex",
                         "linalg", "collectives"}
