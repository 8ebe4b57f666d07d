// RUN: qcomp-opt %s --split-input-file | FileCheck %s
// RUN: qcomp-run %s --split-input-file --print-results | FileCheck %s --check-prefix=RESULT

// ReduceMin / ReduceMax take axes as an input (opset 18: onnx-mlir's onnx.ReduceMin) or
// as the older attribute (onnx-mlir's onnx.ReduceMinV13); an absent axes input reduces
// every axis. Min / Max broadcast; Round is half to even.

// CHECK-LABEL: func.func @reduce_axes_input
func.func @reduce_axes_input() -> tensor<2x1xf32> {
  %x = onnx.Constant dense<[[3.0, -1.0, 2.0], [0.5, 7.0, -4.0]]> : tensor<2x3xf32>
  %axes = onnx.Constant dense<[-1]> : tensor<1xi64>
  // CHECK: "onnx.ReduceMin"(%{{.*}}, %{{.*}}) <{keepdims = 1 : si64}> : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %r = "onnx.ReduceMin"(%x, %axes) {keepdims = 1 : si64} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}
// RESULT: @reduce_axes_input result[0]: 2x1xf32={{\[\[}}-1][-4]]

// -----

// CHECK-LABEL: func.func @reduce_all_axes
func.func @reduce_all_axes() -> tensor<i8> {
  %x = onnx.Constant dense<[[3, -1, 2], [5, 7, -4]]> : tensor<2x3xi8>
  %none = "onnx.NoValue"() {value} : () -> none
  // CHECK: "onnx.ReduceMax"(%{{.*}}, %{{.*}}) <{keepdims = 0 : si64}> : (tensor<2x3xi8>, none) -> tensor<i8>
  %r = "onnx.ReduceMax"(%x, %none) {keepdims = 0 : si64} : (tensor<2x3xi8>, none) -> tensor<i8>
  return %r : tensor<i8>
}
// RESULT: @reduce_all_axes result[0]: i8=7

// -----

// CHECK-LABEL: func.func @reduce_axes_attribute
func.func @reduce_axes_attribute() -> tensor<3xf32> {
  %x = onnx.Constant dense<[[3.0, -1.0, 2.0], [0.5, 7.0, -4.0]]> : tensor<2x3xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  // CHECK: "onnx.ReduceMax"(%{{.*}}, %{{.*}}) <{axes = [0{{( : i64)?}}], keepdims = 0 : si64}>
  %r = "onnx.ReduceMax"(%x, %none) {axes = [0], keepdims = 0 : si64} : (tensor<2x3xf32>, none) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
// RESULT: @reduce_axes_attribute result[0]: 3xf32=[3 7 2]

// -----

// CHECK-LABEL: func.func @min_max_round
func.func @min_max_round() -> (tensor<2x2xf32>, tensor<4xf32>) {
  %a = onnx.Constant dense<[[0.5, 2.5], [-1.5, 3.0]]> : tensor<2x2xf32>
  %b = onnx.Constant dense<[1.0, 0.0]> : tensor<2xf32>
  // CHECK: "onnx.Min"(%{{.*}}, %{{.*}}) : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %m = "onnx.Min"(%a, %b) : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  // CHECK: "onnx.Max"(%{{.*}}) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %n = "onnx.Max"(%m) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %h = onnx.Constant dense<[0.5, 1.5, 2.5, -2.5]> : tensor<4xf32>
  // CHECK: "onnx.Round"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
  %r = "onnx.Round"(%h) : (tensor<4xf32>) -> tensor<4xf32>
  return %n, %r : tensor<2x2xf32>, tensor<4xf32>
}
// RESULT: @min_max_round result[0]: 2x2xf32={{\[\[}}0.5 0][-1.5 0]]
// RESULT: @min_max_round result[1]: 4xf32=[0 2 2 -2]
