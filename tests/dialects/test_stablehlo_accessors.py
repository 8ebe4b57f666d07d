"""Python accessors of the stablehlo/chlo ops that passes and the interpreter rely on:
exact values read back from parsed text, defaults when attributes are absent, and
builders that produce IR printing as upstream."""

from __future__ import annotations

from io import StringIO

import pytest
from xdsl.dialects.builtin import ModuleOp, TensorType, f32, i8
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from qcomp.dialects import stablehlo as sh
from qcomp.dialects.chlo import BroadcastAddOp, broadcast_shapes
from qcomp.ir import QcompParser
from qcomp.dialects.quant import UniformQuantizedType
from qcomp.registry import make_context


def parse(text: str) -> ModuleOp:
    module = QcompParser(make_context(), text).parse_module()
    module.verify()
    return module


def only(module: ModuleOp, cls):
    ops = [op for op in module.walk() if isinstance(op, cls)]
    assert len(ops) == 1, ops
    return ops[0]


def text_of(op) -> str:
    out = StringIO()
    Printer(stream=out).print_op(op)
    return out.getvalue()


def test_gather_dimension_numbers() -> None:
    m = parse("""
    func.func @f(%x: tensor<3x4x5xf32>, %i: tensor<3x2x2xi32>) -> tensor<3x2x4xf32> {
      %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2],
          collapsed_slice_dims = [2], operand_batching_dims = [0],
          start_indices_batching_dims = [0], start_index_map = [1, 2], index_vector_dim = 2>,
          indices_are_sorted = true, slice_sizes = array<i64: 1, 4, 1>}>
          : (tensor<3x4x5xf32>, tensor<3x2x2xi32>) -> tensor<3x2x4xf32>
      return %0 : tensor<3x2x4xf32>
    }""")
    g = only(m, sh.GatherOp)
    d = g.dimension_numbers
    assert (d.offset_dims, d.collapsed_slice_dims, d.operand_batching_dims,
            d.start_indices_batching_dims, d.start_index_map, d.index_vector_dim) == (
        (2,), (2,), (0,), (0,), (1, 2), 2)
    assert g.slice_sizes == (1, 4, 1)
    assert g.indices_are_sorted is True


def test_dot_general_dims_and_precision() -> None:
    m = parse("""
    func.func @f(%a: tensor<2x4x3xf32>, %b: tensor<2x3x5xf32>) -> tensor<2x4x5xf32> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1],
          precision = [HIGH, HIGHEST] : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
      return %0 : tensor<2x4x5xf32>
    }""")
    d = only(m, sh.DotGeneralOp)
    assert (d.lhs_batching_dimensions, d.rhs_batching_dimensions,
            d.lhs_contracting_dimensions, d.rhs_contracting_dimensions) == ((0,), (0,), (2,), (1,))
    assert [p.data.value for p in d.precision_config.data] == ["HIGH", "HIGHEST"]


def test_convolution_accessors_and_defaults() -> None:
    m = parse("""
    func.func @f(%x: tensor<1x3x8x8xf32>, %k: tensor<4x3x3x3xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x6x6x4xf32>) {
      %0 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, 0, 1, f],
          window = {stride = [2, 2], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1], reverse = [false, true]}
          {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
          : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
      %1 = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, 0, 1, f],
          window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
          : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
      return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x6x6x4xf32>
    }""")
    c, plain = [op for op in m.walk() if isinstance(op, sh.ConvolutionOp)]
    assert (c.input_batch_dimension, c.input_feature_dimension, c.input_spatial_dimensions) == (
        0, 1, (2, 3))
    assert (c.kernel_input_feature_dimension, c.kernel_output_feature_dimension,
            c.kernel_spatial_dimensions) == (1, 0, (2, 3))
    assert (c.output_batch_dimension, c.output_feature_dimension,
            c.output_spatial_dimensions) == (0, 3, (1, 2))
    assert c.window_strides == (2, 2) and c.padding == ((1, 1), (1, 1))
    assert c.lhs_dilation == (1, 1) and c.rhs_dilation == (1, 1)
    assert c.window_reversal == (False, True)
    assert (c.feature_group_count, c.batch_group_count) == (1, 1)
    assert plain.window_strides == (1, 1) and plain.padding == ((0, 0), (0, 0))
    assert plain.window_reversal == (False, False)
    assert "window = {stride = [2, 2], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1], " \
           "reverse = [false, true]}" in text_of(c)


def test_compare_and_shape_op_accessors() -> None:
    m = parse("""
    func.func @f(%a: tensor<2x3xf32>, %s: tensor<f32>) -> tensor<2x3xi1> {
      %0 = stablehlo.compare LE, %a, %a, TOTALORDER : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
      %1 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %2 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
      %3 = stablehlo.slice %a [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>
      %4 = stablehlo.pad %a, %s, low = [0, 1], high = [1, 0], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x4xf32>
      %5 = stablehlo.concatenate %a, %a, dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
      %6 = stablehlo.iota dim = 1 : tensor<2x3xi32>
      %7 = stablehlo.reduce(%a init: %s) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
      return %0 : tensor<2x3xi1>
    }""")
    cmp = only(m, sh.CompareOp)
    assert cmp.comparison_direction == "LE" and cmp.compare_type.data.value == "TOTALORDER"
    assert only(m, sh.TransposeOp).permutation == (1, 0)
    assert only(m, sh.BroadcastInDimOp).broadcast_dimensions == ()
    sl = only(m, sh.SliceOp)
    assert (sl.start_indices, sl.limit_indices, sl.strides) == ((0, 1), (2, 3), (1, 2))
    pad = only(m, sh.PadOp)
    assert (pad.edge_padding_low, pad.edge_padding_high, pad.interior_padding) == (
        (0, 1), (1, 0), (1, 0))
    assert only(m, sh.ConcatenateOp).dimension == 1
    assert only(m, sh.IotaOp).iota_dimension == 1
    red = only(m, sh.ReduceOp)
    assert red.dimensions == (0, 1)
    assert [op.name for op in red.body.block.ops] == ["stablehlo.add", "stablehlo.return"]


