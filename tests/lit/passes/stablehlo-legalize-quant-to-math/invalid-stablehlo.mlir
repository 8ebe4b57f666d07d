// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=stablehlo' --split-input-file --verify-diagnostics

// rescale=stablehlo refuses what upstream's pass refuses, with upstream's messages:
// a requantize that changes the per-axis dimension, a quantize from anything but
// f32, and quantized ops that neither its patterns nor its dequantize -> op ->
// quantize fallback (the 40 ops of stablehlo-legalize-quantized-op-to-qdq) cover
// ("failed to legalize ...": reduce, optimization_barrier, custom_call).

func.func @requantize_changes_axis(%arg0: tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>> {
  // expected-error @+1 {{Cannot requantize while changing quantization_axis}}
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  func.return %0 : tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
}

// -----

func.func @quantize_from_f16(%arg0: tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f16, 0.5>> {
  // expected-error @+1 {{Unsupported input element type.}}
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f16, 0.5>>
  func.return %0 : tensor<4x!quant.uniform<i8:f16, 0.5>>
}

// -----

func.func @reduce(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>, %init: tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.reduce' that was explicitly marked illegal}}
  %0 = stablehlo.reduce(%arg0 init: %init) applies stablehlo.maximum across dimensions = [0] : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @optimization_barrier(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.optimization_barrier' that was explicitly marked illegal}}
  %0 = stablehlo.optimization_barrier %arg0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

func.func @custom_call(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{failed to legalize operation 'stablehlo.custom_call' that was explicitly marked illegal}}
  %0 = stablehlo.custom_call @foo(%arg0) : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}
