// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// StableHLO quantization constraints: per-axis only where the spec allows it, add/dot_general/convolution/reshape/transpose/broadcast_in_dim parameter rules, uniform_quantize/dequantize types.
// Messages are upstream stablehlo-opt's.

func.func @negate_per_axis(%a: tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 2/4/8/16/32/64-bit integer or 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>'}}
  %0 = stablehlo.negate %a : tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>
  return
}

// -----

func.func @multiply_per_axis(%a: tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>'}}
  %0 = stablehlo.multiply %a, %a : tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>
  return
}

// -----

func.func @tanh_result_per_axis(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{result #0 must be ranked tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>'}}
  %0 = stablehlo.tanh %a : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>
  return
}

// -----

func.func @add_bad_axis(%a: tensor<2x3x!quant.uniform<i8:f32:1, {5.000000e-01:3,2.500000e-01:1}>>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<2x3x!quant.uniform<i8:f32:1, {5.000000e-01:3,2.500000e-01:1}>>'}}
  %0 = stablehlo.add %a, %a : tensor<2x3x!quant.uniform<i8:f32:1, {5.000000e-01:3,2.500000e-01:1}>>
  return
}

// -----

func.func @add_axis_out_of_rank(%a: tensor<2x!quant.uniform<i8:f32:1, {5.000000e-01:3,2.500000e-01:1}>>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<2x!quant.uniform<i8:f32:1, {5.000000e-01:3,2.500000e-01:1}>>'}}
  %0 = stablehlo.add %a, %a : tensor<2x!quant.uniform<i8:f32:1, {5.000000e-01:3,2.500000e-01:1}>>
  return
}

// -----

func.func @gather_per_axis(%a: tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>, %i: tensor<1xi32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>'}}
  %0 = "stablehlo.gather"(%a, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0]>, slice_sizes = array<i64: 1>}> : (tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>, tensor<1xi32>) -> tensor<!quant.uniform<i8:f32:0, {5.000000e-01:3,2.500000e-01:1}>>
  return
}

// -----

func.func @dot_general_lhs_per_axis(%a: tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>, %b: tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>'}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>, tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2x4x!quant.uniform<i32:f32, 2.500000e-01>>
  return
}

// -----

func.func @add_mixed(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<2xf32>) {
  // expected-error@+1 {{expects  all operands and results to be either quantized or non-quantized}}
  %0 = stablehlo.add %a, %b : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @add_storage(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<2x!quant.uniform<i16:f32, 5.000000e-01>>) {
  // expected-error@+1 {{mismatched operands and result quantization storage types}}
  %0 = stablehlo.add %a, %b : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<2x!quant.uniform<i16:f32, 5.000000e-01>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return
}

// -----

func.func @add_expressed(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<2x!quant.uniform<i8:f16, 5.000000e-01>>) {
  // expected-error@+1 {{mismatched operands and result quantization expressed types}}
  %0 = stablehlo.add %a, %b : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<2x!quant.uniform<i8:f16, 5.000000e-01>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return
}

// -----

func.func @add_per_axis_result_per_tensor(%a: tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>, %b: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{result is not per_axis quantized but lhs or rhs are}}
  %0 = stablehlo.add %a, %b : (tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>, tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return
}

// -----

func.func @add_per_axis_dim(%a: tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>) {
  // expected-error@+1 {{quantization_dimension of lhs and result are not same '!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>' vs '!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01}>'}}
  %0 = stablehlo.add %a, %a : (tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>, tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01}>>
  return
}

// -----

func.func @add_result_per_axis_only(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{result per_axis quantized but none from rhs and lhs are per_axis quantized}}
  %0 = stablehlo.add %a, %a : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>
  return
}

// -----

func.func @negate_storage(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{requires compatible types for all operands and results}}
  %0 = stablehlo.negate %a : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2x!quant.uniform<i16:f32, 5.000000e-01>>
  return
}

// -----

func.func @negate_q_to_float(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{requires compatible types for all operands and results}}
  %0 = stablehlo.negate %a : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2xf32>
  return
}

// -----

func.func @multiply_expressed(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>, %b: tensor<2x!quant.uniform<i8:f16, 5.000000e-01>>) {
  // expected-error@+1 {{requires compatible types for all operands and results}}
  %0 = stablehlo.multiply %a, %b : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<2x!quant.uniform<i8:f16, 5.000000e-01>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return
}

// -----

func.func @not_quantized(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of bool or 2/4/8/16/32/64-bit integer values, but got 'tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>'}}
  %0 = stablehlo.not %a : tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return
}

// -----

func.func @convert_quantized(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements values, but got 'tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>'}}
  %0 = stablehlo.convert %a : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2xf32>
  return
}

// -----

