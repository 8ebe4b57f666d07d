// RUN: qcomp-opt %s --onnx-unfuse-qdq --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --onnx-unfuse-qdq --onnx-fuse-qdq --split-input-file | FileCheck %s --check-prefix=BACK

// QLinearConv is the QDQ group it stands for; its int32 bias dequantizes with the scale
// x_scale * w_scale (a float32 constant here), per output channel.
// onnx-fuse-qdq gives QLinearConv back.

// CHECK-LABEL: func.func @conv
// CHECK:         %[[X:.*]] = "onnx.DequantizeLinear"(%arg0, %{{.*}}, %{{.*}}) : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
// CHECK-NEXT:    %[[W:.*]] = "onnx.DequantizeLinear"(%arg1, %{{.*}}, %{{.*}}) <{axis = 0 : si64}> : (tensor<3x2x3x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<3x2x3x3xf32>
// CHECK-NEXT:    %[[S:.*]] = onnx.Constant dense<[5.000000e-02, 1.000000e-01, 1.500000e-01]> : tensor<3xf32>
// CHECK-NEXT:    %[[N:.*]] = "onnx.NoValue"() <{value}> : () -> none
// CHECK-NEXT:    %[[B:.*]] = "onnx.DequantizeLinear"(%arg2, %[[S]], %[[N]]) <{axis = 0 : si64}> : (tensor<3xi32>, tensor<3xf32>, none) -> tensor<3xf32>
// CHECK-NEXT:    %[[C:.*]] = "onnx.Conv"(%[[X]], %[[W]], %[[B]]) <{pads = [1, 1, 1, 1]}> : (tensor<1x2x4x4xf32>, tensor<3x2x3x3xf32>, tensor<3xf32>) -> tensor<1x3x4x4xf32>
// CHECK-NEXT:    "onnx.QuantizeLinear"(%[[C]], %{{.*}}, %{{.*}}) : (tensor<1x3x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x3x4x4xui8>
// BACK-LABEL: func.func @conv
// BACK:         "onnx.QLinearConv"(%arg0, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %arg2) <{pads = [1, 1, 1, 1]}>
// BACK-NOT:     onnx.Conv"
func.func @conv(%x: tensor<1x2x4x4xui8>, %w: tensor<3x2x3x3xi8>, %b: tensor<3xi32>) -> tensor<1x3x4x4xui8> {
  %sx = onnx.Constant dense<0.5> : tensor<f32>
  %zx = onnx.Constant dense<128> : tensor<ui8>
  %sw = onnx.Constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %zw = onnx.Constant dense<0> : tensor<3xi8>
  %sy = onnx.Constant dense<0.25> : tensor<f32>
  %zy = onnx.Constant dense<3> : tensor<ui8>
  %y = "onnx.QLinearConv"(%x, %sx, %zx, %w, %sw, %zw, %sy, %zy, %b) {pads = [1, 1, 1, 1]} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<3x2x3x3xi8>, tensor<3xf32>, tensor<3xi8>, tensor<f32>, tensor<ui8>, tensor<3xi32>) -> tensor<1x3x4x4xui8>
  return %y : tensor<1x3x4x4xui8>
}

// -----

// CHECK-LABEL: func.func @qlinear_sigmoid
// CHECK:         %[[X:.*]] = "onnx.DequantizeLinear"(%arg0,
// CHECK-NEXT:    %[[S:.*]] = "onnx.Sigmoid"(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    "onnx.QuantizeLinear"(%[[S]],
// BACK-LABEL: func.func @qlinear_sigmoid
// BACK:         <{function_name = "QLinearSigmoid"}> {domain_name = "com.microsoft"}
func.func @qlinear_sigmoid(%x: tensor<4xi8>) -> tensor<4xi8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<i8>
  %s2 = onnx.Constant dense<0.00390625> : tensor<f32>
  %z2 = onnx.Constant dense<-128> : tensor<i8>
  %y = "onnx.Custom"(%x, %s, %z, %s2, %z2) {domain_name = "com.microsoft", function_name = "QLinearSigmoid"} : (tensor<4xi8>, tensor<f32>, tensor<i8>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %y : tensor<4xi8>
}
