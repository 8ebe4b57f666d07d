// RUN: qcomp-opt %s --litert-verify-int8 --split-input-file --verify-diagnostics

// Input and output (scale, zero_point) equal: AVERAGE_POOL_2D, MAX_POOL_2D,
// CONCATENATION, RESHAPE, SQUEEZE, PAD/PADV2, SLICE, TRANSPOSE, GATHER, MAXIMUM,
// MINIMUM; also broadcast_in_dim (implicit broadcasting) and clamp (a fused
// activation), which move values without rescaling them.
//
// StableHLO's own verifier already demands equal parameters of concatenate,
// reshape, transpose, slice, pad, gather and broadcast_in_dim ("expect same
// quantization scale and zero_point", "requires the same element type"), so this
// pass reports the rule for the ops StableHLO lets rescale: maximum, minimum, clamp,
// reduce_window, and the composites of TFLite ops that have no StableHLO op.

!q = !quant.uniform<i8:f32, 0.5:-3>
func.func @data_movement_ok(%x: tensor<2x4x!q>, %y: tensor<2x4x!q>) -> (tensor<4x4x!q>, tensor<8x!q>, tensor<4x2x!q>, tensor<2x6x!q>, tensor<1x4x!q>, tensor<2x4x!q>, tensor<2x4x!q>, tensor<2x4x!q>, tensor<3x2x4x!q>) {
  %0 = stablehlo.concatenate %x, %y, dim = 0 : (tensor<2x4x!q>, tensor<2x4x!q>) -> tensor<4x4x!q>
  %1 = stablehlo.reshape %x : (tensor<2x4x!q>) -> tensor<8x!q>
  %2 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x4x!q>) -> tensor<4x2x!q>
  %pv = stablehlo.constant() <{value = dense<-3> : tensor<i8>}> : () -> tensor<!q>
  %3 = stablehlo.pad %x, %pv, low = [0, 1], high = [0, 1], interior = [0, 0] : (tensor<2x4x!q>, tensor<!q>) -> tensor<2x6x!q>
  %4 = stablehlo.slice %x [0:1, 0:4] : (tensor<2x4x!q>) -> tensor<1x4x!q>
  %5 = stablehlo.maximum %x, %y : tensor<2x4x!q>
  %6 = stablehlo.minimum %x, %y : tensor<2x4x!q>
  %lo = stablehlo.constant() <{value = dense<-3> : tensor<i8>}> : () -> tensor<!q>
  %hi = stablehlo.constant() <{value = dense<9> : tensor<i8>}> : () -> tensor<!q>
  %7 = stablehlo.clamp %lo, %x, %hi : (tensor<!q>, tensor<2x4x!q>, tensor<!q>) -> tensor<2x4x!q>
  %8 = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<2x4x!q>) -> tensor<3x2x4x!q>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4x4x!q>, tensor<8x!q>, tensor<4x2x!q>, tensor<2x6x!q>, tensor<1x4x!q>, tensor<2x4x!q>, tensor<2x4x!q>, tensor<2x4x!q>, tensor<3x2x4x!q>
}

// -----

