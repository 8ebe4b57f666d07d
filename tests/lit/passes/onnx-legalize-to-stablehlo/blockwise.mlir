// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --onnx-legalize-to-stablehlo --split-input-file --verify-numerics | FileCheck %s
// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --onnx-legalize-to-stablehlo --stablehlo-legalize-quant-to-math --split-input-file | qcomp-run - --split-input-file --print-results | FileCheck %s --check-prefix=RESULT

// A blocked DequantizeLinear of a 2-D weight feeding MatMul's B (the QDQ form of GPTQ /
// AWQ exports and of onnxruntime's blockwise quantizer, quant_format=QDQ): after
// onnx-legalize-qdq-to-quant it is uniform_dequantize of a sub-channel type, and MatMul
// becomes the hybrid stablehlo.dot_general with that weight as its rhs (float lhs,
// qcomp's blockwise extension, docs/blockwise.md), contracting A's last dimension with
// W's first. A constant weight becomes one quantized stablehlo.constant; the
// dequantize, the storage cast and the scale / zero-point constants go.
// Here K = 8 in two blocks of 4, zero point 3 on column 1 of block 1; A = ones:
//   col 0: (1 + 4 + 7 + 2) * 0.5 + (-1 + 4 + 7 + 2) * 1 = 19
//   col 1: (-2 + 5 - 8 + 3) * 0.25 + (-1 - 8 - 3 - 1) * 2 = -26.5
//   col 2: (3 - 6 + 1 + 4) * 0.125 + (-3 + 6 - 1 + 2) * 0.5 = 2.25

