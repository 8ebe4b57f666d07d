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


@pytest.mark.parametrize("dtype,tp", [(np.float32, TensorProto.FLOAT), (np.float16, TensorProto.FLOAT16),
                                      (np.int8, TensorProto.INT8), ("int4", TensorProto.INT4)])
def test_large_initializers_print_as_hex_and_read_back(dtype, tp):
    """An initializer of more than 100 elements prints as MLIR's `dense<"0x...">`; the
    text reads back to the model's values bit for bit (inf, NaN, -0, subnormals too)."""
    from qcomp.importers.onnx import import_text
    from qcomp.interpreter import run
    from qcomp.registry import parse_module

    rng = np.random.default_rng(5)
    if dtype == "int4":
        w = rng.integers(-8, 8, (3, 50)).astype(np.int8)
        init = helper.make_tensor("w", tp, w.shape, w.reshape(-1).tolist())
    else:
        w = (rng.standard_normal((3, 50)) * 100).astype(dtype)
        if w.dtype.kind == "f":
            w.reshape(-1)[:5] = [np.inf, -np.inf, np.nan, -0.0, np.finfo(dtype).smallest_subnormal]
        init = numpy_helper.from_array(w, "w")
    if w.dtype.kind == "f":  # the constant itself, through a no-op Cast
        node, out_t, want = helper.make_node("Cast", ["w"], ["y"], to=tp), tp, w
    else:  # integers through DequantizeLinear at scale 1
        node, out_t, want = (helper.make_node("DequantizeLinear", ["w", "s"], ["y"]),
                             TensorProto.FLOAT, w.astype(np.float32))
    m = _model([node], [], [helper.make_tensor_value_info("y", out_t, [3, 50])],
               [init, numpy_helper.from_array(np.array(1.0, np.float32), "s")])
    text = import_text(m.SerializeToString())
    assert 'onnx.Constant dense<"0x' in text
    (r,) = run(parse_module(text), [])
    assert r.error is None, r.error
    bits = f"u{want.itemsize}"
    assert (r.results[0].view(bits) == want.view(bits)).all()


def test_matmul_nbits_outputs_are_typed(tmp_path):
    """ONNX's shape inference leaves com.microsoft MatMulNBits' output untyped (and the
    ops after it); the importer types it (A's shape, N last) and infers again, so a
    MatMulNBits -> Relu -> MatMulNBits chain with no value_info imports, and runs as
    onnxruntime computes it."""
    ort = pytest.importorskip("onnxruntime")
    rng = np.random.default_rng(0)

    def nbits(name, a, y, k, n):
        b = rng.integers(0, 256, (n, k // 16, 8), dtype=np.uint8)
        s = (rng.random((n, k // 16)) * 0.1 + 0.01).astype(np.float32)
        inits = [numpy_helper.from_array(b, name + "_b"), numpy_helper.from_array(s, name + "_s")]
        node = helper.make_node("MatMulNBits", [a, name + "_b", name + "_s"], [y], name=name,
                                domain="com.microsoft", K=k, N=n, bits=4, block_size=16)
        return node, inits

    n1, i1 = nbits("m1", "x", "h", 32, 16)
    n2, i2 = nbits("m2", "r", "y", 16, 4)
    g = helper.make_graph([n1, helper.make_node("Relu", ["h"], ["r"]), n2], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 32])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          i1 + i2)
    m = helper.make_model(g, ir_version=10, opset_imports=[
        helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)])
    p = tmp_path / "m.onnx"
    p.write_bytes(m.SerializeToString())
    rc, out, err = _tool(qcomp_opt.run, [str(p)])
    assert rc == 0, err
    assert "-> tensor<2x3x16xf32>" in out and '"onnx.Relu"' in out
    assert "-> (tensor<2x3x4xf32> {onnx.name = \"y\"})" in out
    x = rng.standard_normal((2, 3, 32)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    rc, out, err = _tool(qcomp_run.run_tool, [str(p), "--inputs", str(tmp_path / "in.npz"),
                                         "--output", str(tmp_path / "out.npz")])
    assert rc == 0, err
    got = np.load(tmp_path / "out.npz")["result0"]
    want = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"]
                                ).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
