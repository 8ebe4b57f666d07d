// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file --verify-numerics | FileCheck %s
// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=fixed-point' --split-input-file --verify-numerics | FileCheck %s --check-prefix=FIXED

// maximum, minimum, select and the like pick one of their operands' values. With one
// quantized type throughout they pass the stored integers through, but only where that
// is what the spec's dequantize -> op -> quantize gives: when every storage value
// survives dequantize -> quantize in the expressed type (qcomp.quant.uniform.
// storage_round_trips, checked exhaustively).

// i8 in f32: every value round-trips, the integers pass through.
// CHECK-LABEL: func.func @max_i8
// CHECK-NEXT:    %[[M:.*]] = stablehlo.maximum %{{.*}}, %{{.*}} : tensor<2xi8>
// CHECK-NEXT:    return %[[M]] : tensor<2xi8>
// FIXED-LABEL: func.func @max_i8
// FIXED-NEXT:    stablehlo.maximum %{{.*}}, %{{.*}} : tensor<2xi8>
func.func @max_i8(%a: tensor<2x!quant.uniform<i8:f32, 0.1:3>>, %b: tensor<2x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<2x!quant.uniform<i8:f32, 0.1:3>> {
  %0 = stablehlo.maximum %a, %b : tensor<2x!quant.uniform<i8:f32, 0.1:3>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 0.1:3>>
}

// -----

// i32 in f32: 1505919583 dequantizes to 752959808.0 (f32 keeps 24 bits) and quantizes
// back to 1505919616, so the op goes through f32 as the spec says.
// CHECK-LABEL: func.func @max_i32
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2xi32>) -> tensor<2xf32>
// CHECK:         stablehlo.maximum %{{.*}}, %{{.*}} : tensor<2xf32>
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2xf32>) -> tensor<2xi32>
// FIXED-LABEL: func.func @max_i32
// FIXED:         stablehlo.maximum %{{.*}}, %{{.*}} : tensor<2xf32>
func.func @max_i32(%a: tensor<2x!quant.uniform<i32:f32, 0.5>>, %b: tensor<2x!quant.uniform<i32:f32, 0.5>>) -> tensor<2x!quant.uniform<i32:f32, 0.5>> {
  %0 = stablehlo.maximum %a, %b : tensor<2x!quant.uniform<i32:f32, 0.5>>
  return %0 : tensor<2x!quant.uniform<i32:f32, 0.5>>
}
