// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --split-input-file --verify-diagnostics | FileCheck %s

// What !quant.uniform cannot express stays in the onnx dialect, with a remark.

// CHECK-LABEL: func.func @scale_not_constant
// CHECK:         "onnx.QuantizeLinear"
func.func @scale_not_constant(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xui8> {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-remark @+1 {{onnx-legalize-qdq-to-quant: 'onnx.QuantizeLinear' stays: the scale is not a constant}}
  %q = "onnx.QuantizeLinear"(%x, %s, %none) : (tensor<4xf32>, tensor<f32>, none) -> tensor<4xui8>
  return %q : tensor<4xui8>
}

// -----

// CHECK-LABEL: func.func @saturate_zero
// CHECK:         "onnx.QuantizeLinear"
func.func @saturate_zero(%x: tensor<4xf32>) -> tensor<4xf8E5M2> {
  %s = onnx.Constant dense<1.0> : tensor<f32>
  %z = onnx.Constant dense<0.0> : tensor<f8E5M2>
  // expected-remark @+1 {{saturate = 0 keeps inf and NaN; !quant.uniform's float storage saturates}}
  %q = "onnx.QuantizeLinear"(%x, %s, %z) {saturate = 0 : si64} : (tensor<4xf32>, tensor<f32>, tensor<f8E5M2>) -> tensor<4xf8E5M2>
  return %q : tensor<4xf8E5M2>
}

// -----

// CHECK-LABEL: func.func @fnuz_storage
// CHECK:         "onnx.DequantizeLinear"
func.func @fnuz_storage(%x: tensor<4xf8E4M3FNUZ>) -> tensor<4xf32> {
  %s = onnx.Constant dense<1.0> : tensor<f32>
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-remark @+1 {{float8e4m3fnuz storage has no !quant.uniform storage type}}
  %d = "onnx.DequantizeLinear"(%x, %s, %none) : (tensor<4xf8E4M3FNUZ>, tensor<f32>, none) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @negative_scale
func.func @negative_scale(%x: tensor<4xi8>) -> tensor<4xf32> {
  %s = onnx.Constant dense<-0.5> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<i8>
  // expected-remark @+1 {{!quant.uniform needs positive finite scales}}
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// -----

// A short last block (ONNX allows ceil(D / B) blocks) has no sub-channel type.

// CHECK-LABEL: func.func @short_last_block
func.func @short_last_block(%x: tensor<5x2xi8>) -> tensor<5x2xf32> {
  %s = onnx.Constant dense<1.0> : tensor<3x2xf32>
  %z = onnx.Constant dense<0> : tensor<3x2xi8>
  // expected-remark @+1 {{tensor dimension size 5 at axis 0 must be divisible by the corresponding block size 2}}
  %d = "onnx.DequantizeLinear"(%x, %s, %z) {axis = 0 : si64, block_size = 2 : si64} : (tensor<5x2xi8>, tensor<3x2xf32>, tensor<3x2xi8>) -> tensor<5x2xf32>
  return %d : tensor<5x2xf32>
}

// -----

// CHECK-LABEL: func.func @int32_input
func.func @int32_input(%x: tensor<4xi32>) -> tensor<4xi8> {
  %s = onnx.Constant dense<2> : tensor<i32>
  %z = onnx.Constant dense<0> : tensor<i8>
  // expected-remark @+1 {{a int32 input has no !quant.uniform expressed type}}
  %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<4xi32>, tensor<i32>, tensor<i8>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}
