// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s

// The float ops of QDQ models in onnx-mlir's generic form: ONNX attributes as properties
// (onnx-mlir's older `{...}` reads into them), i64 arrays without their type, as MLIR
// prints array elements.

// CHECK-LABEL: func.func @cnn
// CHECK:      "onnx.Conv"(%arg0, %arg1, %arg2) <{auto_pad = "NOTSET", group = 1 : si64, kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]}> : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
// CHECK:      "onnx.Relu"(%{{.*}}) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK:      "onnx.MaxPoolSingleOut"(%{{.*}}) <{kernel_shape = [2, 2], strides = [2, 2]}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
// CHECK:      "onnx.Flatten"(%{{.*}}) <{axis = 1 : si64}> : (tensor<1x4x4x4xf32>) -> tensor<1x64xf32>
// CHECK:      "onnx.Gemm"(%{{.*}}, %arg3, %{{.*}}) <{alpha = 1.000000e+00 : f32, beta = 1.000000e+00 : f32, transA = 0 : si64, transB = 1 : si64}> : (tensor<1x64xf32>, tensor<10x64xf32>, none) -> tensor<1x10xf32>
// CHECK:      "onnx.Softmax"(%{{.*}}) <{axis = -1 : si64}> : (tensor<1x10xf32>) -> tensor<1x10xf32>
func.func @cnn(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %m: tensor<10x64xf32>) -> tensor<1x10xf32> {
  %0 = "onnx.Conv"(%x, %w, %b) {auto_pad = "NOTSET", group = 1 : si64, kernel_shape = [3, 3], pads = [1, 1, 1, 1], strides = [1, 1]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %1 = "onnx.Relu"(%0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = "onnx.MaxPoolSingleOut"(%1) <{kernel_shape = [2, 2], strides = [2, 2]}> : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %3 = "onnx.Flatten"(%2) {axis = 1 : si64} : (tensor<1x4x4x4xf32>) -> tensor<1x64xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %4 = "onnx.Gemm"(%3, %m, %none) {alpha = 1.0 : f32, beta = 1.0 : f32, transA = 0 : si64, transB = 1 : si64} : (tensor<1x64xf32>, tensor<10x64xf32>, none) -> tensor<1x10xf32>
  %5 = "onnx.Softmax"(%4) {axis = -1 : si64} : (tensor<1x10xf32>) -> tensor<1x10xf32>
  return %5 : tensor<1x10xf32>
}
