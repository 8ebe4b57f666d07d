// RUN: qcomp-opt %s --tosa-rescale-legalize-to-stablehlo --split-input-file | FileCheck %s

// tosa-rescale-legalize-to-stablehlo: TOSA 1.0 RESCALE as StableHLO integer ops in
// i64 (exactly qcomp.quant.fixed_point.tosa_rescale):
//   value  = convert<i64>(x) - input_zp
//   result = clamp(out_min, ((value * M + 2^(shift-1)) >> shift) + output_zp, out_max)
//   out    = convert<out type>(result)
// `>>` is shift_right_arithmetic (floor), so ties go toward +inf. Parameters are
// rank-0 constants broadcast to the shape; a zero point of 0 emits no add/subtract.
// The tosa.const parameters are erased once unused.

// The reference-model example of REFERENCE.md §6: M = 1431655765 (2/3 * 2^31),
// shift 31, input_zp 3, output_zp -1; round = 2^30; i8 output: clamp to [-128, 127].
// CHECK-LABEL: func.func @per_tensor
// CHECK-NEXT:    %[[X:.*]] = stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xi64>
// CHECK-NEXT:    %[[IZC:.*]] = stablehlo.constant dense<3> : tensor<i64>
// CHECK-NEXT:    %[[IZ:.*]] = stablehlo.broadcast_in_dim %[[IZC]], dims = [] : (tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[V:.*]] = stablehlo.subtract %[[X]], %[[IZ]] : tensor<4xi64>
// CHECK-NEXT:    %[[MC:.*]] = stablehlo.constant dense<1431655765> : tensor<i64>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.broadcast_in_dim %[[MC]], dims = [] : (tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[P:.*]] = stablehlo.multiply %[[V]], %[[M]] : tensor<4xi64>
// CHECK-NEXT:    %[[RC:.*]] = stablehlo.constant dense<1073741824> : tensor<i64>
// CHECK-NEXT:    %[[RND:.*]] = stablehlo.broadcast_in_dim %[[RC]], dims = [] : (tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[SUM:.*]] = stablehlo.add %[[P]], %[[RND]] : tensor<4xi64>
// CHECK-NEXT:    %[[SC:.*]] = stablehlo.constant dense<31> : tensor<i64>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.broadcast_in_dim %[[SC]], dims = [] : (tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[SH:.*]] = stablehlo.shift_right_arithmetic %[[SUM]], %[[S]] : tensor<4xi64>
// CHECK-NEXT:    %[[OZC:.*]] = stablehlo.constant dense<-1> : tensor<i64>
// CHECK-NEXT:    %[[OZ:.*]] = stablehlo.broadcast_in_dim %[[OZC]], dims = [] : (tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[Y:.*]] = stablehlo.add %[[SH]], %[[OZ]] : tensor<4xi64>
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<-128> : tensor<i64>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<127> : tensor<i64>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.clamp %[[LO]], %[[Y]], %[[HI]] : (tensor<i64>, tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[OUT:.*]] = stablehlo.convert %[[C]] : (tensor<4xi64>) -> tensor<4xi8>
// CHECK-NEXT:    return %[[OUT]] : tensor<4xi8>
func.func @per_tensor(%arg0: tensor<4xi8>) -> tensor<4xi8> {
  %m = "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// Quantized input (as stablehlo-quant-legalize-to-tosa-rescale emits): bitcast to
// the storage type first. i32 output: clamp to the i32 range; output_zp 0: no add.
// M = 1431655765, shift 13 (0.025/0.15 * 2^20), round = 2^12 = 4096.
// CHECK-LABEL: func.func @quantized_input
// CHECK-NEXT:    %[[B:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<2x2x!quant.uniform<i8:f32, 2.500000e-02:-1>>) -> tensor<2x2xi8>
// CHECK-NEXT:    stablehlo.convert %[[B]] : (tensor<2x2xi8>) -> tensor<2x2xi64>
// CHECK:         stablehlo.constant dense<4096> : tensor<i64>
// CHECK:         stablehlo.constant dense<13> : tensor<i64>
// CHECK:         %[[SH:.*]] = stablehlo.shift_right_arithmetic
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<-2147483648> : tensor<i64>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<2147483647> : tensor<i64>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.clamp %[[LO]], %[[SH]], %[[HI]]
// CHECK-NEXT:    %[[OUT:.*]] = stablehlo.convert %[[C]] : (tensor<2x2xi64>) -> tensor<2x2xi32>
// CHECK-NEXT:    return %[[OUT]]
func.func @quantized_input(%arg0: tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>) -> tensor<2x2xi32> {
  %m = "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<13> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<2x2xi32>
  return %0 : tensor<2x2xi32>
}

// -----

// Quantized output: convert to the storage type, then bitcast to the quantized type.
// CHECK-LABEL: func.func @quantized_output
// CHECK:         %[[C:.*]] = stablehlo.clamp
// CHECK-NEXT:    %[[S:.*]] = stablehlo.convert %[[C]] : (tensor<4xi64>) -> tensor<4xi8>
// CHECK-NEXT:    %[[Q:.*]] = stablehlo.bitcast_convert %[[S]] : (tensor<4xi8>) -> tensor<4x!quant.uniform<i8:f32, 1.500000e-01:-1>>
// CHECK-NEXT:    return %[[Q]]
func.func @quantized_output(%arg0: tensor<4xi32>) -> tensor<4x!quant.uniform<i8:f32, 0.15:-1>> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<50> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %oz = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<4x!quant.uniform<i8:f32, 0.15:-1>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.15:-1>>
}

// -----

// scale32 = false (upstream refuses it): an i16 multiplier, same formula.
// M = 24576 (0.75 * 2^15), shift 22: scale 0.75 * 2^-7; round = 2^21 = 2097152.
// CHECK-LABEL: func.func @scale16
// CHECK-NEXT:    stablehlo.convert %arg0 : (tensor<4xi16>) -> tensor<4xi64>
// CHECK-NEXT:    stablehlo.constant dense<24576> : tensor<i64>
// CHECK-NEXT:    stablehlo.broadcast_in_dim
// CHECK-NEXT:    stablehlo.multiply
// CHECK-NEXT:    stablehlo.constant dense<2097152> : tensor<i64>
// CHECK-NEXT:    stablehlo.broadcast_in_dim
// CHECK-NEXT:    stablehlo.add
// CHECK-NEXT:    stablehlo.constant dense<22> : tensor<i64>
// CHECK-NEXT:    stablehlo.broadcast_in_dim
// CHECK-NEXT:    stablehlo.shift_right_arithmetic
func.func @scale16(%arg0: tensor<4xi16>) -> tensor<4xi8> {
  %m = "tosa.const"() <{values = dense<24576> : tensor<1xi16>}> : () -> tensor<1xi16>
  %s = "tosa.const"() <{values = dense<22> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %oz = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<4xi16>, tensor<1xi16>, tensor<1xi8>, tensor<1xi16>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
