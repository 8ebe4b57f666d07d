// RUN: qcomp-opt %s --tosa-rescale-legalize-to-stablehlo --split-input-file | qcomp-run - --split-input-file | FileCheck %s

// The legalized programs, run by qcomp's interpreter, against values computed by hand
// from the TOSA spec's pseudocode (every check.expect_eq_const must pass).

// CHECK: 8 passed, 0 failed

// REFERENCE.md §6 (the TOSA reference model's output): M = 2/3 * 2^31, shift 31,
// input_zp 3, output_zp -1:
//   -128: (-131 * M + 2^30) >> 31 = floor(-87.33 + 0.5) = -87 -> -88
//     -1: floor(-2.67 + 0.5) = -3 -> -4;   0: floor(-2 + 0.5) = -2 -> -3
//    127: floor(82.67 + 0.5) = 83 -> 82
func.func @main() {
  %x = stablehlo.constant dense<[-128, -1, 0, 127]> : tensor<4xi8>
  %m = "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<31> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<4xi8>
  check.expect_eq_const %0, dense<[-88, -4, -3, 82]> : tensor<4xi8>
  return
}

// -----

// DOUBLE_ROUND vs SINGLE_ROUND at shift 40 (M = 2^30, scale 2^-10):
//   SINGLE floor((v + 512) / 1024):           511 -> 0, -512 -> 0, 512 -> 1, -513 -> -1
//   DOUBLE floor((v + 512 +- 1) / 1024):      511 -> 1, -512 -> -1, 512 -> 1, -513 -> -1
func.func @main() {
  %x = stablehlo.constant dense<[511, -512, 512, -513]> : tensor<4xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<40> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  %1 = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  check.expect_eq_const %0, dense<[0, 0, 1, -1]> : tensor<4xi32>
  check.expect_eq_const %1, dense<[1, -1, 1, -1]> : tensor<4xi32>
  return
}

// -----

// Per channel, DOUBLE_ROUND: channel 0 scale 1 (M 2^30, shift 30); channel 1
// M/2^31 = 2/3 (shift 31): 66.67 -> 67, -66.67 -> -67; channel 2 2^-10 (shift 40):
// 100/1024 = 0.098 -> 0 both signs.
func.func @main() {
  %x = stablehlo.constant dense<[[100, 100, 100], [-100, -100, -100]]> : tensor<2x3xi8>
  %m = "tosa.const"() <{values = dense<[1073741824, 1431655765, 1073741824]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %s = "tosa.const"() <{values = dense<[30, 31, 40]> : tensor<3xi8>}> : () -> tensor<3xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = true, rounding_mode = DOUBLE_ROUND, scale32 = true} : (tensor<2x3xi8>, tensor<3xi32>, tensor<3xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %0, dense<[[100, 67, 0], [-100, -67, 0]]> : tensor<2x3xi32>
  return
}

// -----

// input_unsigned: i8 bits [-1, 0, 127, -128] read as [255, 0, 127, 128], zero point
// 128 (stored -128): [127, -128, -1, 0].
// output_unsigned: [-200, -128, 0, 127, 300] + 128 = [-72, 0, 128, 255, 428], clamped
// to [0, 255]: [0, 0, 128, 255, 255], stored as i8 bits [0, 0, -128, -1, -1].
func.func @main() {
  %x = stablehlo.constant dense<[-1, 0, 127, -128]> : tensor<4xi8>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<30> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %0 = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = true, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<4xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi16>) -> tensor<4xi16>
  check.expect_eq_const %0, dense<[127, -128, -1, 0]> : tensor<4xi16>
  %y = stablehlo.constant dense<[-200, -128, 0, 127, 300]> : tensor<5xi16>
  %iz16 = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %oz8 = "tosa.const"() <{values = dense<-128> : tensor<1xi8>}> : () -> tensor<1xi8>
  %1 = tosa.rescale %y, %m, %s, %iz16, %oz8 {input_unsigned = false, output_unsigned = true, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<5xi16>, tensor<1xi32>, tensor<1xi8>, tensor<1xi16>, tensor<1xi8>) -> tensor<5xi8>
  check.expect_eq_const %1, dense<[0, 0, -128, -1, -1]> : tensor<5xi8>
  return
}

// -----

// scale16: M = 24576 (i16), shift 22: scale 0.75 * 2^-7 = 0.005859375, output_zp 5:
//   1000 -> floor(5.859 + 0.5) = 6 -> 11;  -1000 -> floor(-5.36) = -6 -> -1
//   32767 -> floor(191.99 + 0.5) = 192 -> 197 -> clamped 127;  -32768 -> -192 -> -128
func.func @main() {
  %x = stablehlo.constant dense<[1000, -1000, 32767, -32768]> : tensor<4xi16>
  %m = "tosa.const"() <{values = dense<24576> : tensor<1xi16>}> : () -> tensor<1xi16>
  %s = "tosa.const"() <{values = dense<22> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %oz = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %0 = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<4xi16>, tensor<1xi16>, tensor<1xi8>, tensor<1xi16>, tensor<1xi8>) -> tensor<4xi8>
  check.expect_eq_const %0, dense<[11, -1, 127, -128]> : tensor<4xi8>
  return
}

// -----

// 48-bit input (widened by builtin.unrealized_conversion_cast), values at the ends of
// i48: M = 2^14, shift 40 (scale 2^-26), round = 2^39:
//    2^47 - 1 -> floor(2^21 - 2^-26 + 0.5) = 2^21 = 2097152;  -2^47 -> -2^21 + 0.5 -> -2097152
//    2^25 -> floor(0.5 + 0.5) = 1;  -2^25 -> floor(-0.5 + 0.5) = 0 (ties toward +inf)
func.func @main() {
  %x = "tosa.const"() <{values = dense<[140737488355327, -140737488355328, 33554432, -33554432]> : tensor<4xi48>}> : () -> tensor<4xi48>
  %m = "tosa.const"() <{values = dense<16384> : tensor<1xi16>}> : () -> tensor<1xi16>
  %s = "tosa.const"() <{values = dense<40> : tensor<1xi8>}> : () -> tensor<1xi8>
  %iz = "tosa.const"() <{values = dense<0> : tensor<1xi48>}> : () -> tensor<1xi48>
  %oz = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %0 = tosa.rescale %x, %m, %s, %iz, %oz {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = false} : (tensor<4xi48>, tensor<1xi16>, tensor<1xi8>, tensor<1xi48>, tensor<1xi32>) -> tensor<4xi32>
  check.expect_eq_const %0, dense<[2097152, -2097152, 1, 0]> : tensor<4xi32>
  return
}
