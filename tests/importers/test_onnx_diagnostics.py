"""Diagnostics about an imported `.onnx` model name the node, not a line and column of
the MLIR text the importer printed (which the user never saw): `model.onnx: node 'q'
(QuantizeLinear): remark: ...` from a pass, `... error: ...` from qcomp-run."""

from __future__ import annotations

import io

import numpy as np
import pytest

pytest.importorskip("onnx")
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def _tool(main, argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue()


def _write(tmp_path, nodes, inputs, outputs, inits, name="model.onnx"):
    g = h.make_graph(nodes, "g", inputs, outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
    m.ir_version = 10
    path = tmp_path / name
    path.write_bytes(m.SerializeToString())
    return str(path)


def _negative_scale(tmp_path, name="q"):
    return _write(tmp_path, [h.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name=name)],
                  [h.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                  [h.make_tensor_value_info("y", T.UINT8, [2, 3])],
                  [nh.from_array(np.array(-0.5, np.float32), "s"),
                   nh.from_array(np.array(3, np.uint8), "z")])


def test_pass_remark_names_the_node(tmp_path):
    from qcomp.tools.qcomp_opt import main

    path = _negative_scale(tmp_path)
    code, out, err = _tool(main, [path, "--onnx-legalize-qdq-to-quant"])
    assert code == 0 and '"onnx.QuantizeLinear"' in out
    assert err == (f"{path}: node 'q' (QuantizeLinear): remark: onnx-legalize-qdq-to-quant: "
                   "'onnx.QuantizeLinear' stays: !quant.uniform needs positive finite scales\n")


def test_unnamed_node_is_named_by_its_index(tmp_path):
    from qcomp.tools.qcomp_opt import main

    path = _negative_scale(tmp_path, name="")
    code, _, err = _tool(main, [path, "--onnx-legalize-qdq-to-quant", "-o", str(tmp_path / "o")])
    assert code == 0
    assert err.startswith(f"{path}: node '#0' (QuantizeLinear): remark: ")


def test_run_error_names_the_node(tmp_path):
    from qcomp.tools.qcomp_run import main

    path = _write(tmp_path, [h.make_node("Gather", ["d", "i"], ["y"], name="gather1", axis=0)],
                  [h.make_tensor_value_info("i", T.INT64, [2])],
                  [h.make_tensor_value_info("y", T.FLOAT, [2])],
                  [nh.from_array(np.arange(3, dtype=np.float32), "d")])
    code, _, err = _tool(main, [path, "--input=2xi64=5"])
    assert code == 1
    assert err == (f"{path}: node 'gather1' (Gather): error: onnx.Gather: an index is out "
                   "of bounds [-3, 2]\n")


def test_mlir_text_keeps_line_and_column(tmp_path):
    """The same remark on the printed module, read as MLIR text: line:col and caret."""
    from qcomp.importers.onnx import import_text
    from qcomp.tools.qcomp_opt import main

    mlir = tmp_path / "m.mlir"
    mlir.write_text(import_text(open(_negative_scale(tmp_path), "rb").read()))
    code, _, err = _tool(main, [str(mlir), "--onnx-legalize-qdq-to-quant"])
    assert code == 0
    assert err.startswith(f"{mlir}:5:10: remark: onnx-legalize-qdq-to-quant: ")


def test_imported_ops_are_located_at_their_nodes():
    from qcomp.importers.onnx import import_text

    g = h.make_graph([h.make_node("Relu", ["x"], ["r"], name="relu"),
                      h.make_node("Add", ["r", "c"], ["y"])], "g",
                     [h.make_tensor_value_info("x", T.FLOAT, [2])],
                     [h.make_tensor_value_info("y", T.FLOAT, [2])],
                     [nh.from_array(np.ones(2, np.float32), "c")])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
    text = import_text(m.SerializeToString())
    locs = [line.split(" loc(")[-1] for line in text.splitlines() if ' loc("' in line]
    assert locs == ['"initializer \'c\'")', '"node \'relu\' (Relu)")', '"node \'#1\' (Add)")']


# -- issue 29 item 24: ONNX's shape inference aborting ------------------------------------

def _out_of_order(ir_version: int, opset: int):
    g = h.make_graph([h.make_node("Neg", ["t"], ["y"], name="neg"),
                      h.make_node("Relu", ["x"], ["t"], name="relu")], "g",
                     [h.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                     [h.make_tensor_value_info("y", T.FLOAT, [2, 3])])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = ir_version
    return m


@pytest.mark.parametrize("ir_version", [3, 4, 7, 11])
@pytest.mark.parametrize("opset", [7, 13, 21])
def test_nodes_out_of_order(tmp_path, ir_version, opset):
    from qcomp.tools.qcomp_opt import main

    path = tmp_path / "model.onnx"
    path.write_bytes(_out_of_order(ir_version, opset).SerializeToString())
    code, _, err = _tool(main, [str(path)])
    assert (code, err) == (1, f"qcomp-opt: error: {path}: node 'neg' (Neg): input 't' is not "
                              "defined before it (ONNX graphs list their nodes in topological "
                              "order)\n")


def test_shape_inference_abort_is_a_diagnostic(tmp_path, monkeypatch):
    """Whatever makes onnx's C++ shape inference abort (`Assertion '__n < this->size()'
    failed`, SIGABRT) kills a forked child, not qcomp."""
    import os

    import onnx

    from qcomp.importers import onnx_checks
    from qcomp.tools.qcomp_opt import main

    if not hasattr(os, "fork"):
        pytest.skip("no fork: shape inference runs in-process")
    monkeypatch.setattr(onnx_checks, "fork_safe", lambda: True)  # JAX may share the worker
    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", lambda *a, **k: os.abort())
    path = _negative_scale(tmp_path)
    code, out, err = _tool(main, [path])
    assert (code, out) == (1, "")
    assert err == (f"qcomp-opt: error: {path}: ONNX's shape inference crashed on this model "
                   "(SIGABRT); the model is malformed\n")


def test_value_info_of_an_unknown_element_type(tmp_path):
    """Found by the onnx_zoo fuzz family (`KeyError: 40` before)."""
    from qcomp.tools.qcomp_opt import main

    g = h.make_graph([h.make_node("Relu", ["x"], ["y"], name="r")], "g",
                     [h.make_tensor_value_info("x", T.FLOAT, [2])],
                     [h.make_tensor_value_info("y", T.FLOAT, [2])])
    g.value_info.append(h.make_tensor_value_info("y", T.FLOAT, [2]))
    g.value_info[0].type.tensor_type.elem_type = 40
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
    m.ir_version = 10
    path = tmp_path / "model.onnx"
    path.write_bytes(m.SerializeToString())
    code, _, err = _tool(main, [str(path)])
    assert (code, err) == (1, f"qcomp-opt: error: {path}: node 'r' (Relu): 'y' has element "
                              "type 40, which is not an ONNX data type qcomp knows\n")
