// RUN: qcomp-opt %s --onnx-fuse-qdq --split-input-file | FileCheck %s

// Resize: onnxruntime's drop_no_int16_support rule drops the Q / DQ pair (8-bit, the
// same scale and zero point): the Resize moves the stored integers.

// CHECK-LABEL: func.func @resize_drops_qdq
// CHECK:         %[[R:.*]] = "onnx.Resize"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}) <{mode = "nearest"}> : (tensor<1x1x2x2xui8>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xui8>
// CHECK-NEXT:    return %[[R]]
func.func @resize_drops_qdq(%x: tensor<1x1x2x2xui8>) -> tensor<1x1x4x4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %sc = onnx.Constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xf32>
  %r = "onnx.Resize"(%d, %n, %sc, %n) {mode = "nearest"} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xui8>
  return %q : tensor<1x1x4x4xui8>
}

// -----

// A linear (or cubic) Resize computes new values: onnxruntime 1.32's optimized session
// keeps its group in float, and so does onnx-fuse-qdq, with the reason as a remark.

// CHECK-LABEL: func.func @linear_resize_stays
// CHECK:         "onnx.DequantizeLinear"
// CHECK-NEXT:    "onnx.Resize"
// CHECK-NEXT:    "onnx.QuantizeLinear"
func.func @linear_resize_stays(%x: tensor<1x1x2x2xui8>) -> tensor<1x1x4x4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %sc = onnx.Constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x1x2x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xf32>
  %r = "onnx.Resize"(%d, %n, %sc, %n) {mode = "linear"} : (tensor<1x1x2x2xf32>, none, tensor<4xf32>, none) -> tensor<1x1x4x4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<1x1x4x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xui8>
  return %q : tensor<1x1x4x4xui8>
}

// -----

// Pad and ConvTranspose: no onnxruntime QDQ rule; the group stays as it is.

// CHECK-LABEL: func.func @pad_stays
// CHECK:         "onnx.DequantizeLinear"
// CHECK-NEXT:    "onnx.Pad"
// CHECK-NEXT:    "onnx.QuantizeLinear"
func.func @pad_stays(%x: tensor<1x3xui8>) -> tensor<1x5xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %p = onnx.Constant dense<[0, 1, 0, 1]> : tensor<4xi64>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x3xf32>
  %r = "onnx.Pad"(%d, %p, %n, %n) : (tensor<1x3xf32>, tensor<4xi64>, none, none) -> tensor<1x5xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<1x5xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x5xui8>
  return %q : tensor<1x5xui8>
}
