// RUN: qcomp-opt %s --litert-verify-int8 --split-input-file --verify-diagnostics

// Activations: i8, per-tensor, the whole range [-128, 127], zero point in
// [-128, 127]. Each value is checked once, at the op that makes it (function
// arguments and constants at their first user).

func.func @add_ok(%x: tensor<4x!quant.uniform<i8:f32, 0.5:-128>>, %y: tensor<4x!quant.uniform<i8:f32, 0.25:127>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>> {
  %0 = stablehlo.add %x, %y : (tensor<4x!quant.uniform<i8:f32, 0.5:-128>>, tensor<4x!quant.uniform<i8:f32, 0.25:127>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 1.0:3>>
}

// -----

// SUB and MUL: a subtract / multiply by itself is that operator (not LOG_SOFTMAX's or
// L2_NORMALIZATION's form); the same activation rules.
func.func @sub_mul_ok(%x: tensor<4x!quant.uniform<i8:f32, 0.5:-128>>, %y: tensor<4x!quant.uniform<i8:f32, 0.25:127>>) -> (tensor<4x!quant.uniform<i8:f32, 1.0:3>>, tensor<4x!quant.uniform<i8:f32, 2.0:-7>>) {
  %0 = stablehlo.subtract %x, %y : (tensor<4x!quant.uniform<i8:f32, 0.5:-128>>, tensor<4x!quant.uniform<i8:f32, 0.25:127>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:3>>
  %1 = stablehlo.multiply %x, %y : (tensor<4x!quant.uniform<i8:f32, 0.5:-128>>, tensor<4x!quant.uniform<i8:f32, 0.25:127>>) -> tensor<4x!quant.uniform<i8:f32, 2.0:-7>>
  return %0, %1 : tensor<4x!quant.uniform<i8:f32, 1.0:3>>, tensor<4x!quant.uniform<i8:f32, 2.0:-7>>
}

// -----

// Narrow-range operands and results: SUB's and MUL's own diagnostics (each value once).
!n = !quant.uniform<i8<-127:127>:f32, 0.5:-1>
func.func @sub_mul_wrong(%x: tensor<4x!n>) -> (tensor<4x!n>, tensor<4x!n>) {
  // expected-error @+2 {{litert-verify-int8: SUB input 0 [activation-range]: storage range must be [-128, 127], got [-127, 127]}}
  // expected-error @+1 {{litert-verify-int8: SUB output [activation-range]}}
  %0 = stablehlo.subtract %x, %x : tensor<4x!n>
  // expected-error @+1 {{litert-verify-int8: MUL output [activation-range]}}
  %1 = stablehlo.multiply %x, %x : tensor<4x!n>
  return %0, %1 : tensor<4x!n>, tensor<4x!n>
}

// -----

// activation-type: u8 (the old uint8 scheme); activation-range: narrow range.
// (A zero point outside [-128, 127] is already refused by StableHLO's verifier for i8
// storage; activation-zero-point shows in 16x8 mode, 16x8.mlir.)
func.func @add_wrong(%f: tensor<4xf32>, %y: tensor<4x!quant.uniform<i8<-127:127>:f32, 0.25>>) -> (tensor<4x!quant.uniform<u8:f32, 0.5:128>>, tensor<4x!quant.uniform<i8<-127:127>:f32, 1.0:-5>>) {
  // expected-error @+1 {{litert-verify-int8: QUANTIZE output [activation-type]: must be i8, got u8}}
  %0 = stablehlo.uniform_quantize %f : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 0.5:128>>
  // expected-error @+2 {{ADD input 0 [activation-range]: storage range must be [-128, 127], got [-127, 127]}}
  // expected-error @+1 {{ADD output [activation-range]}}
  %1 = stablehlo.add %y, %y : (tensor<4x!quant.uniform<i8<-127:127>:f32, 0.25>>, tensor<4x!quant.uniform<i8<-127:127>:f32, 0.25>>) -> tensor<4x!quant.uniform<i8<-127:127>:f32, 1.0:-5>>
  return %0, %1 : tensor<4x!quant.uniform<u8:f32, 0.5:128>>, tensor<4x!quant.uniform<i8<-127:127>:f32, 1.0:-5>>
}

// -----

// activation-granularity: a per-axis activation (StableHLO's add allows it).
!p = !quant.uniform<i8:f32:0, {0.5, 0.25}>
func.func @per_axis(%x: tensor<2x4x!p>) -> tensor<2x4x!p> {
  // expected-error @+2 {{ADD input 0 [activation-granularity]: must be per-tensor}}
  // expected-error @+1 {{ADD output [activation-granularity]}}
  %0 = stablehlo.add %x, %x : tensor<2x4x!p>
  return %0 : tensor<2x4x!p>
}

// -----

// activation-type: a float input to an int8 kernel (a hybrid op is no int8 op).
func.func @hybrid(%f: tensor<1x4xf32>) -> tensor<1x2xf32> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<4x2xi8>}> : () -> tensor<4x2x!quant.uniform<i8:f32, 0.1>>
  // expected-error @+2 {{FULLY_CONNECTED input [activation-type]: must be quantized i8, got f32}}
  // expected-error @+1 {{FULLY_CONNECTED output [activation-type]: must be quantized i8, got f32}}
  %1 = stablehlo.dot_general %f, %w, contracting_dims = [1] x [0] : (tensor<1x4xf32>, tensor<4x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}

// -----

// op-table: a quantized op that is no operator of the spec's table.
func.func @not_in_table(%x: tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>> {
  // expected-error @+1 {{litert-verify-int8: 'stablehlo.sine' on quantized types is no operator of the LiteRT int8 table [op-table]}}
  %0 = stablehlo.sine %x : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
}

// -----

// QUANTIZE from float and as a requantization, DEQUANTIZE: int8 on the quantized side.
func.func @quantize(%f: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.uniform_quantize %f : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  // expected-error @+1 {{QUANTIZE output [activation-type]: must be i8, got i32}}
  %1 = stablehlo.uniform_quantize %0 : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<4x!quant.uniform<i32:f32, 0.5:-3>>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4x!quant.uniform<i32:f32, 0.5:-3>>) -> tensor<4x!quant.uniform<i8:f32, 0.25:1>>
  %3 = stablehlo.uniform_dequantize %2 : (tensor<4x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// The quant dialect's casts are QUANTIZE / DEQUANTIZE too.
func.func @casts(%f: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{QUANTIZE output [activation-type]: must be i8, got i4}}
  %0 = quant.qcast %f : tensor<4xf32> to tensor<4x!quant.uniform<i4:f32, 0.5>>
  %1 = quant.dcast %0 : tensor<4x!quant.uniform<i4:f32, 0.5>> to tensor<4xf32>
  return %1 : tensor<4xf32>
}
