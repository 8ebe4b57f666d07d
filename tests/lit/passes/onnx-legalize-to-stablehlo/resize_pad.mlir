// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file | FileCheck %s

// Pad (constant) is one stablehlo.pad with the constant_value as its padding value.

// CHECK-LABEL: func.func @pad_constant
// CHECK:         %[[V:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    stablehlo.pad %arg0, %[[V]], low = [0, 1], high = [1, 2], interior = [0, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
func.func @pad_constant(%x: tensor<2x3xf32>) -> tensor<3x6xf32> {
  %p = onnx.Constant dense<[0, 1, 1, 2]> : tensor<4xi64>
  %v = onnx.Constant dense<5.000000e-01> : tensor<f32>
  %n = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.Pad"(%x, %p, %v, %n) {mode = "constant"} : (tensor<2x3xf32>, tensor<4xi64>, tensor<f32>, none) -> tensor<3x6xf32>
  return %0 : tensor<3x6xf32>
}

// -----

// Pad (reflect, edge, wrap) gathers the source index of each output element per
// padded axis (axes = [-1]: the last one).

// CHECK-LABEL: func.func @pad_reflect
// CHECK:         %[[I:.*]] = stablehlo.constant dense<{{\[}}[1], [0], [1], [2], [1]]> : tensor<5x1xi64>
// CHECK-NEXT:    "stablehlo.gather"(%arg0, %[[I]]) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 2, 1>}> : (tensor<2x3xf32>, tensor<5x1xi64>) -> tensor<2x5xf32>
func.func @pad_reflect(%x: tensor<2x3xf32>) -> tensor<2x5xf32> {
  %p = onnx.Constant dense<[1, 1]> : tensor<2xi64>
  %a = onnx.Constant dense<[-1]> : tensor<1xi64>
  %n = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.Pad"(%x, %p, %n, %a) {mode = "reflect"} : (tensor<2x3xf32>, tensor<2xi64>, none, tensor<1xi64>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Resize (nearest) is a gather per resized axis (asymmetric, floor: 0, 0, 1, 1).

// CHECK-LABEL: func.func @resize_nearest
// CHECK:         %[[I:.*]] = stablehlo.constant dense<{{\[}}[0], [0], [1], [1]]> : tensor<4x1xi64>
// CHECK-NEXT:    %[[H:.*]] = "stablehlo.gather"(%arg0, %[[I]]) {{.*}} -> tensor<1x1x4x2xf32>
// CHECK:         "stablehlo.gather"(%[[H]], {{.*}} -> tensor<1x1x4x4xf32>
func.func @resize_nearest(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %s = onnx.Constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %n = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.Resize"(%x, %n, %s, %n) {coordinate_transformation_mode = "asymmetric", mode = "nearest", nearest_mode = "floor"} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Resize (linear, half_pixel) adds its two taps' gathers times their weights.

// CHECK-LABEL: func.func @resize_linear
// CHECK:         %[[W0:.*]] = stablehlo.constant dense<[2.500000e-01, 7.500000e-01, 2.500000e-01, 7.500000e-01]> : tensor<4xf32>
// CHECK-NEXT:    %[[B0:.*]] = stablehlo.broadcast_in_dim %[[W0]], dims = [3]
// CHECK-NEXT:    %[[I0:.*]] = stablehlo.constant dense<{{\[}}[0], [0], [0], [1]]> : tensor<4x1xi64>
// CHECK-NEXT:    %[[G0:.*]] = "stablehlo.gather"(%arg0, %[[I0]])
// CHECK-NEXT:    %[[T0:.*]] = stablehlo.multiply %[[G0]], %[[B0]] : tensor<1x1x1x4xf32>
// CHECK:         %[[I1:.*]] = stablehlo.constant dense<{{\[}}[0], [1], [1], [1]]> : tensor<4x1xi64>
// CHECK-NEXT:    %[[G1:.*]] = "stablehlo.gather"(%arg0, %[[I1]])
// CHECK-NEXT:    %[[T1:.*]] = stablehlo.multiply %[[G1]], %{{.*}} : tensor<1x1x1x4xf32>
// CHECK-NEXT:    stablehlo.add %[[T0]], %[[T1]] : tensor<1x1x1x4xf32>
func.func @resize_linear(%x: tensor<1x1x1x2xf32>) -> tensor<1x1x1x4xf32> {
  %z = onnx.Constant dense<[1, 1, 1, 4]> : tensor<4xi64>
  %n = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.Resize"(%x, %n, %n, %z) {mode = "linear"} : (tensor<1x1x1x2xf32>, none, none, tensor<4xi64>) -> tensor<1x1x1x4xf32>
  return %0 : tensor<1x1x1x4xf32>
}

// -----

// ConvTranspose is a convolution of the reversed kernel ([i, o, 0, 1]) with the
// strides as lhs_dilate and padding (k - 1) * d - pad (+ output_padding at the end).

// CHECK-LABEL: func.func @conv_transpose
// CHECK:         %[[R1:.*]] = stablehlo.reverse %arg1, dims = [2, 3] : tensor<2x3x2x2xf32>
// CHECK-NEXT:    stablehlo.convolution(%arg0, %[[R1]]) dim_numbers = [b, f, 0, 1]x[i, o, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = {{\[}}[1, 2], [1, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x3x3xf32>, tensor<2x3x2x2xf32>) -> tensor<1x3x7x7xf32>
func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x2x2xf32>) -> tensor<1x3x7x7xf32> {
  %n = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.ConvTranspose"(%x, %w, %n) {strides = [2, 2], output_padding = [1, 1]} : (tensor<1x2x3x3xf32>, tensor<2x3x2x2xf32>, none) -> tensor<1x3x7x7xf32>
  return %0 : tensor<1x3x7x7xf32>
}

// -----

// Grouped: the kernel C x M/g x K becomes M x C/g x K (reshape, transpose, reshape).

// CHECK-LABEL: func.func @conv_transpose_group
// CHECK:         %[[R:.*]] = stablehlo.reverse %arg1, dims = [2, 3] : tensor<4x1x3x3xf32>
// CHECK-NEXT:    %[[A:.*]] = stablehlo.reshape %[[R]] : (tensor<4x1x3x3xf32>) -> tensor<2x2x1x3x3xf32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.transpose %[[A]], dims = [0, 2, 1, 3, 4] : (tensor<2x2x1x3x3xf32>) -> tensor<2x1x2x3x3xf32>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.reshape %[[B]] : (tensor<2x1x2x3x3xf32>) -> tensor<2x2x3x3xf32>
// CHECK-NEXT:    stablehlo.convolution(%arg0, %[[C]]) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = {{\[}}[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64}
func.func @conv_transpose_group(%x: tensor<1x4x3x3xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %n = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.ConvTranspose"(%x, %w, %n) {group = 2 : si64, pads = [1, 1, 1, 1]} : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>, none) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
