// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --onnx-legalize-to-stablehlo --split-input-file --verify-numerics | FileCheck %s --check-prefix=HLO
// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --onnx-legalize-to-stablehlo --stablehlo-legalize-quant-to-math --split-input-file | qcomp-run - --split-input-file --print-results | FileCheck %s --check-prefix=RESULT
// RUN: qcomp-run %s --split-input-file --print-results | FileCheck %s --check-prefix=RESULT

// com.microsoft MatMulNBits, Y = A @ W^T (+ bias) with W[n, k] = (q[n, k] - zp[n, b]) *
// s[n, b], b = k / block_size, q packed `bits` wide, low bits first, in B[N, K/block,
// block*bits/8]; zero points packed likewise per row (default 2^(bits-1)). The pass
// takes it apart into its QDQ form, the one onnxruntime fuses into MatMulNBits: the
// unpacked weight transposed to MatMul's [K, N] as a constant of the sub-channel type
// (block_size along K, 1 along N; parameters [K/block, N]), dequantized, then MatMul
// (and Add of the bias). onnx-legalize-to-stablehlo makes that a hybrid dot_general
// with the 4-bit weight (HLO; unsigned storage re-biased to signless: q - 8, zp - 8).
// The results (RESULT) are the same before and after lowering; by hand:
//   row n = 0: block 0 bytes 0x21 -> q = 1, 2, 1, 2, ..., zp 1, s 0.5  -> w = 0, 0.5, ...
//              block 1 bytes 0x43 -> q = 3, 4, ...,      zp 3, s 0.25 -> w = 0, 0.25, ...
//   row n = 1: block 0 bytes 0x65 -> q = 5, 6, ...,      zp 5, s 1.0  -> w = 0, 1, ...
//              block 1 bytes 0x87 -> q = 7, 8, ...,      zp 8, s 2.0  -> w = -2, 0, ...
//   A row 0 (ones): y = (8 * 0.5 + 8 * 0.25, 8 * 1 - 8 * 2) + bias (0.5, 1) = (6.5, -7)
//   A row 1 (even k only): y = (0, -16) + bias = (0.5, -15)

