// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file --verify-diagnostics | FileCheck %s

// The conversion is partial, as onnx-mlir's: an op it cannot lower (here a dynamic
// shape) stays, with a remark saying why; the ops around it are lowered.

// CHECK-LABEL: func.func @dynamic_stays
// CHECK:         "onnx.Relu"(%arg0) : (tensor<?x10xf32>) -> tensor<?x10xf32>
// CHECK:         stablehlo.logistic
func.func @dynamic_stays(%x: tensor<?x10xf32>, %y: tensor<10xf32>) -> (tensor<?x10xf32>, tensor<10xf32>) {
  // expected-remark @+1 {{onnx-legalize-to-stablehlo: 'onnx.Relu' needs static shapes, got 'tensor<?x10xf32>'}}
  %0 = "onnx.Relu"(%x) : (tensor<?x10xf32>) -> tensor<?x10xf32>
  %1 = "onnx.Sigmoid"(%y) : (tensor<10xf32>) -> tensor<10xf32>
  return %0, %1 : tensor<?x10xf32>, tensor<10xf32>
}

// -----

// CHECK-LABEL: func.func @storage_order
// CHECK:         "onnx.MaxPoolSingleOut"
func.func @storage_order(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-remark @+1 {{storage_order = 1 (column-major Indices) is not lowered}}
  %0 = "onnx.MaxPoolSingleOut"(%x) {kernel_shape = [2, 2], strides = [2, 2], storage_order = 1 : si64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic_operand
// CHECK:         "onnx.MatMul"
func.func @dynamic_operand(%a: tensor<?x4xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  // expected-remark @+1 {{onnx-legalize-to-stablehlo: 'onnx.MatMul' needs static shapes, got 'tensor<?x4xf32>'}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<?x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
