// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file | FileCheck %s

// Conv is stablehlo.convolution in ONNX's layout ([b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]),
// its pads resolved (auto_pad SAME_* computed from the shapes), group as
// feature_group_count, the bias broadcast along the feature dimension and added.

// CHECK-LABEL: func.func @conv_pads_bias
// CHECK-SAME:    (%[[X:.*]]: tensor<1x1x5x5xf32>, %[[W:.*]]: tensor<2x1x3x3xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK-NEXT{LITERAL}: %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x1x5x5xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x5x5xf32>
// CHECK-NEXT:    %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1] : (tensor<2xf32>) -> tensor<1x2x5x5xf32>
// CHECK-NEXT:    stablehlo.add %0, %[[BB]] : tensor<1x2x5x5xf32>
func.func @conv_pads_bias(%x: tensor<1x1x5x5xf32>, %w: tensor<2x1x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x5x5xf32> {
  %0 = "onnx.Conv"(%x, %w, %b) {auto_pad = "NOTSET", kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : (tensor<1x1x5x5xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

// SAME_UPPER with stride 2 on 6 columns: 3 outputs, one column of padding, at the end.

// CHECK-LABEL: func.func @conv_same_upper_grouped
// CHECK-NEXT{LITERAL}: stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [2, 2], pad = [[0, 1], [0, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32>
// CHECK-NOT:     stablehlo.add
func.func @conv_same_upper_grouped(%x: tensor<1x4x6x6xf32>, %w: tensor<4x2x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.Conv"(%x, %w, %none) {auto_pad = "SAME_UPPER", group = 2 : si64, strides = [2, 2]} : (tensor<1x4x6x6xf32>, tensor<4x2x3x3xf32>, none) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

// MatMul of two matrices is stablehlo.dot; with batch dimensions the operands are
// broadcast to the common batch and contracted by dot_general.

// CHECK-LABEL: func.func @matmul_2d
// CHECK-NEXT:    stablehlo.dot %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_batch_broadcast
// CHECK-NEXT:    %[[B:.*]] = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<8x16xf32>) -> tensor<100x8x16xf32>
// CHECK-NEXT:    stablehlo.dot_general %arg0, %[[B]], batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<100x4x8xf32>, tensor<100x8x16xf32>) -> tensor<100x4x16xf32>
func.func @matmul_batch_broadcast(%a: tensor<100x4x8xf32>, %b: tensor<8x16xf32>) -> tensor<100x4x16xf32> {
  %0 = "onnx.MatMul"(%a, %b) : (tensor<100x4x8xf32>, tensor<8x16xf32>) -> tensor<100x4x16xf32>
  return %0 : tensor<100x4x16xf32>
}

// -----

// Gemm: transposes for transA / transB, dot, alpha and beta as multiplications (left
// out when 1.0), C broadcast to the result.

// CHECK-LABEL: func.func @gemm_trans_alpha_beta
// CHECK-NEXT:    %[[AT:.*]] = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<5x10xf32>) -> tensor<10x5xf32>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.dot %[[AT]], %arg1 : (tensor<10x5xf32>, tensor<5x10xf32>) -> tensor<10x10xf32>
// CHECK-NEXT:    %[[AL:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<10x10xf32>
// CHECK-NEXT:    %[[DA:.*]] = stablehlo.multiply %[[D]], %[[AL]] : tensor<10x10xf32>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<10xf32>) -> tensor<10x10xf32>
// CHECK-NEXT:    %[[BE:.*]] = stablehlo.constant dense<3.000000e+00> : tensor<10x10xf32>
// CHECK-NEXT:    %[[CB:.*]] = stablehlo.multiply %[[C]], %[[BE]] : tensor<10x10xf32>
// CHECK-NEXT:    stablehlo.add %[[DA]], %[[CB]] : tensor<10x10xf32>
func.func @gemm_trans_alpha_beta(%a: tensor<5x10xf32>, %b: tensor<5x10xf32>, %c: tensor<10xf32>) -> tensor<10x10xf32> {
  %0 = "onnx.Gemm"(%a, %b, %c) {alpha = 2.0 : f32, beta = 3.0 : f32, transA = 1 : si64, transB = 0 : si64} : (tensor<5x10xf32>, tensor<5x10xf32>, tensor<10xf32>) -> tensor<10x10xf32>
  return %0 : tensor<10x10xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_bias_none
// CHECK-NEXT:    %[[D:.*]] = stablehlo.dot %arg0, %arg1 : (tensor<10x5xf32>, tensor<5x10xf32>) -> tensor<10x10xf32>
// CHECK-NEXT:    return %[[D]]
func.func @gemm_bias_none(%a: tensor<10x5xf32>, %b: tensor<5x10xf32>) -> tensor<10x10xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.Gemm"(%a, %b, %none) : (tensor<10x5xf32>, tensor<5x10xf32>, none) -> tensor<10x10xf32>
  return %0 : tensor<10x10xf32>
}
