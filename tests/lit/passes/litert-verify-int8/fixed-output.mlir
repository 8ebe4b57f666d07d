// RUN: qcomp-opt %s --litert-verify-int8 --split-input-file --verify-diagnostics

// Fixed output parameters: LOGISTIC and SOFTMAX (1/256, -128), TANH and
// L2_NORMALIZATION (1/128, 0), LOG_SOFTMAX (16/256, 127).

!qx = !quant.uniform<i8:f32, 0.1:5>
func.func @logistic_tanh_ok(%x: tensor<4x!qx>) -> (tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>, tensor<4x!quant.uniform<i8:f32, 0.0078125>>) {
  %0 = stablehlo.logistic %x : (tensor<4x!qx>) -> tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>
  %1 = stablehlo.tanh %x : (tensor<4x!qx>) -> tensor<4x!quant.uniform<i8:f32, 0.0078125>>
  return %0, %1 : tensor<4x!quant.uniform<i8:f32, 0.00390625:-128>>, tensor<4x!quant.uniform<i8:f32, 0.0078125>>
}

// -----

!qx = !quant.uniform<i8:f32, 0.1:5>
func.func @logistic_tanh_wrong(%x: tensor<4x!qx>) -> (tensor<4x!quant.uniform<i8:f32, 0.00390625>>, tensor<4x!quant.uniform<i8:f32, 0.0078125:-128>>) {
  // expected-error @+1 {{litert-verify-int8: LOGISTIC output [fixed-output]: (scale, zero_point) must be (0.00390625 (1/256), -128), got (0.00390625 (1/256), 0)}}
  %0 = stablehlo.logistic %x : (tensor<4x!qx>) -> tensor<4x!quant.uniform<i8:f32, 0.00390625>>
  // expected-error @+1 {{TANH output [fixed-output]: (scale, zero_point) must be (0.0078125 (1/128), 0), got (0.0078125 (1/128), -128)}}
  %1 = stablehlo.tanh %x : (tensor<4x!qx>) -> tensor<4x!quant.uniform<i8:f32, 0.0078125:-128>>
  return %0, %1 : tensor<4x!quant.uniform<i8:f32, 0.00390625>>, tensor<4x!quant.uniform<i8:f32, 0.0078125:-128>>
}

// -----

// SOFTMAX = divide(e, broadcast(reduce_add(e))), e = exponential(x - max(x)); the
// ops inside the pattern are the kernel's business, only x and the divide's result
// are the operator's input and output.
!qx = !quant.uniform<i8:f32, 0.1:5>
!qe = !quant.uniform<i8:f32, 0.05:-20>
!qs = !quant.uniform<i8:f32, 0.2:-128>
func.func @softmax(%x: tensor<2x4x!qx>) -> (tensor<2x4x!quant.uniform<i8:f32, 0.00390625:-128>>, tensor<2x4x!quant.uniform<i8:f32, 0.0078125:-128>>) {
  %e = stablehlo.exponential %x : (tensor<2x4x!qx>) -> tensor<2x4x!qe>
  %z = stablehlo.constant() <{value = dense<-128> : tensor<i8>}> : () -> tensor<!qs>
  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x4x!qe>, tensor<!qs>) -> tensor<2x!qs>
  %sb = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<2x!qs>) -> tensor<2x4x!qs>
  %0 = stablehlo.divide %e, %sb : (tensor<2x4x!qe>, tensor<2x4x!qs>) -> tensor<2x4x!quant.uniform<i8:f32, 0.00390625:-128>>
  // expected-error @+1 {{SOFTMAX output [fixed-output]: (scale, zero_point) must be (0.00390625 (1/256), -128), got (0.0078125 (1/128), -128)}}
  %1 = stablehlo.divide %e, %sb : (tensor<2x4x!qe>, tensor<2x4x!qs>) -> tensor<2x4x!quant.uniform<i8:f32, 0.0078125:-128>>
  return %0, %1 : tensor<2x4x!quant.uniform<i8:f32, 0.00390625:-128>>, tensor<2x4x!quant.uniform<i8:f32, 0.0078125:-128>>
}

// -----

