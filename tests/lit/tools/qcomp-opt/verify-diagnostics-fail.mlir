// RUN: not qcomp-opt %s -split-input-file -verify-diagnostics 2>&1 | FileCheck %s

// Mismatches are reported the way mlir-opt reports them, with exit code 1.

// CHECK: verify-diagnostics-fail.mlir:[[# @LINE + 3]]:6: error: expected error "this message is never produced" was not produced
// CHECK-NEXT: {{^}}  // expected-{{error}} @+1
func.func @missing(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{this message is never produced}}
  return %arg0 : tensor<2xf32>
}

// -----

// CHECK: verify-diagnostics-fail.mlir:[[# @LINE + 2]]:3: error: unexpected error: type of return operand 0 ('tensor<2xf32>') doesn't match function result type ('tensor<2xi8>') in function @unexpected
func.func @unexpected(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  return %arg0 : tensor<2xf32>
}

// -----

// An expectation on the wrong line is both missing and unexpected.
// CHECK: verify-diagnostics-fail.mlir:[[# @LINE + 3]]:3: error: unexpected error: type of return operand 0
// CHECK: verify-diagnostics-fail.mlir:[[# @LINE + 3]]:6: error: expected error "doesn't match" was not produced
func.func @wrong_line(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  return %arg0 : tensor<2xf32>
  // expected-error @+1 {{doesn't match}}
}
