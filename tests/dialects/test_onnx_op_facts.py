"""The ONNX ops' facts live on the op classes (docs/design.md, "Adding an ONNX op"):

- every registered onnx op either declares its StableHLO lowering or is left by
  `onnx-legalize-to-stablehlo` with a remark;
- the float-op classes are named outside `qcomp/dialects/onnx` at most 20 times (the
  passes and the interpreter read the ops' declarations instead of listing the ops);
- the derived tables agree with onnxruntime's QDQ selectors and contrib op names.
"""

from __future__ import annotations

import ast
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp, TensorType, f32

from qcomp.dialects.onnx import ONNX, core
from qcomp.dialects.onnx.float_math import MATH_OPS
from qcomp.dialects.onnx.float_ops import FLOAT_OPS
from qcomp.dialects.onnx.float_slices import SLICE_OPS
from qcomp.dialects.onnx.index_ops import INDEX_OPS
from qcomp.dialects.onnx.sequence_ops import SEQUENCE_OPS
from qcomp.dialects.onnx.resize_pad import RESIZE_PAD_OPS
from qcomp.dialects.onnx.conv_transpose import CONV_TRANSPOSE_OPS
from qcomp.passes import onnx_legalize_to_stablehlo as legalize
from qcomp.passes.onnx_qdq import groups
from qcomp.registry import DIALECTS, make_context
from tests import source_tree

QCOMP = Path(__file__).resolve().parents[2] / "qcomp"
FLOAT_MODULES = {"qcomp.dialects.onnx.float_ops", "qcomp.dialects.onnx.float_data_ops",
                 "qcomp.dialects.onnx.float_math", "qcomp.dialects.onnx.float_slices",
                 "qcomp.dialects.onnx.index_ops"}
MAX_REFERENCES = 20


