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

// TOSA's zero-point rule for uint16: 0 or 32768.
func.func @u16_zero_point(%arg0: tensor<2x!quant.uniform<u16:f32, 0.5:5>>) -> tensor<2x!quant.uniform<u16:f32, 0.5:5>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: u16 storage needs zero point 0 or 32768 in TOSA, got 5}}
  %0 = stablehlo.abs %arg0 : tensor<2x!quant.uniform<u16:f32, 0.5:5>>
  return %0 : tensor<2x!quant.uniform<u16:f32, 0.5:5>>
}

// -----

// Unsigned storage goes through i16 (TOSA has no unsigned <-> i32 rescale): a u16
// operand with zero point 0 has x - zp up to 65535, which i16 cannot hold.
func.func @u16_operand_zero_point_0(%arg0: tensor<2x!quant.uniform<u16:f32, 0.5>>) -> tensor<2x!quant.uniform<u16:f32, 0.5:32768>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: operand rescale: unsigned storage minus zero point 0 spans [0, 65535], outside the i16 that TOSA needs between an unsigned type and i32}}
  %0 = stablehlo.abs %arg0 : (tensor<2x!quant.uniform<u16:f32, 0.5>>) -> tensor<2x!quant.uniform<u16:f32, 0.5:32768>>
  return %0 : tensor<2x!quant.uniform<u16:f32, 0.5:32768>>
}

// -----

// TOSA's zero-point rule: i16 values have zero point 0.
func.func @i16_zero_point(%arg0: tensor<2x!quant.uniform<i16:f32, 0.5:100>>) -> tensor<2x!quant.uniform<i16:f32, 0.5:100>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: i16 storage needs zero point 0 in TOSA, got 100}}
  %0 = stablehlo.add %arg0, %arg0 : tensor<2x!quant.uniform<i16:f32, 0.5:100>>
  return %0 : tensor<2x!quant.uniform<i16:f32, 0.5:100>>
}

// -----

// TOSA rescales 8- and 16-bit values only (i4 has no rescale; i32 would also leave no
// room for the 2^20 input precision).
func.func @i4_storage(%arg0: tensor<4x!quant.uniform<i4:f16, 0.5:-1>>) -> tensor<4x!quant.uniform<i4:f16, 0.25:2>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: i4 storage: TOSA rescales only 8- and 16-bit quantized values}}
  %0 = stablehlo.abs %arg0 : (tensor<4x!quant.uniform<i4:f16, 0.5:-1>>) -> tensor<4x!quant.uniform<i4:f16, 0.25:2>>
  return %0 : tensor<4x!quant.uniform<i4:f16, 0.25:2>>
}

// -----

func.func @i32_storage(%arg0: tensor<2x!quant.uniform<i32:f32, 0.5>>) -> tensor<2x!quant.uniform<i32:f32, 0.5>> {
  // expected-error @+1 {{i32 storage: TOSA rescales only 8- and 16-bit quantized values}}
  %0 = stablehlo.maximum %arg0, %arg0 : tensor<2x!quant.uniform<i32:f32, 0.5>>
  return %0 : tensor<2x!quant.uniform<i32:f32, 0.5>>
}

// -----

// TOSA REQUIREs 2 <= shift <= 62: multiply with s_l s_r / s_res = 2^30 needs shift 0.
func.func @require_shift(%arg0: tensor<2x!quant.uniform<i8:f32, 32768.0>>) -> tensor<2x!quant.uniform<i8:f32, 1.0>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: result rescale: scale 1073741824.0 needs shift 0, outside [2, 62]}}
  %0 = stablehlo.multiply %arg0, %arg0 : (tensor<2x!quant.uniform<i8:f32, 32768.0>>, tensor<2x!quant.uniform<i8:f32, 32768.0>>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 1.0>>
}

// -----

// TOSA REQUIREs |x - zp| < 2^(shift-1): abs of i8 with scale ratio 2^28 (M = 2^30,
// shift 2) admits only |x - zp| < 2, but |x| reaches 128.
func.func @require_range(%arg0: tensor<2x!quant.uniform<i8:f32, 268435456.0>>) -> tensor<2x!quant.uniform<i8:f32, 1.0>> {
  // expected-error @+1 {{stablehlo-quant-legalize-to-tosa-rescale: result rescale: scale 268435456.0 is multiplier 1073741824, shift 2, but x - zp spans [0, 128] and TOSA requires -2^1 <= x - zp < 2^1}}
  %0 = stablehlo.abs %arg0 : (tensor<2x!quant.uniform<i8:f32, 268435456.0>>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 1.0>>
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

// -----

// A quotient scale s_l / (s_r s_res 2^K) below 2^-62 has a multiplier of 0 for every K:
// refused, not divided by.
func.func @divide_scale_underflows(%a: tensor<4x!quant.uniform<i8:f32, 1.0e-40>>, %b: tensor<4x!quant.uniform<i8:f32, 1.0e-40>>) -> tensor<4x!quant.uniform<i8:f32, 3.4e38>> {
  // expected-error@+1 {{stablehlo-quant-legalize-to-tosa-rescale: divide: no pre-scale 2^K makes every rescale valid for these scales}}
  %0 = stablehlo.divide %a, %b : (tensor<4x!quant.uniform<i8:f32, 1.0e-40>>, tensor<4x!quant.uniform<i8:f32, 1.0e-40>>) -> tensor<4x!quant.uniform<i8:f32, 3.4e38>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 3.4e38>>
}
