// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --split-input-file --verify-diagnostics | FileCheck %s
// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --stablehlo-legalize-quant-to-math --split-input-file | qcomp-run - --split-input-file --print-results | FileCheck %s --check-prefix=RESULT
// RUN: qcomp-run %s --split-input-file --print-results | FileCheck %s --check-prefix=RESULT

// ONNX allows negative scales; !quant.uniform does not. onnxruntime's symmetric blockwise
// quantizer makes them (each block's sign maps its largest magnitude to -8). On a
// constant input the pass reflects the storage range where s < 0:
//   (x - zp) * s = (x' - zp') * -s,  x' = lo + hi - x,  zp' = lo + hi - zp
// (exact, and inside [lo, hi]); the results are the same reals (RESULT, by hand).

// Blocked int4 (lo + hi = -1), column 0's block negative: x' = -1 - x, zp' = -1 - 0.
//   (-8 - 0) * -0.5 = 4 = (7 + 1) * 0.5;  (3 - 0) * -0.5 = -1.5 = (-4 + 1) * 0.5
//   column 1 unchanged: (7 - 1) * 0.25 = 1.5, (0 - 1) * 0.25 = -0.25

// CHECK-LABEL: func.func @blocked_int4
// CHECK:         %[[C:.*]] = onnx.Constant dense<{{\[\[}}7, 7], [-4, 0]]> : tensor<2x2xi4>
// CHECK-NEXT:    quant.scast %[[C]] : tensor<2x2xi4> to tensor<2x2x!quant.uniform<i4:f32:{{\{}}0:2, 1:1}, {{\{\{}}5.000000e-01:-1, 2.500000e-01:1}}>>
// RESULT: @blocked_int4 result[0]: 2x2xf32={{\[\[}}4 1.5][-1.5 -0.25]]
func.func @blocked_int4() -> tensor<2x2xf32> {
  %x = onnx.Constant dense<[[-8, 7], [3, 0]]> : tensor<2x2xi4>
  %s = onnx.Constant dense<[[-0.5, 0.25]]> : tensor<1x2xf32>
  %z = onnx.Constant dense<[[0, 1]]> : tensor<1x2xi4>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) {axis = 0 : si64, block_size = 2 : si64} : (tensor<2x2xi4>, tensor<1x2xf32>, tensor<1x2xi4>) -> tensor<2x2xf32>
  return %d : tensor<2x2xf32>
}

// -----

// Per-axis uint8 (lo + hi = 255): channels 0 and 2 negative.
//   (0 - 128) * -1 = 128 = (255 - 127) * 1;  (255 - 128) * 0.5 = 63.5;
//   (10 - 0) * -2 = -20 = (245 - 255) * 2

// CHECK-LABEL: func.func @per_axis_uint8
// CHECK:         %[[C:.*]] = onnx.Constant dense<[255, 255, 245]> : tensor<3xui8>
// CHECK-NEXT:    quant.scast %[[C]] : tensor<3xui8> to tensor<3x!quant.uniform<u8:f32:0, {1.000000e+00:127,5.000000e-01:128,2.000000e+00:255}>>
// RESULT: @per_axis_uint8 result[0]: 3xf32=[128 63.5 -20]
func.func @per_axis_uint8() -> tensor<3xf32> {
  %x = onnx.Constant dense<[0, 255, 10]> : tensor<3xui8>
  %s = onnx.Constant dense<[-1.0, 0.5, -2.0]> : tensor<3xf32>
  %z = onnx.Constant dense<[128, 128, 0]> : tensor<3xui8>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) {axis = 0 : si64} : (tensor<3xui8>, tensor<3xf32>, tensor<3xui8>) -> tensor<3xf32>
  return %d : tensor<3xf32>
}

// -----

// MatMulNBits likewise (u4: lo + hi = 15): row 1's scale is negative, so its nibbles q
// become 15 - q and its zero point 15 - 8 = 7. A = ones(1, 16), block_size = 16:
//   row 0: bytes 0x98 -> q = 8, 9, ... -> (0, 1) * 0.5, eight pairs = 4
//   row 1: bytes 0x10 -> q = 0, 1, ... -> (-8, -7) * -0.25, eight pairs = 30

// CHECK-LABEL: func.func @matmul_nbits
// CHECK:         quant.scast %{{.*}} : tensor<16x2xui4> to tensor<16x2x!quant.uniform<u4:f32:{{\{}}0:16, 1:1}, {{\{\{}}5.000000e-01:8, 2.500000e-01:7}}>>
// RESULT: @matmul_nbits result[0]: 1x2xf32={{\[\[}}4 30]]
func.func @matmul_nbits() -> tensor<1x2xf32> {
  %a = onnx.Constant dense<1.0> : tensor<1x16xf32>
  %b = onnx.Constant dense<[[[152, 152, 152, 152, 152, 152, 152, 152]], [[16, 16, 16, 16, 16, 16, 16, 16]]]> : tensor<2x1x8xui8>
  %s = onnx.Constant dense<[0.5, -0.25]> : tensor<2xf32>
  %y = "onnx.Custom"(%a, %b, %s) {function_name = "MatMulNBits", domain_name = "com.microsoft", K = 16 : si64, N = 2 : si64, bits = 4 : si64, block_size = 16 : si64} : (tensor<1x16xf32>, tensor<2x1x8xui8>, tensor<2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

// -----

// A non-constant input cannot be reflected: the op stays.

// CHECK-LABEL: func.func @argument
// CHECK:         "onnx.DequantizeLinear"
func.func @argument(%x: tensor<2xi8>) -> tensor<2xf32> {
  %s = onnx.Constant dense<[-0.5, 0.5]> : tensor<2xf32>
  %z = onnx.Constant dense<0> : tensor<2xi8>
  // expected-remark @+1 {{onnx-legalize-qdq-to-quant: 'onnx.DequantizeLinear' stays: !quant.uniform needs positive finite scales (negative ones are reflected on a constant input only)}}
  %d = "onnx.DequantizeLinear"(%x, %s, %z) {axis = 0 : si64} : (tensor<2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2xf32>
  return %d : tensor<2xf32>
}
