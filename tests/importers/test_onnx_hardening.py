"""`.onnx` files that once escaped the importer as Python errors or a crash (issue 29,
items 1-5, 24, 25): each is now one `qcomp-opt: error: FILE: ...` line, exit 1."""

from __future__ import annotations

import io

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto as T  # noqa: E402
from onnx import helper as h  # noqa: E402
from onnx import numpy_helper as nh  # noqa: E402

from qcomp.tools.qcomp_opt import main  # noqa: E402

MS = "com.microsoft"


def _model(nodes, inputs, outputs, inits=(), ms=False, ir=10):
    opsets = [h.make_opsetid("", 21)] + ([h.make_opsetid(MS, 1)] if ms else [])
    m = h.make_model(h.make_graph(nodes, "g", inputs, outputs, list(inits)),
                     opset_imports=opsets)
    m.ir_version = ir
    return m.SerializeToString()


def opt(tmp_path, raw: bytes, *argv: str):
    p = tmp_path / "m.onnx"
    p.write_bytes(raw)
    out, err = io.StringIO(), io.StringIO()
    code = main([str(p), *argv], io.StringIO(""), out, err)
    return code, out.getvalue(), err.getvalue().replace(str(p), "m.onnx")


def one_error(tmp_path, raw: bytes, message: str, *argv: str) -> None:
    assert opt(tmp_path, raw, *argv) == (1, "", f"qcomp-opt: error: m.onnx: {message}\n")


X = h.make_tensor_value_info("XXXX", T.FLOAT, [2, 3])
Y = h.make_tensor_value_info("YYYY", T.FLOAT, [2, 3])
NAMED = _model([h.make_node("Cast", ["XXXX"], ["YYYY"], name="NNNN", to=T.FLOAT)], [X], [Y])


@pytest.mark.parametrize("marker, message", [
    (b"NNNN", "node '#0': its name 'NNN\\xff' is not valid UTF-8"),
    (b"XXXX", "graph input name 'XXX\\xff' is not valid UTF-8"),
    (b"YYYY", "graph output name 'YYY\\xff' is not valid UTF-8"),
    (b"\x02to", "node 'NNNN' (Cast): attribute name 't\\xff' is not valid UTF-8"),
    (b"Cast", "node 'NNNN' (Cas\\xff): its op type 'Cas\\xff' is not valid UTF-8"),
])
def test_names_that_are_not_utf8(tmp_path, marker, message):
    assert NAMED.count(marker) >= 1
    one_error(tmp_path, NAMED.replace(marker, marker[:-1] + b"\xff"), message)


def test_shape_inference_text_that_is_not_utf8_is_escaped():
    """onnx's C++ message with a name that is not UTF-8 reaches Python as an undecodable
    UnicodeDecodeError; its bytes are the message (no codec words)."""
    from qcomp.importers.onnx_checks import inference_message

    m = onnx.ModelProto.FromString(NAMED.replace(b"NNNN", b"NNN\xff"))
    m.graph.output[0].type.tensor_type.elem_type = T.INT8  # Cast gives float: a type error
    with pytest.raises(UnicodeDecodeError) as e:
        onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
    assert inference_message(e.value) == (
        "[ShapeInferenceError] Inference error(s): (op_type:Cast, node name: NNN\\xff): "
        "[TypeInferenceError] Inferred elem type differs from existing elem type: (1) vs (3)")


@pytest.mark.parametrize("ir", [3, 7, 10])
def test_nodes_out_of_topological_order_never_reach_shape_inference(tmp_path, ir):
    x = h.make_tensor_value_info("x", T.FLOAT, [2, 3])
    y = h.make_tensor_value_info("y", T.FLOAT, [2, 3])
    nodes = [h.make_node("Add", ["t", "x"], ["y"], name="late"),
             h.make_node("Relu", ["x"], ["t"], name="early")]
    one_error(tmp_path, _model(nodes, [x], [y], ir=ir),
              "node 'late' (Add): input 't' is not defined before it (ONNX graphs list "
              "their nodes in topological order)")


