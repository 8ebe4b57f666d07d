// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s

// onnx-mlir's text: ONNX attributes print as properties `<{...}>` (the older `{...}`
// reads too), onnx.Constant in its custom form, absent inputs as onnx.NoValue.

// CHECK-LABEL: func.func @qdq
func.func @qdq(%x: tensor<2x4xf32> {onnx.name = "x"}) -> (tensor<2x4xf32> {onnx.name = "y"}) {
  // CHECK: %[[S:.*]] = onnx.Constant dense<{{\[\[}}5.000000e-01, 1.000000e+00], [2.000000e+00, 2.500000e-01]]> : tensor<2x2xf32>
  %s = onnx.Constant dense<[[0.5, 1.0], [2.0, 0.25]]> : tensor<2x2xf32>
  // CHECK: %[[Z:.*]] = onnx.Constant dense<{{\[\[}}1, -2], [0, 3]]> : tensor<2x2xi4>
  %zp = onnx.Constant dense<[[1, -2], [0, 3]]> : tensor<2x2xi4>
  // CHECK: "onnx.QuantizeLinear"(%{{.*}}, %[[S]], %[[Z]]) <{axis = 1 : si64, block_size = 2 : si64, saturate = 1 : si64}> {onnx_node_name = "q"} : (tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<2x4xi4>
  %q = "onnx.QuantizeLinear"(%x, %s, %zp) {axis = 1 : si64, block_size = 2 : si64, saturate = 1 : si64, onnx_node_name = "q"} : (tensor<2x4xf32>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<2x4xi4>
  // CHECK: "onnx.DequantizeLinear"(%{{.*}}, %[[S]], %[[Z]]) <{axis = -1 : si64, block_size = 2 : si64}>
  %d = "onnx.DequantizeLinear"(%q, %s, %zp) <{axis = -1 : si64, block_size = 2 : si64}> : (tensor<2x4xi4>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @no_zero_point
func.func @no_zero_point(%x: tensor<3xf32>, %s: tensor<f32>) -> tensor<3xui8> {
  // CHECK: %[[N:.*]] = "onnx.NoValue"() <{value}> : () -> none
  %n = "onnx.NoValue"() {value} : () -> none
  // CHECK: "onnx.QuantizeLinear"(%{{.*}}, %{{.*}}, %[[N]]) : (tensor<3xf32>, tensor<f32>, none) -> tensor<3xui8>
  %q = "onnx.QuantizeLinear"(%x, %s, %n) : (tensor<3xf32>, tensor<f32>, none) -> tensor<3xui8>
  return %q : tensor<3xui8>
}

// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<4xf32>, %t: tensor<1xf8E5M2>) -> tensor<2xf32> {
  // CHECK: "onnx.Cast"(%{{.*}}) <{saturate = 0 : si64, to = f8E4M3FN}> : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  %0 = "onnx.Cast"(%x) {saturate = 0 : si64, to = f8E4M3FN} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  // CHECK: "onnx.Cast"(%{{.*}}) <{round_mode = "nearest", to = f8E8M0FNU}>
  %1 = "onnx.Cast"(%x) {round_mode = "nearest", to = f8E8M0FNU} : (tensor<4xf32>) -> tensor<4xf8E8M0FNU>
  // CHECK: "onnx.CastLike"(%{{.*}}, %{{.*}}) : (tensor<4xf32>, tensor<1xf8E5M2>) -> tensor<4xf8E5M2>
  %2 = "onnx.CastLike"(%x, %t) : (tensor<4xf32>, tensor<1xf8E5M2>) -> tensor<4xf8E5M2>
  // CHECK: onnx.Constant {value_strings = ["1e-5", "-INF"]} : tensor<2x!onnx.String>
  %s = onnx.Constant {value_strings = ["1e-5", "-INF"]} : tensor<2x!onnx.String>
  // CHECK: "onnx.Cast"(%{{.*}}) <{to = f32}> : (tensor<2x!onnx.String>) -> tensor<2xf32>
  %3 = "onnx.Cast"(%s) {to = f32} : (tensor<2x!onnx.String>) -> tensor<2xf32>
  return %3 : tensor<2xf32>
}

// CHECK-LABEL: func.func @quantized
func.func @quantized(%a: tensor<2x4xui8>, %s: tensor<f32>, %z: tensor<ui8>, %b: tensor<4x3xi8>, %bz: tensor<i8>) -> tensor<2x3xui8> {
  // CHECK: "onnx.QLinearMatMul"
  %0 = "onnx.QLinearMatMul"(%a, %s, %z, %b, %s, %bz, %s, %z) : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  // CHECK: "onnx.MatMulInteger"
  %1 = "onnx.MatMulInteger"(%a, %b, %z, %bz) : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<i8>) -> tensor<2x3xi32>
  // CHECK: "onnx.Custom"(%{{.*}}) <{function_name = "QLinearAdd"}> {domain_name = "com.microsoft"}
  %2 = "onnx.Custom"(%0, %s, %z, %0, %s, %z, %s, %z) {domain_name = "com.microsoft", function_name = "QLinearAdd"} : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %2 : tensor<2x3xui8>
}