func.func @quantize_float_result(%a: tensor<2xf32>) {
  // expected-error@+1 {{result #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<2xi8>'}}
  %0 = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<2xi8>
  return
}

// -----

func.func @quantize_expressed(%a: tensor<2xf32>) {
  // expected-error@+1 {{Expressed type of result expected to be 'f32', but got 'f16'}}
  %0 = stablehlo.uniform_quantize %a : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f16, 5.000000e-01>>
  return
}

// -----

func.func @requantize_expressed(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{Expressed type of result expected to be 'f32', but got 'bf16'}}
  %0 = stablehlo.uniform_quantize %a : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2x!quant.uniform<i8:bf16, 5.000000e-01>>
  return
}

// -----

func.func @quantize_int_operand(%a: tensor<2xi8>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<2xi8>'}}
  %0 = stablehlo.uniform_quantize %a : (tensor<2xi8>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return
}

// -----

func.func @quantize_shape(%a: tensor<3xf32>) {
  // expected-error@+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = stablehlo.uniform_quantize %a : (tensor<3xf32>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return
}

// -----

func.func @quantize_per_axis_size(%a: tensor<2x3xf32>) {
  // expected-error@+1 {{result #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<2x3x!quant.uniform<i8:f32:1, {5.000000e-01,2.000000e-01}>>'}}
  %0 = stablehlo.uniform_quantize %a : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {5.000000e-01,2.000000e-01}>>
  return
}

// -----

func.func @dequantize_float_operand(%a: tensor<2xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<2xf32>'}}
  %0 = stablehlo.uniform_dequantize %a : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @dequantize_expressed(%a: tensor<2x!quant.uniform<i8:f16, 5.000000e-01>>) {
  // expected-error@+1 {{inferred type(s) 'tensor<2xf16>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  %0 = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<i8:f16, 5.000000e-01>>) -> tensor<2xf32>
  return
}

// -----

func.func @dequantize_shape(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<3xf32>
  return
}

// -----

func.func @dequantize_int_result(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{result #0 must be ranked tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi8>'}}
  %0 = stablehlo.uniform_dequantize %a : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2xi8>
  return
}

// -----

func.func @transpose_params(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{expect same quantization scale and zero_point but got 'tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>' vs 'tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01:3>>'}}
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<3x2x!quant.uniform<i8:f32, 2.500000e-01:3>>
  return
}

// -----

func.func @transpose_axis(%a: tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>) {
  // expected-error@+1 {{operand quantization_dimension 0 is not same as permutation[0] = 1}}
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01,1.000000e-01}>>
  return
}

// -----

func.func @transpose_axis_params(%a: tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>) {
  // expected-error@+1 {{expect same quantization scales and zero_points but got 'tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>' vs 'tensor<3x2x!quant.uniform<i8:f32:1, {5.000000e-01,3.000000e-01}>>'}}
  %0 = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {5.000000e-01,3.000000e-01}>>
  return
}

// -----

func.func @reshape_params(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{expect same quantization scale and zero_point but got 'tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>' vs 'tensor<6x!quant.uniform<i8:f32, 2.500000e-01:3>>'}}
  %0 = stablehlo.reshape %a : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<6x!quant.uniform<i8:f32, 2.500000e-01:3>>
  return
}

// -----

func.func @reshape_axis_size(%a: tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>) {
  // expected-error@+1 {{product of dimensions before quantization dimension must match between operand and result for 1 and 3}}
  %0 = stablehlo.reshape %a : (tensor<2x3x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {5.000000e-01,2.000000e-01}>>
  return
}

// -----

func.func @reshape_axis_prefix(%a: tensor<2x3x!quant.uniform<i8:f32:1, {5.000000e-01,2.000000e-01,1.000000e-01}>>) {
  // expected-error@+1 {{product of dimensions before quantization dimension must match between operand and result for 2 and 1}}
  %0 = stablehlo.reshape %a : (tensor<2x3x!quant.uniform<i8:f32:1, {5.000000e-01,2.000000e-01,1.000000e-01}>>) -> tensor<3x2x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01,1.000000e-01}>>
  return
}

// -----

func.func @broadcast_axis(%a: tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>) {
  // expected-error@+1 {{result quantization_dimension 0 not same as broadcast_dimensions[0] = 1}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [1] : (tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>
  return
}

// -----

func.func @broadcast_axis_scale(%a: tensor<1x!quant.uniform<i8:f32:0, {5.000000e-01}>>) {
  // expected-error@+1 {{mismatch result scale 1 (2.000000e-01) and operand scale 0 (5.000000e-01)}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<1x!quant.uniform<i8:f32:0, {5.000000e-01}>>) -> tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>
  return
}

// -----