def test_a_value_made_twice(tmp_path):
    x = h.make_tensor_value_info("x", T.FLOAT, [2, 3])
    y = h.make_tensor_value_info("y", T.FLOAT, [2, 3])
    nodes = [h.make_node("Relu", ["x"], ["y"], name="a"), h.make_node("Relu", ["x"], ["y"], name="b")]
    one_error(tmp_path, _model(nodes, [x], [y]),
              "node 'b' (Relu): output 'y' is already defined (each value is made once)")


S = nh.from_array(np.array(0.5, np.float32), "s")
Z = nh.from_array(np.array(3, np.uint8), "z")
U = h.make_tensor_value_info("u", T.UINT8, None)  # unranked
B = h.make_tensor_value_info("b", T.UINT8, [2, 3])
QY = h.make_tensor_value_info("y", T.UINT8, None)


def _qlinear(op, inputs, **attrs):
    return _model([h.make_node(op, inputs, ["y"], domain=MS, name="n", **attrs)],
                  [U, B], [QY], [S, Z], ms=True)


@pytest.mark.parametrize("raw", [
    _qlinear("QLinearAdd", ["u", "s", "z", "b", "s", "z", "s", "z"]),
    _qlinear("QLinearConcat", ["s", "z", "u", "s", "z", "b", "s", "z"], axis=0),
], ids=["QLinearAdd", "QLinearConcat"])
def test_unfuse_qdq_keeps_an_unranked_operand_unranked(tmp_path, raw):
    code, out, err = opt(tmp_path, raw, "--onnx-unfuse-qdq")
    assert (code, err) == (0, "")
    assert 'onnx.DequantizeLinear"(%arg0, %0, %1) : (tensor<*xui8>, tensor<f32>, ' \
           'tensor<ui8>) -> tensor<*xf32>' in out


@pytest.mark.parametrize("raw, message", [
    (_qlinear("QLinearConcat", ["s", "z", "b", "s", "z", "b", "s", "z"]),
     "'onnx.Custom' op QLinearConcat requires attribute 'axis'"),
    (_qlinear("QLinearConcat", ["s", "z", "b", "s", "z", "b", "s"], axis=0),
     "'onnx.Custom' op QLinearConcat takes 2 inputs then (value, scale, zero point) "
     "triples, got 7 inputs"),
    (_qlinear("QLinearConcat", ["s", "z", "b", "s", "z"], axis=1.5),
     "'onnx.Custom' op QLinearConcat attribute 'axis' must be INT, got FLOAT"),
    (_qlinear("QLinearLeakyRelu", ["b", "s", "z", "s", "z"], alpha=1),
     "'onnx.Custom' op QLinearLeakyRelu attribute 'alpha' must be FLOAT, got INT"),
    (_qlinear("QLinearAdd", ["b", "", "z", "b", "s", "z", "s", "z"]),
     "'onnx.Custom' op QLinearAdd: input #1 is required"),
    (_qlinear("QLinearConcat", ["s", "z", "b", "s", "z", "", "s", "z"], axis=0),
     "'onnx.Custom' op QLinearConcat: input #5 is required"),
], ids=["concat-no-axis", "concat-count", "concat-float-axis", "leakyrelu-int-alpha",
        "add-absent-scale", "concat-absent-input"])
def test_contrib_schemas_are_checked(tmp_path, raw, message):
    op = message.split()[2].rstrip(":")
    one_error(tmp_path, raw, f"node 'n' ({op}): {message}")


A = h.make_tensor_value_info("a", T.FLOAT, [2, 16])
NY = h.make_tensor_value_info("y", T.FLOAT, [2, 4])
NB = h.make_tensor("B", T.UINT8, [4, 1, 8], np.zeros(32, np.uint8))
NS = h.make_tensor("S", T.FLOAT, [4], np.ones(4, np.float32))


def _nbits(a: str, **attrs):
    attrs = {"K": 16, "N": 4, "bits": 4, "block_size": 16, **attrs}
    return _model([h.make_node("MatMulNBits", [a, "B", "S"], ["y"], domain=MS, name="mm",
                               **attrs)], [A], [NY], [NB, NS], ms=True)


