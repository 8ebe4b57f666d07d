// RUN: qcomp-opt %s --lower-quant-ops --split-input-file | FileCheck %s

// lower-quant-ops on per-axis types. Each slice along the quantized dimension has
// its own scale and zero point; the pass materializes them as a 1-D constant and
// broadcasts it along that dimension (broadcast_in_dim, dims = [axis]), then
// applies the same formulas as per-tensor:
//   quantize   q = convert(round_nearest_even(clamp(storage_min, x / scale + zp, storage_max)))
//   dequantize x = convert(q - zp) * scale

// CHECK-LABEL: func.func @dcast_per_axis
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x3x!quant.uniform<u8:f32:1, {5.000000e-01:3,2.500000e-01:4,1.000000e+00}>>)
// CHECK-NEXT:    %[[I:.*]] = quant.scast %[[Q]] : {{.*}} to tensor<2x3xui8>
// CHECK-NEXT:    %[[W:.*]] = stablehlo.convert %[[I]] : (tensor<2x3xui8>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<[3, 4, 0]> : tensor<3xi32>
// CHECK-NEXT:    %[[ZB:.*]] = stablehlo.broadcast_in_dim %[[Z]], dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.subtract %[[W]], %[[ZB]] : tensor<2x3xi32>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.convert %[[D]] : (tensor<2x3xi32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[X:.*]] = stablehlo.multiply %[[F]], %[[SB]] : tensor<2x3xf32>
// CHECK-NEXT:    return %[[X]] : tensor<2x3xf32>
func.func @dcast_per_axis(%arg0: tensor<2x3x!quant.uniform<u8:f32:1, {0.5:3, 0.25:4, 1.0:0}>>) -> tensor<2x3xf32> {
  %0 = quant.dcast %arg0 : tensor<2x3x!quant.uniform<u8:f32:1, {0.5:3, 0.25:4, 1.0:0}>> to tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Quantizing along axis 0 of a rank-3 tensor.

// CHECK-LABEL: func.func @qcast_per_axis
// CHECK-SAME:    (%[[X:.*]]: tensor<2x2x2xf32>)
// CHECK-NEXT:    %[[S:.*]] = stablehlo.constant dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>
// CHECK-NEXT:    %[[SB:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [0] : (tensor<2xf32>) -> tensor<2x2x2xf32>
// CHECK-NEXT:    %[[DIV:.*]] = stablehlo.divide %[[X]], %[[SB]] : tensor<2x2x2xf32>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<[-1.000000e+01, 5.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[ZB:.*]] = stablehlo.broadcast_in_dim %[[Z]], dims = [0] : (tensor<2xf32>) -> tensor<2x2x2xf32>
// CHECK-NEXT:    %[[ADD:.*]] = stablehlo.add %[[DIV]], %[[ZB]] : tensor<2x2x2xf32>
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<-1.280000e+02> : tensor<f32>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<1.270000e+02> : tensor<f32>
// CHECK-NEXT:    %[[CL:.*]] = stablehlo.clamp %[[LO]], %[[ADD]], %[[HI]]
// CHECK-NEXT:    %[[R:.*]] = stablehlo.round_nearest_even %[[CL]] : tensor<2x2x2xf32>
// CHECK-NEXT:    %[[I:.*]] = stablehlo.convert %[[R]] : (tensor<2x2x2xf32>) -> tensor<2x2x2xi8>
// CHECK-NEXT:    quant.scast %[[I]] : tensor<2x2x2xi8> to tensor<2x2x2x!quant.uniform<i8:f32:0, {1.000000e-01:-10,2.000000e-01:5}>>
func.func @qcast_per_axis(%arg0: tensor<2x2x2xf32>) -> tensor<2x2x2x!quant.uniform<i8:f32:0, {0.1:-10, 0.2:5}>> {
  %0 = quant.qcast %arg0 : tensor<2x2x2xf32> to tensor<2x2x2x!quant.uniform<i8:f32:0, {0.1:-10, 0.2:5}>>
  return %0 : tensor<2x2x2x!quant.uniform<i8:f32:0, {0.1:-10, 0.2:5}>>
}

// -----

// A narrowed storage range on a per-axis type bounds the clamp as for per-tensor.

// CHECK-LABEL: func.func @qcast_per_axis_narrow
// CHECK:         stablehlo.constant dense<-1.270000e+02> : tensor<f32>
// CHECK-NEXT:    stablehlo.constant dense<1.270000e+02> : tensor<f32>
// CHECK-NEXT:    stablehlo.clamp
func.func @qcast_per_axis_narrow(%arg0: tensor<3x2xf32>) -> tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25}>> {
  %0 = quant.qcast %arg0 : tensor<3x2xf32> to tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25}>>
  return %0 : tensor<3x2x!quant.uniform<i8<-127:127>:f32:1, {0.5, 0.25}>>
}
