// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --verify-numerics=16 | FileCheck %s
// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --lower-quant-ops --verify-numerics=16 -o /dev/null

// The interpreter runs ONNX's QuantizeLinear / DequantizeLinear before the pass and
// StableHLO's quantize / dequantize after it, on inputs drawn to hit rounding ties and
// saturation: the same bits.

// CHECK-LABEL: func.func @qdq
// CHECK-NOT:     onnx.QuantizeLinear
// CHECK-NOT:     onnx.DequantizeLinear
func.func @qdq(%x: tensor<3x4xf32>, %w: tensor<4x3xi8>, %v: tensor<4x2xi4>) -> (tensor<3x4xf32>, tensor<4x3xf32>, tensor<3x4xi8>, tensor<4x2xf32>) {
  %s = onnx.Constant dense<0.0392156877> : tensor<f32>
  %z = onnx.Constant dense<3> : tensor<ui8>
  %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<3x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<3x4xui8>
  %d = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<3x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x4xf32>
  %ws = onnx.Constant dense<[0.125, 0.0078125, 0.5]> : tensor<3xf32>
  %wz = onnx.Constant dense<[0, 1, -2]> : tensor<3xi8>
  %wd = "onnx.DequantizeLinear"(%w, %ws, %wz) {axis = 1 : si64} : (tensor<4x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<4x3xf32>
  %as = onnx.Constant dense<[0.5, 0.25, 0.125, 1.0]> : tensor<4xf32>
  %az = onnx.Constant dense<[0, 0, 0, -5]> : tensor<4xi8>
  %aq = "onnx.QuantizeLinear"(%x, %as, %az) {axis = 1 : si64} : (tensor<3x4xf32>, tensor<4xf32>, tensor<4xi8>) -> tensor<3x4xi8>
  %bs = onnx.Constant dense<[[1.0, 2.0], [0.5, 0.25]]> : tensor<2x2xf32>
  %bz = onnx.Constant dense<[[1, -1], [0, 7]]> : tensor<2x2xi4>
  %bd = "onnx.DequantizeLinear"(%v, %bs, %bz) {axis = 0 : si64, block_size = 2 : si64} : (tensor<4x2xi4>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<4x2xf32>
  return %d, %wd, %aq, %bd : tensor<3x4xf32>, tensor<4x3xf32>, tensor<3x4xi8>, tensor<4x2xf32>
}

// float8 / float4 storage (quant.qcast / quant.dcast), and through lower-quant-ops:
// CHECK-LABEL: func.func @float_storage
// CHECK:         quant.qcast %arg0 : tensor<16xf32> to tensor<16x!quant.uniform<f8E4M3FN:f32, 5.000000e-01>>
// CHECK:         quant.qcast %arg0 : tensor<16xf32> to tensor<16x!quant.uniform<f8E5M2:f32, 5.000000e-01>>
// CHECK:         quant.qcast %arg0 : tensor<16xf32> to tensor<16x!quant.uniform<f4E2M1FN:f32, 5.000000e-01>>
func.func @float_storage(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<0.0> : tensor<f8E4M3FN>
  %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<16xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<16xf8E4M3FN>
  %d = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<16xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<16xf32>
  %z2 = onnx.Constant dense<0.0> : tensor<f8E5M2>
  %q2 = "onnx.QuantizeLinear"(%x, %s, %z2) : (tensor<16xf32>, tensor<f32>, tensor<f8E5M2>) -> tensor<16xf8E5M2>
  %d2 = "onnx.DequantizeLinear"(%q2, %s, %z2) : (tensor<16xf8E5M2>, tensor<f32>, tensor<f8E5M2>) -> tensor<16xf32>
  %z3 = onnx.Constant dense<0.0> : tensor<f4E2M1FN>
  %q3 = "onnx.QuantizeLinear"(%x, %s, %z3) : (tensor<16xf32>, tensor<f32>, tensor<f4E2M1FN>) -> tensor<16xf4E2M1FN>
  %d3 = "onnx.DequantizeLinear"(%q3, %s, %z3) : (tensor<16xf4E2M1FN>, tensor<f32>, tensor<f4E2M1FN>) -> tensor<16xf32>
  return %d, %d2, %d3 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
}
