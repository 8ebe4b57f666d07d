"""The package layout docs/design.md promises: each pass in a module named after it, no
module past ~600 lines, and no op that qcomp defines named by a string outside the
module that defines it (the rest of the code uses the class and its declared facts):
not its full name, in a string or inside an f-string or message, not its short name in
a table of names (`{"log", "divide"}`), and no name built from its dialect
(`f"stablehlo.{kind}"`), except the declared `EXCEPTIONS`."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from qcomp.registry import DIALECTS, PASSES
from tests import source_tree

QCOMP = Path(__file__).resolve().parent.parent / "qcomp"
MAX_LINES = 600


def test_each_pass_module_is_named_after_its_pass():
    for name, factory in PASSES.items():
        cls = factory()
        assert cls.__module__ == "qcomp.passes." + name.replace("-", "_"), (name, cls.__module__)


def test_no_module_past_the_line_limit():
    long = {str(p.relative_to(QCOMP)): n for p in QCOMP.rglob("*.py")
            if (n := len(source_tree.read(p).splitlines())) > MAX_LINES}
    assert not long


def _string_constants(tree: ast.AST):
    """String constants that are not docstrings nor a class's `name = "..."` (an
    attribute may share an op's name: `#stablehlo.dot`), with their line numbers."""
    docstrings = set()
    for node in source_tree.walk(tree):
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and [getattr(t, "id", None)
                                                     for t in stmt.targets] == ["name"]:
                    docstrings.add(id(stmt.value))
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    for node in source_tree.walk(tree):
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
        for text, line in _string_constants(source_tree.parse(path)):
            if text in home and home[text] != rel:
                found.append(f"{rel}:{line}: {text!r} (defined in {home[text]})")
    assert not found, "\n".join(found)


def test_the_checker_finds_a_name():
    tree = ast.parse('"""doc: stablehlo.add"""\nx = "stablehlo.add"\n'
                     'class A:\n    name = "stablehlo.dot"\n    y = "stablehlo.dot"\n')
    assert list(_string_constants(tree)) == [("stablehlo.add", 2), ("stablehlo.dot", 5)]


EXCEPTIONS: dict[str, set[str]] = {
    # messages and help text naming an op the user writes or a type's keyword
    "qcomp/backends/xla_prepare.py": {"interpreter.probe", "func.return"},
    "qcomp/dialects/onnx/quantized.py": {"onnx.Custom"},
    "qcomp/dialects/quant/types.py": {"quant."},  # !quant.<type>
    "qcomp/dialects/stablehlo/attrs.py": {"stablehlo."},  # #stablehlo.<attribute>
    "qcomp/dialects/stablehlo/syntax_nn.py": {"pad", "reverse"},  # window keywords
    "qcomp/dialects/stablehlo/verify.py": {"stablehlo.constant"},  # upstream's wording
    "qcomp/interpreter/checks.py": {"check.expect_serialized_eq"},
    "qcomp/interpreter/collective_functions.py": {"interpreter.run_parallel"},
    "qcomp/interpreter/probe_functions.py": {"interpreter.probe"},
    "qcomp/interpreter/onnx_functions.py": {"onnx.Constant", "onnx.Custom", "onnx.QuantizeLinear",
                                           "onnx.DequantizeLinear"},
    "qcomp/passes/litert_quantize_weights.py": {"quant.qcast", "quant.dcast"},
    "qcomp/passes/onnx_legalize_qdq_to_quant.py": {"onnx.Custom"},
    "qcomp/passes/tosa_rescale_legalize_to_stablehlo.py": {"tosa.const", "stablehlo.constant"},
    "qcomp/tools/qcomp_run.py": {"interpreter.probe"},
    # ONNX and TFLite operator names that are not the dialect's ops (ONNX node op_types,
    # TFLite builtin operators): the LiteRT spec's rows (the ONNX ops each TFLite
    # operator answers to), the QLinear kernels; StableHLO window keywords
    "qcomp/tflite/contractions.py": {"Conv", "QLinearConv", "ConvInteger", "Gemm", "MatMul",
                                     "MatMulInteger", "QLinearMatMul"},
    "qcomp/tflite/data_movement.py": {"Reshape", "Flatten", "pad", "transpose", "quant.qcast",
                                      "quant.dcast"},
    "qcomp/tflite/kernels.py": {"gather", "reduce"},
    "qcomp/tflite/spec_rules.py": {"Clip", "Relu"},
    "qcomp/quant/onnx_qlinear.py": {"MatMulInteger", "ConvInteger", "QLinearMatMul",
                                    "QLinearConv"},
}
"""Files (relative to the checkout) and the op names, short names or built-name prefixes
(`"stablehlo."`) they may write; `"*"`: any."""


