// RUN: qcomp-opt %s --split-input-file --verify-diagnostics

// The verifiers hold ONNX's type and attribute rules (opset 25).

func.func @blocked_scale_shape(%x: tensor<2x5xf32>, %s: tensor<2x2xf32>) -> tensor<2x5xi4> {
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error@+1 {{'onnx.QuantizeLinear' op blocked scale needs ceil(5 / 2) = 3 entries along axis 1, got 2}}
  %q = "onnx.QuantizeLinear"(%x, %s, %n) {axis = -1 : si64, block_size = 2 : si64, output_dtype = 22 : si64} : (tensor<2x5xf32>, tensor<2x2xf32>, none) -> tensor<2x5xi4>
  return %q : tensor<2x5xi4>
}

// -----

func.func @default_is_uint8(%x: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xi8> {
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error@+1 {{'onnx.QuantizeLinear' op without a zero point or output_dtype the result is uint8, got 'tensor<3xi8>'}}
  %q = "onnx.QuantizeLinear"(%x, %s, %n) : (tensor<3xf32>, tensor<f32>, none) -> tensor<3xi8>
  return %q : tensor<3xi8>
}

// -----

func.func @per_axis_length(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %z: tensor<2xui8>) -> tensor<2x3xui8> {
  // expected-error@+1 {{'onnx.QuantizeLinear' op scale has 2 elements, the input's dimension 1 has 3}}
  %q = "onnx.QuantizeLinear"(%x, %s, %z) {axis = 1 : si64} : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xui8>) -> tensor<2x3xui8>
  return %q : tensor<2x3xui8>
}

// -----

func.func @saturate_value(%x: tensor<3xf32>) -> tensor<3xf8E4M3FN> {
  // expected-error@+1 {{'onnx.Cast' op attribute 'saturate' must be one of 0, 1, got 2}}
  %0 = "onnx.Cast"(%x) {saturate = 2 : si64, to = f8E4M3FN} : (tensor<3xf32>) -> tensor<3xf8E4M3FN>
  return %0 : tensor<3xf8E4M3FN>
}

// -----

func.func @cast_to_mismatch(%x: tensor<3xf32>) -> tensor<3xi8> {
  // expected-error@+1 {{'onnx.Cast' op result type 'tensor<3xi8>' does not match 'to' (f16)}}
  %0 = "onnx.Cast"(%x) {to = f16} : (tensor<3xf32>) -> tensor<3xi8>
  return %0 : tensor<3xi8>
}

// -----

func.func @round_mode(%x: tensor<3xf32>) -> tensor<3xf8E8M0FNU> {
  // expected-error@+1 {{'onnx.Cast' op round_mode must be "up", "down" or "nearest"}}
  %0 = "onnx.Cast"(%x) {round_mode = "zero", to = f8E8M0FNU} : (tensor<3xf32>) -> tensor<3xf8E8M0FNU>
  return %0 : tensor<3xf8E8M0FNU>
}

// -----

func.func @dq_storage(%x: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xf32> {
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-error@+1 {{'onnx.DequantizeLinear' operand #0 must be a tensor of one of}}
  %0 = "onnx.DequantizeLinear"(%x, %s, %n) : (tensor<3xf32>, tensor<f32>, none) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @custom_inputs(%a: tensor<3xui8>, %s: tensor<f32>) -> tensor<3xui8> {
  // expected-error@+1 {{'onnx.Custom' op QLinearAdd takes 7 to 8 inputs, got 2}}
  %0 = "onnx.Custom"(%a, %s) {domain_name = "com.microsoft", function_name = "QLinearAdd"} : (tensor<3xui8>, tensor<f32>) -> tensor<3xui8>
  return %0 : tensor<3xui8>
}
