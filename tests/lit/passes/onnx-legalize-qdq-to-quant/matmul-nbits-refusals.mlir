// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --split-input-file --verify-diagnostics | FileCheck %s

// MatMulNBits forms that a sub-channel !quant.uniform cannot express stay as they are,
// with a remark saying why (onnx-legalize-to-stablehlo then leaves them too; qcomp-run
// still computes them, qcomp/quant/onnx_qlinear.py).

// g_idx (GPTQ's act-order) assigns each k its block; unless it is k / block_size, the
// blocks are not contiguous runs of K, which is what the sub-channel type means.

// CHECK-LABEL: func.func @g_idx_reordered
// CHECK:         "onnx.Custom"
func.func @g_idx_reordered(%a: tensor<1x32xf32>) -> tensor<1x2xf32> {
  %b = onnx.Constant dense<[[[33, 33, 33, 33, 33, 33, 33, 33], [67, 67, 67, 67, 67, 67, 67, 67]], [[101, 101, 101, 101, 101, 101, 101, 101], [135, 135, 135, 135, 135, 135, 135, 135]]]> : tensor<2x2x8xui8>
  %s = onnx.Constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %g = onnx.Constant dense<[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : tensor<32xi32>
  // expected-remark @+1 {{onnx-legalize-qdq-to-quant: 'onnx.Custom' (MatMulNBits) stays: g_idx reorders K across blocks (act-order); a sub-channel !quant.uniform's blocks are contiguous runs of block_size}}
  %y = "onnx.Custom"(%a, %b, %s, %none, %g) {function_name = "MatMulNBits", domain_name = "com.microsoft", N = 2 : si64, block_size = 16 : si64, K = 32 : si64, bits = 4 : si64} : (tensor<1x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>, none, tensor<32xi32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// A g_idx equal to k / block_size says nothing more: the op is taken apart.

// CHECK-LABEL: func.func @g_idx_trivial
// CHECK:         quant.scast
// CHECK:         "onnx.MatMul"
// CHECK-NOT:     "onnx.Custom"
func.func @g_idx_trivial(%a: tensor<1x32xf32>) -> tensor<1x2xf32> {
  %b = onnx.Constant dense<[[[33, 33, 33, 33, 33, 33, 33, 33], [67, 67, 67, 67, 67, 67, 67, 67]], [[101, 101, 101, 101, 101, 101, 101, 101], [135, 135, 135, 135, 135, 135, 135, 135]]]> : tensor<2x2x8xui8>
  %s = onnx.Constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %g = onnx.Constant dense<[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]> : tensor<32xi32>
  %y = "onnx.Custom"(%a, %b, %s, %none, %g) {function_name = "MatMulNBits", domain_name = "com.microsoft", N = 2 : si64, block_size = 16 : si64, K = 32 : si64, bits = 4 : si64} : (tensor<1x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>, none, tensor<32xi32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// Zero points in the scales' type may be any float; !quant.uniform's are integers.

// CHECK-LABEL: func.func @float_zero_points
// CHECK:         "onnx.Custom"
func.func @float_zero_points(%a: tensor<1x32xf32>) -> tensor<1x2xf32> {
  %b = onnx.Constant dense<[[[33, 33, 33, 33, 33, 33, 33, 33], [67, 67, 67, 67, 67, 67, 67, 67]], [[101, 101, 101, 101, 101, 101, 101, 101], [135, 135, 135, 135, 135, 135, 135, 135]]]> : tensor<2x2x8xui8>
  %s = onnx.Constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  %z = onnx.Constant dense<[[8.0, 7.5], [8.0, 8.0]]> : tensor<2x2xf32>
  // expected-remark @+1 {{'onnx.Custom' (MatMulNBits) stays: zero points in the scales' type (float) are not integers; !quant.uniform's are}}
  %y = "onnx.Custom"(%a, %b, %s, %z) {function_name = "MatMulNBits", domain_name = "com.microsoft", N = 2 : si64, block_size = 16 : si64, K = 32 : si64, bits = 4 : si64} : (tensor<1x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// CHECK-LABEL: func.func @two_bits
// CHECK:         "onnx.Custom"
func.func @two_bits(%a: tensor<1x32xf32>) -> tensor<1x2xf32> {
  %b = onnx.Constant dense<[[[85, 85, 85, 85], [170, 170, 170, 170]], [[85, 85, 85, 85], [170, 170, 170, 170]]]> : tensor<2x2x4xui8>
  %s = onnx.Constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  // expected-remark @+1 {{'onnx.Custom' (MatMulNBits) stays: bits = 2: qcomp takes 4- and 8-bit weights (u4 / u8 storage)}}
  %y = "onnx.Custom"(%a, %b, %s) {function_name = "MatMulNBits", domain_name = "com.microsoft", N = 2 : si64, block_size = 16 : si64, K = 32 : si64, bits = 2 : si64} : (tensor<1x32xf32>, tensor<2x2x4xui8>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// K = 24 in blocks of 16: MatMulNBits pads the last block; a sub-channel type's blocks
// tile the dimension exactly.

// CHECK-LABEL: func.func @partial_block
// CHECK:         "onnx.Custom"
func.func @partial_block(%a: tensor<1x24xf32>) -> tensor<1x2xf32> {
  %b = onnx.Constant dense<[[[33, 33, 33, 33, 33, 33, 33, 33], [67, 67, 67, 67, 67, 67, 67, 67]], [[101, 101, 101, 101, 101, 101, 101, 101], [135, 135, 135, 135, 135, 135, 135, 135]]]> : tensor<2x2x8xui8>
  %s = onnx.Constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  // expected-remark @+1 {{'onnx.Custom' (MatMulNBits) stays: K = 24 is not a multiple of block_size = 16: a sub-channel !quant.uniform's blocks tile the dimension}}
  %y = "onnx.Custom"(%a, %b, %s) {function_name = "MatMulNBits", domain_name = "com.microsoft", N = 2 : si64, block_size = 16 : si64, K = 24 : si64, bits = 4 : si64} : (tensor<1x24xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// CHECK-LABEL: func.func @weight_not_constant
// CHECK:         "onnx.Custom"
func.func @weight_not_constant(%a: tensor<1x32xf32>, %b: tensor<2x2x8xui8>) -> tensor<1x2xf32> {
  %s = onnx.Constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  // expected-remark @+1 {{'onnx.Custom' (MatMulNBits) stays: B or the scales are not constants}}
  %y = "onnx.Custom"(%a, %b, %s) {function_name = "MatMulNBits", domain_name = "com.microsoft", N = 2 : si64, block_size = 16 : si64, K = 32 : si64, bits = 4 : si64} : (tensor<1x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// CHECK-LABEL: func.func @a_not_k
// CHECK:         "onnx.Custom"
func.func @a_not_k(%a: tensor<1x16xf32>, %b: tensor<2x2x8xui8>) -> tensor<1x2xf32> {
  %s = onnx.Constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  // expected-remark @+1 {{'onnx.Custom' (MatMulNBits) stays: A's last dimension is not K = 32}}
  %y = "onnx.Custom"(%a, %b, %s) {function_name = "MatMulNBits", domain_name = "com.microsoft", N = 2 : si64, block_size = 16 : si64, K = 32 : si64, bits = 4 : si64} : (tensor<1x16xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
