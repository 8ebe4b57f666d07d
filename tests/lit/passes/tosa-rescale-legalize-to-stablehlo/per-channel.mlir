// RUN: qcomp-opt %s --tosa-rescale-legalize-to-stablehlo --split-input-file | FileCheck %s

// per_channel = true (upstream refuses it): multiplier and shift hold one value per
// index of the input's last dimension; they become rank-1 constants broadcast along
// that dimension (broadcast_in_dim, dims = [rank - 1]).
//
// DOUBLE_ROUND (upstream refuses it): for shift > 31 the rounding addend is
// 2^(shift-1) + 2^30 when value >= 0 and 2^(shift-1) - 2^30 when value < 0, chosen by
// a select on `value >= 0`; for shift <= 31 it is 2^(shift-1) as in SINGLE_ROUND.
// Per channel here: shift 30 -> 2^29 both ways, shift 31 -> 2^30 both ways,
// shift 40 -> 2^39 + 2^30 = 550829555712 or 2^39 - 2^30 = 548682072064.
// CHECK-LABEL: func.func @per_channel_double_round
// CHECK-NEXT:    %[[V:.*]] = stablehlo.convert %arg0 : (tensor<2x3xi8>) -> tensor<2x3xi64>
// CHECK-NEXT:    %[[MC:.*]] = stablehlo.constant dense<[1073741824, 1431655765, 2147483647]> : tensor<3xi64>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.broadcast_in_dim %[[MC]], dims = [1] : (tensor<3xi64>) -> tensor<2x3xi64>
// CHECK-NEXT:    %[[P:.*]] = stablehlo.multiply %[[V]], %[[M]] : tensor<2x3xi64>
// CHECK-NEXT:    %[[ZC:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.broadcast_in_dim %[[ZC]], dims = [] : (tensor<i64>) -> tensor<2x3xi64>
// CHECK-NEXT:    %[[GE:.*]] = stablehlo.compare GE, %[[V]], %[[Z]], SIGNED : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
// CHECK-NEXT:    %[[RPC:.*]] = stablehlo.constant dense<[536870912, 1073741824, 550829555712]> : tensor<3xi64>
// CHECK-NEXT:    %[[RP:.*]] = stablehlo.broadcast_in_dim %[[RPC]], dims = [1] : (tensor<3xi64>) -> tensor<2x3xi64>
// CHECK-NEXT:    %[[RNC:.*]] = stablehlo.constant dense<[536870912, 1073741824, 548682072064]> : tensor<3xi64>
// CHECK-NEXT:    %[[RN:.*]] = stablehlo.broadcast_in_dim %[[RNC]], dims = [1] : (tensor<3xi64>) -> tensor<2x3xi64>
// CHECK-NEXT:    %[[RND:.*]] = stablehlo.select %[[GE]], %[[RP]], %[[RN]] : tensor<2x3xi1>, tensor<2x3xi64>
// CHECK-NEXT:    %[[SUM:.*]] = stablehlo.add %[[P]], %[[RND]] : tensor<2x3xi64>
// CHECK-NEXT:    %[[SC:.*]] = stablehlo.constant dense<[30, 31, 40]> : tensor<3xi64>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.broadcast_in_dim %[[SC]], dims = [1] : (tensor<3xi64>) -> tensor<2x3xi64>
// CHECK-NEXT:    %[[SH:.*]] = stablehlo.shift_right_arithmetic %[[SUM]], %[[S]] : tensor<2x3xi64>
// CHECK-NEXT:    stablehlo.constant dense<-2147483648> : tensor<i64>
// CHECK-NEXT:    stablehlo.constant dense<2147483647> : tensor<i64>
// CHECK-NEXT:    stablehlo.clamp
// CHECK-NEXT:    stablehlo.convert {{.*}} -> tensor<2x3xi32>
func.func @per_channel_double_round(%arg0: tensor<2x3xi8>) -> tensor<2x3xi32> {
  %m = "tosa.const"() <{values = dense<[1073741824, 1431655765, 2147483647]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %s = "tosa.const"() <{values = dense<[30, 31, 40]> : tensor<3xi8>}> : () -> tensor<3xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<2x3xi8>, tensor<3xi32>, tensor<3xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// DOUBLE_ROUND with every shift <= 31 is SINGLE_ROUND: no select.
// CHECK-LABEL: func.func @double_round_small_shift
// CHECK-NOT:     stablehlo.select
// CHECK:         stablehlo.constant dense<1073741824> : tensor<i64>
// CHECK-NOT:     stablehlo.select
// CHECK:         return
func.func @double_round_small_shift(%arg0: tensor<4xi8>) -> tensor<4xi32> {
  %m = "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Per-channel parameters that happen to be equal fold to one rank-0 constant.
// CHECK-LABEL: func.func @per_channel_uniform
// CHECK:         stablehlo.constant dense<1073741824> : tensor<i64>
// CHECK-NEXT:    stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<i64>) -> tensor<2x3xi64>
func.func @per_channel_uniform(%arg0: tensor<2x3xi8>) -> tensor<2x3xi32> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<3xi32>}> : () -> tensor<3xi32>
  %s = "tosa.const"() <{values = dense<[30, 31, 32]> : tensor<3xi8>}> : () -> tensor<3xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<2x3xi8>, tensor<3xi32>, tensor<3xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
