// RUN: qcomp-opt %s --litert-verify-int8 --split-input-file --verify-diagnostics

// 16x8 mode (TFLite's int16 activations with int8 weights, for the ops that have
// such kernels): every activation of the op i16, per-tensor, zero point 0; weights
// stay int8; the bias is i32, or TFLite's i64 as raw integers (no quant type holds it:
// MLIR's storage is at most 32 bits); LOGISTIC, TANH and SOFTMAX output (1/32768, 0).
// StableHLO's dot_general and convolution take one storage type for lhs and rhs, so a
// 16x8 contraction is a composite "tfl.fully_connected" / "tfl.conv_2d" (input,
// weight, bias in TFLite's layouts), as the .tflite importer makes it.

!a = !quant.uniform<i16:f32, 0.001>
!o = !quant.uniform<i16:f32, 0.002>
!w = !quant.uniform<i8<-127:127>:f32:0, {0.1, 0.2}>
!b = !quant.uniform<i32:f32:0, {1.0e-4, 2.0e-4}>
func.func @fc_16x8_ok(%x: tensor<1x4x!a>, %w: tensor<2x4x!w>, %b: tensor<2x!b>) -> (tensor<1x2x!o>, tensor<1x2x!quant.uniform<i16:f32, 3.0517578125E-5>>) {
  %y = stablehlo.composite "tfl.fully_connected" %x, %w, %b {decomposition = @fc} : (tensor<1x4x!a>, tensor<2x4x!w>, tensor<2x!b>) -> tensor<1x2x!o>
  %l = stablehlo.logistic %y : (tensor<1x2x!o>) -> tensor<1x2x!quant.uniform<i16:f32, 3.0517578125E-5>>
  return %y, %l : tensor<1x2x!o>, tensor<1x2x!quant.uniform<i16:f32, 3.0517578125E-5>>
}
func.func private @fc(tensor<1x4x!a>, tensor<2x4x!w>, tensor<2x!b>) -> tensor<1x2x!o>

// -----

// a raw i64 bias: 16x8 only (an int8 contraction's bias is a quantized i32).
!a = !quant.uniform<i16:f32, 0.001>
!o = !quant.uniform<i16:f32, 0.002>
!w = !quant.uniform<i8<-127:127>:f32:0, {0.1, 0.2}>
!a8 = !quant.uniform<i8:f32, 0.001>
!o8 = !quant.uniform<i8:f32, 0.002>
func.func @conv_i64_bias(%x: tensor<1x3x3x1x!a>, %w: tensor<2x1x1x1x!w>, %b: tensor<2xi64>, %x8: tensor<1x3x3x1x!a8>) -> (tensor<1x3x3x2x!o>, tensor<1x3x3x2x!o8>) {
  %y = stablehlo.composite "tfl.conv_2d" %x, %w, %b {decomposition = @conv} : (tensor<1x3x3x1x!a>, tensor<2x1x1x1x!w>, tensor<2xi64>) -> tensor<1x3x3x2x!o>
  // expected-error @+1 {{litert-verify-int8: CONV_2D bias [bias-type]: must be quantized i32, got i64}}
  %y8 = stablehlo.composite "tfl.conv_2d" %x8, %w, %b {decomposition = @conv8} : (tensor<1x3x3x1x!a8>, tensor<2x1x1x1x!w>, tensor<2xi64>) -> tensor<1x3x3x2x!o8>
  return %y, %y8 : tensor<1x3x3x2x!o>, tensor<1x3x3x2x!o8>
}
func.func private @conv(tensor<1x3x3x1x!a>, tensor<2x1x1x1x!w>, tensor<2xi64>) -> tensor<1x3x3x2x!o>
func.func private @conv8(tensor<1x3x3x1x!a8>, tensor<2x1x1x1x!w>, tensor<2xi64>) -> tensor<1x3x3x2x!o8>

// -----

// activation-zero-point: i16 activations are symmetric.
func.func @zero_point(%x: tensor<4x!quant.uniform<i16:f32, 0.001:5>>) -> tensor<4x!quant.uniform<i16:f32, 0.002>> {
  // expected-error @+1 {{litert-verify-int8: ADD input 0 [activation-zero-point]: 16x8 mode: i16 activations are symmetric, zero point must be 0, got 5}}
  %0 = stablehlo.add %x, %x : (tensor<4x!quant.uniform<i16:f32, 0.001:5>>, tensor<4x!quant.uniform<i16:f32, 0.001:5>>) -> tensor<4x!quant.uniform<i16:f32, 0.002>>
  return %0 : tensor<4x!quant.uniform<i16:f32, 0.002>>
}

// -----

// fixed-output in 16x8 mode, and int16x8: an op TFLite has no 16x8 kernel of
// (LOG_SOFTMAX here, as a composite), or i8 and i16 activations in one op.
func.func @modes(%x: tensor<4x!quant.uniform<i16:f32, 0.001>>, %y: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> (tensor<4x!quant.uniform<i16:f32, 0.0078125>>, tensor<4x!quant.uniform<i16:f32, 0.0625>>) {
  // expected-error @+1 {{TANH output [fixed-output]: (scale, zero_point) must be (3.05175781e-05 (1/32768), 0), got (0.0078125 (1/128), 0)}}
  %0 = stablehlo.tanh %x : (tensor<4x!quant.uniform<i16:f32, 0.001>>) -> tensor<4x!quant.uniform<i16:f32, 0.0078125>>
  // expected-error @+1 {{LOG_SOFTMAX [int16x8]: has no 16x8 kernel: its activations must be i8}}
  %1 = stablehlo.composite "tfl.log_softmax" %x {decomposition = @ls} : (tensor<4x!quant.uniform<i16:f32, 0.001>>) -> tensor<4x!quant.uniform<i16:f32, 0.0625>>
  return %0, %1 : tensor<4x!quant.uniform<i16:f32, 0.0078125>>, tensor<4x!quant.uniform<i16:f32, 0.0625>>
}
func.func private @ls(tensor<4x!quant.uniform<i16:f32, 0.001>>) -> tensor<4x!quant.uniform<i16:f32, 0.0625>>

// -----

func.func @mixed(%x: tensor<4x!quant.uniform<i16:f32, 0.001>>, %y: tensor<4x!quant.uniform<i8:f32, 0.001>>) -> tensor<4x!quant.uniform<i16:f32, 0.001>> {
  // expected-error @+2 {{MAXIMUM [int16x8]: mixes i8 and i16 activations; in 16x8 mode every activation is i16}}
  // expected-error @+1 {{MAXIMUM input 1 [activation-type]: must be i16, got i8}}
  %0 = stablehlo.composite "tfl.maximum" %x, %y {decomposition = @mx} : (tensor<4x!quant.uniform<i16:f32, 0.001>>, tensor<4x!quant.uniform<i8:f32, 0.001>>) -> tensor<4x!quant.uniform<i16:f32, 0.001>>
  return %0 : tensor<4x!quant.uniform<i16:f32, 0.001>>
}
func.func private @mx(tensor<4x!quant.uniform<i16:f32, 0.001>>, tensor<4x!quant.uniform<i8:f32, 0.001>>) -> tensor<4x!quant.uniform<i16:f32, 0.001>>
