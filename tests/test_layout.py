"""The package layout docs/design.md promises: each pass in a module named after it, no
module past ~600 lines, and no op that qcomp defines named by a string outside the
module that defines it (the rest of the code uses the class and its declared facts)."""

from __future__ import annotations

import ast
from pathlib import Path

from qcomp.registry import DIALECTS, PASSES

QCOMP = Path(__file__).resolve().parent.parent / "qcomp"
MAX_LINES = 600


def test_each_pass_module_is_named_after_its_pass():
    for name, factory in PASSES.items():
        cls = factory()
        assert cls.__module__ == "qcomp.passes." + name.replace("-", "_"), (name, cls.__module__)


def test_no_module_past_the_line_limit():
    long = {str(p.relative_to(QCOMP)): n for p in QCOMP.rglob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long


def _string_constants(tree: ast.AST):
    """String constants that are not docstrings nor a class's `name = "..."` (an
    attribute may share an op's name: `#stablehlo.dot`), with their line numbers."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and [getattr(t, "id", None)
                                                     for t in stmt.targets] == ["name"]:
                    docstrings.add(id(stmt.value))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            yield node.value, node.lineno


def test_defined_ops_are_not_named_by_strings_elsewhere():
    home = {}
    for factory in DIALECTS.values():
        for op in factory().operations:
            if op.__module__.startswith("qcomp."):  # not xDSL's func ops
                home[op.name] = op.__module__.replace(".", "/") + ".py"
    found = []
    for path in QCOMP.rglob("*.py"):
        rel = "qcomp/" + str(path.relative_to(QCOMP))
        for text, line in _string_constants(ast.parse(path.read_text())):
            if text in home and home[text] != rel:
                found.append(f"{rel}:{line}: {text!r} (defined in {home[text]})")
    assert not found, "\n".join(found)


def test_the_checker_finds_a_name():
    tree = ast.parse('"""doc: stablehlo.add"""\nx = "stablehlo.add"\n'
                     'class A:\n    name = "stablehlo.dot"\n    y = "stablehlo.dot"\n')
    assert list(_string_constants(tree)) == [("stablehlo.add", 2), ("stablehlo.dot", 5)]