!q = !quant.uniform<i8:f32, 0.5:-3>
!r = !quant.uniform<i8:f32, 0.25:-3>
func.func @rescaled(%x: tensor<2x4x!q>, %y: tensor<2x4x!q>) -> (tensor<2x4x!r>, tensor<2x4x!r>, tensor<2x3x!r>, tensor<2x3x!r>, tensor<2x4x!r>) {
  // expected-error @+1 {{litert-verify-int8: MAXIMUM output [same-params]: (scale, zero_point) (0.25, -3) differs from input 0's (0.5, -3)}}
  %0 = stablehlo.maximum %x, %y : (tensor<2x4x!q>, tensor<2x4x!q>) -> tensor<2x4x!r>
  // expected-error @+1 {{MINIMUM output [same-params]: (scale, zero_point) (0.25, -3) differs from input 0's (0.5, -3)}}
  %1 = stablehlo.minimum %x, %y : (tensor<2x4x!q>, tensor<2x4x!q>) -> tensor<2x4x!r>
  %z = stablehlo.constant() <{value = dense<-128> : tensor<i8>}> : () -> tensor<!q>
  // expected-error @+1 {{MAX_POOL_2D output [same-params]: (scale, zero_point) (0.25, -3) differs from input's (0.5, -3)}}
  %2 = "stablehlo.reduce_window"(%x, %z) <{window_dimensions = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<!q>, %b: tensor<!q>):
    %m = stablehlo.maximum %a, %b : tensor<!q>
    stablehlo.return %m : tensor<!q>
  }) : (tensor<2x4x!q>, tensor<!q>) -> tensor<2x3x!r>
  // average pooling: the window sum and the divide by the window size after it
  %s = "stablehlo.reduce_window"(%x, %z) <{window_dimensions = array<i64: 1, 2>}> ({
  ^bb0(%a: tensor<!q>, %b: tensor<!q>):
    %m = stablehlo.add %a, %b : tensor<!q>
    stablehlo.return %m : tensor<!q>
  }) : (tensor<2x4x!q>, tensor<!q>) -> tensor<2x3x!q>
  %n = stablehlo.constant() <{value = dense<1> : tensor<2x3xi8>}> : () -> tensor<2x3x!quant.uniform<i8:f32, 2.0:-1>>
  // expected-error @+1 {{AVERAGE_POOL_2D output [same-params]: (scale, zero_point) (0.25, -3) differs from input's (0.5, -3)}}
  %3 = stablehlo.divide %s, %n : (tensor<2x3x!q>, tensor<2x3x!quant.uniform<i8:f32, 2.0:-1>>) -> tensor<2x3x!r>
  %lo = stablehlo.constant() <{value = dense<-3> : tensor<i8>}> : () -> tensor<!q>
  %hi = stablehlo.constant() <{value = dense<9> : tensor<i8>}> : () -> tensor<!q>
  // expected-error @+1 {{FUSED_ACTIVATION output [same-params]: (scale, zero_point) (0.25, -3) differs from input 0's (0.5, -3)}}
  %4 = stablehlo.clamp %lo, %x, %hi : (tensor<!q>, tensor<2x4x!q>, tensor<!q>) -> tensor<2x4x!r>
  return %0, %1, %2, %3, %4 : tensor<2x4x!r>, tensor<2x4x!r>, tensor<2x3x!r>, tensor<2x3x!r>, tensor<2x4x!r>
}

// -----

// TFLite ops without a StableHLO op of their own, as composites.
!q = !quant.uniform<i8:f32, 0.5:-3>
!r = !quant.uniform<i8:f32, 0.5:0>
func.func @composites(%x: tensor<1x2x2x4x!q>) -> (tensor<1x1x1x16x!q>, tensor<1x1x1x16x!r>, tensor<1x4x4x4x!r>) {
  %0 = stablehlo.composite "tfl.space_to_depth" %x {decomposition = @s2d} : (tensor<1x2x2x4x!q>) -> tensor<1x1x1x16x!q>
  // expected-error @+1 {{SPACE_TO_DEPTH output [same-params]: (scale, zero_point) (0.5, 0) differs from input's (0.5, -3)}}
  %1 = stablehlo.composite "tfl.space_to_depth" %x {decomposition = @s2d_r} : (tensor<1x2x2x4x!q>) -> tensor<1x1x1x16x!r>
  // expected-error @+1 {{RESIZE_BILINEAR output [same-params]}}
  %2 = stablehlo.composite "tfl.resize_bilinear" %x {decomposition = @resize} : (tensor<1x2x2x4x!q>) -> tensor<1x4x4x4x!r>
  return %0, %1, %2 : tensor<1x1x1x16x!q>, tensor<1x1x1x16x!r>, tensor<1x4x4x4x!r>
}
func.func private @s2d(tensor<1x2x2x4x!q>) -> tensor<1x1x1x16x!q>
func.func private @s2d_r(tensor<1x2x2x4x!q>) -> tensor<1x1x1x16x!r>
func.func private @resize(tensor<1x2x2x4x!q>) -> tensor<1x4x4x4x!r>
