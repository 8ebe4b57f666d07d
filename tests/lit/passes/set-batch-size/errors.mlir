// RUN: qcomp-opt %s -p 'set-batch-size{n=64}' --split-input-file --verify-diagnostics

// A reshape that merges the batch dimension with another mixes samples.
func.func @main(%x: tensor<2x3xi32>) -> tensor<6xi32> {
  // expected-error @+1 {{set-batch-size: 'stablehlo.reshape' does not keep the batch dimension ((2, 3) -> (6,))}}
  %z = stablehlo.reshape %x : (tensor<2x3xi32>) -> tensor<6xi32>
  return %z : tensor<6xi32>
}

// -----

// A reduction over the batch dimension mixes samples.
func.func @main(%x: tensor<2x3xi32>) -> tensor<3xi32> {
  %c = stablehlo.constant dense<0> : tensor<i32>
  // expected-error @+1 {{set-batch-size: 'stablehlo.reduce' reduces over the batch dimension}}
  %r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2x3xi32>, tensor<i32>) -> tensor<3xi32>
  return %r : tensor<3xi32>
}
