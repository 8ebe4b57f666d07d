// RUN: qcomp-opt %s --split-input-file --verify-diagnostics

// The float ops' verifiers: ONNX's attribute rules and the result shape each op implies.

func.func @conv_groups(%x: tensor<1x4x5x5xf32>, %w: tensor<6x3x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Conv' op X has 4 channels; W's 3 input channels times group 1 must equal that}}
  %0 = "onnx.Conv"(%x, %w, %none) : (tensor<1x4x5x5xf32>, tensor<6x3x3x3xf32>, none) -> tensor<1x6x3x3xf32>
  return %0 : tensor<1x6x3x3xf32>
}

// -----

func.func @conv_result_shape(%x: tensor<1x3x5x5xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Conv' op result type 'tensor<1x2x5x5xf32>' does not match the inferred shape [1, 2, 3, 3]}}
  %0 = "onnx.Conv"(%x, %w, %none) : (tensor<1x3x5x5xf32>, tensor<2x3x3x3xf32>, none) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

func.func @auto_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{'onnx.MaxPoolSingleOut' op attribute 'auto_pad' must be one of NOTSET, SAME_UPPER, SAME_LOWER, VALID, got "SAME"}}
  %0 = "onnx.MaxPoolSingleOut"(%x) {auto_pad = "SAME", kernel_shape = [2, 2]} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @pool_kernel_required(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{'onnx.AveragePool' op requires attribute 'kernel_shape'}}
  %0 = "onnx.AveragePool"(%x) : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @matmul_k(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'onnx.MatMul' op the contracting dimensions differ (3 and 4)}}
  %0 = "onnx.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @add_broadcast(%a: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'onnx.Add' op shapes [2, 3] and [2] are not broadcastable}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @add_types(%a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<2xf32> {
  // expected-error @+1 {{'onnx.Add' op operands and result must have the same element type}}
  %0 = "onnx.Add"(%a, %b) : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @conv_int(%x: tensor<1x1x3x3xi32>, %w: tensor<1x1x1x1xi32>) -> tensor<1x1x3x3xi32> {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Conv' operand #0 must be a tensor of one of}}
  %0 = "onnx.Conv"(%x, %w, %none) : (tensor<1x1x3x3xi32>, tensor<1x1x1x1xi32>, none) -> tensor<1x1x3x3xi32>
  return %0 : tensor<1x1x3x3xi32>
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  %s = onnx.Constant dense<[4]> : tensor<1xi64>
  // expected-error @+1 {{'onnx.Reshape' op cannot reshape [2, 3] (6 elements) to [4]}}
  %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @transpose_perm(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'onnx.Transpose' op perm [0, 0] is not a permutation of the 2 dimensions}}
  %0 = "onnx.Transpose"(%x) {perm = [0, 0]} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @gather_index(%x: tensor<3x2xf32>) -> tensor<1x2xf32> {
  %i = onnx.Constant dense<[3]> : tensor<1xi64>
  // expected-error @+1 {{'onnx.Gather' op indices value 3 is out of bound [-3, 2]}}
  %0 = "onnx.Gather"(%x, %i) : (tensor<3x2xf32>, tensor<1xi64>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'onnx.Softmax' op axis 2 is out of range for rank 2}}
  %0 = "onnx.Softmax"(%x) {axis = 2 : si64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
