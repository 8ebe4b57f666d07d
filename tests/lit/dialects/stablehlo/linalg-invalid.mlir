// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Verifiers of complex, is_finite, reverse, cholesky, triangular_solve, fft, batch norm,
// rng_bit_generator; messages are upstream's (checked with jaxlib's MLIR).

func.func @complex_f16(%a: tensor<2xf16>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 32/64-bit float values, but got 'tensor<2xf16>'}}
  %0 = stablehlo.complex %a, %a : (tensor<2xf16>, tensor<2xf16>) -> tensor<2xcomplex<f16>>
  return
}

// -----

func.func @complex_result(%a: tensor<2xf32>) {
  // expected-error@+1 {{inferred type(s) 'tensor<2xcomplex<f32>>' are incompatible with return type(s) of operation 'tensor<2xcomplex<f64>>'}}
  %0 = stablehlo.complex %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f64>>
  return
}

// -----

func.func @real_result(%a: tensor<2xcomplex<f32>>) {
  // expected-error@+1 {{inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2xf64>'}}
  %0 = stablehlo.real %a : (tensor<2xcomplex<f32>>) -> tensor<2xf64>
  return
}

// -----

func.func @is_finite_int(%a: tensor<2xi32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized values, but got 'tensor<2xi32>'}}
  %0 = stablehlo.is_finite %a : (tensor<2xi32>) -> tensor<2xi1>
  return
}

// -----

func.func @reverse_unique(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{dimensions should be unique. Got: 1, 1}}
  %0 = stablehlo.reverse %a, dims = [1, 1] : tensor<2x3xf32>
  return
}

// -----

func.func @reverse_range(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{all dimensions should be between [0, 2). Got dimension: 2.}}
  %0 = stablehlo.reverse %a, dims = [2] : tensor<2x3xf32>
  return
}

// -----

func.func @cholesky_rank(%a: tensor<3xf32>) {
  // expected-error@+1 {{argument 'a' must have rank >= 2, got shape 3.}}
  %0 = stablehlo.cholesky %a : tensor<3xf32>
  return
}

// -----

func.func @cholesky_square(%a: tensor<3x4xf32>) {
  // expected-error@+1 {{minor dimensions of 'a' must have equal size, got shape 3, 4.}}
  %0 = stablehlo.cholesky %a : tensor<3x4xf32>
  return
}

// -----

func.func @triangular_solve_shared(%a: tensor<3x3xf32>, %b: tensor<4x2xf32>) {
  // expected-error@+1 {{shared dimension of operands 'a' and 'b' must be compatible, but got 'tensor<3x3xf32>' and 'tensor<4x2xf32>'}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<3x3xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @triangular_solve_invalid(%a: tensor<3x3xf32>, %b: tensor<3x2xf32>) {
  // expected-error@+1 {{Invalid transpose option value for triangular solve}}
  %0 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE_INVALID>, unit_diagonal = false} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @fft_rank(%a: tensor<4xcomplex<f32>>) {
  // expected-error@+1 {{rank must be between 1 and 3, but got 4.}}
  %0 = stablehlo.fft %a, type = FFT, length = [1, 1, 1, 4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @fft_real_input(%a: tensor<4xf32>) {
  // expected-error@+1 {{FFT/IFFT/IRFFT take a complex tensor as input, but is given 'tensor<4xf32>'.}}
  %0 = stablehlo.fft %a, type = FFT, length = [4] : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @rfft_length(%a: tensor<4xf32>) {
  // expected-error@+1 {{RFFT requires innermost dimensions to be compatible with fft_length. Got: 4 but wanted 8.}}
  %0 = stablehlo.fft %a, type = RFFT, length = [8] : (tensor<4xf32>) -> tensor<5xcomplex<f32>>
  return
}

// -----

func.func @rfft_result(%a: tensor<4xf32>) {
  // expected-error@+1 {{inferred type(s) 'tensor<3xcomplex<f32>>' are incompatible with return type(s) of operation 'tensor<4xcomplex<f32>>'}}
  %0 = stablehlo.fft %a, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<4xcomplex<f32>>
  return
}

// -----

func.func @batch_norm_feature(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error@+1 {{expects featureIndex to be smaller than the rank of multi-dimensional operands; got featureIndex 2, and rank 2.}}
  %0:3 = "stablehlo.batch_norm_training"(%x, %s, %s) {epsilon = 1.0e-3 : f32, feature_index = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @batch_norm_count(%x: tensor<2x3xf32>, %s: tensor<2xf32>) {
  // expected-error@+1 {{expects the size of single-dimensional operands to be compatible with feature count, but the size of single-dimensional operands is 2 and the feature count is 3.}}
  %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %s, %s, %x) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @rng_bit_generator_state(%s: tensor<2xui64>) {
  // expected-error@+1 {{output state shape must be compatible with initial state shape. Got: 'tensor<2xui64>' and 'tensor<3xui64>'}}
  %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<3xui64>, tensor<4xui32>)
  return
}
