// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// RUN: not qcomp-run %s --split-input-file 2>&1 | FileCheck %s
// A value used where its definition does not dominate the use: MLIR's verifier message
// (checked with jaxlib's MLIR), from qcomp-opt and qcomp-run alike.

// CHECK: dominance.mlir:[[# @LINE + 3]]:8: error: operand #0 does not dominate this use
func.func @self_use() -> tensor<i32> {
  // expected-error@+1 {{operand #0 does not dominate this use}}
  %0 = stablehlo.add %0, %0 : tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @used_before_defined(%x: tensor<i32>) -> tensor<i32> {
  // expected-error@+1 {{operand #1 does not dominate this use}}
  %0 = stablehlo.add %x, %1 : tensor<i32>
  %1 = stablehlo.add %x, %x : tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @inside_its_own_region(%x: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.while(%i = %x) : tensor<i64>
  cond {
    // expected-error@+1 {{operand #1 does not dominate this use}}
    %c = stablehlo.compare LT, %i, %0 : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %i : tensor<i64>
  }
  return %0 : tensor<i64>
}
