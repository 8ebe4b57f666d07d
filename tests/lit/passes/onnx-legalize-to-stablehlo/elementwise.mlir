// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file | FileCheck %s

// Binary ops broadcast NumPy-style: each operand goes through broadcast_in_dim to the
// result shape (trailing dimensions aligned; none when it already has it), then the
// StableHLO op. onnx-mlir builds the shape at run time (shape.const_shape +
// dynamic_broadcast_in_dim); with static shapes that is this broadcast_in_dim.

// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME:    (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.add %[[A]], %[[BB]] : tensor<2x3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "onnx.Add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @sub_mul_div
// CHECK:         stablehlo.subtract
// CHECK:         stablehlo.broadcast_in_dim %{{.*}}, dims = [0, 1] : (tensor<2x1xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    stablehlo.multiply
// CHECK:         stablehlo.divide %{{.*}}, %{{.*}} : tensor<2x3xi32>
func.func @sub_mul_div(%a: tensor<2x3xi32>, %b: tensor<2x1xi32>) -> tensor<2x3xi32> {
  %0 = "onnx.Sub"(%a, %a) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  %1 = "onnx.Mul"(%0, %b) : (tensor<2x3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  %2 = "onnx.Div"(%1, %a) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %2 : tensor<2x3xi32>
}

// -----

// Relu is maximum with a zero constant; Sigmoid is logistic; Tanh is tanh; Identity
// disappears.

// CHECK-LABEL: func.func @activations
// CHECK-SAME:    (%[[X:.*]]: tensor<10x10xf32>)
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<10x10xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.maximum %[[X]], %[[Z]] : tensor<10x10xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.logistic %[[R]] : tensor<10x10xf32>
// CHECK-NEXT:    %[[T:.*]] = stablehlo.tanh %[[S]] : tensor<10x10xf32>
// CHECK-NEXT:    return %[[T]] : tensor<10x10xf32>
func.func @activations(%x: tensor<10x10xf32>) -> tensor<10x10xf32> {
  %0 = "onnx.Relu"(%x) : (tensor<10x10xf32>) -> tensor<10x10xf32>
  %1 = "onnx.Sigmoid"(%0) : (tensor<10x10xf32>) -> tensor<10x10xf32>
  %2 = "onnx.Identity"(%1) : (tensor<10x10xf32>) -> tensor<10x10xf32>
  %3 = "onnx.Tanh"(%2) : (tensor<10x10xf32>) -> tensor<10x10xf32>
  return %3 : tensor<10x10xf32>
}

// -----

// Clip is clamp(min, x, max); an absent bound (onnx.NoValue) is -inf / +inf, or the
// integer type's lowest / highest value.

// CHECK-LABEL: func.func @clip_default_min
// CHECK-SAME:    (%[[X:.*]]: tensor<3xf32>, %[[HI:.*]]: tensor<f32>)
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.clamp %[[LO]], %[[X]], %[[HI]] : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    return %[[R]]
func.func @clip_default_min(%x: tensor<3xf32>, %hi: tensor<f32>) -> tensor<3xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.Clip"(%x, %none, %hi) : (tensor<3xf32>, none, tensor<f32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @clip_default_max_i32
// CHECK:         %[[HI:.*]] = stablehlo.constant dense<2147483647> : tensor<i32>
// CHECK-NEXT:    stablehlo.clamp %{{.*}}, %{{.*}}, %[[HI]] : (tensor<i32>, tensor<3xi32>, tensor<i32>) -> tensor<3xi32>
func.func @clip_default_max_i32(%x: tensor<3xi32>, %lo: tensor<i32>) -> tensor<3xi32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.Clip"(%x, %lo, %none) : (tensor<3xi32>, tensor<i32>, none) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// Softmax in onnx-mlir's decomposed form: the maximum along the axis is subtracted
// before exponential, so large inputs do not overflow.

// CHECK-LABEL: func.func @softmax
// CHECK-SAME:    (%[[X:.*]]: tensor<10x20x30xf32>)
// CHECK:         %[[NINF:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.reduce(%[[X]] init: %[[NINF]]) applies stablehlo.maximum across dimensions = [1] : (tensor<10x20x30xf32>, tensor<f32>) -> tensor<10x30xf32>
// CHECK-NEXT:    %[[MB:.*]] = stablehlo.broadcast_in_dim %[[M]], dims = [0, 2] : (tensor<10x30xf32>) -> tensor<10x20x30xf32>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.subtract %[[X]], %[[MB]] : tensor<10x20x30xf32>
// CHECK-NEXT:    %[[E:.*]] = stablehlo.exponential %[[D]] : tensor<10x20x30xf32>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.reduce(%[[E]] init: %[[Z]]) applies stablehlo.add across dimensions = [1] : (tensor<10x20x30xf32>, tensor<f32>) -> tensor<10x30xf32>
// CHECK-NEXT:    %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [0, 2] : (tensor<10x30xf32>) -> tensor<10x20x30xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.divide %[[E]], %[[SB]] : tensor<10x20x30xf32>
// CHECK-NEXT:    return %[[R]]
func.func @softmax(%x: tensor<10x20x30xf32>) -> tensor<10x20x30xf32> {
  %0 = "onnx.Softmax"(%x) {axis = 1 : si64} : (tensor<10x20x30xf32>) -> tensor<10x20x30xf32>
  return %0 : tensor<10x20x30xf32>
}