def _homes() -> dict[str, str]:
    """Op name -> the file that defines the op."""
    home = {}
    for factory in DIALECTS.values():
        for op in factory().operations:
            if op.__module__.startswith("qcomp."):  # not xDSL's func ops
                home[op.name] = op.__module__.replace(".", "/") + ".py"
    return home


def _docstring_ids(tree: ast.AST) -> set[int]:
    """Docstrings (of modules, classes, functions and attributes: any string standing
    as a statement) and a class's `name = "..."`."""
    ids = set()
    for node in source_tree.walk(tree):
        if isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, ast.Assign) and [getattr(t, "id", None)
                                                     for t in stmt.targets] == ["name"]:
                    ids.add(id(stmt.value))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            ids.add(id(node.value))
    return ids


def op_names_written(source: str | ast.Module, rel: str, home: dict[str, str]):
    """(line, name) for each op name `source` (the file `rel`) writes that it does not
    define: a full name in a string or an f-string's text, a short name in a table (a
    set, list, tuple or dict of two or more), or a dialect prefix an f-string completes
    (`"stablehlo."`)."""
    tree = ast.parse(source) if isinstance(source, str) else source
    docs = _docstring_ids(tree)
    short: dict[str, set[str]] = {}
    for name, file in home.items():
        short.setdefault(name.split(".", 1)[1], set()).add(file)
    dialects = {name.split(".", 1)[0] for name, file in home.items()} - {
        name.split(".", 1)[0] for name, file in home.items() if file == rel}
    full = re.compile(r"(?<![\w.])(" + "|".join(
        re.escape(n) for n in sorted(home, key=len, reverse=True)) + r")(?!\w)")
    built = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(dialects))) + r")\.\0")
    parts = set()
    for node in source_tree.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts.update(id(v) for v in node.values)
            text = "".join(v.value if isinstance(v, ast.Constant) else "\0" for v in node.values)
            yield from ((node.lineno, m.group(1)) for m in full.finditer(text)
                        if home[m.group(1)] != rel)
            yield from ((node.lineno, m.group(1) + ".") for m in built.finditer(text))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs and id(node) not in parts:
            yield from ((node.lineno, m.group(1)) for m in full.finditer(node.value)
                        if home[m.group(1)] != rel)
        elif isinstance(node, ast.Set | ast.List | ast.Tuple | ast.Dict):
            items = node.keys if isinstance(node, ast.Dict) else node.elts
            names = [e.value for e in items if isinstance(e, ast.Constant)
                     and isinstance(e.value, str) and rel not in short.get(e.value, {rel})]
            if len(names) >= 2:
                yield from ((node.lineno, n) for n in names)


def test_ops_are_not_named_outside_their_module():
    home = _homes()
    root = QCOMP.parent
    found = []
    for path in sorted(QCOMP.rglob("*.py")):
        rel = str(path.relative_to(root))
        allowed = EXCEPTIONS.get(rel, set())
        if "*" in allowed:
            continue
        found += [f"{rel}:{line}: {name}" for line, name in op_names_written(
            source_tree.parse(path), rel, home) if name not in allowed]
    assert not found, "\n".join(found)


def test_the_wider_checker_finds_names_in_messages_tables_and_built_names():
    home = {"stablehlo.divide": "qcomp/dialects/stablehlo/binary.py",
            "stablehlo.log": "qcomp/dialects/stablehlo/elementwise.py",
            "chlo.top_k": "qcomp/dialects/chlo/ops.py"}
    source = ('"""doc: stablehlo.divide"""\n'
              'POSITIVE_NAN = {"log", "divide", "remainder"}\n'
              'def f(op, k):\n'
              '    """chlo.top_k is fine here."""\n'
              '    x = f"\'chlo.top_k\': k = {k}"\n'
              '    y = f"stablehlo.{k}"\n'
              '    z = "divide"\n')
    assert list(op_names_written(source, "qcomp/interpreter/x.py", home)) == [
        (2, "log"), (2, "divide"), (5, "chlo.top_k"), (6, "stablehlo.")]
    assert list(op_names_written(source, "qcomp/dialects/chlo/ops.py", home)) == [
        (2, "log"), (2, "divide"), (6, "stablehlo.")]
