// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s

// Text as upstream MLIR (tosa-opt, LLVM 24) prints it: enum properties as bare
// keywords in a sorted dictionary, nan_mode = PROPAGATE left out, tosa.const generic.

// CHECK-LABEL: func.func @rescale
func.func @rescale(%x: tensor<4xi8>) -> tensor<4xi8> {
  // CHECK: "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  // attributes in the property-dictionary position are read as properties too
  // CHECK: "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() {values = dense<3> : tensor<1xi8>} : () -> tensor<1xi8>
  %ozp = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  // CHECK: tosa.rescale %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  // GENERIC: "tosa.rescale"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>, scale32 = true}> : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  %r = tosa.rescale %x, %m, %s, %izp, %ozp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// CHECK-LABEL: func.func @rescale_modes
func.func @rescale_modes(%x: tensor<2x3xi16>, %m: tensor<3xi16>, %s: tensor<3xi8>, %izp: tensor<1xi16>, %ozp: tensor<1xi32>, %m1: tensor<1xi32>, %s1: tensor<1xi8>, %u: tensor<5xi8>, %uzp: tensor<1xi8>, %zp16: tensor<1xi16>) {
  // CHECK: tosa.rescale {{.*}} {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = INEXACT_ROUND, scale32 = false} : (tensor<2x3xi16>, tensor<3xi16>, tensor<3xi8>, tensor<1xi16>, tensor<1xi32>) -> tensor<2x3xi32>
  // GENERIC: rounding_mode = #tosa.rounding_mode<INEXACT_ROUND>
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = INEXACT_ROUND, scale32 = false} : (tensor<2x3xi16>, tensor<3xi16>, tensor<3xi8>, tensor<1xi16>, tensor<1xi32>) -> tensor<2x3xi32>
  // the qualified enum spelling is read too; discardable attributes print in the
  // same sorted dictionary
  // CHECK: tosa.rescale {{.*}} {input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = INEXACT_ROUND, scale32 = true, zzz = 1 : i32} : (tensor<5xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi16>) -> tensor<5xi16>
  // GENERIC: <{input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<INEXACT_ROUND>, scale32 = true}> {zzz = 1 : i32}
  %1 = tosa.rescale %u, %m1, %s1, %uzp, %zp16 {zzz = 1 : i32, input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = #tosa.rounding_mode<INEXACT_ROUND>, scale32 = true} : (tensor<5xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi16>) -> tensor<5xi16>
  // GENERIC: "tosa.rescale"{{.*}}rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>
  // CHECK: tosa.rescale {{.*}}rounding_mode = SINGLE_ROUND
  %2 = "tosa.rescale"(%u, %m1, %s1, %uzp, %uzp) <{input_unsigned = false, output_unsigned = true, per_channel = false, rounding_mode = #tosa.rounding_mode<SINGLE_ROUND>, scale32 = true}> : (tensor<5xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<5xi8>
  return
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<13x21x3xi32>, %b: tensor<13x1x3xi32>, %f: tensor<4xf32>, %e: tensor<4xi8>) {
  // CHECK: tosa.add %{{.*}}, %{{.*}} : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi32>
  // GENERIC: "tosa.add"(%{{.*}}, %{{.*}}) : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi32>
  %0 = tosa.add %a, %b : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi32>
  // CHECK: tosa.sub %{{.*}}, %{{.*}} : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi32>
  %1 = tosa.sub %a, %b : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // CHECK: tosa.mul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<13x21x3xi32>, tensor<13x1x3xi32>, tensor<1xi8>) -> tensor<13x21x3xi32>
  // GENERIC: "tosa.mul"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<13x21x3xi32>, tensor<13x1x3xi32>, tensor<1xi8>) -> tensor<13x21x3xi32>
  %2 = tosa.mul %a, %b, %shift : (tensor<13x21x3xi32>, tensor<13x1x3xi32>, tensor<1xi8>) -> tensor<13x21x3xi32>
  // CHECK: tosa.mul %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4xi8>, tensor<4xi8>, tensor<1xi8>) -> tensor<4xi32>
  %3 = tosa.mul %e, %e, %shift : (tensor<4xi8>, tensor<4xi8>, tensor<1xi8>) -> tensor<4xi32>
  // CHECK: tosa.maximum %{{.*}}, %{{.*}} : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi32>
  // GENERIC: "tosa.maximum"(%{{.*}}, %{{.*}}) <{nan_mode = #tosa.nan_mode<PROPAGATE>}> : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi32>
  %4 = tosa.maximum %a, %b : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi32>
  // CHECK: tosa.minimum %{{.*}}, %{{.*}} {nan_mode = IGNORE} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // GENERIC: "tosa.minimum"(%{{.*}}, %{{.*}}) <{nan_mode = #tosa.nan_mode<IGNORE>}> : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %5 = tosa.minimum %f, %f {nan_mode = IGNORE} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // an explicit default prints like an absent one
  // CHECK: tosa.maximum %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %6 = tosa.maximum %f, %f {nan_mode = PROPAGATE} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: tosa.abs %{{.*}} : (tensor<4xf32>) -> tensor<4xf32>
  // GENERIC: "tosa.abs"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
  %7 = tosa.abs %f : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: tosa.clamp %{{.*}} {max_val = 5 : i8, min_val = -5 : i8} : (tensor<4xi8>) -> tensor<4xi8>
  // GENERIC: "tosa.clamp"(%{{.*}}) <{max_val = 5 : i8, min_val = -5 : i8, nan_mode = #tosa.nan_mode<PROPAGATE>}> : (tensor<4xi8>) -> tensor<4xi8>
  %8 = tosa.clamp %e {min_val = -5 : i8, max_val = 5 : i8} : (tensor<4xi8>) -> tensor<4xi8>
  // CHECK: tosa.clamp %{{.*}} {max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32, nan_mode = IGNORE} : (tensor<4xf32>) -> tensor<4xf32>
  %9 = tosa.clamp %f {min_val = 0.0 : f32, max_val = 6.0 : f32, nan_mode = IGNORE} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: tosa.cast %{{.*}} : (tensor<4xf32>) -> tensor<4xi8>
  // GENERIC: "tosa.cast"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xi8>
  %10 = tosa.cast %f : (tensor<4xf32>) -> tensor<4xi8>
  // CHECK: tosa.greater %{{.*}}, %{{.*}} : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi1>
  %11 = tosa.greater %a, %b : (tensor<13x21x3xi32>, tensor<13x1x3xi32>) -> tensor<13x21x3xi1>
  // CHECK: tosa.greater_equal %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %12 = tosa.greater_equal %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK: tosa.equal %{{.*}}, %{{.*}} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  // GENERIC: "tosa.equal"(%{{.*}}, %{{.*}}) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  %13 = tosa.equal %e, %e : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi1>
  // generic input prints in the custom form
  // CHECK: tosa.add %{{.*}}, %{{.*}} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %14 = "tosa.add"(%e, %e) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return
}

// CHECK-LABEL: func.func @constants
func.func @constants() {
  // MLIR's float text and bit patterns for non-finite values
  // CHECK: "tosa.const"() <{values = dense<[1.000000e+00, 2.47494364, 0x7FC00000, 0xFF800000]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %0 = "tosa.const"() <{values = dense<[1.0, 2.47494364, 0x7FC00000, 0xFF800000]> : tensor<4xf32>}> : () -> tensor<4xf32>
  // a quantized result over its storage values
  // CHECK: "tosa.const"() <{values = dense<[1, -2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %1 = "tosa.const"() <{values = dense<[1, -2]> : tensor<2xi8>}> : () -> tensor<2x!quant.uniform<i8:f32, 0.5:3>>
  return
}
