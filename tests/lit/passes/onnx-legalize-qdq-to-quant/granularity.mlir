// RUN: qcomp-opt %s --onnx-legalize-qdq-to-quant --split-input-file | FileCheck %s

// Per-tensor: QuantizeLinear is uniform_quantize to !quant.uniform (ONNX uint8 is the
// `u8` storage), then a storage cast to the uint8 tensor the graph carries; a
// DequantizeLinear of it folds the cast pair away.

// CHECK-LABEL: func.func @per_tensor_q_dq
// CHECK:         %[[Q:.*]] = stablehlo.uniform_quantize %arg0 : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.uniform_dequantize %[[Q]] : (tensor<2x4x!quant.uniform<u8:f32, 5.000000e-01:128>>) -> tensor<2x4xf32>
// CHECK-NEXT:    return %[[D]]
func.func @per_tensor_q_dq(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<128> : tensor<ui8>
  %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  %d = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
  return %d : tensor<2x4xf32>
}

// -----

// Without a zero point the storage is uint8 with zero point 0; a graph output keeps the
// storage tensor through quant.scast.

// CHECK-LABEL: func.func @no_zero_point
// CHECK:         %[[Q:.*]] = stablehlo.uniform_quantize %arg0 : (tensor<3xf32>) -> tensor<3x!quant.uniform<u8:f32, 2.500000e-01>>
// CHECK-NEXT:    %[[S:.*]] = quant.scast %[[Q]] : tensor<3x!quant.uniform<u8:f32, 2.500000e-01>> to tensor<3xui8>
// CHECK-NEXT:    return %[[S]]
func.func @no_zero_point(%x: tensor<3xf32>) -> tensor<3xui8> {
  %s = onnx.Constant dense<0.25> : tensor<f32>
  %none = "onnx.NoValue"() {value} : () -> none
  %q = "onnx.QuantizeLinear"(%x, %s, %none) : (tensor<3xf32>, tensor<f32>, none) -> tensor<3xui8>
  return %q : tensor<3xui8>
}

// -----

// Per-axis: a 1-D scale along `axis` (negative axes count from the end).

// CHECK-LABEL: func.func @per_axis_weights
// CHECK:         %[[C:.*]] = quant.scast %arg0 : tensor<4x3xi8> to tensor<4x3x!quant.uniform<i8:f32:1, {1.250000e-01,2.500000e-01,5.000000e-01}>>
// CHECK-NEXT:    stablehlo.uniform_dequantize %[[C]] : (tensor<4x3x!quant.uniform<i8:f32:1, {1.250000e-01,2.500000e-01,5.000000e-01}>>) -> tensor<4x3xf32>
func.func @per_axis_weights(%w: tensor<4x3xi8>) -> tensor<4x3xf32> {
  %s = onnx.Constant dense<[0.125, 0.25, 0.5]> : tensor<3xf32>
  %z = onnx.Constant dense<0> : tensor<3xi8>
  %d = "onnx.DequantizeLinear"(%w, %s, %z) {axis = -1 : si64} : (tensor<4x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<4x3xf32>
  return %d : tensor<4x3xf32>
}

// -----

// Blocked (block_size): MLIR's sub-channel type, block 2 along the axis and 1 along
// the others; the scale tensor's shape is the type's parameter shape.

// CHECK-LABEL: func.func @blocked_int4
// CHECK:         quant.scast %arg0 : tensor<4x2xi4> to tensor<4x2x!quant.uniform<i4:f32:{0:2, 1:1}, {{\{}}{1.000000e+00:1, 2.000000e+00:-1}, {5.000000e-01, 2.500000e-01}}>>
// CHECK-NEXT:    stablehlo.uniform_dequantize
func.func @blocked_int4(%w: tensor<4x2xi4>) -> tensor<4x2xf32> {
  %s = onnx.Constant dense<[[1.0, 2.0], [0.5, 0.25]]> : tensor<2x2xf32>
  %z = onnx.Constant dense<[[1, -1], [0, 0]]> : tensor<2x2xi4>
  %d = "onnx.DequantizeLinear"(%w, %s, %z) {axis = 0 : si64, block_size = 2 : si64} : (tensor<4x2xi4>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<4x2xf32>
  return %d : tensor<4x2xf32>
}

// -----

// float8 / float4 storage: MLIR's float storage types; StableHLO's quantize takes integer
// storage only, so these use quant.qcast / quant.dcast.

// CHECK-LABEL: func.func @float8
// CHECK:         %[[Q:.*]] = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<f8E4M3FN:f32, 2.000000e+00>>
// CHECK-NEXT:    quant.dcast %[[Q]] : tensor<4x!quant.uniform<f8E4M3FN:f32, 2.000000e+00>> to tensor<4xf32>
func.func @float8(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = onnx.Constant dense<2.0> : tensor<f32>
  %z = onnx.Constant dense<0.0> : tensor<f8E4M3FN>
  %q = "onnx.QuantizeLinear"(%x, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4xf8E4M3FN>
  %d = "onnx.DequantizeLinear"(%q, %s, %z) : (tensor<4xf8E4M3FN>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
