// RUN: qcomp-opt %s --litert-verify-int8 --split-input-file --verify-diagnostics

// FULLY_CONNECTED = dot_general on a constant rhs. Spec: weight int8 in [-127, 127],
// zero point 0, per-axis on the output channel: TFLite's [out, in] dimension 0 is the
// rhs dimension that is neither contracting nor batching (here dimension 1).

// Passes: symmetric per-axis weights on dimension 1, values within [-127, 127].
func.func @fc_ok(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<[[1, -127], [2, 15], [0, 1], [127, -3]]> : tensor<4x2xi8>}> : () -> tensor<4x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// weight-zero-point: weights are symmetric. (StableHLO's dot_general already
// requires rhs zero points 0; its convolution does not.)
func.func @conv_zero_point(%x: tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2x2x3x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<3x3x3x2xi8>}> : () -> tensor<3x3x3x2x!quant.uniform<i8:f32:0, {0.1, 0.2:3, 0.3}>>
  // expected-error @+1 {{litert-verify-int8: CONV_2D weight [weight-zero-point]: weights are symmetric: zero point must be 0, got 3 (channel 1)}}
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[o, 0, 1, i]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x3x3x2x!quant.uniform<i8:f32:0, {0.1, 0.2:3, 0.3}>>) -> tensor<1x2x2x3x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<1x2x2x3x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// weight-range: a stored -128 (the type allows it; the spec does not).
func.func @fc_range(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<[[1, -128], [2, 15], [0, 1], [127, -3]]> : tensor<4x2xi8>}> : () -> tensor<4x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>
  // expected-error @+1 {{FULLY_CONNECTED weight [weight-range]: stored weights must lie in [-127, 127], got -128}}
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x2x!quant.uniform<i8:f32:1, {0.1, 0.2}>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// weight-range of a run-time weight: only its type can promise [-127, 127].
func.func @fc_range_argument(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<4x2x!quant.uniform<i8:f32, 0.1>>, %v: tensor<4x2x!quant.uniform<i8<-127:127>:f32, 0.1>>) -> (tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>, tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>) {
  // expected-error @+1 {{FULLY_CONNECTED weight [weight-range]: storage range must be within [-127, 127], got [-128, 127] (declare i8<-127:127>)}}
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x2x!quant.uniform<i8:f32, 0.1>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
  %1 = stablehlo.dot_general %x, %v, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x2x!quant.uniform<i8<-127:127>:f32, 0.1>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
  return %0, %1 : tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>, tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// weight-axis: StableHLO already keeps the axis off the contracting dimensions; a
// batching dimension is not the output channel either (rhs [batch, in, out]: 2).
func.func @fc_axis(%x: tensor<2x1x4x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<2x4x3x!quant.uniform<i8<-127:127>:f32:0, {0.1, 0.2}>>, %v: tensor<2x4x3x!quant.uniform<i8<-127:127>:f32:2, {0.1, 0.2, 0.3}>>) -> (tensor<2x1x3x!quant.uniform<i8:f32, 0.25:1>>, tensor<2x1x3x!quant.uniform<i8:f32, 0.25:1>>) {
  // expected-error @+1 {{FULLY_CONNECTED weight [weight-axis]: per-axis on dimension 0, must be on the output channel: the rhs dimension that is neither contracting nor batching (2)}}
  %0 = stablehlo.dot_general %x, %w, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x4x3x!quant.uniform<i8<-127:127>:f32:0, {0.1, 0.2}>>) -> tensor<2x1x3x!quant.uniform<i8:f32, 0.25:1>>
  %1 = stablehlo.dot_general %x, %v, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x4x3x!quant.uniform<i8<-127:127>:f32:2, {0.1, 0.2, 0.3}>>) -> tensor<2x1x3x!quant.uniform<i8:f32, 0.25:1>>
  return %0, %1 : tensor<2x1x3x!quant.uniform<i8:f32, 0.25:1>>, tensor<2x1x3x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// weight-axis in TFLite's own layouts (a composite "tfl.*" is that TFLite op): the
