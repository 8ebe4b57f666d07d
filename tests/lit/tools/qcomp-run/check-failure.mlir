// RUN: not qcomp-run %s --split-input-file 2> %t.err | FileCheck %s --check-prefix=SUMMARY
// RUN: FileCheck %s --input-file %t.err

// Every failing check is reported at its location with the mismatching elements
// (index, got, expected); the run ends with `N passed, M failed` and exits 1.

// SUMMARY: 1 passed, 1 failed

func.func @passes() {
  %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi4>
  %d = stablehlo.add %c, %c : tensor<3xi4>
  check.expect_eq_const %d, dense<[2, 4, 6]> : tensor<3xi4>
  func.return
}

// -----

// i4 wraps: 3 + 5 = -8, 6 + 6 = -4
// CHECK:      check-failure.mlir:[[# @LINE + 8]]:3: error: check.expect_eq_const failed in @wraps: 2 mismatching element(s)
// CHECK-NEXT: {{^}}  check.expect_eq_const %d, dense<[7, 5]> : tensor<2xi4>
// CHECK:      at [0]: got -8, expected 7
// CHECK-NEXT: at [1]: got -4, expected 5
func.func @wraps() {
  %c = stablehlo.constant dense<[3, 6]> : tensor<2xi4>
  %e = stablehlo.constant dense<[5, 6]> : tensor<2xi4>
  %d = stablehlo.add %c, %e : tensor<2xi4>
  check.expect_eq_const %d, dense<[7, 5]> : tensor<2xi4>
  func.return
}
