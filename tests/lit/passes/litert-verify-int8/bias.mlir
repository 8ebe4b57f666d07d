// RUN: qcomp-opt %s --litert-verify-int8 --split-input-file --verify-diagnostics

// FULLY_CONNECTED / CONV_2D with a bias: dot_general (or convolution) accumulates in
// i32, `add` adds the bias (broadcast along the output channel), `uniform_quantize`
// requantizes to the int8 output. Spec: bias int32, zero point 0,
// scale[c] = input scale * weight scale[c]; the i32 accumulator has the same
// parameters (else the dot would already rescale, which TFLite's kernel does not).

// Passes: 0.5 * [0.1, 0.2, 0.05] = [0.05, 0.1, 0.025].
func.func @fc_bias_ok(%arg0: tensor<1x4xf32>) -> tensor<1x3xf32> {
  %x = stablehlo.uniform_quantize %arg0 : (tensor<1x4xf32>) -> tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>
  %w = stablehlo.constant() <{value = dense<[[1, -2, 5], [2, 15, -10], [0, 1, 2], [30, -3, 7]]> : tensor<4x3xi8>}> : () -> tensor<4x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.05}>>
  %acc = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.05}>>) -> tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>
  %b = stablehlo.constant() <{value = dense<[2, 4, -12]> : tensor<3xi32>}> : () -> tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.025}>>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.025}>>) -> tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>
  %s = stablehlo.add %acc, %bb : tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>
  %y = stablehlo.uniform_quantize %s : (tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>
  %r = stablehlo.uniform_dequantize %y : (tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<1x3xf32>
  return %r : tensor<1x3xf32>
}

// -----

// bias-scale: channel 2 has 0.5 * 0.05 = 0.025, the bias says 0.03.
func.func @fc_bias_scale(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<4x3xi8>}> : () -> tensor<4x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.05}>>
  %acc = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.05}>>) -> tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>
  %b = stablehlo.constant() <{value = dense<[2, 4, -12]> : tensor<3xi32>}> : () -> tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.03}>>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.03}>>) -> tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.03}>>
  // expected-error @+1 {{litert-verify-int8: FULLY_CONNECTED bias [bias-scale]: scale[2] must be input scale * weight scale[2] = 0.025, got 0.03}}
  %s = stablehlo.add %acc, %bb : (tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>, tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.03}>>) -> tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>
  %y = stablehlo.uniform_quantize %s : (tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>
  return %y : tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// bias-scale through quant.scast: the `.tflite` importer keeps a bias that declares
// other parameters than the accumulator's as a constant of its own type whose stored
// integers are reinterpreted (TFLite adds them whatever their declared scale); the
// rule reads the declared type.
func.func @fc_bias_scast(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<4x3xi8>}> : () -> tensor<4x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.05}>>
  %acc = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x3x!quant.uniform<i8:f32:1, {0.1, 0.2, 0.05}>>) -> tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>
  %b = stablehlo.constant() <{value = dense<[2, 4, -12]> : tensor<3xi32>}> : () -> tensor<3x!quant.uniform<i32:f32:0, {0.075, 0.1, 0.025}>>
  %raw = quant.scast %b : tensor<3x!quant.uniform<i32:f32:0, {0.075, 0.1, 0.025}>> to tensor<3xi32>
  %ba = quant.scast %raw : tensor<3xi32> to tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.025}>>
  %bb = stablehlo.broadcast_in_dim %ba, dims = [1] : (tensor<3x!quant.uniform<i32:f32:0, {0.05, 0.1, 0.025}>>) -> tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>
  // expected-error @+1 {{litert-verify-int8: FULLY_CONNECTED bias [bias-scale]: scale[0] must be input scale * weight scale[0] = 0.05, got 0.075}}
  %s = stablehlo.add %acc, %bb : tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>
  %y = stablehlo.uniform_quantize %s : (tensor<1x3x!quant.uniform<i32:f32:1, {0.05, 0.1, 0.025}>>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>
  return %y : tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// bias-zero-point: a bias with zero point 5.
func.func @conv_bias_zero_point(%x: tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x1x1x2x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<2x3x3x2xi8>}> : () -> tensor<2x3x3x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>
  %acc = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[o, 0, 1, i]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x2x!quant.uniform<i8:f32:0, {0.1, 0.2}>>) -> tensor<1x1x1x2x!quant.uniform<i32:f32:3, {0.05, 0.1}>>
  %c = stablehlo.constant() <{value = dense<1> : tensor<2xi32>}> : () -> tensor<2x!quant.uniform<i32:f32:0, {0.05:5, 0.1:5}>>
  %cb = stablehlo.broadcast_in_dim %c, dims = [3] : (tensor<2x!quant.uniform<i32:f32:0, {0.05:5, 0.1:5}>>) -> tensor<1x1x1x2x!quant.uniform<i32:f32:3, {0.05:5, 0.1:5}>>
  // expected-error @+1 {{CONV_2D bias [bias-zero-point]: zero point must be 0, got 5}}
  %s = stablehlo.add %acc, %cb : (tensor<1x1x1x2x!quant.uniform<i32:f32:3, {0.05, 0.1}>>, tensor<1x1x1x2x!quant.uniform<i32:f32:3, {0.05:5, 0.1:5}>>) -> tensor<1x1x1x2x!quant.uniform<i32:f32:3, {0.05, 0.1}>>
  %y = stablehlo.uniform_quantize %s : (tensor<1x1x1x2x!quant.uniform<i32:f32:3, {0.05, 0.1}>>) -> tensor<1x1x1x2x!quant.uniform<i8:f32, 0.25:1>>
  return %y : tensor<1x1x1x2x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// bias-type: StableHLO's add keeps one storage type, so an i16 bias shows in a