// spec's dim 0 for FULLY_CONNECTED [out, in] and CONV_2D OHWI, dim 3 for
// DEPTHWISE_CONV_2D [1, H, W, C*M].
func.func @tfl_axis(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {0.1, 0.2, 0.3, 0.4}>>, %y: tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>, %d: tensor<1x2x2x2x!quant.uniform<i8<-127:127>:f32:3, {0.1, 0.2}>>, %e: tensor<1x2x2x2x!quant.uniform<i8<-127:127>:f32:0, {0.1}>>) -> (tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>, tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:1>>, tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:1>>) {
  // expected-error @+1 {{FULLY_CONNECTED weight [weight-axis]: per-axis on dimension 1, must be on the output channel: TFLite's [out, in] / OHWI dimension (0)}}
  %0 = stablehlo.composite "tfl.fully_connected" %x, %w {decomposition = @fc} : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {0.1, 0.2, 0.3, 0.4}>>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>
  %1 = stablehlo.composite "tfl.depthwise_conv_2d" %y, %d {decomposition = @dw} : (tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x2x2x2x!quant.uniform<i8<-127:127>:f32:3, {0.1, 0.2}>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:1>>
  // expected-error @+1 {{DEPTHWISE_CONV_2D weight [weight-axis]: per-axis on dimension 0, must be on the output channel: TFLite's [1, H, W, C*M] dimension (3)}}
  %2 = stablehlo.composite "tfl.depthwise_conv_2d" %y, %e {decomposition = @dw2} : (tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x2x2x2x!quant.uniform<i8<-127:127>:f32:0, {0.1}>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:1>>
  return %0, %1, %2 : tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>, tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:1>>, tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:1>>
}
func.func private @fc(tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x4x!quant.uniform<i8<-127:127>:f32:1, {0.1, 0.2, 0.3, 0.4}>>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>
func.func private @dw(tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x2x2x2x!quant.uniform<i8<-127:127>:f32:3, {0.1, 0.2}>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:1>>
func.func private @dw2(tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<1x2x2x2x!quant.uniform<i8<-127:127>:f32:0, {0.1}>>) -> tensor<1x3x3x2x!quant.uniform<i8:f32, 0.25:1>>

// -----

// weight-type: u8 weights (the old uint8 scheme) are not int8.
func.func @fc_type(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<4x2x!quant.uniform<u8:f32, 0.1>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>> {
  // expected-error @+1 {{FULLY_CONNECTED weight [weight-type]: must be quantized i8, got u8}}
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x2x!quant.uniform<u8:f32, 0.1>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// CONV_2D: kernel [o, h, w, i] (TFLite's OHWI): per-axis on kernel_output_feature_dimension 0.
func.func @conv_ok(%x: tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2x2x3x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<3x3x3x2xi8>}> : () -> tensor<3x3x3x2x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}>>
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[o, 0, 1, i]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x3x3x2x!quant.uniform<i8:f32:0, {0.1, 0.2, 0.3}>>) -> tensor<1x2x2x3x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<1x2x2x3x!quant.uniform<i8:f32, 0.25:1>>
}

// -----

// DEPTHWISE_CONV_2D (feature_group_count = input features = 2, multiplier 2): the
// kernel [h, w, 1, 4] in HWIO; its `o` dimension 3 is TFLite's dimension 3.
func.func @depthwise_ok(%x: tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x3x3x4x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<2x2x1x4xi8>}> : () -> tensor<2x2x1x4x!quant.uniform<i8:f32:3, {0.1, 0.2, 0.3, 0.4}>>
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<2x2x1x4x!quant.uniform<i8:f32:3, {0.1, 0.2, 0.3, 0.4}>>) -> tensor<1x3x3x4x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<1x3x3x4x!quant.uniform<i8:f32, 0.25:1>>
}


// -----

// weight-granularity: sub-channel (blockwise) weights are no LiteRT int8 weights
// (StableHLO's dot_general refuses them; a composite takes them).
!wb = !quant.uniform<i8<-127:127>:f32:{1:2}, {{0.1, 0.2}, {0.3, 0.4}, {0.5, 0.6}}>
func.func @fc_blockwise(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, %w: tensor<3x4x!wb>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>> {
  // expected-error @+1 {{FULLY_CONNECTED weight [weight-granularity]: must be per-tensor or per-axis, got sub-channel}}
  %0 = stablehlo.composite "tfl.fully_connected" %x, %w {decomposition = @fc} : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x4x!wb>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>
}
func.func private @fc(tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x4x!wb>) -> tensor<1x3x!quant.uniform<i8:f32, 0.25:1>>

// -----

// A constant weight stored in TFLite's [out, in] layout and transposed for the dot is
// still the weight (the transpose is not checked as an activation TRANSPOSE).
!w = !quant.uniform<i8<-127:127>:f32:0, {0.1, 0.2}>
!wt = !quant.uniform<i8<-127:127>:f32:1, {0.1, 0.2}>
func.func @fc_transposed_weight(%x: tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>> {
  %w = stablehlo.constant() <{value = dense<[[1, -127, 2, 15], [0, 1, 127, -3]]> : tensor<2x4xi8>}> : () -> tensor<2x4x!w>
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<2x4x!w>) -> tensor<4x2x!wt>
  %0 = stablehlo.dot_general %x, %t, contracting_dims = [1] x [0] : (tensor<1x4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x2x!wt>) -> tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
  return %0 : tensor<1x2x!quant.uniform<i8:f32, 0.25:1>>
}