// CHECK-LABEL: func.func @blocked_int4
// CHECK-NEXT:    %[[X:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<1x8xf32>
// CHECK-NEXT:    %[[W:.*]] = stablehlo.constant() <{value = dense<{{\[\[}}1, -2, 3], [4, 5, -6], [7, -8, 1], [2, 3, 4], [-1, 2, -3], [4, -5, 6], [7, 0, -1], [2, 2, 2]]> : tensor<8x3xi4>}> : () -> tensor<8x3x!quant.uniform<i4:f32:{{\{}}0:4, 1:1}, {{\{\{}}5.000000e-01, 2.500000e-01, 1.250000e-01}, {1.000000e+00, 2.000000e+00:3, 5.000000e-01}}>>
// CHECK-NEXT:    %[[Y:.*]] = stablehlo.dot_general %[[X]], %[[W]], contracting_dims = [1] x [0] : (tensor<1x8xf32>, tensor<8x3x!quant.uniform<i4:f32:{{.*}}>>) -> tensor<1x3xf32>
// CHECK-NEXT:    return %[[Y]]
// RESULT: @blocked_int4 result[0]: 1x3xf32={{\[\[}}19 -26.5 2.25]]
func.func @blocked_int4() -> tensor<1x3xf32> {
  %x = onnx.Constant dense<1.0> : tensor<1x8xf32>
  %w = onnx.Constant dense<[[1, -2, 3], [4, 5, -6], [7, -8, 1], [2, 3, 4], [-1, 2, -3], [4, -5, 6], [7, 0, -1], [2, 2, 2]]> : tensor<8x3xi4>
  %s = onnx.Constant dense<[[0.5, 0.25, 0.125], [1.0, 2.0, 0.5]]> : tensor<2x3xf32>
  %z = onnx.Constant dense<[[0, 0, 0], [0, 3, 0]]> : tensor<2x3xi4>
  %b = "onnx.DequantizeLinear"(%w, %s, %z) {axis = 0 : si64, block_size = 4 : si64} : (tensor<8x3xi4>, tensor<2x3xf32>, tensor<2x3xi4>) -> tensor<8x3xf32>
  %y = "onnx.MatMul"(%x, %b) : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// uint4 storage (onnxruntime's asymmetric QDQ weights): the constant is re-biased to
// signless i4, q - 8 with zero points z - 8 (the same reals), the storage StableHLO's
// lowerings read as signless. The weight is the one above plus 8, its zero points too.

// CHECK-LABEL: func.func @blocked_uint4
// CHECK:         stablehlo.constant() <{value = dense<{{\[\[}}1, -2, 3], [4, 5, -6]{{.*}} : tensor<8x3xi4>}> : () -> tensor<8x3x!quant.uniform<i4:f32:{{\{}}0:4, 1:1}, {{\{\{}}5.000000e-01, 2.500000e-01, 1.250000e-01}, {1.000000e+00, 2.000000e+00:3, 5.000000e-01}}>>
// RESULT: @blocked_uint4 result[0]: 1x3xf32={{\[\[}}19 -26.5 2.25]]
func.func @blocked_uint4() -> tensor<1x3xf32> {
  %x = onnx.Constant dense<1.0> : tensor<1x8xf32>
  %w = onnx.Constant dense<[[9, 6, 11], [12, 13, 2], [15, 0, 9], [10, 11, 12], [7, 10, 5], [12, 3, 14], [15, 8, 7], [10, 10, 10]]> : tensor<8x3xui4>
  %s = onnx.Constant dense<[[0.5, 0.25, 0.125], [1.0, 2.0, 0.5]]> : tensor<2x3xf32>
  %z = onnx.Constant dense<[[8, 8, 8], [8, 11, 8]]> : tensor<2x3xui4>
  %b = "onnx.DequantizeLinear"(%w, %s, %z) {axis = 0 : si64, block_size = 4 : si64} : (tensor<8x3xui4>, tensor<2x3xf32>, tensor<2x3xui4>) -> tensor<8x3xf32>
  %y = "onnx.MatMul"(%x, %b) : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// A weight that is a graph input keeps its storage cast; a 3-D A contracts its last
// dimension (the result is A's leading dimensions, then N).

// CHECK-LABEL: func.func @weight_argument
// CHECK:         %[[Q:.*]] = quant.scast %arg1 : tensor<8x3xi4> to tensor<8x3x!quant.uniform<i4:f32:{{\{}}0:4, 1:1}
// CHECK-NEXT:    stablehlo.dot_general %arg0, %[[Q]], contracting_dims = [2] x [0] : (tensor<2x1x8xf32>, tensor<8x3x!quant.uniform<i4:f32:{{.*}}>>) -> tensor<2x1x3xf32>
// CHECK-NOT:     uniform_dequantize
func.func @weight_argument(%x: tensor<2x1x8xf32>, %w: tensor<8x3xi4>) -> tensor<2x1x3xf32> {
  %s = onnx.Constant dense<[[0.5, 0.25, 0.125], [1.0, 2.0, 0.5]]> : tensor<2x3xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %b = "onnx.DequantizeLinear"(%w, %s, %none) {axis = 0 : si64, block_size = 4 : si64} : (tensor<8x3xi4>, tensor<2x3xf32>, none) -> tensor<8x3xf32>
  %y = "onnx.MatMul"(%x, %b) : (tensor<2x1x8xf32>, tensor<8x3xf32>) -> tensor<2x1x3xf32>
  return %y : tensor<2x1x3xf32>
}

// -----

// The dequantized weight has another user: it stays for that user, MatMul takes the
// quantized weight.

// CHECK-LABEL: func.func @weight_also_returned
// CHECK:         %[[D:.*]] = stablehlo.uniform_dequantize
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<1x8xf32>, tensor<8x3x!quant.uniform<i4:f32:{{.*}}>>) -> tensor<1x3xf32>
// CHECK:         return %{{.*}}, %[[D]]
func.func @weight_also_returned(%x: tensor<1x8xf32>) -> (tensor<1x3xf32>, tensor<8x3xf32>) {
  %w = onnx.Constant dense<[[1, -2, 3], [4, 5, -6], [7, -8, 1], [2, 3, 4], [-1, 2, -3], [4, -5, 6], [7, 0, -1], [2, 2, 2]]> : tensor<8x3xi4>
  %s = onnx.Constant dense<[[0.5, 0.25, 0.125], [1.0, 2.0, 0.5]]> : tensor<2x3xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %b = "onnx.DequantizeLinear"(%w, %s, %none) {axis = 0 : si64, block_size = 4 : si64} : (tensor<8x3xi4>, tensor<2x3xf32>, none) -> tensor<8x3xf32>
  %y = "onnx.MatMul"(%x, %b) : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  return %y, %b : tensor<1x3xf32>, tensor<8x3xf32>
}

// -----

// Per-axis weights are StableHLO's own types: MatMul stays the float dot of the
// dequantized weight (stablehlo-legalize-qdq-to-quantized-op fuses that pattern when a
// QuantizeLinear follows); only sub-channel weights become the hybrid dot_general here.

// CHECK-LABEL: func.func @per_axis_not_folded
// CHECK:         %[[D:.*]] = stablehlo.uniform_dequantize
// CHECK-NEXT:    stablehlo.dot %arg0, %[[D]] : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
func.func @per_axis_not_folded(%x: tensor<1x8xf32>) -> tensor<1x3xf32> {
  %w = onnx.Constant dense<[[1, -2, 3], [4, 5, -6], [7, -8, 1], [2, 3, 4], [-1, 2, -3], [4, -5, 6], [7, 0, -1], [2, 2, 2]]> : tensor<8x3xi8>
  %s = onnx.Constant dense<[0.5, 0.25, 0.125]> : tensor<3xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %b = "onnx.DequantizeLinear"(%w, %s, %none) {axis = 1 : si64} : (tensor<8x3xi8>, tensor<3xf32>, none) -> tensor<8x3xf32>
  %y = "onnx.MatMul"(%x, %b) : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  return %y : tensor<1x3xf32>
}

// -----

// W4A8 in QDQ form (int8 activations dequantized, output quantized): the weight stays
// 4-bit in the hybrid dot_general between the activations' dequantize and the output's
// quantize (stablehlo-legalize-qdq-to-quantized-op fuses no sub-channel type).
// A = (3 - 1) * 0.5 = ones, so the sums are those of @blocked_int4, (19, -26.5, 2.25);
// quantized with s = 4, zp = -3: round(4.75) - 3 = 2, round(-6.625) - 3 = -10,
// round(0.5625) - 3 = -2.

// CHECK-LABEL: func.func @w4a8_qdq
// CHECK:         %[[A:.*]] = stablehlo.uniform_dequantize %{{.*}} : (tensor<1x8x!quant.uniform<i8:f32, 5.000000e-01:1>>) -> tensor<1x8xf32>
// CHECK-NEXT:    %[[W:.*]] = stablehlo.constant() <{value = dense<{{.*}}> : tensor<8x3xi4>}>
// CHECK-NEXT:    %[[Y:.*]] = stablehlo.dot_general %[[A]], %[[W]], contracting_dims = [1] x [0] : (tensor<1x8xf32>, tensor<8x3x!quant.uniform<i4:f32:{{.*}}>>) -> tensor<1x3xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize %[[Y]] : (tensor<1x3xf32>) -> tensor<1x3x!quant.uniform<i8:f32, 4.000000e+00:-3>>
// RESULT: @w4a8_qdq result[0]: 1x3xi8={{\[\[}}2 -10 -2]]
func.func @w4a8_qdq() -> tensor<1x3xi8> {
  %x = onnx.Constant dense<3> : tensor<1x8xi8>
  %xs = onnx.Constant dense<0.5> : tensor<f32>
  %xz = onnx.Constant dense<1> : tensor<i8>
  %w = onnx.Constant dense<[[1, -2, 3], [4, 5, -6], [7, -8, 1], [2, 3, 4], [-1, 2, -3], [4, -5, 6], [7, 0, -1], [2, 2, 2]]> : tensor<8x3xi4>
  %s = onnx.Constant dense<[[0.5, 0.25, 0.125], [1.0, 2.0, 0.5]]> : tensor<2x3xf32>
  %z = onnx.Constant dense<[[0, 0, 0], [0, 3, 0]]> : tensor<2x3xi4>
  %ys = onnx.Constant dense<4.0> : tensor<f32>
  %yz = onnx.Constant dense<-3> : tensor<i8>
  %a = "onnx.DequantizeLinear"(%x, %xs, %xz) : (tensor<1x8xi8>, tensor<f32>, tensor<i8>) -> tensor<1x8xf32>
  %b = "onnx.DequantizeLinear"(%w, %s, %z) {axis = 0 : si64, block_size = 4 : si64} : (tensor<8x3xi4>, tensor<2x3xf32>, tensor<2x3xi4>) -> tensor<8x3xf32>
  %m = "onnx.MatMul"(%a, %b) : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  %y = "onnx.QuantizeLinear"(%m, %ys, %yz) : (tensor<1x3xf32>, tensor<f32>, tensor<i8>) -> tensor<1x3xi8>
  return %y : tensor<1x3xi8>
}
