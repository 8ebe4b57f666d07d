// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s
// Unranked tensors of quantized types in quant.qcast, quant.dcast and quant.scast, as
// MLIR takes them (checked with tosa-opt, LLVM 24): per-tensor and per-axis types (the
// per-axis type is checked against the shape only when the tensor is ranked).

// CHECK-LABEL: func.func @per_tensor
// CHECK: quant.qcast %arg0 : tensor<*xf32> to tensor<*x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK: quant.dcast %{{.*}} : tensor<*x!quant.uniform<i8:f32, 5.000000e-01:3>> to tensor<*xf32>
// CHECK: quant.scast %{{.*}} : tensor<*x!quant.uniform<i8:f32, 5.000000e-01:3>> to tensor<*xi8>
// CHECK: quant.scast %{{.*}} : tensor<*xi8> to tensor<*x!quant.uniform<i8:f32, 5.000000e-01:3>>
func.func @per_tensor(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  %0 = quant.qcast %arg0 : tensor<*xf32> to tensor<*x!quant.uniform<i8:f32, 0.5:3>>
  %1 = quant.dcast %0 : tensor<*x!quant.uniform<i8:f32, 0.5:3>> to tensor<*xf32>
  %2 = quant.scast %0 : tensor<*x!quant.uniform<i8:f32, 0.5:3>> to tensor<*xi8>
  %3 = quant.scast %2 : tensor<*xi8> to tensor<*x!quant.uniform<i8:f32, 0.5:3>>
  return %1 : tensor<*xf32>
}

// CHECK-LABEL: func.func @per_axis
// CHECK: quant.qcast %arg0 : tensor<*xf16> to tensor<*x!quant.uniform<u8:f16:5, {1.000000e+00,2.000000e+00:-1}>>
// CHECK: quant.dcast %{{.*}} : tensor<*x!quant.uniform<u8:f16:5, {1.000000e+00,2.000000e+00:-1}>> to tensor<*xf16>
func.func @per_axis(%arg0: tensor<*xf16>) -> tensor<*xf16> {
  %0 = quant.qcast %arg0 : tensor<*xf16> to tensor<*x!quant.uniform<u8:f16:5, {1.0, 2.0:-1}>>
  %1 = quant.dcast %0 : tensor<*x!quant.uniform<u8:f16:5, {1.0, 2.0:-1}>> to tensor<*xf16>
  return %1 : tensor<*xf16>
}

// CHECK-LABEL: func.func @other_types
// CHECK-SAME: tensor<*x!quant.uniform<f8E5M2:f32, 1.000000e+00>>
// CHECK-SAME: tensor<*x!quant.uniform<i8:f32:{0:1}, {1.000000e+00}>>
// CHECK-SAME: tensor<*x!quant.any<i8:f32>>
// CHECK: quant.dcast %arg2 : tensor<*x!quant.any<i8:f32>> to tensor<*xf32>
func.func @other_types(%arg0: tensor<*x!quant.uniform<f8E5M2:f32, 1.0>>,
                       %arg1: tensor<*x!quant.uniform<i8:f32:{0:1}, {1.0}>>,
                       %arg2: tensor<*x!quant.any<i8:f32>>) {
  %0 = quant.dcast %arg2 : tensor<*x!quant.any<i8:f32>> to tensor<*xf32>
  return
}
