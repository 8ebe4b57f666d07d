// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file | FileCheck %s

// rescale=float, the ops other than quantize/dequantize and dot/convolution.

// add (and every arithmetic op) is the spec's dequantize -> float op -> quantize:
// x = f32(q - z) * s per operand, the f32 add, q = round(clamp(x / s_res + z_res)).

// CHECK-LABEL: func.func @add(%arg0: tensor<4xi8>, %arg1: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         %[[L:.*]] = stablehlo.multiply %{{.*}} : tensor<4xf32>
// CHECK:         stablehlo.constant dense<2.500000e-01> : tensor<f32>
// CHECK:         %[[R:.*]] = stablehlo.multiply %{{.*}} : tensor<4xf32>
// CHECK:         %[[S:.*]] = stablehlo.add %[[L]], %[[R]] : tensor<4xf32>
// CHECK:         stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         stablehlo.divide %[[S]], %{{.*}} : tensor<4xf32>
// CHECK:         stablehlo.constant dense<3.000000e+00> : tensor<f32>
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi8>

func.func @add(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>> {
  %0 = stablehlo.add %arg0, %arg1 : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>, tensor<4x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 1.0:3>>
}

// -----

// A unary op into another type, and compare (an i1 result is not quantized).

// CHECK-LABEL: func.func @tanh_compare(%arg0: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi1>)
// CHECK:         %[[X:.*]] = stablehlo.multiply %{{.*}} : tensor<4xf32>
// CHECK:         %[[T:.*]] = stablehlo.tanh %[[X]] : tensor<4xf32>
// CHECK:         stablehlo.constant dense<0.00999999977> : tensor<f32>
// CHECK:         stablehlo.divide %[[T]], %{{.*}} : tensor<4xf32>
// CHECK:         %[[Q:.*]] = stablehlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi8>
// CHECK:         %[[C:.*]] = stablehlo.compare GT, %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK:         return %[[Q]], %[[C]] : tensor<4xi8>, tensor<4xi1>

func.func @tanh_compare(%arg0: tensor<4x!quant.uniform<i8:f32, 0.05:1>>) -> (tensor<4x!quant.uniform<i8:f32, 0.01>>, tensor<4xi1>) {
  %0 = stablehlo.tanh %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.05:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.01>>
  %1 = stablehlo.compare GT, %arg0, %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.05:1>>, tensor<4x!quant.uniform<i8:f32, 0.05:1>>) -> tensor<4xi1>
  func.return %0, %1 : tensor<4x!quant.uniform<i8:f32, 0.01>>, tensor<4xi1>
}

// -----

// Ops that only move values, and maximum / minimum / select whose quantized types
// are all the same, keep the stored integers: only the types change.

// CHECK-LABEL: func.func @type_only(%arg0: tensor<2x3xi8>, %arg1: tensor<2x3xi8>, %arg2: tensor<2x3xi1>) -> tensor<3x4xi8>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.maximum %arg0, %arg1 : tensor<2x3xi8>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.select %arg2, %[[M]], %arg1 : tensor<2x3xi1>, tensor<2x3xi8>
// CHECK-NEXT:    %[[T:.*]] = stablehlo.transpose %[[S]], dims = [1, 0] : (tensor<2x3xi8>) -> tensor<3x2xi8>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.concatenate %[[T]], %[[T]], dim = 1 : (tensor<3x2xi8>, tensor<3x2xi8>) -> tensor<3x4xi8>
// CHECK-NEXT:    return %[[C]] : tensor<3x4xi8>

func.func @type_only(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %arg2: tensor<2x3xi1>) -> tensor<3x4x!quant.uniform<i8:f32, 0.5:1>> {
  %0 = stablehlo.maximum %arg0, %arg1 : tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>
  %1 = stablehlo.select %arg2, %0, %arg1 : tensor<2x3xi1>, tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>
  %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>
  %3 = stablehlo.concatenate %2, %2, dim = 1 : (tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x2x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<3x4x!quant.uniform<i8:f32, 0.5:1>>
  func.return %3 : tensor<3x4x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

// maximum with different operand parameters is dequantize -> max -> quantize.

// CHECK-LABEL: func.func @maximum_different_params
// CHECK:         %[[M:.*]] = stablehlo.maximum %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK:         stablehlo.divide %[[M]]
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi8>

func.func @maximum_different_params(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>> {
  %0 = stablehlo.maximum %arg0, %arg1 : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>, tensor<4x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

// Region ops: block arguments take the storage type too.

// CHECK-LABEL: func.func @reduce_window_max(%arg0: tensor<4xi8>, %arg1: tensor<i8>) -> tensor<2xi8>
// CHECK:         "stablehlo.reduce_window"(%arg0, %arg1)
// CHECK-NEXT:    ^bb0(%arg2: tensor<i8>, %arg3: tensor<i8>):
// CHECK-NEXT:      %[[M:.*]] = stablehlo.maximum %arg2, %arg3 : tensor<i8>
// CHECK-NEXT:      stablehlo.return %[[M]] : tensor<i8>
// CHECK:         }) : (tensor<4xi8>, tensor<i8>) -> tensor<2xi8>

func.func @reduce_window_max(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:1>>, %init: tensor<!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:1>> {
  %0 = "stablehlo.reduce_window"(%arg0, %init) ({
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<!quant.uniform<i8:f32, 0.5:1>>):
    %m = stablehlo.maximum %a, %b : tensor<!quant.uniform<i8:f32, 0.5:1>>
    stablehlo.return %m : tensor<!quant.uniform<i8:f32, 0.5:1>>
  }) {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>} : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>, tensor<!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  func.return %0 : tensor<2x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

// Calls and declarations take storage types at the function boundary.

// CHECK-LABEL: func.func @call_boundary(%arg0: tensor<4xi8>) -> tensor<4xi8>
// CHECK-NEXT:    %[[R:.*]] = call @callee(%arg0) : (tensor<4xi8>) -> tensor<4xi8>
// CHECK-NEXT:    return %[[R]] : tensor<4xi8>
// CHECK:       func.func private @callee(tensor<4xi8>) -> tensor<4xi8>

func.func @call_boundary(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>> {
  %0 = func.call @callee(%arg0) : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
}
func.func private @callee(tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>>