// LOG_SOFTMAX = subtract(x, broadcast(log(reduce_add(exponential(x))))).
!qx = !quant.uniform<i8:f32, 0.1:5>
!qe = !quant.uniform<i8:f32, 0.05:-20>
!qs = !quant.uniform<i8:f32, 0.2:-128>
func.func @log_softmax(%x: tensor<2x4x!qx>) -> (tensor<2x4x!quant.uniform<i8:f32, 0.0625:127>>, tensor<2x4x!quant.uniform<i8:f32, 0.0625>>) {
  %e = stablehlo.exponential %x : (tensor<2x4x!qx>) -> tensor<2x4x!qe>
  %z = stablehlo.constant() <{value = dense<-128> : tensor<i8>}> : () -> tensor<!qs>
  %s = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x4x!qe>, tensor<!qs>) -> tensor<2x!qs>
  %l = stablehlo.log %s : (tensor<2x!qs>) -> tensor<2x!qs>
  %lb = stablehlo.broadcast_in_dim %l, dims = [0] : (tensor<2x!qs>) -> tensor<2x4x!qs>
  %0 = stablehlo.subtract %x, %lb : (tensor<2x4x!qx>, tensor<2x4x!qs>) -> tensor<2x4x!quant.uniform<i8:f32, 0.0625:127>>
  // expected-error @+1 {{LOG_SOFTMAX output [fixed-output]: (scale, zero_point) must be (0.0625 (16/256), 127), got (0.0625 (16/256), 0)}}
  %1 = stablehlo.subtract %x, %lb : (tensor<2x4x!qx>, tensor<2x4x!qs>) -> tensor<2x4x!quant.uniform<i8:f32, 0.0625>>
  return %0, %1 : tensor<2x4x!quant.uniform<i8:f32, 0.0625:127>>, tensor<2x4x!quant.uniform<i8:f32, 0.0625>>
}

// -----

// L2_NORMALIZATION = multiply(x, broadcast(rsqrt(reduce_add(x * x)))) or
// divide(x, broadcast(sqrt(reduce_add(x * x)))).
!qx = !quant.uniform<i8:f32, 0.1:5>
!qs = !quant.uniform<i8:f32, 0.2:-128>
func.func @l2_normalization(%x: tensor<2x4x!qx>) -> (tensor<2x4x!quant.uniform<i8:f32, 0.0078125>>, tensor<2x4x!quant.uniform<i8:f32, 0.00390625>>) {
  %sq = stablehlo.multiply %x, %x : (tensor<2x4x!qx>, tensor<2x4x!qx>) -> tensor<2x4x!qs>
  %z = stablehlo.constant() <{value = dense<-128> : tensor<i8>}> : () -> tensor<!qs>
  %s = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<2x4x!qs>, tensor<!qs>) -> tensor<2x!qs>
  %r = stablehlo.rsqrt %s : (tensor<2x!qs>) -> tensor<2x!qs>
  %rb = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<2x!qs>) -> tensor<2x4x!qs>
  %0 = stablehlo.multiply %x, %rb : (tensor<2x4x!qx>, tensor<2x4x!qs>) -> tensor<2x4x!quant.uniform<i8:f32, 0.0078125>>
  %q = stablehlo.sqrt %s : (tensor<2x!qs>) -> tensor<2x!qs>
  %qb = stablehlo.broadcast_in_dim %q, dims = [0] : (tensor<2x!qs>) -> tensor<2x4x!qs>
  // expected-error @+1 {{L2_NORMALIZATION output [fixed-output]: (scale, zero_point) must be (0.0078125 (1/128), 0), got (0.00390625 (1/256), 0)}}
  %1 = stablehlo.divide %x, %qb : (tensor<2x4x!qx>, tensor<2x4x!qs>) -> tensor<2x4x!quant.uniform<i8:f32, 0.00390625>>
  return %0, %1 : tensor<2x4x!quant.uniform<i8:f32, 0.0078125>>, tensor<2x4x!quant.uniform<i8:f32, 0.00390625>>
}

// -----

// A composite "tfl.softmax" is SOFTMAX.
!qx = !quant.uniform<i8:f32, 0.1:5>
func.func @softmax_composite(%x: tensor<2x4x!qx>) -> tensor<2x4x!quant.uniform<i8:f32, 0.00390625>> {
  // expected-error @+1 {{SOFTMAX output [fixed-output]: (scale, zero_point) must be (0.00390625 (1/256), -128), got (0.00390625 (1/256), 0)}}
  %0 = stablehlo.composite "tfl.softmax" %x {decomposition = @softmax_impl} : (tensor<2x4x!qx>) -> tensor<2x4x!quant.uniform<i8:f32, 0.00390625>>
  return %0 : tensor<2x4x!quant.uniform<i8:f32, 0.00390625>>
}
func.func private @softmax_impl(tensor<2x4x!qx>) -> tensor<2x4x!quant.uniform<i8:f32, 0.00390625>>
