// RUN: qcomp-opt %s --tosa-rescale-legalize-to-stablehlo --split-input-file | FileCheck %s

// input_unsigned / output_unsigned (upstream ignores them): TOSA 1.0 keeps the
// tensors signless and reads them as unsigned. The zero points are zero-extended
// too: an i8 zero point -128 read unsigned is 128.

// input_unsigned: bitcast to ui8 so that convert zero-extends (0xFF -> 255).
// CHECK-LABEL: func.func @unsigned_input
// CHECK-NEXT:    %[[U:.*]] = stablehlo.bitcast_convert %arg0 : (tensor<4xi8>) -> tensor<4xui8>
// CHECK-NEXT:    %[[X:.*]] = stablehlo.convert %[[U]] : (tensor<4xui8>) -> tensor<4xi64>
// CHECK-NEXT:    %[[ZC:.*]] = stablehlo.constant dense<128> : tensor<i64>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.broadcast_in_dim %[[ZC]], dims = []
// CHECK-NEXT:    stablehlo.subtract %[[X]], %[[Z]] : tensor<4xi64>
// CHECK:         stablehlo.constant dense<-32768> : tensor<i64>
// CHECK-NEXT:    stablehlo.constant dense<32767> : tensor<i64>
func.func @unsigned_input(%arg0: tensor<4xi8>) -> tensor<4xi16> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi16>) -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

// output_unsigned: clamp to [0, 255], convert to ui8 (in range, so exact), bitcast
// back to the signless i8 result.
// CHECK-LABEL: func.func @unsigned_output
// CHECK:         stablehlo.constant dense<128> : tensor<i64>
// CHECK:         %[[Y:.*]] = stablehlo.add
// CHECK-NEXT:    %[[LO:.*]] = stablehlo.constant dense<0> : tensor<i64>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<255> : tensor<i64>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.clamp %[[LO]], %[[Y]], %[[HI]]
// CHECK-NEXT:    %[[U:.*]] = stablehlo.convert %[[C]] : (tensor<4xi64>) -> tensor<4xui8>
// CHECK-NEXT:    %[[OUT:.*]] = stablehlo.bitcast_convert %[[U]] : (tensor<4xui8>) -> tensor<4xi8>
// CHECK-NEXT:    return %[[OUT]]
func.func @unsigned_output(%arg0: tensor<4xi16>) -> tensor<4xi8> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %oz = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = true, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi16>, tensor<1xi32>, tensor<1xi8>, tensor<1xi16>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

// uint16 input with zero point 32768 (stored as i16 -32768).
// CHECK-LABEL: func.func @unsigned_i16_input
// CHECK-NEXT:    stablehlo.bitcast_convert %arg0 : (tensor<4xi16>) -> tensor<4xui16>
// CHECK-NEXT:    stablehlo.convert {{.*}} : (tensor<4xui16>) -> tensor<4xi64>
// CHECK-NEXT:    stablehlo.constant dense<32768> : tensor<i64>
func.func @unsigned_i16_input(%arg0: tensor<4xi16>) -> tensor<4xi8> {
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<-32768> : tensor<1xi16>}> : () -> tensor<1xi16>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %arg0, %m, %s, %iz, %oz {input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi16>, tensor<1xi32>, tensor<1xi8>, tensor<1xi16>, tensor<1xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}