// CHECK-LABEL: func.func @asymmetric_with_bias
// CHECK:         %[[W:.*]] = onnx.Constant dense<{{\[\[}}1, 5], [2, 6], [1, 5], [2, 6]
// CHECK-SAME:      [3, 7], [4, 8], [3, 7], [4, 8]
// CHECK-SAME:      : tensor<32x2xui4>
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %[[W]] : tensor<32x2xui4> to tensor<32x2x!quant.uniform<u4:f32:{{\{}}0:16, 1:1}, {{\{\{}}5.000000e-01:1, 1.000000e+00:5}, {2.500000e-01:3, 2.000000e+00:8}}>>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.uniform_dequantize %[[Q]] : {{.*}} -> tensor<32x2xf32>
// CHECK-NEXT:    %[[M:.*]] = "onnx.MatMul"(%{{.*}}, %[[D]]) : (tensor<2x32xf32>, tensor<32x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = "onnx.Add"(%[[M]], %{{.*}}) : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    return %[[Y]]
// HLO-LABEL: func.func @asymmetric_with_bias
// HLO:         %[[W:.*]] = stablehlo.constant() <{value = dense<{{\[\[}}-7, -3], [-6, -2]{{.*}} : tensor<32x2xi4>}> : () -> tensor<32x2x!quant.uniform<i4:f32:{{\{}}0:16, 1:1}, {{\{\{}}5.000000e-01:-7, 1.000000e+00:-3}, {2.500000e-01:-5, 2.000000e+00}}>>
// HLO:         stablehlo.dot_general %{{.*}}, %[[W]], contracting_dims = [1] x [0] : (tensor<2x32xf32>, tensor<32x2x!quant.uniform<i4:f32:{{.*}}>>) -> tensor<2x2xf32>
// HLO-NOT:     uniform_dequantize
// RESULT: @asymmetric_with_bias result[0]: 2x2xf32={{\[\[}}6.5 -7][0.5 -15]]
func.func @asymmetric_with_bias() -> tensor<2x2xf32> {
  %a = onnx.Constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]]> : tensor<2x32xf32>
  %b = onnx.Constant dense<[[[33, 33, 33, 33, 33, 33, 33, 33], [67, 67, 67, 67, 67, 67, 67, 67]], [[101, 101, 101, 101, 101, 101, 101, 101], [135, 135, 135, 135, 135, 135, 135, 135]]]> : tensor<2x2x8xui8>
  %s = onnx.Constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  %z = onnx.Constant dense<[[49], [133]]> : tensor<2x1xui8>
  %bias = onnx.Constant dense<[0.5, 1.0]> : tensor<2xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %y = "onnx.Custom"(%a, %b, %s, %z, %none, %bias) {function_name = "MatMulNBits", domain_name = "com.microsoft", K = 32 : si64, N = 2 : si64, bits = 4 : si64, block_size = 16 : si64} : (tensor<2x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>, tensor<2x1xui8>, none, tensor<2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// Symmetric (no zero points): zero point 8 (2^(bits-1)) on u4; re-biased to signless
// i4 it is 0. The same B and scales: q - 8 = -7, -6 | -5, -4 (row 0, s 0.5 | 0.25) and
// -3, -2 | -1, 0 (row 1, s 1 | 2); ones: (8 * -13 * 0.5 + 8 * -9 * 0.25,
// 8 * -5 * 1 + 8 * -1 * 2) = (-70, -56); even k: (8 * -7 * 0.5 + 8 * -5 * 0.25,
// 8 * -3 * 1 + 8 * -1 * 2) = (-38, -40).

// CHECK-LABEL: func.func @symmetric
// CHECK:         quant.scast %{{.*}} : tensor<32x2xui4> to tensor<32x2x!quant.uniform<u4:f32:{{\{}}0:16, 1:1}, {{\{\{}}5.000000e-01:8, 1.000000e+00:8}, {2.500000e-01:8, 2.000000e+00:8}}>>
// HLO-LABEL: func.func @symmetric
// HLO:         stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<2x32xf32>, tensor<32x2x!quant.uniform<i4:f32:{{\{}}0:16, 1:1}, {{\{\{}}5.000000e-01, 1.000000e+00}, {2.500000e-01, 2.000000e+00}}>>) -> tensor<2x2xf32>
// RESULT: @symmetric result[0]: 2x2xf32={{\[\[}}-70 -56][-38 -40]]
func.func @symmetric() -> tensor<2x2xf32> {
  %a = onnx.Constant dense<[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0], [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]]> : tensor<2x32xf32>
  %b = onnx.Constant dense<[[[33, 33, 33, 33, 33, 33, 33, 33], [67, 67, 67, 67, 67, 67, 67, 67]], [[101, 101, 101, 101, 101, 101, 101, 101], [135, 135, 135, 135, 135, 135, 135, 135]]]> : tensor<2x2x8xui8>
  %s = onnx.Constant dense<[[0.5, 0.25], [1.0, 2.0]]> : tensor<2x2xf32>
  %y = "onnx.Custom"(%a, %b, %s) {function_name = "MatMulNBits", domain_name = "com.microsoft", K = 32 : si64, N = 2 : si64, bits = 4 : si64, block_size = 16 : si64} : (tensor<2x32xf32>, tensor<2x2x8xui8>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// bits = 8: u8 storage, zero point 128 by default; a 3-D A keeps its leading dimensions
// (dot_general contracting its last). Block 0: q = 130 -> w = 2 * 0.5 = 1, block 1:
// q = 120 -> w = -8 * 0.25 = -2; ones: 16 * 1 - 16 * 2 = -16.

// CHECK-LABEL: func.func @eight_bits
// CHECK:         quant.scast %{{.*}} : tensor<32x1xui8> to tensor<32x1x!quant.uniform<u8:f32:{{\{}}0:16, 1:1}, {{\{\{}}5.000000e-01:128}, {2.500000e-01:128}}>>
// HLO-LABEL: func.func @eight_bits
// HLO:         stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [2] x [0] : (tensor<1x1x32xf32>, tensor<32x1x!quant.uniform<i8:f32:{{\{}}0:16, 1:1}, {{\{\{}}5.000000e-01}, {2.500000e-01}}>>) -> tensor<1x1x1xf32>
// RESULT: @eight_bits result[0]: 1x1x1xf32={{\[\[\[}}-16]]]
func.func @eight_bits() -> tensor<1x1x1xf32> {
  %a = onnx.Constant dense<[[[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]]> : tensor<1x1x32xf32>
  %b = onnx.Constant dense<[[[130, 130, 130, 130, 130, 130, 130, 130, 130, 130, 130, 130, 130, 130, 130, 130], [120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120, 120]]]> : tensor<1x2x16xui8>
  %s = onnx.Constant dense<[0.5, 0.25]> : tensor<2xf32>
  %y = "onnx.Custom"(%a, %b, %s) {function_name = "MatMulNBits", domain_name = "com.microsoft", K = 32 : si64, N = 1 : si64, bits = 8 : si64, block_size = 16 : si64} : (tensor<1x1x32xf32>, tensor<1x2x16xui8>, tensor<2xf32>) -> tensor<1x1x1xf32>
  return %y : tensor<1x1x1xf32>
}
