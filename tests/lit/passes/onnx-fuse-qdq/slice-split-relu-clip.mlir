// RUN: qcomp-opt %s --onnx-fuse-qdq --split-input-file --verify-diagnostics | FileCheck %s

// Slice and Split: onnxruntime's drop rules (DropQDQNodesSelector for Slice,
// SplitSelector with equal quantization parameters for Split) drop the Q / DQ pairs:
// the op moves the stored integers.

// CHECK-LABEL: func.func @slice_drops_qdq
// CHECK:         %[[R:.*]] = "onnx.Slice"(%arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x6xui8>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<2x4xui8>
// CHECK-NEXT:    return %[[R]]
func.func @slice_drops_qdq(%x: tensor<2x6xui8>) -> tensor<2x4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %b = onnx.Constant dense<[1]> : tensor<1xi64>
  %e = onnx.Constant dense<[5]> : tensor<1xi64>
  %a = onnx.Constant dense<[1]> : tensor<1xi64>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<2x6xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x6xf32>
  %r = "onnx.Slice"(%d, %b, %e, %a, %n) : (tensor<2x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, none) -> tensor<2x4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  return %q : tensor<2x4xui8>
}

// -----

// CHECK-LABEL: func.func @split_drops_qdq
// CHECK:         %[[R:.*]]:2 = "onnx.Split"(%arg0, %{{.*}}) <{axis = 1 : si64}> : (tensor<2x4xi8>, none) -> (tensor<2x2xi8>, tensor<2x2xi8>)
// CHECK-NEXT:    return %[[R]]#0, %[[R]]#1
func.func @split_drops_qdq(%x: tensor<2x4xi8>) -> (tensor<2x2xi8>, tensor<2x2xi8>) {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<-3> : tensor<i8>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<2x4xi8>, tensor<f32>, tensor<i8>) -> tensor<2x4xf32>
  %a, %b = "onnx.Split"(%d, %n) {axis = 1 : si64} : (tensor<2x4xf32>, none) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  %qa = "onnx.QuantizeLinear"(%a, %s, %z) : (tensor<2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<2x2xi8>
  %qb = "onnx.QuantizeLinear"(%b, %s, %z) : (tensor<2x2xf32>, tensor<f32>, tensor<i8>) -> tensor<2x2xi8>
  return %qa, %qb : tensor<2x2xi8>, tensor<2x2xi8>
}

// -----

// SplitSelector refuses: a result whose QuantizeLinear has another zero point than the
// input's (req_equal_quant_params); a result that is also returned (every result goes
// to exactly one QuantizeLinear).

func.func @split_other_zero_point(%x: tensor<4xui8>) -> (tensor<2xui8>, tensor<2xui8>) {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %z2 = onnx.Constant dense<8> : tensor<ui8>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  // expected-remark @+1 {{onnx-fuse-qdq: 'onnx.Split' is not fused: DequantizeLinear and QuantizeLinear must have the same constant scale and zero point}}
  %a, %b = "onnx.Split"(%d, %n) {axis = 0 : si64} : (tensor<4xf32>, none) -> (tensor<2xf32>, tensor<2xf32>)
  %qa = "onnx.QuantizeLinear"(%a, %s, %z) : (tensor<2xf32>, tensor<f32>, tensor<ui8>) -> tensor<2xui8>
  %qb = "onnx.QuantizeLinear"(%b, %s, %z2) : (tensor<2xf32>, tensor<f32>, tensor<ui8>) -> tensor<2xui8>
  return %qa, %qb : tensor<2xui8>, tensor<2xui8>
}

func.func @split_result_returned(%x: tensor<4xui8>) -> (tensor<2xui8>, tensor<2xf32>) {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  // expected-remark @+1 {{the result has users other than QuantizeLinear (or is a graph output)}}
  %a, %b = "onnx.Split"(%d, %n) {axis = 0 : si64} : (tensor<4xf32>, none) -> (tensor<2xf32>, tensor<2xf32>)
  %qa = "onnx.QuantizeLinear"(%a, %s, %z) : (tensor<2xf32>, tensor<f32>, tensor<ui8>) -> tensor<2xui8>
  return %qa, %b : tensor<2xui8>, tensor<2xf32>
}

// -----

// Relu -> QuantizeLinear whose zero point is the storage minimum: onnxruntime's
// ReluQuantFusion removes the Relu (every negative value saturates at the zero point);
// then QDQFinalCleanupTransformer removes DequantizeLinear -> QuantizeLinear of one
// scale and zero point: the integers go through.

// CHECK-LABEL: func.func @relu_removed
// CHECK-NOT:     onnx.Relu
// CHECK-NOT:     onnx.DequantizeLinear
// CHECK:         return %arg0 : tensor<4xui8>
func.func @relu_removed(%x: tensor<4xui8>) -> tensor<4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<ui8>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %r = "onnx.Relu"(%d) : (tensor<4xf32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %q : tensor<4xui8>
}

// -----

// The Relu goes; the requantization to another scale and zero point stays.

// CHECK-LABEL: func.func @relu_removed_requantize_stays
// CHECK:         %[[D:.*]] = "onnx.DequantizeLinear"(%arg0
// CHECK-NEXT:    %[[Q:.*]] = "onnx.QuantizeLinear"(%[[D]]
// CHECK-NEXT:    return %[[Q]]
func.func @relu_removed_requantize_stays(%x: tensor<4xi8>) -> tensor<4xi8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<3> : tensor<i8>
  %s2 = onnx.Constant dense<0.25> : tensor<f32>
  %z2 = onnx.Constant dense<-128> : tensor<i8>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %r = "onnx.Relu"(%d) : (tensor<4xf32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s2, %z2) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