func.func @broadcast_params(%a: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) {
  // expected-error@+1 {{expect same quantization scale and zero_point but got 'tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>' vs 'tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:3>>'}}
  %0 = stablehlo.broadcast_in_dim %a, dims = [0] : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:3>>
  return
}

// -----

func.func @constant_storage() {
  // expected-error@+1 {{inferred type(s) 'tensor<2xi16>' are incompatible with return type(s) of operation 'tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>'}}
  %0 = stablehlo.constant() <{value = dense<1> : tensor<2xi16>}> : () -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return
}

// -----

func.func @dot_general_rhs_zp(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01:2>>) {
  // expected-error@+1 {{Zero point of rhs should be 0}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01:2>>) -> tensor<2x4x!quant.uniform<i32:f32, 2.500000e-01>>
  return
}

// -----

func.func @dot_general_rhs_zps_axis(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x2x!quant.uniform<i8:f32:1, {5.000000e-01:2,5.000000e-01}>>) {
  // expected-error@+1 {{Zero points of rhs should be 0}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x2x!quant.uniform<i8:f32:1, {5.000000e-01:2,5.000000e-01}>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {2.500000e-01,2.500000e-01}>>
  return
}

// -----

func.func @dot_general_rhs_axis_contracted(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x2x!quant.uniform<i8:f32:0, {5.000000e-01,5.000000e-01,5.000000e-01}>>) {
  // expected-error@+1 {{Quantization dimension of rhs should not be in the contracting dimension of rhs}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x2x!quant.uniform<i8:f32:0, {5.000000e-01,5.000000e-01,5.000000e-01}>>) -> tensor<2x2x!quant.uniform<i32:f32, 2.500000e-01>>
  return
}

// -----

func.func @dot_general_rhs_float(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x4xf32>) {
  // expected-error@+1 {{rhs should be quantized for quantized operations and is_quantized(lhs)=is_quantized(result) should hold}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x4xf32>) -> tensor<2x4x!quant.uniform<i32:f32, 2.500000e-01>>
  return
}

// -----

func.func @dot_general_storage(%a: tensor<2x3x!quant.uniform<i16:f32, 5.000000e-01:1>>, %b: tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) {
  // expected-error@+1 {{mismatched lhs and rhs quantization storage types}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i16:f32, 5.000000e-01:1>>, tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2x4x!quant.uniform<i32:f32, 2.500000e-01>>
  return
}

// -----

func.func @dot_general_expressed(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) {
  // expected-error@+1 {{mismatched lhs, rhs and result quantization expressed types}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2x4x!quant.uniform<i32:f16, 2.500000e-01>>
  return
}

// -----

func.func @dot_general_granularity(%a: tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x2x!quant.uniform<i8:f32, 5.000000e-01>>) {
  // expected-error@+1 {{mismatched rhs and result quantization granularity}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x2x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {2.500000e-01,2.500000e-01}>>
  return
}

// -----

func.func @dot_general_hybrid(%a: tensor<2x3xf16>, %b: tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) {
  // expected-error@+1 {{mismatched rhs quantization expressed type and lhs and result element type}}
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf16>, tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2x4xf16>
  return
}

// -----

func.func @conv_rhs_axis(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x3x1x2x!quant.uniform<i8:f32:2, {5.000000e-01}>>) {
  // expected-error@+1 {{quantization dimension of rhs should be same with kernel_output_feature_dimension}}
  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x3x1x2x!quant.uniform<i8:f32:2, {5.000000e-01}>>) -> tensor<1x2x2x2x!quant.uniform<i32:f32, 2.500000e-01>>
  return
}

// -----

func.func @conv_result_axis(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x3x1x2x!quant.uniform<i8:f32:3, {5.000000e-01,5.000000e-01}>>) {
  // expected-error@+1 {{quantization dimension of result should be same with output_feature_dimension}}
  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x3x1x2x!quant.uniform<i8:f32:3, {5.000000e-01,5.000000e-01}>>) -> tensor<1x2x2x2x!quant.uniform<i32:f32:2, {2.500000e-01,2.500000e-01}>>
  return
}

// -----

func.func @conv_lhs_only(%a: tensor<1x4x4x1x!quant.uniform<i8:f32, 5.000000e-01:1>>, %b: tensor<3x3x1x2x!quant.uniform<i8:f32, 5.000000e-01>>) {
  // expected-error@+1 {{rhs should be quantized for quantized operations and is_quantized(lhs)=is_quantized(result) should hold}}
  %0 = stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x1x!quant.uniform<i8:f32, 5.000000e-01:1>>, tensor<3x3x1x2x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<1x2x2x2xf32>
  return
}

// -----

func.func @clamp_per_axis(%a: tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>'}}
  %0 = stablehlo.clamp %a, %a, %a : tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.000000e-01}>>
  return
}