// composite "tfl.conv_2d" (TFLite's operands: input, OHWI weight, bias).
func.func @conv_bias_type(%x: tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<2x3x3x2x!quant.uniform<i8<-127:127>:f32:0, {0.1, 0.2}>>, %b: tensor<2x!quant.uniform<i16:f32:0, {0.05, 0.1}>>) -> tensor<1x1x1x2x!quant.uniform<i8:f32, 0.25:1>> {
  // expected-error @+1 {{CONV_2D bias [bias-type]: must be quantized i32, got i16}}
  %0 = stablehlo.composite "tfl.conv_2d" %x, %w, %b {decomposition = @conv} : (tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x2x!quant.uniform<i8<-127:127>:f32:0, {0.1, 0.2}>>, tensor<2x!quant.uniform<i16:f32:0, {0.05, 0.1}>>) -> tensor<1x1x1x2x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<1x1x1x2x!quant.uniform<i8:f32, 0.25:1>>
}
func.func private @conv(tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x3x3x2x!quant.uniform<i8<-127:127>:f32:0, {0.1, 0.2}>>, tensor<2x!quant.uniform<i16:f32:0, {0.05, 0.1}>>) -> tensor<1x1x1x2x!quant.uniform<i8:f32, 0.25:1>>

// -----

// accumulator: an i32 dot result that is not (input scale * weight scale, 0) means
// the dot itself rescales, which TFLite's FULLY_CONNECTED does not do.
func.func @fc_accumulator(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<4x2xi8>}> : () -> tensor<4x2x!quant.uniform<i8:f32, 0.1>>
  // expected-error @+1 {{FULLY_CONNECTED accumulator [accumulator]: scale must be input scale * weight scale = 0.05, got 0.001}}
  %acc = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x!quant.uniform<i32:f32, 0.001>>
  %y = stablehlo.uniform_quantize %acc : (tensor<1x2x!quant.uniform<i32:f32, 0.001>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
  return %y : tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// The output of the operator is the requantized value: an i32 output that is never
// requantized is no int8 activation (reported at the op that makes it).
func.func @fc_i32_output(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2x!quant.uniform<i32:f32, 0.05>> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<4x2xi8>}> : () -> tensor<4x2x!quant.uniform<i8:f32, 0.1>>
  // expected-error @+1 {{FULLY_CONNECTED output [activation-type]: must be i8, got i32}}
  %acc = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x!quant.uniform<i32:f32, 0.05>>
  return %acc : tensor<1x2x!quant.uniform<i32:f32, 0.05>>
}
