// RUN: qcomp-opt %s --tosa-rescale-legalize-to-stablehlo --split-input-file --verify-diagnostics

// What the pass refuses, with an error at the rescale.

// Parameters must be constants (tosa.const or stablehlo.constant): they are folded
// into the rounding addends and clamp bounds.
func.func @multiplier_not_constant(%arg0: tensor<4xi8>, %m: tensor<1xi32>) -> tensor<4xi32> {
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error @+1 {{tosa-rescale-legalize-to-stablehlo: multiplier must be a constant (tosa.const or stablehlo.constant)}}
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @dynamic_shape(%arg0: tensor<?xi8>) -> tensor<?xi32> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error @+1 {{tosa-rescale-legalize-to-stablehlo: dynamic dimensions are not supported}}
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<?xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

// A 48-bit output has no StableHLO type to convert to (48-bit inputs are legalized,
// see i48.mlir: an unrealized_conversion_cast widens them to i64).
func.func @i48_output(%arg0: tensor<4xi32>) -> tensor<4xi48> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi48>}> : () -> tensor<1xi48>
  // expected-error @+1 {{tosa-rescale-legalize-to-stablehlo: i32 -> i48: only 8-, 16-, 32- and 48-bit inputs and 8-, 16- and 32-bit outputs can be legalized}}
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi48>) -> tensor<4xi48>
  return %0 : tensor<4xi48>
}

// -----

// The spec requires 2 <= shift <= 62.
func.func @shift_out_of_range(%arg0: tensor<4xi8>) -> tensor<4xi32> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<63> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error @+1 {{tosa-rescale-legalize-to-stablehlo: shift must be in [2, 62], got [63]}}
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// ... and multiplier >= 0.
func.func @negative_multiplier(%arg0: tensor<4xi8>) -> tensor<4xi32> {
  %m = "tosa.const"() <{values = dense<-5> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  // expected-error @+1 {{tosa-rescale-legalize-to-stablehlo: multiplier must be in [0, 2^31), got [-5]}}
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
