// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file --verify-diagnostics
// RUN: not qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=bogus' 2>&1 | FileCheck %s --check-prefix=OPTION

// rescale=float refuses quantized ops that have no lowering, with upstream's
// "failed to legalize" message (reduce: its body would have to be rewritten;
// custom_call: opaque).

// OPTION: qcomp-opt: error: invalid value 'bogus' for option 'rescale' of pass 'stablehlo-legalize-quant-to-math' (one of float, fixed-point, stablehlo)

func.func @reduce(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>, %init: tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.reduce' that was explicitly marked illegal}}
  %0 = stablehlo.reduce(%arg0 init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @custom_call(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.custom_call' that was explicitly marked illegal}}
  %0 = stablehlo.custom_call @foo(%arg0) : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}
