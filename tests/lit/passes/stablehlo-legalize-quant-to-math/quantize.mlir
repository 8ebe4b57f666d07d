// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-int --split-input-file | FileCheck %s

// rescale=float (the default) lowers uniform_quantize / uniform_dequantize to the
// StableHLO spec's formulas on the stored integers. Function arguments and results
// of quantized type take the storage type.

// quantize: q = convert(round_nearest_even(clamp(min, x / scale + zp, max))),
// computed in the expressed type (f32 here).

// CHECK-LABEL: func.func @quantize_per_tensor(%arg0: tensor<4xf32>) -> tensor<4xi8>
// CHECK:         %[[S:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = []
// CHECK:         %[[D:.*]] = stablehlo.divide %arg0, %[[SB]] : tensor<4xf32>
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<3.000000e+00> : tensor<f32>
// CHECK:         %[[ZB:.*]] = stablehlo.broadcast_in_dim %[[Z]], dims = []
// CHECK:         %[[A:.*]] = stablehlo.add %[[D]], %[[ZB]] : tensor<4xf32>
// CHECK:         %[[LO:.*]] = stablehlo.constant dense<-1.280000e+02> : tensor<f32>
// CHECK:         %[[HI:.*]] = stablehlo.constant dense<1.270000e+02> : tensor<f32>
// CHECK:         %[[C:.*]] = stablehlo.clamp %[[LO]], %[[A]], %[[HI]]
// CHECK:         %[[R:.*]] = stablehlo.round_nearest_even %[[C]] : tensor<4xf32>
// CHECK:         %[[Q:.*]] = stablehlo.convert %[[R]] : (tensor<4xf32>) -> tensor<4xi8>
// CHECK:         return %[[Q]] : tensor<4xi8>
func.func @quantize_per_tensor(%arg0: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:3>> {
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:3>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:3>>
}

// -----

// Per-axis: scales and zero points are rank-1 constants broadcast along the
// quantized dimension; a narrowed storage range clamps to [-127, 127].

// CHECK-LABEL: func.func @quantize_per_axis
// CHECK:         %[[S:.*]] = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 2.000000e+00]> : tensor<3xf32>
// CHECK:         stablehlo.broadcast_in_dim %[[S]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK:         stablehlo.divide
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<[1.000000e+00, 0.000000e+00, -1.000000e+00]> : tensor<3xf32>
// CHECK:         stablehlo.broadcast_in_dim %[[Z]], dims = [1]
// CHECK:         stablehlo.add
// CHECK:         stablehlo.constant dense<-1.270000e+02> : tensor<f32>
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xi8>
func.func @quantize_per_axis(%arg0: tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:0, 2.0:-1}>> {
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:0, 2.0:-1}>>
  func.return %0 : tensor<2x3x!quant.uniform<i8<-127:127>:f32:1, {0.5:1, 0.25:0, 2.0:-1}>>
}

// -----

// dequantize: x = convert(q - zp) * scale; the subtraction in i32. Unsigned
// storage (u8) is the builtin ui8.

// CHECK-LABEL: func.func @dequantize(%arg0: tensor<4xui8>) -> tensor<4xf32>
// CHECK:         %[[W:.*]] = stablehlo.convert %arg0 : (tensor<4xui8>) -> tensor<4xi32>
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<128> : tensor<i32>
// CHECK:         %[[ZB:.*]] = stablehlo.broadcast_in_dim %[[Z]]
// CHECK:         %[[D:.*]] = stablehlo.subtract %[[W]], %[[ZB]] : tensor<4xi32>
// CHECK:         %[[F:.*]] = stablehlo.convert %[[D]] : (tensor<4xi32>) -> tensor<4xf32>
// CHECK:         %[[S:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]]
// CHECK:         %[[X:.*]] = stablehlo.multiply %[[F]], %[[SB]] : tensor<4xf32>
// CHECK:         return %[[X]] : tensor<4xf32>
func.func @dequantize(%arg0: tensor<4x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<4xf32> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<4xf32>
  func.return %0 : tensor<4xf32>
}

// -----

// requantize (per-tensor i8 -> per-axis i16): the spec's quantize(dequantize(q)),
// in f32, with the output's per-axis parameters along dimension 0.

// CHECK-LABEL: func.func @requantize(%arg0: tensor<4xi8>) -> tensor<4xi16>
// CHECK:         stablehlo.subtract %{{.*}} : tensor<4xi32>
// CHECK:         stablehlo.multiply %{{.*}} : tensor<4xf32>
// CHECK:         stablehlo.constant dense<[2.500000e-01, 2.500000e-01, 1.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK:         stablehlo.divide
// CHECK:         stablehlo.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK:         stablehlo.add
// CHECK:         stablehlo.constant dense<-3.276800e+04> : tensor<f32>
// CHECK:         stablehlo.constant dense<3.276700e+04> : tensor<f32>
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi16>
// CHECK-NOT:     quant
func.func @requantize(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i16:f32:0, {0.25:0, 0.25:1, 1.0:2, 1.0:3}>> {
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i16:f32:0, {0.25:0, 0.25:1, 1.0:2, 1.0:3}>>
  func.return %0 : tensor<4x!quant.uniform<i16:f32:0, {0.25:0, 0.25:1, 1.0:2, 1.0:3}>>
}
