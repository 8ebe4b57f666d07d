// RUN: qcomp-opt %s --stablehlo-legalize-qdq-to-quantized-op --split-input-file | FileCheck %s

// stablehlo-legalize-qdq-to-quantized-op fuses
//   uniform_dequantize -> float op -> uniform_quantize
// into the op on quantized types, which by the spec means exactly
// quantize(op(dequantize(...))). The float op and dequantizes that become dead are
// removed. This file shows the fusions; refusals.mlir the cases left alone.

// An elementwise op on per-tensor types (u8 storage).

// CHECK-LABEL: func.func @abs
// CHECK-NEXT:    %[[R:.*]] = stablehlo.abs %arg0 : tensor<16x16x!quant.uniform<u8:f32, 3.400000e+01:16>>
// CHECK-NEXT:    return %[[R]]
func.func @abs(%arg0: tensor<16x16x!quant.uniform<u8:f32, 34.0:16>>) -> tensor<16x16x!quant.uniform<u8:f32, 34.0:16>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<16x16x!quant.uniform<u8:f32, 34.0:16>>) -> tensor<16x16xf32>
  %1 = stablehlo.abs %0 : tensor<16x16xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<16x16xf32>) -> tensor<16x16x!quant.uniform<u8:f32, 34.0:16>>
  func.return %2 : tensor<16x16x!quant.uniform<u8:f32, 34.0:16>>
}

// -----

// A binary op whose operands and result have different scales and zero points:
// allowed, only storage type, storage range and expressed type must agree.

// CHECK-LABEL: func.func @multiply_different_params
// CHECK-NEXT:    %[[R:.*]] = stablehlo.multiply %arg0, %arg1 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<4x!quant.uniform<i8:f32, 2.500000e-01:-2>>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e+00:3>>
// CHECK-NEXT:    return %[[R]]
func.func @multiply_different_params(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<4x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>>
  func.return %3 : tensor<4x!quant.uniform<i8:f32, 1.0:3>>
}

// -----

// add is the one elementwise op that takes per-axis types: result per-axis on the
// same dimension as its per-axis operand (spec add C5-C7).

// CHECK-LABEL: func.func @add_per_axis
// CHECK-NEXT:    %[[R:.*]] = stablehlo.add %arg0, %arg1 : (tensor<2x3x!quant.uniform<i8:f32:1, {{.*}}>>, tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {{.*}}>>
// CHECK-NEXT:    return %[[R]]
func.func @add_per_axis(%arg0: tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>, %arg1: tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 0.5, 2.0}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>) -> tensor<2x3xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x3xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 0.5, 2.0}>>
  func.return %3 : tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 0.5, 2.0}>>
}

// -----

// dot_general with a per-axis rhs (zero points 0, quantized along its output
// dimension 1, which becomes result dimension 1) and a per-axis i32 result.

// CHECK-LABEL: func.func @dot_general_per_axis
// CHECK-NEXT:    %[[R:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x4x!quant.uniform<i8:f32:1, {{.*}}>>) -> tensor<2x4x!quant.uniform<i32:f32:1, {{.*}}>>
// CHECK-NEXT:    return %[[R]]
func.func @dot_general_per_axis(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0, 2.0}>>) -> tensor<2x4x!quant.uniform<i32:f32:1, {0.25, 0.125, 0.5, 1.0}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x3xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<3x4x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0, 2.0}>>) -> tensor<3x4xf32>
  %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i32:f32:1, {0.25, 0.125, 0.5, 1.0}>>
  func.return %3 : tensor<2x4x!quant.uniform<i32:f32:1, {0.25, 0.125, 0.5, 1.0}>>
}

// -----

// With batching dimensions, rhs dimension 2 lands at result dimension 2 (batch,
// lhs free, rhs free).

