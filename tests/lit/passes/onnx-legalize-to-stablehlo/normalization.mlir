// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file | FileCheck %s

// LayerNormalization's optional results: InvStdDev is 1 / sqrt(var + epsilon), Mean the
// reduced mean, each reshaped to X's shape with the normalized dimensions 1; an absent
// Mean before a present InvStdDev is `none` (its onnx.NoValue goes).

// CHECK-LABEL: func.func @layer_norm_inv_std_dev
// CHECK-SAME:    (%[[X:.*]]: tensor<2x4xf32>, %[[S:.*]]: tensor<4xf32>)
// CHECK:         %[[SQ:.*]] = stablehlo.multiply
// CHECK:         %[[VSUM:.*]] = stablehlo.reduce(%[[SQ]]
// CHECK-NEXT:    %[[VAR:.*]] = stablehlo.divide %[[VSUM]], %{{.*}} : tensor<2xf32>
// CHECK-NEXT:    %[[EPS:.*]] = stablehlo.constant dense<1.000000e-03> : tensor<2xf32>
// CHECK-NEXT:    %[[VE:.*]] = stablehlo.add %[[VAR]], %[[EPS]] : tensor<2xf32>
// CHECK-NEXT:    %[[STD:.*]] = stablehlo.sqrt %[[VE]] : tensor<2xf32>
// CHECK:         %[[Y:.*]] = stablehlo.multiply
// CHECK-NEXT:    %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-NEXT:    %[[INV:.*]] = stablehlo.divide %[[ONE]], %[[STD]] : tensor<2xf32>
// CHECK-NEXT:    %[[INVR:.*]] = stablehlo.reshape %[[INV]] : (tensor<2xf32>) -> tensor<2x1xf32>
// CHECK-NEXT:    return %[[Y]], %[[INVR]]
func.func @layer_norm_inv_std_dev(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2x1xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  %0:3 = "onnx.LayerNormalization"(%x, %s, %none) {epsilon = 1.000000e-03 : f32} : (tensor<2x4xf32>, tensor<4xf32>, none) -> (tensor<2x4xf32>, none, tensor<2x1xf32>)
  return %0#0, %0#2 : tensor<2x4xf32>, tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_mean
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3x4xf32>, %[[S:.*]]: tensor<3x4xf32>)
// CHECK:         %[[SUM:.*]] = stablehlo.reduce(%[[X]] init: %{{.*}}) applies stablehlo.add across dimensions = [1, 2] : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[MEAN:.*]] = stablehlo.divide %[[SUM]], %{{.*}} : tensor<2xf32>
// CHECK:         %[[MEANR:.*]] = stablehlo.reshape %[[MEAN]] : (tensor<2xf32>) -> tensor<2x1x1xf32>
// CHECK-NEXT:    return %{{.*}}, %[[MEANR]]
// CHECK-NOT:     onnx.
func.func @layer_norm_mean(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  %0:2 = "onnx.LayerNormalization"(%x, %s, %none) {axis = 1 : si64} : (tensor<2x3x4xf32>, tensor<3x4xf32>, none) -> (tensor<2x3x4xf32>, tensor<2x1x1xf32>)
  return %0#0, %0#1 : tensor<2x3x4xf32>, tensor<2x1x1xf32>
}
