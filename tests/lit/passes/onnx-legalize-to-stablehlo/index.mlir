// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --verify-numerics=8 --split-input-file | FileCheck %s

// TopK, ArgMax, CumSum, GatherElements, InstanceNormalization, LeakyRelu: each as its
// declared lowering builds it; --verify-numerics runs the onnx op (in the interpreter,
// as these steps) and the StableHLO on the same drawn inputs: the same bits.

// TopK: a stable sort of (X, iota) along the axis (X_a < X_b first for largest = 0),
// then the first K of both.

// CHECK-LABEL: func.func @top_k
// CHECK:         %[[I:.*]] = stablehlo.iota dim = 0 : tensor<5x3xi64>
// CHECK:         %[[S:.*]]:2 = "stablehlo.sort"(%arg0, %[[I]]) <{dimension = 0 : i64, is_stable = true}> ({
// CHECK:           stablehlo.compare LT, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:         stablehlo.slice %[[S]]#0 [0:2, 0:3]
// CHECK:         stablehlo.slice %[[S]]#1 [0:2, 0:3]
// CHECK-NOT:     onnx.TopK
func.func @top_k(%x: tensor<5x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {
  %k = onnx.Constant dense<[2]> : tensor<1xi64>
  %v, %i = "onnx.TopK"(%x, %k) {axis = 0 : si64, largest = 0 : si64} : (tensor<5x3xf32>, tensor<1xi64>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi64>
}

// -----

// ArgMax: a variadic reduce of (X, iota): the larger value, on a tie the lower index
// (the higher with select_last_index).

// CHECK-LABEL: func.func @arg_max
// CHECK:         stablehlo.reduce(%arg0 init: %{{.*}}), (%{{.*}} init: %{{.*}}) across dimensions = [1]
// CHECK:           stablehlo.compare GT, %{{.*}}, %{{.*}} : (tensor<ui8>, tensor<ui8>) -> tensor<i1>
// CHECK-NOT:     onnx.ArgMax
func.func @arg_max(%x: tensor<2x6xui8>) -> tensor<2x1xi64> {
  %y = "onnx.ArgMax"(%x) {axis = 1 : si64, select_last_index = 1 : si64} : (tensor<2x6xui8>) -> tensor<2x1xi64>
  return %y : tensor<2x1xi64>
}

// -----

// CumSum: reduce_window add over the whole axis, padded before (exclusive: one more,
// then the first n sums); reverse around it for reverse.

// CHECK-LABEL: func.func @cum_sum
// CHECK:         stablehlo.reverse %arg0, dims = [1]
// CHECK:         "stablehlo.reduce_window"
// CHECK-SAME:      padding = dense<{{\[\[}}0, 0], [4, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 1, 4>
// CHECK:         stablehlo.slice %{{.*}} [0:2, 0:4]
// CHECK:         stablehlo.reverse %{{.*}}, dims = [1]
// CHECK-NOT:     onnx.CumSum
func.func @cum_sum(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %a = onnx.Constant dense<-1> : tensor<i32>
  %y = "onnx.CumSum"(%x, %a) {exclusive = 1 : si64, reverse = 1 : si64} : (tensor<2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// GatherElements: every element's full index (iota, the wrapped indices along the
// axis), one gather of single elements.

// CHECK-LABEL: func.func @gather_elements
// CHECK:         stablehlo.concatenate
// CHECK:         "stablehlo.gather"(%arg0, %{{.*}}) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>}>
// CHECK-NOT:     onnx.GatherElements
func.func @gather_elements(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %i = onnx.Constant dense<[[0, -1], [3, 2], [1, -4]]> : tensor<3x2xi64>
  %y = "onnx.GatherElements"(%x, %i) {axis = 1 : si64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @instance_norm_leaky_relu
// CHECK-NOT:     onnx.
func.func @instance_norm_leaky_relu(%x: tensor<2x3x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x5xf32> {
  %y = "onnx.InstanceNormalization"(%x, %s, %b) {epsilon = 0.01 : f32} : (tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>
  %z = "onnx.LeakyRelu"(%y) {alpha = 0.2 : f32} : (tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  return %z : tensor<2x3x5xf32>
}