// CHECK-LABEL: func.func @dot_general_batching
// CHECK-NEXT:    stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1]
// CHECK-NEXT:    return
func.func @dot_general_batching(%arg0: tensor<2x3x4x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<2x4x5x!quant.uniform<i8:f32:2, {1.0, 1.0, 1.0, 1.0, 2.0}>>) -> tensor<2x3x5x!quant.uniform<i32:f32:2, {0.5, 0.5, 0.5, 0.5, 1.0}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x4x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3x4xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<2x4x5x!quant.uniform<i8:f32:2, {1.0, 1.0, 1.0, 1.0, 2.0}>>) -> tensor<2x4x5xf32>
  %2 = stablehlo.dot_general %0, %1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x3x5xf32>) -> tensor<2x3x5x!quant.uniform<i32:f32:2, {0.5, 0.5, 0.5, 0.5, 1.0}>>
  func.return %3 : tensor<2x3x5x!quant.uniform<i32:f32:2, {0.5, 0.5, 0.5, 0.5, 1.0}>>
}

// -----

// convolution (NHWC x HWIO) with a kernel quantized per output feature (o, the
// kernel's dimension 3) and a per-tensor result.

// CHECK-LABEL: func.func @convolution_per_axis_kernel
// CHECK-NEXT:    %[[R:.*]] = stablehlo.convolution(%arg0, %arg1)
// CHECK-SAME:      -> tensor<1x2x2x2x!quant.uniform<i8:f32, 4.000000e+00>>
// CHECK-NEXT:    return %[[R]]
func.func @convolution_per_axis_kernel(%arg0: tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<2x2x1x2x!quant.uniform<i8:f32:3, {0.5, 0.25}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 4.0>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x3x3x1xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<2x2x1x2x!quant.uniform<i8:f32:3, {0.5, 0.25}>>) -> tensor<2x2x1x2xf32>
  %2 = stablehlo.convolution(%0, %1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x2x2xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 4.0>>
  func.return %3 : tensor<1x2x2x2x!quant.uniform<i8:f32, 4.0>>
}

// -----

// Ops that only move elements keep the stored integers; they fuse when operand
// and result quantization are the same (then QDQ is the identity on them).

// CHECK-LABEL: func.func @reshape_same_params
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<6x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_same_params(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<6x!quant.uniform<i8:f32, 0.5:3>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2x3xf32>
  %1 = stablehlo.reshape %0 : (tensor<2x3xf32>) -> tensor<6xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<6xf32>) -> tensor<6x!quant.uniform<i8:f32, 0.5:3>>
  func.return %2 : tensor<6x!quant.uniform<i8:f32, 0.5:3>>
}

// -----

// A dequantize with other uses stays for them; a chain of QDQ groups fuses link
// by link.

// CHECK-LABEL: func.func @chain_and_shared_dequantize
// CHECK-NEXT:    %[[D:.*]] = stablehlo.uniform_dequantize %arg0
// CHECK-NEXT:    %[[N:.*]] = stablehlo.negate %arg0 : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT:    %[[A:.*]] = stablehlo.abs %[[N]] : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT:    return %[[A]], %[[D]]
func.func @chain_and_shared_dequantize(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4xf32>) {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
  %1 = stablehlo.negate %0 : tensor<4xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  %3 = stablehlo.uniform_dequantize %2 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
  %4 = stablehlo.abs %3 : tensor<4xf32>
  %5 = stablehlo.uniform_quantize %4 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %5, %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4xf32>
}

// -----

// Per-axis data movement: transpose, reshape and broadcast_in_dim fuse when the
// quantized dimension follows the op and every element keeps its scale and zero
// point. Here dimension 0 of the operand becomes dimension 1 of the result.

// CHECK-LABEL: func.func @transpose_per_axis
// CHECK-NEXT:    %[[R:.*]] = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32:0, {{.*}}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {{.*}}>>
// CHECK-NEXT:    return %[[R]]
func.func @transpose_per_axis(%arg0: tensor<2x3x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-1}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-1}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5:1, 0.25:-1}>>) -> tensor<2x3xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<3x2xf32>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-1}>>
  func.return %2 : tensor<3x2x!quant.uniform<i8:f32:1, {0.5:1, 0.25:-1}>>
}

// -----

// broadcast_in_dim of a size-1 quantized dimension repeats its one scale and zero
// point along the broadcast result dimension.

