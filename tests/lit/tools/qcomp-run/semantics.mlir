// RUN: qcomp-run %s --semantics stablehlo --print-results | FileCheck %s --check-prefix=UP
// RUN: qcomp-run %s --semantics spec --print-results | FileCheck %s --check-prefix=SPEC
// RUN: qcomp-run %s --print-results | FileCheck %s --check-prefix=SPEC

// i8 add at scales 1.0 + 1.0 into scale 2.0 (REFERENCE.md §2): upstream requantizes
// each operand to the result scale separately (1/2 -> 0, 3/2 -> 2, so 0 and 4); the
// spec dequantizes, adds and quantizes once (2/2 = 1, 6/2 = 3).

// (no checks in the program: no `N passed, M failed` line)

// UP:        @main result[0]: 2xi8=[0 4]
// UP-NOT:    passed
// SPEC:      @main result[0]: 2xi8=[1 3]
// SPEC-NOT:  passed
func.func @main() -> tensor<2xi8> {
  %a = stablehlo.constant dense<[1, 3]> : tensor<2xi8>
  %q = stablehlo.bitcast_convert %a : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  %s = stablehlo.add %q, %q : (tensor<2x!quant.uniform<i8:f32, 1.0>>, tensor<2x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x!quant.uniform<i8:f32, 2.0>>
  %o = stablehlo.bitcast_convert %s : (tensor<2x!quant.uniform<i8:f32, 2.0>>) -> tensor<2xi8>
  func.return %o : tensor<2xi8>
}
