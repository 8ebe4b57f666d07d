// RUN: qcomp-opt %s --split-input-file --verify-diagnostics

// Diagnostics in upstream MLIR's words (tosa-opt, LLVM 24, core verifier).

func.func @rescale_float_input(%x: tensor<4xf32>, %m: tensor<1xi32>, %s: tensor<1xi8>, %izp: tensor<1xf32>, %ozp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{expect input to have integer element type, got 'f32'}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xf32>, tensor<1xi32>, tensor<1xi8>, tensor<1xf32>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_float_output(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %izp: tensor<1xi8>, %ozp: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{expect output to have integer element type, got 'f32'}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @rescale_input_zp_width(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %izp: tensor<1xi16>, %ozp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{expected input and input_zp to both be integer of the same bitwidth, but got 'i8' vs. 'i16'}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi16>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_output_zp_width(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %izp: tensor<1xi8>, %ozp: tensor<1xi16>) -> tensor<4xi8> {
  // expected-error@+1 {{expected output and output_zp to both be integer of the same bitwidth, but got 'i8' vs. 'i16'}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi16>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_multiplier_i16_with_scale32(%x: tensor<4xi8>, %m: tensor<1xi16>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{expect i32 element type for multiplier for scale32=true, got 'i16'}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi16>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_multiplier_i32_without_scale32(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{expect i16 element type for multiplier for scale32=false, got 'i32'}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_multiplier_i64(%x: tensor<4xi8>, %m: tensor<1xi64>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{operand #1 must be 1D tosa-conformant tensor of 16-bit signless integer or 32-bit signless integer values, but got 'tensor<1xi64>'}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi64>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_multiplier_rank(%x: tensor<4xi8>, %m: tensor<1x1xi32>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{operand #1 must be 1D tosa-conformant tensor of 16-bit signless integer or 32-bit signless integer values, but got 'tensor<1x1xi32>'}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1x1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_shift_i16(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi16>, %zp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{operand #2 must be 1D tosa-conformant tensor of 8-bit signless integer values, but got 'tensor<1xi16>'}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi16>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_zero_point_not_scalar(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %izp: tensor<2xi8>, %ozp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{operand #3 must be tosa-conformant scalar tensor of unsigned integer or signless integer or floating-point values, but got 'tensor<2xi8>'}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<2xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_output_zp_rank0(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %izp: tensor<1xi8>, %ozp: tensor<i8>) -> tensor<4xi8> {
  // expected-error@+1 {{operand #4 must be tosa-conformant scalar tensor of unsigned integer or signless integer or floating-point values, but got 'tensor<i8>'}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<i8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_i32_input_zp(%x: tensor<4xi32>, %m: tensor<1xi32>, %s: tensor<1xi8>, %ozp: tensor<1xi8>) -> tensor<4xi8> {
  %izp = "tosa.const"() <{values = dense<1> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error@+1 {{expect input_zp of 0, got 1}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_i16_output_zp(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %izp: tensor<1xi8>) -> tensor<4xi16> {
  %ozp = "tosa.const"() <{values = dense<-1> : tensor<1xi16>}> : () -> tensor<1xi16>
  // expected-error@+1 {{expect output_zp of 0, got -1}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi16>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

func.func @rescale_u16_input_zp(%x: tensor<4xi16>, %m: tensor<1xi32>, %s: tensor<1xi8>, %ozp: tensor<1xi8>) -> tensor<4xi8> {
  %izp = "tosa.const"() <{values = dense<1> : tensor<1xi16>}> : () -> tensor<1xi16>
  // expected-error@+1 {{expect input_zp of 0 or 32768 for unsigned int16 input, got 1}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi16>, tensor<1xi32>, tensor<1xi8>, tensor<1xi16>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_u16_output_zp(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %izp: tensor<1xi8>) -> tensor<4xi16> {
  %ozp = "tosa.const"() <{values = dense<-1> : tensor<1xi16>}> : () -> tensor<1xi16>
  // expected-error@+1 {{expect output_zp of 0 or 32768 for unsigned int16 output, got 65535}}
  %0 = tosa.rescale %x, %m, %s, %izp, %ozp {input_unsigned = false, output_unsigned = true, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi16>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

func.func @rescale_per_channel_multiplier(%x: tensor<2x3xi8>, %m: tensor<2xi32>, %s: tensor<3xi8>, %zp: tensor<1xi8>) -> tensor<2x3xi8> {
  // expected-error@+1 {{expect shape of { 3 } for multiplier input, got { 2 }}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<2x3xi8>, tensor<2xi32>, tensor<3xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @rescale_per_channel_shift(%x: tensor<2x3xi8>, %m: tensor<3xi32>, %s: tensor<2xi8>, %zp: tensor<1xi8>) -> tensor<2x3xi8> {
  // expected-error@+1 {{expect shape of { 3 } for shift input, got { 2 }}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<2x3xi8>, tensor<3xi32>, tensor<2xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @rescale_per_tensor_multiplier(%x: tensor<2x3xi8>, %m: tensor<3xi32>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<2x3xi8> {
  // expected-error@+1 {{expect shape of { 1 } for multiplier input, got { 3 }}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<2x3xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @rescale_per_channel_rank0(%x: tensor<i8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<i8> {
  // expected-error@+1 {{requires input to be at least rank 1 when per_channel is true, but got rank 0}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<i8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<i8>
  return %0 : tensor<i8>
}

// -----

func.func @rescale_shape(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<5xi8> {
  // expected-error@+1 {{expected output shape 5 to be compatible with inferred shape 4}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<5xi8>
  return %0 : tensor<5xi8>
}

// -----

func.func @rescale_bad_rounding_mode(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{custom op 'tosa.rescale' invalid rounding_mode value: HALF_UP}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = HALF_UP, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @add_element_types(%a: tensor<4xi32>, %b: tensor<4xf32>) -> tensor<4xi32> {
  // expected-error@+1 {{requires the same element type for all operands and results}}
  %0 = tosa.add %a, %b : (tensor<4xi32>, tensor<4xf32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @sub_ranks(%a: tensor<4xi32>, %b: tensor<2x4xi32>) -> tensor<2x4xi32> {
  // expected-error@+1 {{operands don't have matching ranks}}
  %0 = tosa.sub %a, %b : (tensor<4xi32>, tensor<2x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

func.func @maximum_broadcast(%a: tensor<4xi32>, %b: tensor<2xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{operands don't have broadcast-compatible shapes}}
  %0 = tosa.maximum %a, %b : (tensor<4xi32>, tensor<2xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @minimum_result_shape(%a: tensor<4xi32>, %b: tensor<1xi32>) -> tensor<5xi32> {
  // expected-error@+1 {{result type '5' not broadcast compatible with broadcasted operands's shapes '4'}}
  %0 = tosa.minimum %a, %b : (tensor<4xi32>, tensor<1xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

func.func @minimum_bad_nan_mode(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{custom op 'tosa.minimum' invalid nan_mode value: FOO}}
  %0 = tosa.minimum %a, %a {nan_mode = FOO} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @add_result_rank(%a: tensor<4xi32>) -> tensor<1x4xi32> {
  // expected-error@+1 {{result type has different rank than operands}}
  %0 = tosa.add %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<1x4xi32>
  return %0 : tensor<1x4xi32>
}

// -----

func.func @mul_shift_type(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{operand #2 must be tosa-conformant scalar tensor of 8-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = tosa.mul %a, %a, %a : (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @mul_operand_types(%a: tensor<4xi32>, %b: tensor<4xf32>, %s: tensor<1xi8>) -> tensor<4xi32> {
  // expected-error@+1 {{requires the same element type for all operands}}
  %0 = tosa.mul %a, %b, %s : (tensor<4xi32>, tensor<4xf32>, tensor<1xi8>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @mul_narrowing(%a: tensor<4xi32>, %s: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{invalid data type size for operands or result}}
  %0 = tosa.mul %a, %a, %s : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @mul_float_shift(%a: tensor<4xf32>) -> tensor<4xf32> {
  %s = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-error@+1 {{require shift to be 0 for float type}}
  %0 = tosa.mul %a, %a, %s : (tensor<4xf32>, tensor<4xf32>, tensor<1xi8>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mul_broadcast(%a: tensor<4xi32>, %b: tensor<2xi32>, %s: tensor<1xi8>) -> tensor<4xi32> {
  // expected-error@+1 {{a and b operands don't have broadcast-compatible shapes, got 'tensor<4xi32>' and 'tensor<2xi32>'}}
  %0 = tosa.mul %a, %b, %s : (tensor<4xi32>, tensor<2xi32>, tensor<1xi8>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @mul_ranks(%a: tensor<4xi32>, %b: tensor<2x4xi32>, %s: tensor<1xi8>) -> tensor<2x4xi32> {
  // expected-error@+1 {{a and b operands don't have matching ranks, got 1 and 2}}
  %0 = tosa.mul %a, %b, %s : (tensor<4xi32>, tensor<2x4xi32>, tensor<1xi8>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

func.func @mul_result_shape(%a: tensor<4xi32>, %s: tensor<1xi8>) -> tensor<5xi32> {
  // expected-error@+1 {{expected output shape 5 to be compatible with inferred shape 4}}
  %0 = tosa.mul %a, %a, %s : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}

// -----

func.func @abs_shape(%a: tensor<4xi32>) -> tensor<2xi32> {
  // expected-error@+1 {{requires the same shape for all operands and results}}
  %0 = tosa.abs %a : (tensor<4xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @abs_element_type(%a: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error@+1 {{requires the same element type for all operands and results}}
  %0 = tosa.abs %a : (tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_min_above_max(%a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{expected min_val <= max_val, got min_val=6 : i8, max_val=5 : i8}}
  %0 = tosa.clamp %a {min_val = 6 : i8, max_val = 5 : i8} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @clamp_float_min_above_max(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{expected min_val <= max_val, got min_val=5.000000e+00 : f32, max_val=1.000000e+00 : f32}}
  %0 = tosa.clamp %a {min_val = 5.0 : f32, max_val = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_nan(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{min/max attributes should not be 'NaN', got min_val=0x7FC00000 : f32, max_val=1.000000e+00 : f32}}
  %0 = tosa.clamp %a {min_val = 0x7FC00000 : f32, max_val = 1.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_attribute_types(%a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{min/max attributes types are incompatible with input/output element types.}}
  %0 = tosa.clamp %a {min_val = -5 : i32, max_val = 5 : i32} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @clamp_shape(%a: tensor<4xi8>) -> tensor<2xi8> {
  // expected-error@+1 {{requires the same shape for all operands and results}}
  %0 = tosa.clamp %a {min_val = -5 : i8, max_val = 5 : i8} : (tensor<4xi8>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

func.func @cast_shape(%a: tensor<4xi32>) -> tensor<2xi8> {
  // expected-error@+1 {{requires the same shape for all operands and results}}
  %0 = tosa.cast %a : (tensor<4xi32>) -> tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

func.func @greater_result(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{result #0 must be tosa-conformant tensor of 1-bit signless integer values, but got 'tensor<4xi32>'}}
  %0 = tosa.greater %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @greater_equal_operands(%a: tensor<4xi32>, %b: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error@+1 {{requires the same element type for all operands}}
  %0 = tosa.greater_equal %a, %b : (tensor<4xi32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @equal_shapes(%a: tensor<4xi32>, %b: tensor<2xi32>) -> tensor<4xi1> {
  // expected-error@+1 {{operands don't have broadcast-compatible shapes}}
  %0 = tosa.equal %a, %b : (tensor<4xi32>, tensor<2xi32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @const_element_type() -> tensor<1xi8> {
  // expected-error@+1 {{expected same attr/result element types}}
  %0 = "tosa.const"() <{values = dense<1> : tensor<1xi32>}> : () -> tensor<1xi8>
  return %0 : tensor<1xi8>
}

// -----

func.func @const_shape() -> tensor<2xi32> {
  // expected-error@+1 {{failed to verify that all of {values, output} have same shape}}
  %0 = "tosa.const"() <{values = dense<1> : tensor<1xi32>}> : () -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

func.func @const_custom_form() -> tensor<1xi32> {
  // expected-error@+1 {{custom op 'tosa.const' has no custom assembly form}}
  %0 = tosa.const {values = dense<1> : tensor<1xi32>} : () -> tensor<1xi32>
  return %0 : tensor<1xi32>
}

// -----

func.func @rescale_missing_rounding_mode(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{requires attribute 'rounding_mode'}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// a string is not a rounding mode: the entry stays a discardable attribute
func.func @rescale_string_rounding_mode(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{requires attribute 'rounding_mode'}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = "SINGLE_ROUND", scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @rescale_integer_flag(%x: tensor<4xi8>, %m: tensor<1xi32>, %s: tensor<1xi8>, %zp: tensor<1xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{requires attribute 'scale32'}}
  %0 = tosa.rescale %x, %m, %s, %zp, %zp {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = 1 : i32} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @clamp_missing_max(%a: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error@+1 {{requires attribute 'max_val'}}
  %0 = tosa.clamp %a {min_val = -5 : i8} : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
