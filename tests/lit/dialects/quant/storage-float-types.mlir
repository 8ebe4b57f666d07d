// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s
// Float storage types, as MLIR 24 takes them (checked with tosa-opt): f8E5M2, f8E4M3FN
// and f4E2M1FN (the float types with MLIR's quant storage interface); the default
// storage range is the type's finite range, [-57344, 57344], [-448, 448] and [-6, 6].
// qcomp reads and prints them; what they mean (quantize rounding to the float type) is
// not implemented yet, and passes refuse them (see storage-float-invalid.mlir).

// CHECK-LABEL: func.func @per_tensor
// CHECK-SAME: tensor<4x!quant.uniform<f8E5M2:f32, 2.000000e+00:3>>
// CHECK-SAME: tensor<4x!quant.uniform<f8E4M3FN:f32, 2.000000e+00:3>>
// CHECK-SAME: tensor<4x!quant.uniform<f4E2M1FN:bf16, 5.000000e-01>>
func.func @per_tensor(%arg0: tensor<4x!quant.uniform<f8E5M2:f32, 2.0:3>>,
                      %arg1: tensor<4x!quant.uniform<f8E4M3FN:f32, 2.0:3>>,
                      %arg2: tensor<4x!quant.uniform<f4E2M1FN:bf16, 0.5>>) {
  return
}

// CHECK-LABEL: func.func @ranges
// CHECK-SAME: !quant.uniform<f8E5M2:f32, 1.000000e+00>
// CHECK-SAME: !quant.uniform<f8E5M2<-100:100>:f32, 1.000000e+00>
// CHECK-SAME: !quant.uniform<f8E4M3FN:f16, 1.000000e+00>
// CHECK-SAME: !quant.uniform<f4E2M1FN<-6:5>:f64, 1.000000e+00:7>
func.func @ranges(%arg0: tensor<2x!quant.uniform<f8E5M2<-57344:57344>:f32, 1.0>>,
                  %arg1: tensor<2x!quant.uniform<f8E5M2<-100:100>:f32, 1.0>>,
                  %arg2: tensor<2x!quant.uniform<f8E4M3FN<-448:448>:f16, 1.0>>,
                  %arg3: tensor<2x!quant.uniform<f4E2M1FN<-6:5>:f64, 1.0:7>>) {
  return
}

// CHECK-LABEL: func.func @per_axis
// CHECK: quant.qcast %arg0 : tensor<2x3xf32> to tensor<2x3x!quant.uniform<f8E4M3FN:f32:1, {1.000000e+00,2.000000e+00:-1,5.000000e-01}>>
// CHECK: quant.dcast %{{.*}} : tensor<2x3x!quant.uniform<f8E4M3FN:f32:1, {1.000000e+00,2.000000e+00:-1,5.000000e-01}>> to tensor<2x3xf32>
func.func @per_axis(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = quant.qcast %arg0 : tensor<2x3xf32> to tensor<2x3x!quant.uniform<f8E4M3FN:f32:1, {1.0, 2.0:-1, 0.5}>>
  %1 = quant.dcast %0 : tensor<2x3x!quant.uniform<f8E4M3FN:f32:1, {1.0, 2.0:-1, 0.5}>> to tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @any
// CHECK-SAME: !quant.any<f8E5M2:f32>, %arg1: !quant.any<f4E2M1FN<-2:2>>
func.func @any(%arg0: !quant.any<f8E5M2:f32>, %arg1: !quant.any<f4E2M1FN<-2:2>>) {
  return
}
