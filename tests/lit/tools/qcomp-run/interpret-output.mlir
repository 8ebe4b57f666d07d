// RUN: qcomp-run %s --interpret --split-input-file | FileCheck %s
// RUN: qcomp-run %s --interpret --interpreter-print-dense --split-input-file | FileCheck %s --check-prefix=DENSE
// RUN: qcomp-opt %s --split-input-file | FileCheck %s --check-prefix=ROUNDTRIP

// --interpret prints every result as `stablehlo-translate --interpret` does (the
// reference interpreter's Tensor::print: nested brackets, two spaces per level);
// --interpreter-print-dense as dense attributes. `interpreter.print` writes `%name = `
// (the operand's name as MLIR prints it) and the value, before the results.

// CHECK:      %0 = tensor<2xi32> {
// CHECK-NEXT:   [0, 1]
// CHECK-NEXT: }
// CHECK-NEXT: %cst = tensor<f32> {2.500000e+00}
// CHECK-NEXT: %1:2 = tensor<2xi32> {
// CHECK-NEXT:   [0, 1]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<2x3xi8> {
// CHECK-NEXT:   [
// CHECK-NEXT:     [1, 2, 3],
// CHECK-NEXT:     [-4, -5, -6]
// CHECK-NEXT:   ]
// CHECK-NEXT: }
// CHECK-NEXT: tensor<ui16> {65535}
// CHECK-NEXT: tensor<3xi1> {
// CHECK-NEXT:   [true, false, true]
// CHECK-NEXT: }
// DENSE:      %0 = tensor<2xi32> {
// DENSE:      dense<{{\[}}[1, 2, 3], [-4, -5, -6]]> : tensor<2x3xi8>
// DENSE-NEXT: dense<65535> : tensor<ui16>
// DENSE-NEXT: dense<[true, false, true]> : tensor<3xi1>
// ROUNDTRIP: interpreter.print %{{.*}} : tensor<2xi32>
func.func @main() -> (tensor<2x3xi8>, tensor<ui16>, tensor<3xi1>) {
  %0 = stablehlo.iota dim = 0 : tensor<2xi32>
  interpreter.print %0 : tensor<2xi32>
  %c = stablehlo.constant dense<2.5> : tensor<f32>
  interpreter.print %c : tensor<f32>
  %p:2 = stablehlo.optimization_barrier %0, %c : tensor<2xi32>, tensor<f32>
  interpreter.print %p#0 : tensor<2xi32>
  %m = stablehlo.constant dense<[[1, 2, 3], [-4, -5, -6]]> : tensor<2x3xi8>
  %u = stablehlo.constant dense<65535> : tensor<ui16>
  %b = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>
  func.return %m, %u, %b : tensor<2x3xi8>, tensor<ui16>, tensor<3xi1>
}

// -----

// CHECK:      tensor<0x2xf32> {
// CHECK-NEXT:   []
// CHECK-NEXT: }
// CHECK-NEXT: tensor<2xcomplex<f64>> {
// CHECK-NEXT{LITERAL}:   [[1.000000e+00, -2.000000e+00], [0.000000e+00, 5.000000e-01]]
// CHECK-NEXT: }
// DENSE:      dense<> : tensor<0x2xf32>
// DENSE-NEXT: dense<[(1.000000e+00,-2.000000e+00), (0.000000e+00,5.000000e-01)]> : tensor<2xcomplex<f64>>
func.func @main() -> (tensor<0x2xf32>, tensor<2xcomplex<f64>>) {
  %e = stablehlo.constant dense<> : tensor<0x2xf32>
  %z = stablehlo.constant dense<[(1.0, -2.0), (0.0, 0.5)]> : tensor<2xcomplex<f64>>
  func.return %e, %z : tensor<0x2xf32>, tensor<2xcomplex<f64>>
}
