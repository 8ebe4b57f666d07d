// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file | FileCheck %s

// Reshape, Flatten, Squeeze and Unsqueeze are stablehlo.reshape to the result's static
// shape; the shape / axes constants (now stablehlo.constant) are left for DCE.

// CHECK-LABEL: func.func @reshapes
// CHECK:         %[[R:.*]] = stablehlo.reshape %arg0 : (tensor<5x5x1x32xf32>) -> tensor<25x32xf32>
// CHECK:         %[[S:.*]] = stablehlo.reshape %[[R]] : (tensor<25x32xf32>) -> tensor<25x1x32xf32>
// CHECK:         %[[Q:.*]] = stablehlo.reshape %[[S]] : (tensor<25x1x32xf32>) -> tensor<25x32xf32>
// CHECK:         stablehlo.reshape %[[Q]] : (tensor<25x32xf32>) -> tensor<800xf32>
func.func @reshapes(%x: tensor<5x5x1x32xf32>) -> tensor<800xf32> {
  %0 = "onnx.Flatten"(%x) {axis = -2 : si64} : (tensor<5x5x1x32xf32>) -> tensor<25x32xf32>
  %axes = onnx.Constant dense<[1]> : tensor<1xi64>
  %1 = "onnx.Unsqueeze"(%0, %axes) : (tensor<25x32xf32>, tensor<1xi64>) -> tensor<25x1x32xf32>
  %2 = "onnx.Squeeze"(%1, %axes) : (tensor<25x1x32xf32>, tensor<1xi64>) -> tensor<25x32xf32>
  %shape = onnx.Constant dense<[-1]> : tensor<1xi64>
  %3 = "onnx.Reshape"(%2, %shape) {allowzero = 0 : si64} : (tensor<25x32xf32>, tensor<1xi64>) -> tensor<800xf32>
  return %3 : tensor<800xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_concat
// CHECK-NEXT:    %[[T:.*]] = stablehlo.transpose %arg0, dims = [2, 1, 0] : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT:    stablehlo.concatenate %[[T]], %arg1, dim = 2 : (tensor<4x3x2xf32>, tensor<4x3x1xf32>) -> tensor<4x3x3xf32>
func.func @transpose_concat(%x: tensor<2x3x4xf32>, %y: tensor<4x3x1xf32>) -> tensor<4x3x3xf32> {
  %0 = "onnx.Transpose"(%x) : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = "onnx.Concat"(%0, %y) {axis = -1 : si64} : (tensor<4x3x2xf32>, tensor<4x3x1xf32>) -> tensor<4x3x3xf32>
  return %1 : tensor<4x3x3xf32>
}

// -----

// Gather: negative indices are moved up by the dimension's size (onnx-mlir's compare,
// add, select), then stablehlo.gather takes one slice per index along the axis.

// CHECK-LABEL: func.func @gather_axis1
// CHECK:         %[[I:.*]] = stablehlo.constant dense<{{\[}}[0, -1]]> : tensor<1x2xi64>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0> : tensor<1x2xi64>
// CHECK-NEXT:    %[[NEG:.*]] = stablehlo.compare LT, %[[I]], %[[Z]] : (tensor<1x2xi64>, tensor<1x2xi64>) -> tensor<1x2xi1>
// CHECK-NEXT:    %[[N:.*]] = stablehlo.constant dense<3> : tensor<1x2xi64>
// CHECK-NEXT:    %[[UP:.*]] = stablehlo.add %[[I]], %[[N]] : tensor<1x2xi64>
// CHECK-NEXT:    %[[SEL:.*]] = stablehlo.select %[[NEG]], %[[UP]], %[[I]] : tensor<1x2xi1>, tensor<1x2xi64>
// CHECK-NEXT:    %[[IX:.*]] = stablehlo.reshape %[[SEL]] : (tensor<1x2xi64>) -> tensor<1x2x1xi64>
// CHECK-NEXT:    "stablehlo.gather"(%arg0, %[[IX]]) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 2, 1>}> : (tensor<2x3xf32>, tensor<1x2x1xi64>) -> tensor<2x1x2xf32>
func.func @gather_axis1(%x: tensor<2x3xf32>) -> tensor<2x1x2xf32> {
  %i = onnx.Constant dense<[[0, -1]]> : tensor<1x2xi64>
  %0 = "onnx.Gather"(%x, %i) {axis = 1 : si64} : (tensor<2x3xf32>, tensor<1x2xi64>) -> tensor<2x1x2xf32>
  return %0 : tensor<2x1x2xf32>
}
