// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s
// The chlo ops JAX emits. CHECK lines are jaxlib 0.10.2's MLIR printing of this file.

// CHECK-LABEL: func.func @main
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<2x4xf32>, %p: tensor<4xi1>) {
  // CHECK-NEXT: %0 = chlo.is_inf %arg0 : tensor<4xf32> -> tensor<4xi1>
  %0 = "chlo.is_inf"(%x) : (tensor<4xf32>) -> tensor<4xi1>
  // CHECK-NEXT: %1 = chlo.polygamma %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = "chlo.polygamma"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %2 = chlo.zeta %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %2 = "chlo.zeta"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %3 = chlo.next_after %arg0, %arg1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = "chlo.next_after"(%x, %y) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %values, %indices = chlo.top_k(%arg2, k = 2) : tensor<2x4xf32> -> (tensor<2x2xf32>, tensor<2x2xi32>)
  %4:2 = "chlo.top_k"(%z) {k = 2 : i64} : (tensor<2x4xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
  // CHECK-NEXT: %4 = "chlo.constant_like"(%arg0) <{value = 1.000000e+00 : f32}> : (tensor<4xf32>) -> tensor<4xf32>
  %5 = "chlo.constant_like"(%x) {value = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %5 = chlo.constant dense<1.000000e+00> : tensor<4xf32>
  %6 = "chlo.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  // CHECK-NEXT: %6 = chlo.broadcast_compare %arg2, %arg0 {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  %7 = "chlo.broadcast_compare"(%z, %x) {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  // CHECK-NEXT: %7 = chlo.broadcast_compare %arg2, %arg0 {broadcast_dimensions = array<i64: 1>, compare_type = #chlo<comparison_type TOTALORDER>, comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  %71 = "chlo.broadcast_compare"(%z, %x) {comparison_direction = #chlo<comparison_direction LT>, compare_type = #chlo<comparison_type TOTALORDER>, broadcast_dimensions = array<i64: 1>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi1>
  // CHECK-NEXT: %8 = chlo.broadcast_select %arg3, %arg2, %arg0 : (tensor<4xi1>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %8 = "chlo.broadcast_select"(%p, %z, %x) : (tensor<4xi1>, tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %9 = chlo.broadcast_complex %arg2, %arg0 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xcomplex<f32>>
  %9 = "chlo.broadcast_complex"(%z, %x) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xcomplex<f32>>
  // CHECK-NEXT: %10 = chlo.broadcast_next_after %arg2, %arg0 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %10 = "chlo.broadcast_next_after"(%z, %x) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %11 = chlo.broadcast_polygamma %arg2, %arg0 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %11 = "chlo.broadcast_polygamma"(%z, %x) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %12 = chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
  %12 = "chlo.erf"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %13 = chlo.broadcast_add %arg2, %arg0 : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %13 = "chlo.broadcast_add"(%z, %x) : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  // CHECK-NEXT: %14 = chlo.tan %arg0 : tensor<4xf32> -> tensor<4xf32>
  %14 = "chlo.tan"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %15 = chlo.bessel_i1e %arg0 : tensor<4xf32> -> tensor<4xf32>
  %15 = "chlo.bessel_i1e"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK-NEXT: %16 = chlo.constant dense<1> : tensor<4xi8>
  %16 = "chlo.constant"() {value = dense<1> : tensor<4xi8>} : () -> tensor<4xi8>
  return
}

// The pretty forms of every unary op, f16 to f64 and complex.
// CHECK-LABEL: func.func @unary
func.func @unary(%h: tensor<3xf16>, %b: tensor<3xbf16>, %d: tensor<2x3xf64>, %c: tensor<3xcomplex<f32>>) {
  // CHECK-NEXT: chlo.acos %arg0 : tensor<3xf16> -> tensor<3xf16>
  %0 = chlo.acos %h : tensor<3xf16> -> tensor<3xf16>
  // CHECK-NEXT: chlo.acosh %arg1 : tensor<3xbf16> -> tensor<3xbf16>
  %1 = chlo.acosh %b : tensor<3xbf16> -> tensor<3xbf16>
  // CHECK-NEXT: chlo.asin %arg2 : tensor<2x3xf64> -> tensor<2x3xf64>
  %2 = chlo.asin %d : tensor<2x3xf64> -> tensor<2x3xf64>
  // CHECK-NEXT: chlo.asinh %arg3 : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  %3 = chlo.asinh %c : tensor<3xcomplex<f32>> -> tensor<3xcomplex<f32>>
  // CHECK-NEXT: chlo.atan %arg0 : tensor<3xf16> -> tensor<3xf16>
  %4 = chlo.atan %h : tensor<3xf16> -> tensor<3xf16>
  // CHECK-NEXT: chlo.atanh %arg0 : tensor<3xf16> -> tensor<3xf16>
  %5 = chlo.atanh %h : tensor<3xf16> -> tensor<3xf16>
  // CHECK-NEXT: chlo.cosh %arg2 : tensor<2x3xf64> -> tensor<2x3xf64>
  %6 = chlo.cosh %d : tensor<2x3xf64> -> tensor<2x3xf64>
  // CHECK-NEXT: chlo.sinh %arg2 : tensor<2x3xf64> -> tensor<2x3xf64>
  %7 = chlo.sinh %d : tensor<2x3xf64> -> tensor<2x3xf64>
  // CHECK-NEXT: chlo.digamma %arg1 : tensor<3xbf16> -> tensor<3xbf16>
  %8 = chlo.digamma %b : tensor<3xbf16> -> tensor<3xbf16>
  // CHECK-NEXT: chlo.lgamma %arg1 : tensor<3xbf16> -> tensor<3xbf16>
  %9 = chlo.lgamma %b : tensor<3xbf16> -> tensor<3xbf16>
  // CHECK-NEXT: chlo.erf_inv %arg2 : tensor<2x3xf64> -> tensor<2x3xf64>
  %10 = chlo.erf_inv %d : tensor<2x3xf64> -> tensor<2x3xf64>
  // CHECK-NEXT: chlo.erfc %arg2 : tensor<2x3xf64> -> tensor<2x3xf64>
  %erfc = chlo.erfc %d : tensor<2x3xf64> -> tensor<2x3xf64>
  // CHECK-NEXT: chlo.is_neg_inf %arg0 : tensor<3xf16> -> tensor<3xi1>
  %11 = chlo.is_neg_inf %h : tensor<3xf16> -> tensor<3xi1>
  // CHECK-NEXT: chlo.is_pos_inf %arg2 : tensor<2x3xf64> -> tensor<2x3xi1>
  %12 = chlo.is_pos_inf %d : tensor<2x3xf64> -> tensor<2x3xi1>
  // CHECK-NEXT: %values, %indices = chlo.top_k(%arg2, k = 1) : tensor<2x3xf64> -> (tensor<2x1xf64>, tensor<2x1xi32>)
  %v, %i = chlo.top_k(%d, k = 1) : tensor<2x3xf64> -> (tensor<2x1xf64>, tensor<2x1xi32>)
  return
}
