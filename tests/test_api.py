"""The Python API (`import qcomp`, docs/api.md): lazy, and every Python snippet in docs/
runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import qcomp

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs").glob("*.md"))

# docs/design.md's op recipes are classes written "in the dialect's module": each runs
# with that module's imports (chosen by the op name it defines)
PREAMBLES = {
    '"stablehlo.halve"': """
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import NoMemoryEffect
from qcomp.dialects.facts import Elementwise, dq_op_q
from qcomp.dialects.stablehlo.elementwise import UnaryElementwiseOp
from qcomp.dialects.stablehlo.kinds import FP_Q, ElementKinds
""",
    '"chlo.sinc"': """
import types
import numpy as np
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure
from qcomp.dialects.chlo.ops import UnaryOp, in_own_type, stepwise
from qcomp.dialects.facts import NO_QUANTIZATION

# the kernel the recipe's step 2 writes in chlo/special.py
special = types.SimpleNamespace(
    sinc=lambda s, x: np.where(x == s.c(0.0), s.c(1.0), s.sin(x) / x))
""",
    "declare(Operator(": """
from qcomp.tflite.operator import Operand, Operator

# the recipe's build and kernel functions (steps before); `declare` recorded here, not
# into qcomp's operator table
def build_relu(ctx): ...
def lower_relu(b, op): ...
declared = []
declare = declared.append
""",
    '"onnx.LeakyRelu"': """
