// RUN: qcomp-opt %s --stablehlo-legalize-quantized-op-to-qdq --split-input-file --verify-diagnostics -allow-unregistered-dialect

// The ops the pass decomposes reject these types in their verifiers (upstream's
// messages) before the pass runs: quantized types that disagree on the expressed type
// have no single float form, sub-channel types no stablehlo.uniform_dequantize.

func.func @mixed_expressed_types(%arg0: tensor<2x2x!quant.uniform<i8:f16, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{'stablehlo.cholesky' op requires compatible element types for all operands and results}}
  %0 = "stablehlo.cholesky"(%arg0) {lower = true} : (tensor<2x2x!quant.uniform<i8:f16, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<2x2x!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @sub_channel(%arg0: tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>>) -> tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>> {
  // expected-error @+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values}}
  %0 = "stablehlo.cholesky"(%arg0) {lower = true} : (tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>>) -> tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>>
  func.return %0 : tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>>
}
