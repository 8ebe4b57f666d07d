// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Only the generic form: an unknown op's custom form has no parser (MLIR's words).

func.func @custom(%a: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error@+1 {{custom op 'test.custom_op' is unknown}}
  %0 = test.custom_op %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