def float_op_references(root: Path = QCOMP) -> list[str]:
    """`file:line` of every use of an ONNX float-op class (`FLOAT_OPS`) in `root` outside
    `qcomp/dialects/onnx`: `fo.ConvOp` through a module alias of the float-op modules,
    or a class name imported from them."""
    names = {cls.__name__ for cls in (*FLOAT_OPS, *MATH_OPS, *SLICE_OPS, *INDEX_OPS,
                                      *RESIZE_PAD_OPS, *CONV_TRANSPOSE_OPS)}
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root.parent)
        if rel.parts[:3] == ("qcomp", "dialects", "onnx"):
            continue
        tree = source_tree.parse(path)
        modules, classes = set(), set()
        for node in source_tree.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in FLOAT_MODULES:
                classes |= {a.asname or a.name for a in node.names if a.name in names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                modules |= {a.asname or a.name for a in node.names
                            if f"{node.module}.{a.name}" in FLOAT_MODULES}
            elif isinstance(node, ast.Import):
                modules |= {a.asname for a in node.names if a.name in FLOAT_MODULES and a.asname}
        for node in source_tree.walk(tree):
            if (isinstance(node, ast.Attribute) and node.attr in names
                    and isinstance(node.value, ast.Name) and node.value.id in modules) \
                    or (isinstance(node, ast.Name) and node.id in classes):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_float_op_classes_are_rarely_named_outside_the_dialect():
    refs = float_op_references()
    assert len(refs) <= MAX_REFERENCES, "\n".join(refs)


def test_the_count_sees_references(tmp_path):
    pkg = tmp_path / "qcomp" / "passes"
    pkg.mkdir(parents=True)
    (pkg / "p.py").write_text("from qcomp.dialects.onnx import float_ops as fo\n"
                              "from qcomp.dialects.onnx.float_data_ops import GatherOp as G\n"
                              "x = (fo.ConvOp, fo.window_of, G, fo.ReshapeOp)\n")
    assert float_op_references(tmp_path / "qcomp") == ["qcomp/passes/p.py:3"] * 3


def test_every_registered_onnx_op_is_lowered_or_remarked(monkeypatch):
    """Each onnx op registered in `qcomp.registry` declares a `Lowering`, or
    `onnx-legalize-to-stablehlo` leaves it with a remark saying so; only an absent
    operand (`onnx.NoValue`, erased when unused, else its user stays) goes without one."""
    ops = list(DIALECTS["onnx"]().operations)
    declared = [c for c in ops if core.lowering(c) is not None]
    integer = ("onnx.DynamicQuantizeLinear", "onnx.MatMulInteger", "onnx.ConvInteger",
               "onnx.Cast", "onnx.CastLike")  # qcomp.dialects.onnx.integer_lowering
    assert {c.name for c in declared} == {c.name for c in (
        *FLOAT_OPS, *MATH_OPS, *SLICE_OPS, *INDEX_OPS, *SEQUENCE_OPS, *RESIZE_PAD_OPS,
        *CONV_TRANSPOSE_OPS)} | set(integer)
    rest = [c for c in ops if c not in declared and c is not core.NoValueOp]
    module = ModuleOp([c.create(result_types=[TensorType(f32, (2,))] if c is core.ConstantOp
                                else []) for c in rest])
    said = []
    monkeypatch.setattr(legalize, "remark", lambda op, msg: said.append((op.name, msg)))
    legalize.OnnxLegalizeToStablehloPass().apply(make_context(), module)
    assert said == [(c.name, f"onnx-legalize-to-stablehlo: '{c.name}' " + (
        "is not a dense tensor of its result type" if c is core.ConstantOp
        else "has no StableHLO lowering")) for c in rest]
    assert len(rest) == len(ops) - len(FLOAT_OPS) - len(MATH_OPS) - len(SLICE_OPS) \
        - len(integer) - len(INDEX_OPS) - len(SEQUENCE_OPS) - len(RESIZE_PAD_OPS) \
        - len(CONV_TRANSPOSE_OPS) - 1 > 5


def test_qdq_roles_are_onnxruntimes():
    """The selectors and fused forms of onnxruntime's QDQ transformers
    (`qdq_selector_action_transformer.cc`) as the ops declare them."""
    roles = {core.facts(c).op_type: (r.selector, r.fused) for c in ONNX.operations
             if (r := core.qdq_role(c)) is not None}
    assert roles == {
        "Add": ("binary", "QLinearAdd"), "Mul": ("binary", "QLinearMul"),
        "Sigmoid": ("unary", "QLinearSigmoid"),
        "GlobalAveragePool": ("unary", "QLinearGlobalAveragePool"),
        "Concat": ("variadic", "QLinearConcat"), "Conv": ("conv", "QLinearConv"),
        "MatMul": ("matmul", "QLinearMatMul"), "Reshape": ("drop", None),
        "Flatten": ("drop", None), "Transpose": ("drop", None), "Squeeze": ("drop", None),
        "Unsqueeze": ("drop", None), "MaxPool": ("drop", None), "Gather": ("drop", None),
        "GatherElements": ("drop", None), "ArgMax": ("drop_dq", None),
        "LeakyRelu": ("unary", "QLinearLeakyRelu"), "TopK": ("keep", None),
        "CumSum": ("keep", None), "InstanceNormalization": ("keep", None),
        "Resize": ("drop", None), "Pad": ("keep", None), "ConvTranspose": ("keep", None),
        "AveragePool": ("unary", "QLinearAveragePool"), "Gemm": ("gemm", "QGemm"),
        "Where": ("where", "QLinearWhere"), "Slice": ("drop", None), "Split": ("drop", None),
        "Relu": ("clip_by_q", None), "Clip": ("clip_by_q", None),
        "BatchNormalization": ("keep", None), "LayerNormalization": ("keep", None)}
    assert {core.facts(c).op_type for c in groups.targets().values()} == {
        "Add", "Mul", "Sigmoid", "GlobalAveragePool", "Concat", "Conv", "MatMul", "LeakyRelu",
        "AveragePool", "Gemm", "Where"}
