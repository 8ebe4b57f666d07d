// RUN: qcomp-opt %s --lower-quant-ops --split-input-file --verify-diagnostics

// Tensors with dynamic dimensions are not lowered (the parameters are broadcast
// with static shapes); the pass stops with an error at the cast.

func.func @dynamic_dims(%arg0: tensor<?x4xf32>) -> tensor<?x4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{lower-quant-ops: dynamic dimensions are not supported}}
  %0 = quant.qcast %arg0 : tensor<?x4xf32> to tensor<?x4x!quant.uniform<i8:f32, 0.5>>
  return %0 : tensor<?x4x!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @dynamic_dims_dcast(%arg0: tensor<2x?x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x?xf32> {
  // expected-error @+1 {{lower-quant-ops: dynamic dimensions are not supported}}
  %0 = quant.dcast %arg0 : tensor<2x?x!quant.uniform<i8:f32:0, {0.5, 0.25}>> to tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