// What ReluQuantFusion refuses: a zero point above the storage minimum (the
// QuantizeLinear keeps negative values: ActivationSymmetric int8 writes 0); no
// constant zero point. A Relu with another user is no group (no remark).

func.func @relu_zero_point_not_minimum(%x: tensor<4xi8>) -> tensor<4xi8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<i8>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  // expected-remark @+1 {{onnx-fuse-qdq: 'onnx.Relu' is not fused: the QuantizeLinear's zero point 0 is not the storage minimum -128: its range does not clip at 0}}
  %r = "onnx.Relu"(%d) : (tensor<4xf32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}

func.func @relu_no_zero_point(%x: tensor<4xf32>) -> tensor<4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-remark @+1 {{the QuantizeLinear needs a constant zero point of one element}}
  %r = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %n) : (tensor<4xf32>, tensor<f32>, none) -> tensor<4xui8>
  return %q : tensor<4xui8>
}

// CHECK-LABEL: func.func @relu_two_users
// CHECK:         "onnx.Relu"
func.func @relu_two_users(%x: tensor<4xf32>) -> (tensor<4xui8>, tensor<4xf32>) {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<ui8>
  %r = "onnx.Relu"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %q, %r : tensor<4xui8>, tensor<4xf32>
}

// -----

// Relu / Clip go first (onnxruntime's level-1 rules), then the QDQ selectors see
// DequantizeLinear -> Conv -> QuantizeLinear: QLinearConv.

// CHECK-LABEL: func.func @conv_relu
// CHECK:         %[[C:.*]] = "onnx.QLinearConv"
// CHECK-NEXT:    return %[[C]]
func.func @conv_relu(%x: tensor<1x1x3x3xui8>, %w: tensor<1x1x1x1xi8>) -> tensor<1x1x3x3xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<ui8>
  %zw = onnx.Constant dense<0> : tensor<i8>
  %n = "onnx.NoValue"() {value} : () -> none
  %dx = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x1x3x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x3x3xf32>
  %dw = "onnx.DequantizeLinear"(%w, %s, %zw) : (tensor<1x1x1x1xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x1x1xf32>
  %c = "onnx.Conv"(%dx, %dw, %n) : (tensor<1x1x3x3xf32>, tensor<1x1x1x1xf32>, none) -> tensor<1x1x3x3xf32>
  %r = "onnx.Relu"(%c) : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<1x1x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x3x3xui8>
  return %q : tensor<1x1x3x3xui8>
}

// -----

// Clip -> QuantizeLinear whose range [scale * (qmin - zp), scale * (qmax - zp)] lies
// within [min, max] (ClipQuantFusion; an absent bound is float32's lowest / highest):
// the Clip goes.

// CHECK-LABEL: func.func @clip_removed
// CHECK:         %[[D:.*]] = "onnx.DequantizeLinear"(%arg0
// CHECK-NEXT:    %[[Q:.*]] = "onnx.QuantizeLinear"(%[[D]]
// CHECK-NEXT:    return %[[Q]]
func.func @clip_removed(%x: tensor<4xi8>) -> tensor<4xi8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<3> : tensor<i8>
  %s2 = onnx.Constant dense<0.025> : tensor<f32>
  %z2 = onnx.Constant dense<-128> : tensor<i8>
  %lo = onnx.Constant dense<0.0> : tensor<f32>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %r = "onnx.Clip"(%d, %lo, %n) : (tensor<4xf32>, tensor<f32>, none) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s2, %z2) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

// What ClipQuantFusion refuses: Clip bounds inside the QuantizeLinear's range (the
// Clip clips more: here max 6 < 255 * 0.025 = 6.375); a scale of shape [1] (a rank-0
// scale and zero point only); bounds that are not constants.

func.func @clip_clips_more(%x: tensor<4xf32>) -> tensor<4xui8> {
  %s = onnx.Constant dense<0.025> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<ui8>
  %lo = onnx.Constant dense<0.0> : tensor<f32>
  %hi = onnx.Constant dense<6.0> : tensor<f32>
  // expected-remark @+1 {{onnx-fuse-qdq: 'onnx.Clip' is not fused: Clip's range [0.0, 6.0] does not cover the QuantizeLinear's [0.0, 6.375]: it clips more}}
  %r = "onnx.Clip"(%x, %lo, %hi) : (tensor<4xf32>, tensor<f32>, tensor<f32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %q : tensor<4xui8>
}

func.func @clip_scale_of_shape_1(%x: tensor<4xf32>) -> tensor<4xui8> {
  %s = onnx.Constant dense<0.025> : tensor<1xf32>
  %z = onnx.Constant dense<0> : tensor<1xui8>
  %lo = onnx.Constant dense<0.0> : tensor<f32>
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-remark @+1 {{the QuantizeLinear's scale and zero point must be constant float32 and rank-0}}
  %r = "onnx.Clip"(%x, %lo, %n) : (tensor<4xf32>, tensor<f32>, none) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<4xf32>, tensor<1xf32>, tensor<1xui8>) -> tensor<4xui8>
  return %q : tensor<4xui8>
}

func.func @clip_bound_not_constant(%x: tensor<4xf32>, %lo: tensor<f32>) -> tensor<4xui8> {
  %s = onnx.Constant dense<0.025> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<ui8>
  %n = "onnx.NoValue"() {value} : () -> none
  // expected-remark @+1 {{Clip's min and max must be constant scalars}}
  %r = "onnx.Clip"(%x, %lo, %n) : (tensor<4xf32>, tensor<f32>, none) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %q : tensor<4xui8>
}
