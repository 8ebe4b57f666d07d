// RUN: qcomp-opt %s --onnx-fuse-qdq --split-input-file --verify-diagnostics | FileCheck %s

// DequantizeLinear -> AveragePool -> QuantizeLinear is com.microsoft QLinearAveragePool
// (onnxruntime's UnaryReplaceWithQLinear: the pool's attributes, channels_last = 0).

// CHECK-LABEL: func.func @average_pool
// CHECK:         %[[S:.*]] = onnx.Constant dense<5.000000e-01>
// CHECK-NEXT:    %[[Z:.*]] = onnx.Constant dense<7>
// CHECK-NEXT:    %[[S2:.*]] = onnx.Constant dense<2.500000e-01>
// CHECK-NEXT:    %[[P:.*]] = "onnx.Custom"(%arg0, %[[S]], %[[Z]], %[[S2]], %[[Z]]) <{function_name = "QLinearAveragePool"}> {channels_last = 0 : si64, count_include_pad = 1 : si64, domain_name = "com.microsoft", kernel_shape = [2, 2], strides = [2, 2]} : (tensor<1x1x4x4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
// CHECK-NEXT:    return %[[P]]
func.func @average_pool(%x: tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %s2 = onnx.Constant dense<0.25> : tensor<f32>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x1x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x1x4x4xf32>
  %r = "onnx.AveragePool"(%d) {kernel_shape = [2, 2], strides = [2, 2], count_include_pad = 1 : si64} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %q = "onnx.QuantizeLinear"(%r, %s2, %z) : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
  return %q : tensor<1x1x2x2xui8>
}

// -----

// UnarySelector: input and output of one element type.

// CHECK-LABEL: func.func @average_pool_types_differ
// CHECK:         "onnx.AveragePool"
func.func @average_pool_types_differ(%x: tensor<1x1x4x4xi8>) -> tensor<1x1x2x2xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %zi = onnx.Constant dense<7> : tensor<i8>
  %d = "onnx.DequantizeLinear"(%x, %s, %zi) : (tensor<1x1x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x1x4x4xf32>
  // expected-remark @+1 {{onnx-fuse-qdq: 'onnx.AveragePool' is not fused: inputs and output must have one element type, got int8, uint8}}
  %r = "onnx.AveragePool"(%d) {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<1x1x2x2xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x1x2x2xui8>
  return %q : tensor<1x1x2x2xui8>
}

// -----

// DequantizeLinear x 3 -> Gemm -> QuantizeLinear is com.microsoft QGemm (onnxruntime's
// GemmReplaceWithQuant): A, B with their scales and zero points, the int32 bias the
// DequantizeLinear takes, the QuantizeLinear's scale and zero point; beta is dropped.

// CHECK-LABEL: func.func @gemm
// CHECK:         %[[SA:.*]] = onnx.Constant dense<5.000000e-01>
// CHECK-NEXT:    %[[ZA:.*]] = onnx.Constant dense<7>
// CHECK-NEXT:    %[[SB:.*]] = onnx.Constant dense<1.250000e-01>
// CHECK-NEXT:    %[[ZB:.*]] = onnx.Constant dense<0>
// CHECK:         %[[SY:.*]] = onnx.Constant dense<2.500000e-01>
// CHECK:         %[[G:.*]] = "onnx.Custom"(%arg0, %[[SA]], %[[ZA]], %arg1, %[[SB]], %[[ZB]], %arg2, %[[SY]], %[[ZA]]) <{function_name = "QGemm"}> {alpha = 1.000000e+00 : f32, domain_name = "com.microsoft", transB = 1 : si64} : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xi8>, tensor<f32>, tensor<i8>, tensor<4xi32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
// CHECK-NEXT:    return %[[G]]
func.func @gemm(%a: tensor<2x3xui8>, %b: tensor<4x3xi8>, %c: tensor<4xi32>) -> tensor<2x4xui8> {
  %sa = onnx.Constant dense<0.5> : tensor<f32>
  %za = onnx.Constant dense<7> : tensor<ui8>
  %sb = onnx.Constant dense<0.125> : tensor<f32>
  %zb = onnx.Constant dense<0> : tensor<i8>
  %sc = onnx.Constant dense<0.0625> : tensor<f32>
  %sy = onnx.Constant dense<0.25> : tensor<f32>
  %n = "onnx.NoValue"() {value} : () -> none
  %da = "onnx.DequantizeLinear"(%a, %sa, %za) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %db = "onnx.DequantizeLinear"(%b, %sb, %zb) : (tensor<4x3xi8>, tensor<f32>, tensor<i8>) -> tensor<4x3xf32>
  %dc = "onnx.DequantizeLinear"(%c, %sc, %n) : (tensor<4xi32>, tensor<f32>, none) -> tensor<4xf32>
  %g = "onnx.Gemm"(%da, %db, %dc) {alpha = 1.0 : f32, beta = 1.0 : f32, transB = 1 : si64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %q = "onnx.QuantizeLinear"(%g, %sy, %za) : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  return %q : tensor<2x4xui8>
}

// -----

// GemmSelector takes a Gemm without a QuantizeLinear: QGemm's result is float (no
// y_scale, y_zero_point); an absent zero point becomes a zero constant.

// CHECK-LABEL: func.func @gemm_float_result
// CHECK:         %[[S:.*]] = onnx.Constant dense<5.000000e-01>
// CHECK-NEXT:    %[[Z:.*]] = onnx.Constant dense<7>
// CHECK:         %[[Z0:.*]] = onnx.Constant dense<0> : tensor<ui8>
// CHECK-NEXT:    %[[G:.*]] = "onnx.Custom"(%arg0, %[[S]], %[[Z]], %arg1, %[[S]], %[[Z0]]) <{function_name = "QGemm"}> {domain_name = "com.microsoft"} : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>, tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
// CHECK-NEXT:    return %[[G]]
func.func @gemm_float_result(%a: tensor<2x3xui8>, %b: tensor<3x4xui8>) -> tensor<2x4xf32> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %n = "onnx.NoValue"() {value} : () -> none
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %db = "onnx.DequantizeLinear"(%b, %s, %n) : (tensor<3x4xui8>, tensor<f32>, none) -> tensor<3x4xf32>
  %g = "onnx.Gemm"(%da, %db, %n) : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
  return %g : tensor<2x4xf32>
}

// -----

// What GemmSelector refuses: a bias added with beta != 1, a uint8 bias, an int8 input
// with uint8 weights, a float bias (every present input must come from a
// DequantizeLinear).

func.func @gemm_beta(%a: tensor<2x3xui8>, %b: tensor<3x4xui8>, %c: tensor<4xi32>) -> tensor<2x4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %n = "onnx.NoValue"() {value} : () -> none
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %db = "onnx.DequantizeLinear"(%b, %s, %z) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
  %dc = "onnx.DequantizeLinear"(%c, %s, %n) : (tensor<4xi32>, tensor<f32>, none) -> tensor<4xf32>
  // expected-remark @+1 {{onnx-fuse-qdq: 'onnx.Gemm' is not fused: beta = 0.5: QGemm adds its bias with beta 1}}
  %g = "onnx.Gemm"(%da, %db, %dc) {beta = 0.5 : f32} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %q = "onnx.QuantizeLinear"(%g, %s, %z) : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  return %q : tensor<2x4xui8>
}

