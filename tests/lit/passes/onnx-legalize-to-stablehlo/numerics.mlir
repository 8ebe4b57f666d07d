// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --verify-numerics=8 | FileCheck %s

// --verify-numerics runs the interpreter on the onnx ops before the pass and on the
// StableHLO after it, on the same drawn inputs: the lowering gives the same bits (each
// onnx op runs in the interpreter as the StableHLO steps it becomes).

// CHECK-LABEL: func.func @conv_relu_pool_matmul_softmax
// CHECK-NOT:     onnx.
func.func @conv_relu_pool_matmul_softmax(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %m: tensor<16x5xf32>, %c: tensor<5xf32>) -> (tensor<1x4x5xf32>, tensor<1x4x4xf32>) {
  %0 = "onnx.Conv"(%x, %w, %b) {kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  %1 = "onnx.Relu"(%0) : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = "onnx.AveragePool"(%1) {kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1], ceil_mode = 1 : si64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  %3 = "onnx.MaxPoolSingleOut"(%1) {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %s = onnx.Constant dense<[1, 4, 16]> : tensor<3xi64>
  %4 = "onnx.Reshape"(%3, %s) : (tensor<1x4x4x4xf32>, tensor<3xi64>) -> tensor<1x4x16xf32>
  %5 = "onnx.MatMul"(%4, %m) : (tensor<1x4x16xf32>, tensor<16x5xf32>) -> tensor<1x4x5xf32>
  %6 = "onnx.Add"(%5, %c) : (tensor<1x4x5xf32>, tensor<5xf32>) -> tensor<1x4x5xf32>
  %7 = "onnx.Softmax"(%6) {axis = 1 : si64} : (tensor<1x4x5xf32>) -> tensor<1x4x5xf32>
  %8 = "onnx.GlobalAveragePool"(%2) : (tensor<1x4x5x5xf32>) -> tensor<1x4x1x1xf32>
  %9 = "onnx.Flatten"(%8) {axis = 1 : si64} : (tensor<1x4x1x1xf32>) -> tensor<1x4xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %10 = "onnx.Gemm"(%9, %9, %none) {alpha = 0.5 : f32, transA = 1 : si64} : (tensor<1x4xf32>, tensor<1x4xf32>, none) -> tensor<4x4xf32>
  %11 = "onnx.Tanh"(%10) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %i = onnx.Constant dense<[2, -1]> : tensor<2xi64>
  %12 = "onnx.Gather"(%7, %i) {axis = 2 : si64} : (tensor<1x4x5xf32>, tensor<2xi64>) -> tensor<1x4x2xf32>
  %13 = "onnx.Transpose"(%12) {perm = [0, 2, 1]} : (tensor<1x4x2xf32>) -> tensor<1x2x4xf32>
  %14 = "onnx.Sigmoid"(%13) : (tensor<1x2x4xf32>) -> tensor<1x2x4xf32>
  %15 = "onnx.Concat"(%14, %14) {axis = 1 : si64} : (tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> tensor<1x4x4xf32>
  %16 = "onnx.Div"(%15, %11) : (tensor<1x4x4xf32>, tensor<4x4xf32>) -> tensor<1x4x4xf32>
  return %7, %16 : tensor<1x4x5xf32>, tensor<1x4x4xf32>
}
