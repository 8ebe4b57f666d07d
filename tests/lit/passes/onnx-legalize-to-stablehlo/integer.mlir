// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file --verify-diagnostics | FileCheck %s

// DynamicQuantizeLinear as float32 StableHLO math, ONNX's formulas step by step:
// lo = min(0, min x), hi = max(0, max x) (reductions from 0), y_scale = (hi - lo) / 255,
// y_zero_point = round_half_even(clamp(0 - lo / y_scale, 0, 255)),
// y = clamp(round_half_even(x / y_scale) + y_zero_point, 0, 255). The divisions take 1
// where y_scale is 0 (an input of zeros: y and y_zero_point 0, y_scale 0).

// CHECK-LABEL: func.func @dynamic_quantize_linear
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK:         %[[LO:.*]] = stablehlo.reduce(%[[X]] init: %{{.*}}) applies stablehlo.minimum across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
// CHECK:         %[[HI:.*]] = stablehlo.reduce(%[[X]] init: %{{.*}}) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[ZERO:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[ONE:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[TOP:.*]] = stablehlo.constant dense<2.550000e+02> : tensor<f32>
// CHECK-NEXT:    %[[RANGE:.*]] = stablehlo.subtract %[[HI]], %[[LO]] : tensor<f32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.divide %[[RANGE]], %[[TOP]] : tensor<f32>
// CHECK-NEXT:    %[[DEG:.*]] = stablehlo.compare EQ, %[[S]], %[[ZERO]] : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK-NEXT:    %[[DIV:.*]] = stablehlo.select %[[DEG]], %[[ONE]], %[[S]] : tensor<i1>, tensor<f32>
// CHECK-NEXT:    %[[LOS:.*]] = stablehlo.divide %[[LO]], %[[DIV]] : tensor<f32>
// CHECK-NEXT:    %[[ZPF:.*]] = stablehlo.subtract %[[ZERO]], %[[LOS]] : tensor<f32>
// CHECK-NEXT:    %[[ZPC:.*]] = stablehlo.clamp %[[ZERO]], %[[ZPF]], %[[TOP]] : tensor<f32>
// CHECK-NEXT:    %[[ZP:.*]] = stablehlo.round_nearest_even %[[ZPC]] : tensor<f32>
// CHECK-NEXT:    %[[DIVB:.*]] = stablehlo.broadcast_in_dim %[[DIV]], dims = [] : (tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[Q:.*]] = stablehlo.divide %[[X]], %[[DIVB]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[QR:.*]] = stablehlo.round_nearest_even %[[Q]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[ZPB:.*]] = stablehlo.broadcast_in_dim %[[ZP]], dims = [] : (tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[QZ:.*]] = stablehlo.add %[[QR]], %[[ZPB]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[QC:.*]] = stablehlo.clamp %[[ZERO]], %[[QZ]], %[[TOP]] : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[Y:.*]] = stablehlo.convert %[[QC]] : (tensor<2x3xf32>) -> tensor<2x3xui8>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.convert %[[ZP]] : (tensor<f32>) -> tensor<ui8>
// CHECK-NEXT:    return %[[Y]], %[[S]], %[[Z]] : tensor<2x3xui8>, tensor<f32>, tensor<ui8>
func.func @dynamic_quantize_linear(%x: tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) {
  %0:3 = "onnx.DynamicQuantizeLinear"(%x) : (tensor<2x3xf32>) -> (tensor<2x3xui8>, tensor<f32>, tensor<ui8>)
  return %0#0, %0#1, %0#2 : tensor<2x3xui8>, tensor<f32>, tensor<ui8>
}

// -----

// MatMulInteger: the storage integers (ui8 / i8) converted to i32, the zero points
// subtracted (a 1-D b_zero_point is one per column), then an i32 dot.

