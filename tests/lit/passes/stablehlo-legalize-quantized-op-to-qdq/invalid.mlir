// RUN: qcomp-opt %s --stablehlo-legalize-quantized-op-to-qdq --split-input-file --verify-diagnostics -allow-unregistered-dialect

// The ops qcomp's stablehlo dialect defines reject these types in their verifiers
// already; ops it only knows by name (written in generic form) reach the pass,
// which reports what cannot be decomposed.

// Quantized types that disagree on the expressed type have no single float form.

func.func @mixed_expressed_types(%arg0: tensor<2x2x!quant.uniform<i8:f16, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{cannot decompose 'stablehlo.cholesky': its quantized types have different expressed types}}
  %0 = "stablehlo.cholesky"(%arg0) {lower = true} : (tensor<2x2x!quant.uniform<i8:f16, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<2x2x!quant.uniform<i8:f32, 0.5>>
}

// -----

// Sub-channel types have no stablehlo.uniform_dequantize to decompose through.

func.func @sub_channel(%arg0: tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>>) -> tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>> {
  // expected-error @+1 {{cannot decompose 'stablehlo.cholesky': sub-channel quantized types have no stablehlo.uniform_dequantize}}
  %0 = "stablehlo.cholesky"(%arg0) {lower = true} : (tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>>) -> tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>>
  func.return %0 : tensor<2x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}, {1.0, 2.0}}>>
}
