// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s
// The storage type is kept as written, as MLIR keeps it (checked with tosa-opt, LLVM 24):
// any builtin integer type (`iN`, `siN`, `uiN`) or the keyword `uN`, widths 1 to 32.
// `ui8` prints `ui8`, `si8` `si8`, `u8` `u8`, `i8` `i8`; the default range is the
// signedness's (`si8<-128:127>` prints `si8`), a narrower one is printed.

// CHECK-LABEL: func.func @ui8
// CHECK-SAME: (%arg0: tensor<4x!quant.uniform<ui8:f32, 5.000000e-01:128>>) -> tensor<4xf32>
func.func @ui8(%arg0: tensor<4x!quant.uniform<ui8:f32, 0.5:128>>) -> tensor<4xf32> {
  // CHECK: quant.dcast %arg0 : tensor<4x!quant.uniform<ui8:f32, 5.000000e-01:128>> to tensor<4xf32>
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<ui8:f32, 0.5:128>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @four_spellings
// CHECK-SAME: (%arg0: tensor<2x!quant.uniform<i8:f32, 1.000000e+00>>,
// CHECK-SAME: %arg1: tensor<2x!quant.uniform<si8:f32, 1.000000e+00>>,
// CHECK-SAME: %arg2: tensor<2x!quant.uniform<u8:f32, 1.000000e+00>>,
// CHECK-SAME: %arg3: tensor<2x!quant.uniform<ui8:f32, 1.000000e+00>>)
func.func @four_spellings(%arg0: tensor<2x!quant.uniform<i8:f32, 1.0>>,
                          %arg1: tensor<2x!quant.uniform<si8:f32, 1.0>>,
                          %arg2: tensor<2x!quant.uniform<u8:f32, 1.0>>,
                          %arg3: tensor<2x!quant.uniform<ui8:f32, 1.0>>) {
  return
}

// CHECK-LABEL: func.func @si8_per_axis
// CHECK-SAME: tensor<2x!quant.uniform<si8<-127:127>:f32:0, {5.000000e-01,2.500000e-01:-3}>>
func.func @si8_per_axis(%arg0: tensor<2x!quant.uniform<si8<-127:127>:f32:0, {0.5,0.25:-3}>>) {
  return
}

// CHECK-LABEL: func.func @default_ranges_written
// CHECK-SAME: tensor<2x!quant.uniform<si8:f32, 1.000000e+00:-128>>
// CHECK-SAME: tensor<2x!quant.uniform<ui16:f32, 1.000000e+00>>
// CHECK-SAME: tensor<2x!quant.uniform<u4:f32, 1.000000e+00>>
func.func @default_ranges_written(%arg0: tensor<2x!quant.uniform<si8<-128:127>:f32, 1.0:-128>>,
                                  %arg1: tensor<2x!quant.uniform<ui16<0:65535>:f32, 1.0>>,
                                  %arg2: tensor<2x!quant.uniform<u4<0:15>:f32, 1.0>>) {
  return
}

// Widths 1 and 32: `i1` holds [-1, 0], `u1` [0, 1]; leading zeros in the width read as
// MLIR's lexer reads them (`i08` is `i8`).
// CHECK-LABEL: func.func @widths
// CHECK-SAME: tensor<2x!quant.uniform<i1:f32, 1.000000e+00:-1>>
// CHECK-SAME: tensor<2x!quant.uniform<u1:f32, 1.000000e+00:1>>
// CHECK-SAME: tensor<2x!quant.uniform<si1:f32, 1.000000e+00>>
// CHECK-SAME: tensor<2x!quant.uniform<u2<1:2>:f32, 1.000000e+00>>
// CHECK-SAME: tensor<2x!quant.uniform<i32:f32, 1.000000e+00>>
// CHECK-SAME: tensor<2x!quant.uniform<u32:f32, 1.000000e+00:4294967295>>
// CHECK-SAME: tensor<2x!quant.uniform<si32<-5:5>:f32, 1.000000e+00>>
// CHECK-SAME: tensor<2x!quant.uniform<ui32:f32, 1.000000e+00>>
// CHECK-SAME: tensor<2x!quant.uniform<i8:f32, 1.000000e+00>>
// CHECK-SAME: tensor<2x!quant.uniform<u8:f32, 1.000000e+00>>
func.func @widths(%arg0: tensor<2x!quant.uniform<i1:f32, 1.0:-1>>,
                  %arg1: tensor<2x!quant.uniform<u1:f32, 1.0:1>>,
                  %arg2: tensor<2x!quant.uniform<si1<-1:0>:f32, 1.0>>,
                  %arg3: tensor<2x!quant.uniform<u2<1:2>:f32, 1.0>>,
                  %arg4: tensor<2x!quant.uniform<i32:f32, 1.0>>,
                  %arg5: tensor<2x!quant.uniform<u32:f32, 1.0:4294967295>>,
                  %arg6: tensor<2x!quant.uniform<si32<-5:5>:f32, 1.0>>,
                  %arg7: tensor<2x!quant.uniform<ui32:f32, 1.0>>,
                  %arg8: tensor<2x!quant.uniform<i08:f32, 1.0>>,
                  %arg9: tensor<2x!quant.uniform<u08:f32, 1.0>>) {
  return
}

// CHECK-LABEL: func.func @any_types
// CHECK-SAME: !quant.any<ui4:f32>
// CHECK-SAME: !quant.any<si16<-100:100>:f16>
// CHECK-SAME: !quant.any<u4>
func.func @any_types(%arg0: !quant.any<ui4:f32>, %arg1: !quant.any<si16<-100:100>:f16>,
                     %arg2: !quant.any<u4>) {
  return
}

// `u8` and `i8` have the storage type `i8` (the keyword `u8` is the signless i8 with
// the type's Signed flag clear): quant.scast takes them to and from `i8`.
// CHECK-LABEL: func.func @scast_storage
// CHECK: quant.scast %arg0 : tensor<3x!quant.uniform<u8:f32, 3.906250e-03:128>> to tensor<3xi8>
// CHECK: quant.scast %{{.*}} : tensor<3xi8> to tensor<3x!quant.uniform<i8:f32, 3.906250e-03>>
func.func @scast_storage(%arg0: tensor<3x!quant.uniform<u8:f32, 0.00390625:128>>) {
  %0 = quant.scast %arg0 : tensor<3x!quant.uniform<u8:f32, 0.00390625:128>> to tensor<3xi8>
  %1 = quant.scast %0 : tensor<3xi8> to tensor<3x!quant.uniform<i8:f32, 0.00390625>>
  return
}