func.func @gemm_uint8_bias(%a: tensor<2x3xui8>, %b: tensor<3x4xui8>, %c: tensor<4xui8>) -> tensor<2x4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %db = "onnx.DequantizeLinear"(%b, %s, %z) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
  %dc = "onnx.DequantizeLinear"(%c, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  // expected-remark @+1 {{the bias must be int32, got uint8}}
  %g = "onnx.Gemm"(%da, %db, %dc) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %q = "onnx.QuantizeLinear"(%g, %s, %z) : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  return %q : tensor<2x4xui8>
}

func.func @gemm_int8_input_uint8_weights(%a: tensor<2x3xi8>, %b: tensor<3x4xui8>) -> tensor<2x4xi8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %zi = onnx.Constant dense<7> : tensor<i8>
  %n = "onnx.NoValue"() {value} : () -> none
  %da = "onnx.DequantizeLinear"(%a, %s, %zi) : (tensor<2x3xi8>, tensor<f32>, tensor<i8>) -> tensor<2x3xf32>
  %db = "onnx.DequantizeLinear"(%b, %s, %z) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
  // expected-remark @+1 {{an int8 input needs int8 weights}}
  %g = "onnx.Gemm"(%da, %db, %n) : (tensor<2x3xf32>, tensor<3x4xf32>, none) -> tensor<2x4xf32>
  %q = "onnx.QuantizeLinear"(%g, %s, %zi) : (tensor<2x4xf32>, tensor<f32>, tensor<i8>) -> tensor<2x4xi8>
  return %q : tensor<2x4xi8>
}

func.func @gemm_float_bias(%a: tensor<2x3xui8>, %b: tensor<3x4xui8>, %c: tensor<4xf32>) -> tensor<2x4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %db = "onnx.DequantizeLinear"(%b, %s, %z) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
  // expected-remark @+1 {{not every quantized input comes from a DequantizeLinear}}
  %g = "onnx.Gemm"(%da, %db, %c) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %q = "onnx.QuantizeLinear"(%g, %s, %z) : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  return %q : tensor<2x4xui8>
}

