// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s | qcomp-opt | FileCheck %s
// RUN: qcomp-opt %s -mlir-print-elementsattrs-with-hex-if-larger=-1 | FileCheck %s --check-prefix=LIST

// Hex integers in a float dense<> are IEEE bit patterns; NaN and infinities
// print back as bit patterns, other values as MLIR's printFloatValue does.

// CHECK-LABEL: func.func @special_values
// CHECK: dense<[0x7FC00000, 0xFF800000, 0x7F800000, 1.500000e+00]> : tensor<4xf32>
// CHECK: dense<[0x7C00, 0xFC00, 1.000000e+00]> : tensor<3xf16>
// CHECK: dense<[0x7F80, 0xFFC0, 2.468750e+00]> : tensor<3xbf16>
// CHECK: dense<[1.000000e-01, 2.47494364]> : tensor<2xf32>
func.func @special_values() -> (tensor<4xf32>, tensor<3xf16>, tensor<3xbf16>, tensor<2xf32>) {
  %0 = stablehlo.constant dense<[0x7FC00000, 0xFF800000, 0x7F800000, 1.5]> : tensor<4xf32>
  %1 = stablehlo.constant dense<[0x7C00, 0xFC00, 1.0]> : tensor<3xf16>
  %2 = stablehlo.constant dense<[0x7F80, 0xFFC0, 2.47494364]> : tensor<3xbf16>
  %3 = stablehlo.constant dense<[0.1, 2.47494364]> : tensor<2xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<3xf16>, tensor<3xbf16>, tensor<2xf32>
}

// More than 100 elements print as MLIR's hex string; splats as one element.
// CHECK-LABEL: func.func @large
// CHECK: dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F60616263646566"> : tensor<103xi8>
// CHECK: dense<7> : tensor<2x3xi4>
// LIST: dense<[0, 1, 2, {{.*}}, 101, 102]> : tensor<103xi8>
func.func @large() -> (tensor<103xi8>, tensor<2x3xi4>) {
  %0 = stablehlo.constant dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101, 102]> : tensor<103xi8>
  %1 = stablehlo.constant dense<[[7, 7, 7], [7, 7, 7]]> : tensor<2x3xi4>
  return %0, %1 : tensor<103xi8>, tensor<2x3xi4>
}
