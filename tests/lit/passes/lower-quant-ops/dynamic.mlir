// RUN: qcomp-opt %s --lower-quant-ops --split-input-file | FileCheck %s

// Tensors with dynamic dimensions: the parameters cannot be broadcast to a static
// shape, so the pass uses CHLO's implicitly broadcasting ops with the small
// parameter constant, as upstream's quant-to-math does: rank 0 for per-tensor,
// 1-D with broadcast_dimensions = [axis] for per-axis. clamp takes rank-0 bounds
// for any shape.

// CHECK-LABEL: func.func @qcast_per_axis_dynamic
// CHECK-SAME:    (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT:    %[[S:.*]] = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[DIV:.*]] = chlo.broadcast_divide %[[X]], %[[S]] {broadcast_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<[1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[ADD:.*]] = chlo.broadcast_add %[[DIV]], %[[Z]] {broadcast_dimensions = array<i64: 1>} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<-1.280000e+02> : tensor<f32>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<1.270000e+02> : tensor<f32>
// CHECK-NEXT:    %[[CL:.*]] = stablehlo.clamp %[[LO]], %[[ADD]], %[[HI]] : (tensor<f32>, tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.round_nearest_even %[[CL]] : tensor<?x4xf32>
// CHECK-NEXT:    %[[I:.*]] = stablehlo.convert %[[R]] : (tensor<?x4xf32>) -> tensor<?x4xi8>
// CHECK-NEXT:    quant.scast %[[I]] : tensor<?x4xi8> to tensor<?x4x!quant.uniform<i8:f32:1, {{.*}}>>
func.func @qcast_per_axis_dynamic(%arg0: tensor<?x4xf32>) -> tensor<?x4x!quant.uniform<i8:f32:1, {0.5:1, 0.25, 1.0, 2.0}>> {
  %0 = quant.qcast %arg0 : tensor<?x4xf32> to tensor<?x4x!quant.uniform<i8:f32:1, {0.5:1, 0.25, 1.0, 2.0}>>
  return %0 : tensor<?x4x!quant.uniform<i8:f32:1, {0.5:1, 0.25, 1.0, 2.0}>>
}

// -----

// CHECK-LABEL: func.func @dcast_per_tensor_dynamic
// CHECK-NEXT:    %[[I:.*]] = quant.scast %{{.*}} to tensor<?x?xi8>
// CHECK-NEXT:    %[[W:.*]] = stablehlo.convert %[[I]] : (tensor<?x?xi8>) -> tensor<?x?xi32>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<3> : tensor<i32>
// CHECK-NEXT:    %[[D:.*]] = chlo.broadcast_subtract %[[W]], %[[Z]] : (tensor<?x?xi32>, tensor<i32>) -> tensor<?x?xi32>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.convert %[[D]] : (tensor<?x?xi32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    chlo.broadcast_multiply %[[F]], %[[S]] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
func.func @dcast_per_tensor_dynamic(%arg0: tensor<?x?x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<?x?xf32> {
  %0 = quant.dcast %arg0 : tensor<?x?x!quant.uniform<i8:f32, 0.5:3>> to tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