// -----

// DequantizeLinear x 2 -> Where -> QuantizeLinear is com.microsoft QLinearWhere
// (onnxruntime's WhereReplaceWithQLinear): the condition, each input's triple, the
// QuantizeLinear's scale and zero point.

// CHECK-LABEL: func.func @where
// CHECK:         %[[SX:.*]] = onnx.Constant dense<5.000000e-01>
// CHECK-NEXT:    %[[ZX:.*]] = onnx.Constant dense<7>
// CHECK-NEXT:    %[[SY:.*]] = onnx.Constant dense<2.500000e-01>
// CHECK-NEXT:    %[[ZY:.*]] = onnx.Constant dense<3>
// CHECK-NEXT:    %[[W:.*]] = "onnx.Custom"(%arg0, %arg1, %[[SX]], %[[ZX]], %arg2, %[[SY]], %[[ZY]], %[[SX]], %[[ZY]]) <{function_name = "QLinearWhere"}> {domain_name = "com.microsoft"} : (tensor<4xi1>, tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<4xui8>, tensor<f32>, tensor<ui8>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
// CHECK-NEXT:    return %[[W]]
func.func @where(%c: tensor<4xi1>, %x: tensor<4xui8>, %y: tensor<4xui8>) -> tensor<4xui8> {
  %sx = onnx.Constant dense<0.5> : tensor<f32>
  %zx = onnx.Constant dense<7> : tensor<ui8>
  %sy = onnx.Constant dense<0.25> : tensor<f32>
  %zy = onnx.Constant dense<3> : tensor<ui8>
  %dx = "onnx.DequantizeLinear"(%x, %sx, %zx) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %dy = "onnx.DequantizeLinear"(%y, %sy, %zy) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %w = "onnx.Where"(%c, %dx, %dy) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%w, %sx, %zy) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %q : tensor<4xui8>
}

// -----

// WhereSelector: both inputs and the output of one element type; both inputs from a
// DequantizeLinear.

func.func @where_types_differ(%c: tensor<4xi1>, %x: tensor<4xui8>, %y: tensor<4xi8>) -> tensor<4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %zi = onnx.Constant dense<7> : tensor<i8>
  %dx = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  %dy = "onnx.DequantizeLinear"(%y, %s, %zi) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  // expected-remark @+1 {{inputs and output must have one element type, got uint8, int8, uint8}}
  %w = "onnx.Where"(%c, %dx, %dy) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%w, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %q : tensor<4xui8>
}

func.func @where_float_input(%c: tensor<4xi1>, %x: tensor<4xui8>, %y: tensor<4xf32>) -> tensor<4xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %dx = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  // expected-remark @+1 {{not every quantized input comes from a DequantizeLinear}}
  %w = "onnx.Where"(%c, %dx, %y) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%w, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<ui8>) -> tensor<4xui8>
  return %q : tensor<4xui8>
}

// -----

// BatchNormalization and LayerNormalization: onnxruntime's QDQ selector-action
// transformer registers no rule for them (their selectors only group nodes for other
// execution providers); the group stays, without a remark.

// CHECK-LABEL: func.func @batch_norm_stays
// CHECK:         "onnx.DequantizeLinear"
// CHECK-NEXT:    "onnx.BatchNormalization"
// CHECK-NEXT:    "onnx.QuantizeLinear"
func.func @batch_norm_stays(%x: tensor<1x2x3xui8>) -> tensor<1x2x3xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %p = onnx.Constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<1x2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3xf32>
  %b = "onnx.BatchNormalization"(%d, %p, %p, %p, %p) : (tensor<1x2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x3xf32>
  %q = "onnx.QuantizeLinear"(%b, %s, %z) : (tensor<1x2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3xui8>
  return %q : tensor<1x2x3xui8>
}

// CHECK-LABEL: func.func @layer_norm_stays
// CHECK:         "onnx.DequantizeLinear"
// CHECK-NEXT:    "onnx.LayerNormalization"
// CHECK-NEXT:    "onnx.QuantizeLinear"
func.func @layer_norm_stays(%x: tensor<2x3xui8>) -> tensor<2x3xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %p = onnx.Constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %y = "onnx.LayerNormalization"(%d, %p, %n) : (tensor<2x3xf32>, tensor<3xf32>, none) -> tensor<2x3xf32>
  %q = "onnx.QuantizeLinear"(%y, %s, %z) : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %q : tensor<2x3xui8>
}