from xdsl.dialects.builtin import FloatAttr
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def, traits_def
from xdsl.traits import NoMemoryEffect
from qcomp.dialects import stablehlo as sh
from qcomp.dialects.facts import NO_QUANTIZATION
from qcomp.dialects.onnx.core import Lowering, OnnxFacts, QdqRole, attr
from qcomp.dialects.onnx.float_ops import UnaryOp
from qcomp.dialects.onnx.to_stablehlo import element_of
""",
}


def preamble(block: str) -> str:
    return "".join(text for marker, text in PREAMBLES.items() if marker in block)


ADD = """
func.func @main(%x: tensor<2xf32>, %q: tensor<2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2xf32> {
  %0 = stablehlo.uniform_dequantize %q : (tensor<2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2xf32>
  %1 = stablehlo.add %x, %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of a markdown text (indented ones dedented)."""
    return [textwrap.dedent(m.group(2)) for m in
            re.finditer(r"^([ \t]*)```python\n(.*?)^\1```", text, re.M | re.S)]


@pytest.mark.parametrize("doc", [d for d in DOCS if python_blocks(d.read_text())],
                         ids=lambda d: d.name)
def test_every_python_snippet_in_docs_runs(doc):
    """Each block on its own, as a reader copies it (the op recipes with their module's
    imports); the op classes are checked by IRDL as they are defined."""
    for i, block in enumerate(python_blocks(doc.read_text())):
        namespace: dict = {}
        exec(preamble(block), namespace)
        exec(compile(block, f"{doc.name}[python block {i}]", "exec"), namespace)


def test_the_docs_have_the_snippets_this_file_expects():
    names = {d.name: len(python_blocks(d.read_text())) for d in DOCS}
    assert names["api.md"] >= 4 and names["interpreter.md"] == 1 and names["design.md"] == 4
    assert python_blocks("x\n  ```python\n  a = 1\n  ```\n") == ["a = 1\n"]


def test_import_qcomp_imports_nothing_else():
    code = ("import sys, qcomp\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('xdsl', 'numpy', 'jax', 'onnx', 'numba') or m.startswith('qcomp.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    assert out == "[]\n"
    assert "parse_module" in dir(qcomp)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        qcomp.nope  # noqa: B018


def test_inputs_by_position_and_by_name():
    module = qcomp.parse_module(ADD)
    x = np.array([1.0, 2.5])
    for inputs in ([x, [3, -1]], {"x": x, "q": [3, -1]}, {"arg0": x, "arg1": [3, -1]},
                   {"q": np.array([3, -1], np.int8), "x": x.astype(np.float32)}):
        (r,) = qcomp.run(module, inputs).results
        assert r.dtype == np.float32 and r.tolist() == [2.0, 1.5]
    with pytest.raises(qcomp.RunError) as e:
        qcomp.run(module, {"x": x, "z": [1, 2]})
    assert e.value.message == "@main has no argument named 'z' (its arguments: x, q)"
    with pytest.raises(qcomp.RunError) as e:
        qcomp.run(module, {"x": x})
    assert e.value.message == "@main: no input for argument q"
    with pytest.raises(qcomp.RunError) as e:
        qcomp.run(module, [x])
    assert e.value.message == "@main takes 2 argument(s) (x, q), 1 input(s) given"


def test_float64_inputs_only_when_exact():
    module = qcomp.parse_module(ADD)
    big = np.array([2.0 ** 24 + 1, 0])
    with pytest.raises(qcomp.RunError) as e:
        qcomp.run(module, [big, [0, 0]])
    assert e.value.message == ("input 'x' (float64) does not convert exactly to f32: element [0] "
                               "is 16777217.0, 16777216.0 as float32")
    with pytest.raises(qcomp.RunError) as e:
        qcomp.run(module, [np.array([1, 2 ** 24 + 1]), [0, 0]])  # int64 too
    assert "element [1] is 16777217, 16777216.0 as float32" in e.value.message
    r = qcomp.run(module, [np.array([np.nan, -np.inf]), [0, 0]]).results[0]
    assert np.isnan(r[0]) and r[1] == -np.inf
    with pytest.raises(qcomp.RunError, match=r"outside i8's range|values outside"):
        qcomp.run(module, [x := np.zeros(2), [300, 0]])
    assert x.dtype == np.float64  # the caller's array is left as it was


def test_errors_raise_by_default_and_stay_in_the_run_otherwise():
    module = qcomp.parse_module(ADD)
    with pytest.raises(qcomp.RunError) as e:
        qcomp.run(module, [np.zeros((2, 1)), [0, 0]])
    assert e.value.message == ("input 'x' has shape (2, 1), the argument needs 2 "
                               "(tensor<2xf32>)")
    checks = qcomp.parse_module("""
func.func @main() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %a, dense<[1, 3]> : tensor<2xi32>
  func.return
}
""")
    with pytest.raises(qcomp.RunError) as e:
        qcomp.run(checks)
    assert e.value.message == ("@main: 1 check(s) failed, the first check.expect_eq_const with "
                               "1 mismatching element(s)")
    run = qcomp.run(checks, strict=False)
    assert not run.passed and run.checks[0].total_mismatches == 1


def test_entry_choice():
    two = qcomp.parse_module("func.func @a() -> tensor<i32> {\n"
                             "  %0 = stablehlo.constant dense<1> : tensor<i32>\n"
                             "  return %0 : tensor<i32>\n}\n"
                             "func.func @b() -> tensor<i32> {\n"
                             "  %0 = stablehlo.constant dense<2> : tensor<i32>\n"
                             "  return %0 : tensor<i32>\n}\n")
    with pytest.raises(qcomp.RunError, match=r"give entry= .*functions: @a, @b"):
        qcomp.run(two)
    assert qcomp.run(two, entry="b").results[0].tolist() == 2


def test_parse_and_pipeline_errors():
    with pytest.raises(qcomp.IRError) as e:
        qcomp.parse_module("func.func @f() {\n  %0 = stablehlo.nope : tensor<i32>\n}\n", "m.mlir")
    assert str(e.value).startswith("m.mlir:2:")
    with pytest.raises(qcomp.IRError, match="doesn't match function result type"):
        qcomp.parse_module("func.func @f(%a: tensor<2xf32>) -> tensor<3xf32> {\n"
                           "  return %a : tensor<2xf32>\n}\n")
    module = qcomp.parse_module(ADD)
    with pytest.raises(qcomp.PipelineError, match="invalid value 'x' for option 'rescale'"):
        qcomp.run_pipeline(module, "stablehlo-lower-quant{rescale=x}")
    failing = qcomp.parse_module("""
func.func @main(%a: tensor<4x!quant.uniform<i8:f32, 0.5>>, %init: tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>> {
  %0 = stablehlo.reduce(%a init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<!quant.uniform<i8:f32, 0.5>>
}
""")
    with pytest.raises(qcomp.PassError) as e:
        qcomp.run_pipeline(failing, "stablehlo-legalize-quant-to-int")
    assert e.value.pass_name == "stablehlo-legalize-quant-to-math"
    assert "failed to legalize operation 'stablehlo.reduce'" in e.value.message


def test_the_pipeline_runs_as_qcomp_opt_runs_it():
    from qcomp.tools.qcomp_opt import main
    import io

    module = qcomp.run_pipeline(qcomp.parse_module(ADD), "builtin.module(stablehlo-lower-quant)")
    out = io.StringIO()
    assert main(["-", "--stablehlo-lower-quant"], io.StringIO(ADD), out, io.StringIO()) == 0
    assert qcomp.print_module(module) + "\n" == out.getvalue()


def test_xla_backend_gives_the_same_results():
    pytest.importorskip("jax")
    module = qcomp.parse_module(ADD)
    inputs = {"x": [1.0, 2.5], "q": [3, -1]}
    assert (qcomp.run(module, inputs, backend="xla").results[0].tolist() ==
            qcomp.run(module, inputs).results[0].tolist() == [2.0, 1.5])
