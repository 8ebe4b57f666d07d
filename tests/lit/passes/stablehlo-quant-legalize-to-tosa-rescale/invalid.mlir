// RUN: qcomp-opt %s --stablehlo-quant-legalize-to-tosa-rescale --split-input-file --verify-diagnostics

// What the pass refuses, with an error at the op (upstream emits invalid TOSA for
// the range cases and silently skips the others).

// Per-axis types (add is the one elementwise op that allows them): one rescale per
// tensor cannot apply per-channel scales to a broadcast operand.
func.func @per_axis(%arg0: tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>, %arg1: tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 0.5, 2.0}>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: only per-tensor quantized types are supported}}
  %0 = stablehlo.add %arg0, %arg1 : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>, tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 0.5, 2.0}>>
  return %0 : tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 0.5, 2.0}>>
}

// -----

// Unsigned storage goes through i16 (TOSA has no unsigned <-> i32 rescale): u16 needs
// zero point 0 or 32768 for x - zp to fit i16 (TOSA's own rule for uint16).
func.func @u16_zero_point(%arg0: tensor<2x!quant.uniform<u16:f32, 0.5:5>>) -> tensor<2x!quant.uniform<u16:f32, 0.5:5>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: operand rescale: unsigned storage minus zero point 5 spans [-5, 65530], outside the i16 that TOSA needs between an unsigned type and i32}}
  %0 = stablehlo.abs %arg0 : tensor<2x!quant.uniform<u16:f32, 0.5:5>>
  return %0 : tensor<2x!quant.uniform<u16:f32, 0.5:5>>
}

// -----

// i16 with a zero point: the input rescale 2^14 (M = 2^30, shift 16) needs
// |x - zp| < 2^15, but x - 100 reaches -32868.
func.func @i16_zero_point(%arg0: tensor<2x!quant.uniform<i16:f32, 0.5:100>>) -> tensor<2x!quant.uniform<i16:f32, 0.5:100>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: lhs rescale: scale 16384.0 is multiplier 1073741824, shift 16, but x - zp spans [-32868, 32667] and TOSA requires -2^15 <= x - zp < 2^15}}
  %0 = stablehlo.add %arg0, %arg0 : tensor<2x!quant.uniform<i16:f32, 0.5:100>>
  return %0 : tensor<2x!quant.uniform<i16:f32, 0.5:100>>
}

// -----

// i32 storage: the 2^20 input precision cannot be added to 32-bit values.
func.func @i32_storage(%arg0: tensor<2x!quant.uniform<i32:f32, 0.5>>) -> tensor<2x!quant.uniform<i32:f32, 0.5>> {
  // expected-error @+1 {{lhs rescale: scale 1048576.0 is multiplier 1073741824, shift 10, but x - zp spans [-2147483648, 2147483647] and TOSA requires -2^9 <= x - zp < 2^9}}
  %0 = stablehlo.maximum %arg0, %arg0 : tensor<2x!quant.uniform<i32:f32, 0.5>>
  return %0 : tensor<2x!quant.uniform<i32:f32, 0.5>>
}

// -----

// A result scale of 10^15 needs a shift below 2.
func.func @huge_scale(%arg0: tensor<2x!quant.uniform<i8:f32, 100000.0>>) -> tensor<2x!quant.uniform<i8:f32, 1.0e-5>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: result rescale: scale 999999999999999.9 needs shift -19, outside [2, 62]}}
  %0 = stablehlo.multiply %arg0, %arg0 : (tensor<2x!quant.uniform<i8:f32, 100000.0>>, tensor<2x!quant.uniform<i8:f32, 100000.0>>) -> tensor<2x!quant.uniform<i8:f32, 1.0e-5>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 1.0e-5>>
}

// -----

// divide builds its zero-divisor constants with a static shape.
func.func @divide_dynamic(%arg0: tensor<?x!quant.uniform<i8:f32, 0.5>>) -> tensor<?x!quant.uniform<i8:f32, 0.5>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: divide: dynamic dimensions are not supported}}
  %0 = stablehlo.divide %arg0, %arg0 : tensor<?x!quant.uniform<i8:f32, 0.5>>
  return %0 : tensor<?x!quant.uniform<i8:f32, 0.5>>
}