// CHECK-LABEL: func.func @matmul_integer
// CHECK-SAME:    (%[[A:.*]]: tensor<2x4xui8>, %[[B:.*]]: tensor<4x3xi8>, %[[AZ:.*]]: tensor<ui8>, %[[BZ:.*]]: tensor<3xi8>)
// CHECK-NEXT:    %[[AW:.*]] = stablehlo.convert %[[A]] : (tensor<2x4xui8>) -> tensor<2x4xi32>
// CHECK-NEXT:    %[[AZW:.*]] = stablehlo.convert %[[AZ]] : (tensor<ui8>) -> tensor<i32>
// CHECK-NEXT:    %[[AZB:.*]] = stablehlo.broadcast_in_dim %[[AZW]], dims = [] : (tensor<i32>) -> tensor<2x4xi32>
// CHECK-NEXT:    %[[AS:.*]] = stablehlo.subtract %[[AW]], %[[AZB]] : tensor<2x4xi32>
// CHECK-NEXT:    %[[BW:.*]] = stablehlo.convert %[[B]] : (tensor<4x3xi8>) -> tensor<4x3xi32>
// CHECK-NEXT:    %[[BZW:.*]] = stablehlo.convert %[[BZ]] : (tensor<3xi8>) -> tensor<3xi32>
// CHECK-NEXT:    %[[BZB:.*]] = stablehlo.broadcast_in_dim %[[BZW]], dims = [1] : (tensor<3xi32>) -> tensor<4x3xi32>
// CHECK-NEXT:    %[[BS:.*]] = stablehlo.subtract %[[BW]], %[[BZB]] : tensor<4x3xi32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.dot %[[AS]], %[[BS]] : (tensor<2x4xi32>, tensor<4x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    return %[[R]]
func.func @matmul_integer(%a: tensor<2x4xui8>, %b: tensor<4x3xi8>, %az: tensor<ui8>, %bz: tensor<3xi8>) -> tensor<2x3xi32> {
  %0 = "onnx.MatMulInteger"(%a, %b, %az, %bz) : (tensor<2x4xui8>, tensor<4x3xi8>, tensor<ui8>, tensor<3xi8>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// A 1-D a_zero_point of M entries is one per row of A; an absent zero point is 0.

// CHECK-LABEL: func.func @matmul_integer_per_row
// CHECK:         %[[AZW:.*]] = stablehlo.convert %{{.*}} : (tensor<2xi8>) -> tensor<2xi32>
// CHECK-NEXT:    stablehlo.broadcast_in_dim %[[AZW]], dims = [0] : (tensor<2xi32>) -> tensor<2x4xi32>
// CHECK-NEXT:    %[[AS:.*]] = stablehlo.subtract
// CHECK-NEXT:    %[[BW:.*]] = stablehlo.convert %{{.*}} : (tensor<4x3xi8>) -> tensor<4x3xi32>
// CHECK-NEXT:    stablehlo.dot %[[AS]], %[[BW]] : (tensor<2x4xi32>, tensor<4x3xi32>) -> tensor<2x3xi32>
// CHECK-NOT:     onnx.NoValue
func.func @matmul_integer_per_row(%a: tensor<2x4xi8>, %b: tensor<4x3xi8>, %az: tensor<2xi8>) -> tensor<2x3xi32> {
  %none = "onnx.NoValue"() {value} : () -> none
  %0 = "onnx.MatMulInteger"(%a, %b, %az, %none) : (tensor<2x4xi8>, tensor<4x3xi8>, tensor<2xi8>, none) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// ConvInteger: x - x_zero_point and w - w_zero_point (1-D: one per output channel) in
// i32, then an i32 convolution with zero padding (x's padding is x_zero_point).

// CHECK-LABEL: func.func @conv_integer
// CHECK:         %[[XS:.*]] = stablehlo.subtract %{{.*}}, %{{.*}} : tensor<1x2x5x5xi32>
// CHECK:         %[[WZ:.*]] = stablehlo.convert %{{.*}} : (tensor<3xui8>) -> tensor<3xi32>
// CHECK-NEXT:    %[[WZB:.*]] = stablehlo.broadcast_in_dim %[[WZ]], dims = [0] : (tensor<3xi32>) -> tensor<3x2x3x3xi32>
// CHECK-NEXT:    %[[WS:.*]] = stablehlo.subtract %{{.*}}, %[[WZB]] : tensor<3x2x3x3xi32>
// CHECK-NEXT:    %[[Y:.*]] = stablehlo.convolution(%[[XS]], %[[WS]]) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = {{\[\[}}1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x5x5xi32>, tensor<3x2x3x3xi32>) -> tensor<1x3x5x5xi32>
// CHECK-NEXT:    return %[[Y]]
func.func @conv_integer(%x: tensor<1x2x5x5xui8>, %w: tensor<3x2x3x3xui8>, %xz: tensor<ui8>, %wz: tensor<3xui8>) -> tensor<1x3x5x5xi32> {
  %0 = "onnx.ConvInteger"(%x, %w, %xz, %wz) {pads = [1, 1, 1, 1]} : (tensor<1x2x5x5xui8>, tensor<3x2x3x3xui8>, tensor<ui8>, tensor<3xui8>) -> tensor<1x3x5x5xi32>
  return %0 : tensor<1x3x5x5xi32>
}

// -----

// Cast is convert; into float8 with saturate (the default) a clamp to the type's
// largest finite magnitude comes first (±inf -> ±448 for f8E4M3FN); without, IEEE
// overflow.

// CHECK-LABEL: func.func @cast
// CHECK-SAME:    (%[[I:.*]]: tensor<3xi32>, %[[F:.*]]: tensor<3xf32>)
// CHECK-NEXT:    %[[A:.*]] = stablehlo.convert %[[I]] : (tensor<3xi32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<4.480000e+02> : tensor<f32>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.clamp %[[LO]], %[[F]], %[[HI]] : (tensor<f32>, tensor<3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.convert %[[C]] : (tensor<3xf32>) -> tensor<3xf8E4M3FN>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.convert %[[F]] : (tensor<3xf32>) -> tensor<3xf8E5M2>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[D]]
func.func @cast(%x: tensor<3xi32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf8E4M3FN>, tensor<3xf8E5M2>) {
  %0 = "onnx.Cast"(%x) {to = f32} : (tensor<3xi32>) -> tensor<3xf32>
  %1 = "onnx.Cast"(%y) {to = f8E4M3FN} : (tensor<3xf32>) -> tensor<3xf8E4M3FN>
  %2 = "onnx.Cast"(%y) {saturate = 0 : si64, to = f8E5M2} : (tensor<3xf32>) -> tensor<3xf8E5M2>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf8E4M3FN>, tensor<3xf8E5M2>
}

// -----

// A Cast it does not lower stays, with the reason.

// CHECK-LABEL: func.func @cast_e8m0
// CHECK:         "onnx.Cast"
func.func @cast_e8m0(%x: tensor<3xf32>) -> tensor<3xf8E8M0FNU> {
  // expected-remark @+1 {{onnx-legalize-to-stablehlo: 'onnx.Cast' from float to float8e8m0 is not lowered (float8e8m0 has no StableHLO convert with ONNX's rounding)}}
  %0 = "onnx.Cast"(%x) {to = f8E8M0FNU} : (tensor<3xf32>) -> tensor<3xf8E8M0FNU>
  return %0 : tensor<3xf8E8M0FNU>
}
