// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Two spellings of a storage are two types, as in MLIR 24: `ui8` is the unsigned ui8,
// `u8` the signless i8 with the Signed flag clear, `si8` the signed si8, `i8` the
// signless i8 with the flag set. (The quant chunks also pass `tosa-opt
// --split-input-file --verify-diagnostics` once a tosa op loads the quant dialect; there
// a `ui8` value returned as `u8` is "type of return operand 0 (...) doesn't match
// function result type (...)", which qcomp reports in xDSL's words.)

// the storage type of `ui8` is ui8, not i8
func.func @scast_ui8_to_i8(%arg0: tensor<4x!quant.uniform<ui8:f32, 1.0>>) {
  // expected-error@+1 {{storage type in quantized type expected to match integer type}}
  %0 = quant.scast %arg0 : tensor<4x!quant.uniform<ui8:f32, 1.0>> to tensor<4xi8>
  return
}

// -----

// the storage type of `si8` is si8, and scast takes signless integers only
func.func @scast_si8_to_i8(%arg0: tensor<4xi8>) {
  // expected-error@+1 {{storage type in quantized type expected to match integer type}}
  %0 = quant.scast %arg0 : tensor<4xi8> to tensor<4x!quant.uniform<si8:f32, 1.0>>
  return
}

// -----

func.func @scast_si8_to_si8(%arg0: tensor<4x!quant.uniform<si8:f32, 1.0>>) {
  // expected-error@+1 {{'quant.scast' op result #0 must be scalar or tensor of signless integer or quantized type, but got 'tensor<4xsi8>'}}
  %0 = quant.scast %arg0 : tensor<4x!quant.uniform<si8:f32, 1.0>> to tensor<4xsi8>
  return
}

// -----

// qcomp's uiN extension is for unsigned storage only
func.func @scast_i8_to_ui8(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error@+1 {{'quant.scast' op result #0 must be scalar or tensor of signless integer or quantized type, but got 'tensor<4xui8>'}}
  %0 = quant.scast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<4xui8>
  return
}

// -----

func.func @scast_float_storage(%arg0: tensor<4x!quant.uniform<f8E5M2:f32, 1.0>>) {
  // expected-error@+1 {{storage type in quantized type expected to match integer type}}
  %0 = quant.scast %arg0 : tensor<4x!quant.uniform<f8E5M2:f32, 1.0>> to tensor<4xi8>
  return
}

// -----

// StableHLO compares MLIR's storage types: `ui8` (ui8) and `u8` (i8) differ. (The
// messages of this chunk and the next are jaxlib's StableHLO's.)
func.func @add_ui8_u8(%arg0: tensor<4x!quant.uniform<ui8:f32, 1.0>>, %arg1: tensor<4x!quant.uniform<u8:f32, 1.0>>) -> tensor<4x!quant.uniform<u8:f32, 1.0>> {
  // expected-error@+1 {{mismatched operands and result quantization storage types}}
  %0 = stablehlo.add %arg0, %arg1 : (tensor<4x!quant.uniform<ui8:f32, 1.0>>, tensor<4x!quant.uniform<u8:f32, 1.0>>) -> tensor<4x!quant.uniform<u8:f32, 1.0>>
  return %0 : tensor<4x!quant.uniform<u8:f32, 1.0>>
}

// -----

// `i8` and `u8` share the storage type i8, not the storage range
func.func @add_i8_to_u8(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0>>) -> tensor<4x!quant.uniform<u8:f32, 1.0>> {
  // expected-error@+1 {{'stablehlo.add' op inferred type(s) 'tensor<4x!quant.uniform<i8:f32, 1.000000e+00>>' are incompatible with return type(s) of operation 'tensor<4x!quant.uniform<u8:f32, 1.000000e+00>>'}}
  %0 = stablehlo.add %arg0, %arg0 : (tensor<4x!quant.uniform<i8:f32, 1.0>>, tensor<4x!quant.uniform<i8:f32, 1.0>>) -> tensor<4x!quant.uniform<u8:f32, 1.0>>
  return %0 : tensor<4x!quant.uniform<u8:f32, 1.0>>
}
