// RUN: qcomp-opt %s --split-input-file --verify-diagnostics --stablehlo-quant-legalize-to-tosa-rescale
// RUN: qcomp-opt %s --split-input-file --verify-diagnostics --tosa-rescale-legalize-to-stablehlo
// RUN: qcomp-opt %s --split-input-file --verify-diagnostics --rowwise-legalize-to-stablehlo
// Float storage types have a meaning in lower-quant-ops, strip-func-quant-types and
// stablehlo-legalize-quant-to-math (lower-quant-ops/float-storage.mlir), none in
// tosa.rescale's integer arithmetic or the rowwise formats: these passes stop at the
// first op using one, with the pass's name before this message.

func.func @qcast(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{float storage type f8E4M3FN in a quantized type is not supported yet}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<f8E4M3FN:f32, 2.0:3>>
  return
}

// -----

// expected-error@+1 {{float storage type f4E2M1FN in a quantized type is not supported yet}}
func.func @signature(%arg0: tensor<4x!quant.uniform<f4E2M1FN:f32, 0.5>>) {
  return
}
