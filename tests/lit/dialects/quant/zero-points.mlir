// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s
// Zero points outside the storage range are legal quant types, as in MLIR (checked with
// tosa-opt, LLVM 24): any int64. The quant ops take them; StableHLO's ops do not
// (zero-points-stablehlo-invalid.mlir).

// CHECK-LABEL: func.func @per_tensor
// CHECK: quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 1.000000e+00:-120>>
// CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<u8:f32, 1.000000e+00:-120>> to tensor<4xf32>
// CHECK: quant.scast %{{.*}} : tensor<4x!quant.uniform<u8:f32, 1.000000e+00:-120>> to tensor<4xi8>
func.func @per_tensor(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 1.0:-120>>
  %1 = quant.dcast %0 : tensor<4x!quant.uniform<u8:f32, 1.0:-120>> to tensor<4xf32>
  %2 = quant.scast %0 : tensor<4x!quant.uniform<u8:f32, 1.0:-120>> to tensor<4xi8>
  return %1 : tensor<4xf32>
}

// CHECK-LABEL: func.func @narrowed
// CHECK-SAME: tensor<4x!quant.uniform<i8<-8:7>:f32, 9.987200e-01:127>>
func.func @narrowed(%arg0: tensor<4x!quant.uniform<i8<-8:7>:f32, 0.99872:127>>) {
  return
}

// CHECK-LABEL: func.func @per_axis
// CHECK: quant.dcast %arg0 : tensor<2x!quant.uniform<i4:f32:0, {1.000000e+00:8,2.000000e+00:-9}>> to tensor<2xf32>
func.func @per_axis(%arg0: tensor<2x!quant.uniform<i4:f32:0, {1.0:8, 2.0:-9}>>) -> tensor<2xf32> {
  %0 = quant.dcast %arg0 : tensor<2x!quant.uniform<i4:f32:0, {1.0:8, 2.0:-9}>> to tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @int64_extremes
// CHECK-SAME: tensor<2x!quant.uniform<ui8:f32, 1.000000e+00:-9223372036854775808>>
// CHECK-SAME: tensor<2x!quant.uniform<si16:f32, 1.000000e+00:9223372036854775807>>
func.func @int64_extremes(%arg0: tensor<2x!quant.uniform<ui8:f32, 1.0:-9223372036854775808>>,
                          %arg1: tensor<2x!quant.uniform<si16:f32, 1.0:9223372036854775807>>) {
  return
}