def test_builders_print_as_upstream() -> None:
    from xdsl.dialects.func import FuncOp, ReturnOp

    q = UniformQuantizedType.per_tensor(i8, f32, 0.5, 3)
    t = TensorType(f32, [4])
    func = FuncOp("f", ([t], [t]))
    block = func.body.block
    quant = sh.UniformQuantizeOp(block.args[0], TensorType(q, [4]))
    add = sh.AddOp(quant.result, quant.result)
    deq = sh.UniformDequantizeOp(add.result, t)
    block.add_ops([quant, add, deq, ReturnOp(deq.result)])
    module = ModuleOp([func])
    module.verify()
    lines = [line.strip() for line in text_of(module).splitlines()]
    assert lines[2:5] == [
        "%1 = stablehlo.uniform_quantize %0 : (tensor<4xf32>) -> "
        "tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>",
        "%2 = stablehlo.add %1, %1 : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>",
        "%3 = stablehlo.uniform_dequantize %2 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>)"
        " -> tensor<4xf32>",
    ]


def test_verifier_rejects_rhs_zero_point() -> None:
    with pytest.raises(VerifyException, match="Zero point of rhs should be 0"):
        parse("""
        func.func @f(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01:2>>) {
          %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01:2>>) -> tensor<2x4x!quant.uniform<i32:f32, 2.500000e-01>>
          return
        }""")


def test_chlo_broadcast_shapes() -> None:
    assert broadcast_shapes((4, 8), (8,)) == (4, 8)
    assert broadcast_shapes((4, 1), (1, 5)) == (4, 5)
    assert broadcast_shapes((4, 8), (4,), (0,)) == (4, 8)
    assert broadcast_shapes((-1, 8), (8,)) == (-1, 8)
    with pytest.raises(VerifyException, match="cannot broadcast sizes 3 and 4"):
        broadcast_shapes((3,), (4,))
    m = parse("""
    func.func @f(%a: tensor<4x8xf32>, %b: tensor<4xf32>) -> tensor<4x8xf32> {
      %0 = chlo.broadcast_add %a, %b {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
      return %0 : tensor<4x8xf32>
    }""")
    assert only(m, BroadcastAddOp).broadcast_dimensions == (0,)


def test_convenience_builders_infer_result_types() -> None:
    from xdsl.dialects.func import FuncOp, ReturnOp
    from xdsl.dialects.builtin import i32

    from qcomp.dialects.stablehlo.attrs import DotDimensionNumbersAttr

    t = TensorType(f32, [2, 3])
    func = FuncOp("f", ([t, t], []))
    a, b = func.body.block.args
    ops = [
        sh.CompareOp(a, b, "GT", "FLOAT"),
        sh.TransposeOp(a, [1, 0]),
        sh.ConcatenateOp([a, b], 1),
        sh.SliceOp(a, [0, 1], [2, 3], [1, 2]),
        sh.DotGeneralOp(a, b, DotDimensionNumbersAttr.get([], [], [1], [1]), TensorType(f32, [2, 2])),
        sh.IotaOp(1, TensorType(i32, [2, 3])),
        sh.ReducePrecisionOp(a, 5, 10),
    ]
    ops.append(sh.SelectOp(ops[0].result, a, b))
    ops.append(sh.ClampOp(a, b, a))
    ops.append(sh.BroadcastInDimOp(ops[5].output, [0, 1], TensorType(i32, [2, 3])))
    func.body.block.add_ops([*ops, ReturnOp()])
    module = ModuleOp([func])
    module.verify()
    lines = [line.strip().split(" = ", 1)[-1] for line in text_of(module).splitlines()[2:12]]
    assert lines == [
        "stablehlo.compare GT, %0, %1, FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>",
        "stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>",
        "stablehlo.concatenate %0, %1, dim = 1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>",
        "stablehlo.slice %0 [0:2, 1:3:2] : (tensor<2x3xf32>) -> tensor<2x1xf32>",
        "stablehlo.dot_general %0, %1, contracting_dims = [1] x [1] : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x2xf32>",
        "stablehlo.iota dim = 1 : tensor<2x3xi32>",
        "stablehlo.reduce_precision %0, format = e5m10 : tensor<2x3xf32>",
        "stablehlo.select %2, %0, %1 : tensor<2x3xi1>, tensor<2x3xf32>",
        "stablehlo.clamp %0, %1, %0 : tensor<2x3xf32>",
        "stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<2x3xi32>) -> tensor<2x3xi32>",
    ]
