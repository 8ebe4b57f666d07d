"""`qcomp-opt model.onnx` / `qcomp-run model.onnx`: the imported text, inputs by graph
name, and one-line diagnostics naming the node for models that cannot be imported."""

from __future__ import annotations

import io

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from qcomp.tools import qcomp_opt, qcomp_run  # noqa: E402


def _model(nodes, inputs, outputs, inits=(), opset=21):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def _qmodel():
    return _model([helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"], name="q1")],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                  [helper.make_tensor_value_info("y", TensorProto.UINT8, [3])],
                  [numpy_helper.from_array(np.array(0.5, np.float32), "s"),
                   numpy_helper.from_array(np.array(10, np.uint8), "zp")])


def _tool(main, argv):
    out, err = io.StringIO(), io.StringIO()
    rc = main(argv, io.StringIO(), out, err)
    return rc, out.getvalue(), err.getvalue()


def test_import_text(tmp_path):
    p = tmp_path / "m.onnx"
    p.write_bytes(_qmodel().SerializeToString())
    rc, out, err = _tool(qcomp_opt.run, [str(p)])
    assert rc == 0, err
    assert 'func.func @main_graph(%arg0: tensor<3xf32> {onnx.name = "x"}) -> (tensor<3xui8> {onnx.name = "y"})' in out
    assert "onnx.Constant dense<5.000000e-01> : tensor<f32>" in out
    assert '"onnx.QuantizeLinear"(%arg0, %0, %1) {onnx_node_name = "q1"}' in out


def test_run_by_graph_name(tmp_path):
    p = tmp_path / "m.bin"  # recognised by content, not by extension
    p.write_bytes(_qmodel().SerializeToString())
    np.savez(tmp_path / "in.npz", x=np.array([1.0, -2.25, 200.0], np.float32))
    rc, out, err = _tool(qcomp_run.run_tool, [str(p), "--inputs", str(tmp_path / "in.npz")])
    assert rc == 0, err
    # onnx reference: 1/0.5+10 = 12, -4.5 -> -4 (half to even) + 10 = 6, 400+10 -> 255
    assert "@main_graph result[0]: 3xui8=[12 6 255]" in out


def test_truncated_model(tmp_path):
    p = tmp_path / "m.onnx"
    p.write_bytes(_qmodel().SerializeToString()[:40])
    rc, out, err = _tool(qcomp_opt.run, [str(p)])
    assert rc == 1
    assert err.startswith(f"qcomp-opt: error: {p}: not a valid ONNX model")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_unsupported_op_names_the_node(tmp_path):
    m = _model([helper.make_node("Einsum", ["x", "x"], ["y"], name="e1", equation="i,i->i")],
               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
               [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    p = tmp_path / "m.onnx"
    p.write_bytes(m.SerializeToString())
    rc, _, err = _tool(qcomp_opt.run, [str(p)])
    assert rc == 1
    assert err == f"qcomp-opt: error: {p}: node 'e1' (Einsum): unsupported op\n"


def test_attribute_of_a_later_opset(tmp_path):
    m = _model([helper.make_node("QuantizeLinear", ["x", "s"], ["y"], name="q", block_size=2)],
               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]),
                helper.make_tensor_value_info("s", TensorProto.FLOAT, [2])],
               [helper.make_tensor_value_info("y", TensorProto.UINT8, [4])], opset=19)
    p = tmp_path / "m.onnx"
    p.write_bytes(m.SerializeToString())
    rc, _, err = _tool(qcomp_opt.run, [str(p)])
    assert rc == 1
    assert "node 'q' (QuantizeLinear): " in err and "block_size" in err