// CHECK-LABEL: func.func @broadcast_in_dim_per_axis
// CHECK-NEXT:    %[[R:.*]] = stablehlo.broadcast_in_dim %arg0, dims = [0, 2]
// CHECK-NEXT:    return %[[R]]
func.func @broadcast_in_dim_per_axis(%arg0: tensor<2x1x!quant.uniform<i8:f32:1, {0.5:2}>>) -> tensor<2x3x3x!quant.uniform<i8:f32:2, {0.5:2, 0.5:2, 0.5:2}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x1x!quant.uniform<i8:f32:1, {0.5:2}>>) -> tensor<2x1xf32>
  %1 = stablehlo.broadcast_in_dim %0, dims = [0, 2] : (tensor<2x1xf32>) -> tensor<2x3x3xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<2x3x3xf32>) -> tensor<2x3x3x!quant.uniform<i8:f32:2, {0.5:2, 0.5:2, 0.5:2}>>
  func.return %2 : tensor<2x3x3x!quant.uniform<i8:f32:2, {0.5:2, 0.5:2, 0.5:2}>>
}

// -----

// reshape keeps the quantized dimension (size 2) with 3 elements before it and 2
// after it in element order: 3x2x2 -> 3x2x1x2, quantized dimension 1 in both.

// CHECK-LABEL: func.func @reshape_per_axis
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %arg0
// CHECK-NEXT:    return %[[R]]
func.func @reshape_per_axis(%arg0: tensor<3x2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<3x2x1x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<3x2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<3x2x2xf32>
  %1 = stablehlo.reshape %0 : (tensor<3x2x2xf32>) -> tensor<3x2x1x2xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<3x2x1x2xf32>) -> tensor<3x2x1x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  func.return %2 : tensor<3x2x1x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
}

// -----

// The float result has another use: the quantized op is created for the
// quantize's users and the float op stays for the other one (as upstream).

// CHECK-LABEL: func.func @float_result_also_used
// CHECK-NEXT:    %[[D:.*]] = stablehlo.uniform_dequantize %arg0
// CHECK-NEXT:    %[[F:.*]] = stablehlo.sqrt %[[D]] : tensor<4xf32>
// CHECK-NEXT:    %[[Q:.*]] = stablehlo.sqrt %arg0 : tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>
// CHECK-NEXT:    return %[[Q]], %[[F]]
func.func @float_result_also_used(%arg0: tensor<4x!quant.uniform<i8:f32, 0.25>>) -> (tensor<4x!quant.uniform<i8:f32, 0.25>>, tensor<4xf32>) {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.25>>) -> tensor<4xf32>
  %1 = stablehlo.sqrt %0 : tensor<4xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.25>>
  func.return %2, %1 : tensor<4x!quant.uniform<i8:f32, 0.25>>, tensor<4xf32>
}

// -----

// Unlike dot_general, the spec does not require convolution's rhs zero points to
// be 0 (StableHLO's conformance tests use -128): this fuses.

// CHECK-LABEL: func.func @convolution_rhs_zero_point
// CHECK-NEXT:    %[[R:.*]] = stablehlo.convolution(%arg0, %arg1)
// CHECK-SAME:      (tensor<1x3x3x1x!quant.uniform<i8:f32, 5.000000e-01:-3>>, tensor<2x2x1x1x!quant.uniform<i8:f32, 2.500000e-01:-128>>) -> tensor<1x2x2x1x!quant.uniform<i32:f32, 1.250000e-01>>
// CHECK-NEXT:    return %[[R]]
func.func @convolution_rhs_zero_point(%arg0: tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:-3>>, %arg1: tensor<2x2x1x1x!quant.uniform<i8:f32, 0.25:-128>>) -> tensor<1x2x2x1x!quant.uniform<i32:f32, 0.125>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x3x3x1xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<2x2x1x1x!quant.uniform<i8:f32, 0.25:-128>>) -> tensor<2x2x1x1xf32>
  %2 = stablehlo.convolution(%0, %1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1x!quant.uniform<i32:f32, 0.125>>
  func.return %3 : tensor<1x2x2x1x!quant.uniform<i32:f32, 0.125>>
}
