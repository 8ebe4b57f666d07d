// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s
// The storage type may be any builtin integer type, as in MLIR's parser (which reads
// it with parseOptionalType): signless `iN` and signed `siN` are signed storage and
// print as `iN`; unsigned `uiN` prints as `uN`. Ranges default to the signedness's.

// CHECK-LABEL: func.func @ui8
// CHECK-SAME: tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-SAME: -> tensor<4xf32>
func.func @ui8(%arg0: tensor<4x!quant.uniform<ui8:f32, 0.5:128>>) -> tensor<4xf32> {
  // CHECK: quant.dcast %{{.*}} : tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<ui8:f32, 0.5:128>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @si8_per_axis
// CHECK-SAME: tensor<2x!quant.uniform<i8<-127:127>:f32:0, {5.000000e-01,2.500000e-01:-3}>>
func.func @si8_per_axis(%arg0: tensor<2x!quant.uniform<si8<-127:127>:f32:0, {0.5,0.25:-3}>>) {
  return
}

// CHECK-LABEL: func.func @si8_full_range
// CHECK-SAME: tensor<2x!quant.uniform<i8:f32, 1.000000e+00:-128>>
func.func @si8_full_range(%arg0: tensor<2x!quant.uniform<si8:f32, 1.0:-128>>) {
  return
}

// CHECK-LABEL: func.func @any_types
// CHECK-SAME: !quant.any<u4:f32>
// CHECK-SAME: !quant.any<i16<-100:100>:f16>
func.func @any_types(%arg0: !quant.any<ui4:f32>, %arg1: !quant.any<si16<-100:100>:f16>) {
  return
}

// CHECK-LABEL: func.func @ui16_narrowed
// CHECK-SAME: tensor<3x!quant.uniform<u16<1:65535>:f32, 1.000000e+00:1>>
func.func @ui16_narrowed(%arg0: tensor<3x!quant.uniform<ui16<1:65535>:f32, 1.0:1>>) {
  return
}
