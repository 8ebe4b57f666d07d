// RUN: qcomp-opt %s --lower-quant-ops --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --lower-quant-ops --split-input-file --verify-numerics 20 > /dev/null
// Zero points outside the storage range (legal quant types, as in MLIR): the formulas
// hold as they are, `clamp(x / scale + zero_point)` and `(q - zero_point) * scale`, the
// subtraction in i32, or in i64 where q - zero_point can leave i32.

// CHECK-LABEL: func.func @qcast_u8_below
// CHECK:         stablehlo.constant dense<-1.200000e+02> : tensor<f32>
// CHECK:         stablehlo.add
// CHECK:         stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    stablehlo.constant dense<2.550000e+02> : tensor<f32>
// CHECK-NEXT:    stablehlo.clamp
func.func @qcast_u8_below(%arg0: tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 1.0:-120>> {
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 1.0:-120>>
  return %0 : tensor<4x!quant.uniform<u8:f32, 1.0:-120>>
}

// -----

// CHECK-LABEL: func.func @dcast_i8_far
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xi8>) -> tensor<4xi64>
// CHECK-NEXT:    stablehlo.constant dense<1099511627776> : tensor<i64>
// CHECK:         stablehlo.subtract %{{.*}} : tensor<4xi64>
func.func @dcast_i8_far(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0:1099511627776>>) -> tensor<4xf32> {
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0:1099511627776>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @dcast_scalar_narrowed
// CHECK:         arith.extsi %{{.*}} : i8 to i32
// CHECK-NEXT:    arith.constant 127 : i32
// CHECK-NEXT:    arith.subi
func.func @dcast_scalar_narrowed(%arg0: !quant.uniform<i8<-8:7>:f32, 0.5:127>) -> f32 {
  %0 = quant.dcast %arg0 : !quant.uniform<i8<-8:7>:f32, 0.5:127> to f32
  return %0 : f32
}

// -----

// CHECK-LABEL: func.func @per_axis_round_trip
// CHECK:         stablehlo.constant dense<[3.000000e+02, -4.000000e+01]> : tensor<2xf32>
// CHECK:         stablehlo.constant dense<[300, -40]> : tensor<2xi32>
func.func @per_axis_round_trip(%arg0: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = quant.qcast %arg0 : tensor<3x2xf32> to tensor<3x2x!quant.uniform<u8:f32:1, {0.5:300, 2.0:-40}>>
  %1 = quant.dcast %0 : tensor<3x2x!quant.uniform<u8:f32:1, {0.5:300, 2.0:-40}>> to tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}
