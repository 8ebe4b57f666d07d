// RUN: qcomp-opt %s --tosa-rescale-legalize-to-stablehlo --split-input-file | FileCheck %s

// A 48-bit input (TOSA's accumulator type; TOSA requires scale32 = false and
// input_zp = 0). StableHLO has no i48 and stablehlo.convert rejects it, so the input
// is widened to i64 with builtin.unrealized_conversion_cast (a sign-extension) in
// place of the convert; the rest is the usual i64 sequence. |x| <= 2^47 and M < 2^15,
// so x * M + round stays below 2^63.

// M = 2^14, shift 40 (scale 2^-26): round = 2^39; input_zp 0 emits no subtract, and
// the i48 zero-point constant is erased with the others.
// CHECK-LABEL: func.func @i48_per_tensor
// CHECK-NEXT:    %[[X:.*]] = builtin.unrealized_conversion_cast %arg0 : tensor<4xi48> to tensor<4xi64>
// CHECK-NEXT:    %[[MC:.*]] = stablehlo.constant dense<16384> : tensor<i64>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.broadcast_in_dim %[[MC]], dims = [] : (tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[P:.*]] = stablehlo.multiply %[[X]], %[[M]] : tensor<4xi64>
// CHECK-NEXT:    %[[RC:.*]] = stablehlo.constant dense<549755813888> : tensor<i64>
// CHECK-NEXT:    %[[RND:.*]] = stablehlo.broadcast_in_dim %[[RC]], dims = [] : (tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[SUM:.*]] = stablehlo.add %[[P]], %[[RND]] : tensor<4xi64>
// CHECK-NEXT:    %[[SC:.*]] = stablehlo.constant dense<40> : tensor<i64>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.broadcast_in_dim %[[SC]], dims = [] : (tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[SH:.*]] = stablehlo.shift_right_arithmetic %[[SUM]], %[[S]] : tensor<4xi64>
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<-2147483648> : tensor<i64>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<2147483647> : tensor<i64>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.clamp %[[LO]], %[[SH]], %[[HI]] : (tensor<i64>, tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[OUT:.*]] = stablehlo.convert %[[C]] : (tensor<4xi64>) -> tensor<4xi32>
// CHECK-NEXT:    return %[[OUT]] : tensor<4xi32>
func.func @i48_per_tensor(%arg0: tensor<4xi48>) -> tensor<4xi32> {
  %m = "tosa.const"() <{values = dense<16384> : tensor<1xi16>}> : () -> tensor<1xi16>
  %s = "tosa.const"() <{values = dense<40> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi48>}> : () -> tensor<1xi48>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<4xi48>, tensor<1xi16>, tensor<1xi8>, tensor<1xi48>, tensor<1xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Per channel along the last axis, i48 -> i8 with output_zp 5: rank-1 parameters.
// CHECK-LABEL: func.func @i48_per_channel
// CHECK-NEXT:    %[[X:.*]] = builtin.unrealized_conversion_cast %arg0 : tensor<3x2xi48> to tensor<3x2xi64>
// CHECK-NEXT:    %[[MC:.*]] = stablehlo.constant dense<[32767, 1]> : tensor<2xi64>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.broadcast_in_dim %[[MC]], dims = [1] : (tensor<2xi64>) -> tensor<3x2xi64>
// CHECK-NEXT:    %[[P:.*]] = stablehlo.multiply %[[X]], %[[M]] : tensor<3x2xi64>
// CHECK-NEXT:    %[[RC:.*]] = stablehlo.constant dense<[2305843009213693952, 2]> : tensor<2xi64>
// CHECK-NEXT:    %[[RND:.*]] = stablehlo.broadcast_in_dim %[[RC]], dims = [1] : (tensor<2xi64>) -> tensor<3x2xi64>
// CHECK-NEXT:    %[[SUM:.*]] = stablehlo.add %[[P]], %[[RND]] : tensor<3x2xi64>
// CHECK-NEXT:    %[[SC:.*]] = stablehlo.constant dense<[62, 2]> : tensor<2xi64>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.broadcast_in_dim %[[SC]], dims = [1] : (tensor<2xi64>) -> tensor<3x2xi64>
// CHECK-NEXT:    %[[SH:.*]] = stablehlo.shift_right_arithmetic %[[SUM]], %[[S]] : tensor<3x2xi64>
// CHECK-NEXT:    %[[OZC:.*]] = stablehlo.constant dense<5> : tensor<i64>
// CHECK-NEXT:    %[[OZ:.*]] = stablehlo.broadcast_in_dim %[[OZC]], dims = [] : (tensor<i64>) -> tensor<3x2xi64>
// CHECK-NEXT:    %[[Y:.*]] = stablehlo.add %[[SH]], %[[OZ]] : tensor<3x2xi64>
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<-128> : tensor<i64>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<127> : tensor<i64>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.clamp %[[LO]], %[[Y]], %[[HI]] : (tensor<i64>, tensor<3x2xi64>, tensor<i64>) -> tensor<3x2xi64>
// CHECK-NEXT:    %[[OUT:.*]] = stablehlo.convert %[[C]] : (tensor<3x2xi64>) -> tensor<3x2xi8>
// CHECK-NEXT:    return %[[OUT]] : tensor<3x2xi8>
func.func @i48_per_channel(%arg0: tensor<3x2xi48>) -> tensor<3x2xi8> {
  %m = "tosa.const"() <{values = dense<[32767, 1]> : tensor<2xi16>}> : () -> tensor<2xi16>
  %s = "tosa.const"() <{values = dense<[62, 2]> : tensor<2xi8>}> : () -> tensor<2xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi48>}> : () -> tensor<1xi48>
  %oz = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<3x2xi48>, tensor<2xi16>, tensor<2xi8>, tensor<1xi48>, tensor<1xi8>) -> tensor<3x2xi8>
  return %0 : tensor<3x2xi8>
}
