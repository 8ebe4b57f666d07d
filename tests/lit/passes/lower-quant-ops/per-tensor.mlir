// RUN: qcomp-opt %s --lower-quant-ops --split-input-file | FileCheck %s

// lower-quant-ops on per-tensor types: quant.qcast / quant.dcast become StableHLO
// arithmetic on tensors, with quant.scast between the quantized type and its
// storage integers.

// quant.qcast computes the spec's quantize:
//   q = convert(round_nearest_even(clamp(storage_min, x / scale + zero_point, storage_max)))
// Scale and zero point are rank-0 constants in the expressed type, broadcast to the
// tensor's shape. (Upstream truncates with arith.fptosi and does not clamp; the spec
// clamps, then rounds half to even.)

// CHECK-LABEL: func.func @qcast_per_tensor
// CHECK-SAME:    (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT:    %[[S:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [] : (tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[DIV:.*]] = stablehlo.divide %[[X]], %[[SB]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<-3.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[ZB:.*]] = stablehlo.broadcast_in_dim %[[Z]], dims = [] : (tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[ADD:.*]] = stablehlo.add %[[DIV]], %[[ZB]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<-1.280000e+02> : tensor<f32>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<1.270000e+02> : tensor<f32>
// CHECK-NEXT:    %[[CL:.*]] = stablehlo.clamp %[[LO]], %[[ADD]], %[[HI]] : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.round_nearest_even %[[CL]] : tensor<2x3xf32>
// CHECK-NEXT:    %[[I:.*]] = stablehlo.convert %[[R]] : (tensor<2x3xf32>) -> tensor<2x3xi8>
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %[[I]] : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-NEXT:    return %[[Q]]
func.func @qcast_per_tensor(%arg0: tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>> {
  %0 = quant.qcast %arg0 : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
  return %0 : tensor<2x3x!quant.uniform<i8:f32, 0.5:-3>>
}

// -----

// quant.dcast computes the spec's dequantize, convert(q - zero_point) * scale: the
// zero point is subtracted in i32 (exact for any storage up to 16 bits), then the
// difference is converted to the expressed type and scaled.

// CHECK-LABEL: func.func @dcast_per_tensor
// CHECK-SAME:    (%[[Q:.*]]: tensor<4x!quant.uniform<i8:f32, 2.000000e+00:10>>)
// CHECK-NEXT:    %[[I:.*]] = quant.scast %[[Q]] : tensor<4x!quant.uniform<i8:f32, 2.000000e+00:10>> to tensor<4xi8>
// CHECK-NEXT:    %[[W:.*]] = stablehlo.convert %[[I]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<10> : tensor<i32>
// CHECK-NEXT:    %[[ZB:.*]] = stablehlo.broadcast_in_dim %[[Z]], dims = [] : (tensor<i32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.subtract %[[W]], %[[ZB]] : tensor<4xi32>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.convert %[[D]] : (tensor<4xi32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [] : (tensor<f32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[X:.*]] = stablehlo.multiply %[[F]], %[[SB]] : tensor<4xf32>
// CHECK-NEXT:    return %[[X]] : tensor<4xf32>
func.func @dcast_per_tensor(%arg0: tensor<4x!quant.uniform<i8:f32, 2.0:10>>) -> tensor<4xf32> {
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 2.0:10>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A zero point of 0 needs no subtraction: the storage integers convert directly.

// CHECK-LABEL: func.func @dcast_zero_point_0
// CHECK-NEXT:    %[[I:.*]] = quant.scast %{{.*}} : tensor<4x!quant.uniform<i8:f32, 2.500000e-01>> to tensor<4xi8>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.convert %[[I]] : (tensor<4xi8>) -> tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT:    %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = []
// CHECK-NEXT:    stablehlo.multiply %[[F]], %[[SB]] : tensor<4xf32>
func.func @dcast_zero_point_0(%arg0: tensor<4x!quant.uniform<i8:f32, 0.25>>) -> tensor<4xf32> {
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 0.25>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// 32-bit storage subtracts the zero point in i64, where q - zero_point cannot
// overflow.

// CHECK-LABEL: func.func @dcast_i32_storage
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xi32>) -> tensor<4xi64>
// CHECK:         stablehlo.subtract %{{.*}}, %{{.*}} : tensor<4xi64>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xi64>) -> tensor<4xf32>
func.func @dcast_i32_storage(%arg0: tensor<4x!quant.uniform<i32:f32, 0.5:-7>>) -> tensor<4xf32> {
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i32:f32, 0.5:-7>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Unsigned storage (u8) is stored as ui8 on tensors; a narrowed storage range
// (<2:10>) is the clamp's bounds. Because 0 lies outside [2, 10] the converted
// integers are clamped once more, so a NaN input (which converts to 0) still lands
// inside the storage range.

// CHECK-LABEL: func.func @qcast_unsigned_narrow_range
// CHECK:         stablehlo.add
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<1.000000e+01> : tensor<f32>
// CHECK-NEXT:    %[[CL:.*]] = stablehlo.clamp %[[LO]], %{{.*}}, %[[HI]]
// CHECK-NEXT:    %[[R:.*]] = stablehlo.round_nearest_even %[[CL]] : tensor<3xf32>
// CHECK-NEXT:    %[[I:.*]] = stablehlo.convert %[[R]] : (tensor<3xf32>) -> tensor<3xui8>
// CHECK-NEXT:    %[[ILO:.*]] = stablehlo.constant dense<2> : tensor<ui8>
// CHECK-NEXT:    %[[IHI:.*]] = stablehlo.constant dense<10> : tensor<ui8>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.clamp %[[ILO]], %[[I]], %[[IHI]] : (tensor<ui8>, tensor<3xui8>, tensor<ui8>) -> tensor<3xui8>
// CHECK-NEXT:    quant.scast %[[C]] : tensor<3xui8> to tensor<3x!quant.uniform<u8<2:10>:f32, 2.000000e+00:5>>
func.func @qcast_unsigned_narrow_range(%arg0: tensor<3xf32>) -> tensor<3x!quant.uniform<u8<2:10>:f32, 2.0:5>> {
  %0 = quant.qcast %arg0 : tensor<3xf32> to tensor<3x!quant.uniform<u8<2:10>:f32, 2.0:5>>
  return %0 : tensor<3x!quant.uniform<u8<2:10>:f32, 2.0:5>>
}

// -----

// The arithmetic happens in the expressed type: for f16 the scale is the f16
// nearest to 0.1.

// CHECK-LABEL: func.func @qcast_f16
// CHECK-NEXT:    stablehlo.constant dense<{{9\.9975[0-9]+e-02}}> : tensor<f16>
// CHECK:         stablehlo.divide %{{.*}}, %{{.*}} : tensor<2xf16>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2xf16>) -> tensor<2xi8>
func.func @qcast_f16(%arg0: tensor<2xf16>) -> tensor<2x!quant.uniform<i8:f16, 0.1>> {
  %0 = quant.qcast %arg0 : tensor<2xf16> to tensor<2x!quant.uniform<i8:f16, 0.1>>
  return %0 : tensor<2x!quant.uniform<i8:f16, 0.1>>
}
