// RUN: not qcomp-opt %s -split-input-file -verify-diagnostics 2>&1 | FileCheck %s

// Mismatches are reported the way mlir-opt reports them, with exit code 1.

// CHECK: verify-diagnostics-fail.mlir:[[# @LINE + 3]]:6: error: expected error "this message is never produced" was not produced
// CHECK-NEXT: {{^}}  // expected-{{error}} @+1
func.func @missing(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{this message is never produced}}
  return %arg0 : tensor<2xf32>
}

// -----

// CHECK: verify-diagnostics-fail.mlir:[[# @LINE + 2]]:3: error: unexpected error: 'func.return' op Expected arguments to have the same types
func.func @unexpected(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  return %arg0 : tensor<2xf32>
}

// -----

// An expectation on the wrong line is both missing and unexpected.
// CHECK: verify-diagnostics-fail.mlir:[[# @LINE + 3]]:3: error: unexpected error: 'func.return' op
// CHECK: verify-diagnostics-fail.mlir:[[# @LINE + 3]]:6: error: expected error "same types" was not produced
func.func @wrong_line(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  return %arg0 : tensor<2xf32>
  // expected-error @+1 {{same types}}
}
