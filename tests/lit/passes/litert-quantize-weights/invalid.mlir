// RUN: qcomp-opt %s --litert-quantize-weights --split-input-file --verify-diagnostics

// Without a calibrated range or the activation-min/activation-max options there is
// no input (or result) quantization to choose.
func.func @no_range(%arg0: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = stablehlo.constant dense<[[1.0, -2.0], [0.25, 0.5]]> : tensor<2x2xf32>
  // expected-error @+1 {{litert-quantize-weights: no range for the input of stablehlo.dot_general: give it a !quant.calibrated type (quant.qcast/quant.dcast) or the pass options activation-min and activation-max}}
  %0 = stablehlo.dot_general %arg0, %w, contracting_dims = [1] x [0] : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}