@pytest.mark.parametrize("raw, message", [
    (_nbits("a", K=h.make_tensor("k", T.INT64, [], [16])),
     "'onnx.Custom' op MatMulNBits attribute 'K' must be INT, got TENSOR"),
    (_nbits("a", bits=[4]), "'onnx.Custom' op MatMulNBits attribute 'bits' must be INT, "
                            "got INTS"),
    (_nbits("a", bits=[0.5]), "'onnx.Custom' op MatMulNBits attribute 'bits' must be INT, "
                              "got a list"),
    (_nbits(""), "'onnx.Custom' op MatMulNBits: input #0 is required"),
], ids=["K-tensor", "bits-list", "bits-floats", "absent-A"])
def test_matmul_nbits_schema(tmp_path, raw, message):
    one_error(tmp_path, raw, f"node 'mm' (MatMulNBits): {message}",
              "--onnx-legalize-qdq-to-quant")


def test_the_same_checks_hold_for_mlir_text(tmp_path):
    """The checks are onnx.Custom's verifier: MLIR text gets them too."""
    p = tmp_path / "m.mlir"
    p.write_text(
        'func.func @f(%a: tensor<2xui8>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<4xui8> {\n'
        '  %0 = "onnx.Custom"(%s, %z, %a, %s, %z, %a, %s) <{function_name = "QLinearConcat"}>'
        ' {axis = 0 : si64, domain_name = "com.microsoft"} : (tensor<f32>, tensor<ui8>, '
        'tensor<2xui8>, tensor<f32>, tensor<ui8>, tensor<2xui8>, tensor<f32>) -> tensor<4xui8>\n'
        '  return %0 : tensor<4xui8>\n}\n')
    out, err = io.StringIO(), io.StringIO()
    assert main([str(p), "--onnx-unfuse-qdq"], io.StringIO(""), out, err) == 1
    assert err.getvalue().splitlines()[0] == (
        f"{p}:2:8: error: 'onnx.Custom' op QLinearConcat takes 2 inputs then (value, scale, "
        "zero point) triples, got 7 inputs")


def test_contrib_scales_are_float32(tmp_path):
    """A QGemm whose weight scale is not float32 (found by the zoo fuzz family: it
    reached onnx-unfuse-qdq as a ui4 constant)."""
    wi = nh.from_array(np.ones((3, 2), np.int8), "w")
    ws = nh.from_array(np.array(1, np.uint8), "ws")
    wz = nh.from_array(np.array(0, np.int8), "wz")
    y = h.make_tensor_value_info("y", T.FLOAT, [2, 2])
    raw = _model([h.make_node("QGemm", ["b", "s", "z", "w", "ws", "wz"], ["y"], domain=MS,
                              name="n")], [B], [y], [S, Z, wi, ws, wz], ms=True)
    one_error(tmp_path, raw, "node 'n' (QGemm): 'onnx.Custom' operand #4 must be a tensor of "
                             "one of tensor(float), but got 'tensor<ui8>'")


def test_a_huge_shape_lowers_without_materializing_its_constants(tmp_path):
    """onnx-legalize-to-stablehlo's splat constants (BatchNormalization's epsilon) stay
    one element however large the shape (a 2**40-element dimension ran out of memory)."""
    big = [1, 2, 1 << 40, 2]
    x = h.make_tensor_value_info("x", T.FLOAT, big)
    y = h.make_tensor_value_info("y", T.FLOAT, big)
    stats = [nh.from_array(np.ones(2, np.float32), n) for n in ("g", "be", "m", "v")]
    raw = _model([h.make_node("BatchNormalization", ["x", "g", "be", "m", "v"], ["y"])],
                 [x], [y], stats)
    code, out, err = opt(tmp_path, raw, "--onnx-legalize-to-stablehlo")
    assert (code, err) == (0, "")
    assert "stablehlo.constant dense<9.99999974E-6> : tensor<1x2x1099511627776x2xf32>" in out
