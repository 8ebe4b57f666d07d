// RUN: qcomp-opt %s --split-input-file --verify-diagnostics

// Pad, Resize and ConvTranspose verifiers: ONNX's attribute rules and the result shape.

func.func @pad_mode(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %p = onnx.Constant dense<0> : tensor<4xi64>
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Pad' op attribute 'mode' must be one of constant, reflect, edge, wrap, got "mirror"}}
  %0 = "onnx.Pad"(%x, %p, %n, %n) {mode = "mirror"} : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @pad_result_shape(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %p = onnx.Constant dense<[0, 1, 0, 1]> : tensor<4xi64>
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Pad' op result type 'tensor<2x3xf32>' does not match the inferred shape [2, 5]}}
  %0 = "onnx.Pad"(%x, %p, %n, %n) : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @pad_count(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %p = onnx.Constant dense<0> : tensor<3xi64>
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Pad' op pads has 3 values for 2 axes}}
  %0 = "onnx.Pad"(%x, %p, %n, %n) : (tensor<2x3xf32>, tensor<3xi64>, none, none) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @resize_mode(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %s = onnx.Constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Resize' op attribute 'mode' must be one of nearest, linear, cubic, got "bilinear"}}
  %0 = "onnx.Resize"(%x, %n, %s, %n) {mode = "bilinear"} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_scales_and_sizes(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  %s = onnx.Constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %z = onnx.Constant dense<[1, 1, 4, 4]> : tensor<4xi64>
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Resize' op exactly one of scales and sizes must be a (non-empty) constant}}
  %0 = "onnx.Resize"(%x, %n, %s, %z) : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, tensor<4xi64>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

func.func @resize_result_shape(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32> {
  %s = onnx.Constant dense<[1.0, 1.0, 1.5, 1.5]> : tensor<4xf32>
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Resize' op result type 'tensor<1x1x5x5xf32>' does not match the inferred shape [1, 1, 4, 4]}}
  %0 = "onnx.Resize"(%x, %n, %s, %n) : (tensor<1x1x3x3xf32>, none, tensor<4xf32>, none) -> tensor<1x1x5x5xf32>
  return %0 : tensor<1x1x5x5xf32>
}

// -----

func.func @conv_transpose_channels(%x: tensor<1x3x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.ConvTranspose' op X has 3 channels, W's first dimension 2}}
  %0 = "onnx.ConvTranspose"(%x, %w, %n) : (tensor<1x3x3x3xf32>, tensor<2x2x3x3xf32>, none) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

func.func @conv_transpose_result_shape(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x5x5xf32> {
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.ConvTranspose' op result type 'tensor<1x2x5x5xf32>' does not match the inferred shape [1, 2, 7, 7]}}
  %0 = "onnx.ConvTranspose"(%x, %w, %n) {strides = [2, 2]} : (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>, none) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}
