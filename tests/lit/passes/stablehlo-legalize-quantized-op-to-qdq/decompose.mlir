// RUN: qcomp-opt %s --stablehlo-legalize-quantized-op-to-qdq --split-input-file -allow-unregistered-dialect | FileCheck %s

// stablehlo-legalize-quantized-op-to-qdq writes out the spec's meaning of a
// quantized op, quantize(op(dequantize(operands))): each quantized operand goes
// through uniform_dequantize to its expressed type, the op runs on floats with the
// same attributes, and each quantized result goes through uniform_quantize back to
// its type. Covered: upstream's 40 ops (abs ... triangular_solve).

// Unary, per-tensor.

// CHECK-LABEL: func.func @abs
// CHECK-NEXT:    %[[D:.*]] = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4xf32>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.abs %[[D]] : tensor<4xf32>
// CHECK-NEXT:    %[[Q:.*]] = stablehlo.uniform_quantize %[[F]] : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>
// CHECK-NEXT:    return %[[Q]]
func.func @abs(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:3>> {
  %0 = stablehlo.abs %arg0 : tensor<4x!quant.uniform<i8:f32, 0.5:3>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:3>>
}

// -----

// Binary with different operand and result parameters: each operand is
// dequantized with its own parameters, the result quantized with the result's.

// CHECK-LABEL: func.func @add
// CHECK-NEXT:    %[[A:.*]] = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.uniform_dequantize %arg1 : (tensor<4x!quant.uniform<i8:f32, 2.500000e-01:1>>) -> tensor<4xf32>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.add %[[A]], %[[B]] : tensor<4xf32>
// CHECK-NEXT:    %[[Q:.*]] = stablehlo.uniform_quantize %[[F]] : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e+00:-2>>
// CHECK-NEXT:    return %[[Q]]
func.func @add(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:-2>> {
  %0 = stablehlo.add %arg0, %arg1 : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.25:1>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:-2>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 1.0:-2>>
}

// -----

// Per-axis add: uniform_dequantize and uniform_quantize carry the per-axis types.

// CHECK-LABEL: func.func @add_per_axis
// CHECK-NEXT:    %[[A:.*]] = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32:1, {{.*}}>>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.uniform_dequantize %arg1 : (tensor<2x3x!quant.uniform<i8:f32:1, {{.*}}>>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.add %[[A]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize %[[F]] : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {1.000000e+00,5.000000e-01,2.000000e+00}>>
func.func @add_per_axis(%arg0: tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>, %arg1: tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 0.5, 2.0}>> {
  %0 = stablehlo.add %arg0, %arg1 : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>, tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 0.5, 2.0}>>
  func.return %0 : tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 0.5, 2.0}>>
}

// -----

// compare has an i1 result: the operands are dequantized, the result stays.

// CHECK-LABEL: func.func @compare
// CHECK-NEXT:    %[[A:.*]] = stablehlo.uniform_dequantize %arg0
// CHECK-NEXT:    %[[B:.*]] = stablehlo.uniform_dequantize %arg1
// CHECK-NEXT:    %[[C:.*]] = stablehlo.compare LT, %[[A]], %[[B]], FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT:    return %[[C]]
func.func @compare(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xi1> {
  %0 = stablehlo.compare LT, %arg0, %arg1, FLOAT : (tensor<4x!quant.uniform<i8:f32, 0.5>>, tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xi1>
  func.return %0 : tensor<4xi1>
}

// -----

// select's predicate is not quantized and is passed through.

// CHECK-LABEL: func.func @select
// CHECK-NEXT:    %[[A:.*]] = stablehlo.uniform_dequantize %arg1
// CHECK-NEXT:    %[[B:.*]] = stablehlo.uniform_dequantize %arg2
// CHECK-NEXT:    %[[S:.*]] = stablehlo.select %arg0, %[[A]], %[[B]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize %[[S]]
func.func @select(%arg0: tensor<4xi1>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.5>>, %arg2: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4xi1>, tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

// dot_general with a per-axis rhs and per-axis result.

// CHECK-LABEL: func.func @dot_general_per_axis
// CHECK-NEXT:    %[[A:.*]] = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 5.000000e-01:1>>) -> tensor<2x3xf32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.uniform_dequantize %arg1 : (tensor<3x2x!quant.uniform<i8:f32:1, {5.000000e-01,2.500000e-01}>>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.dot_general %[[A]], %[[B]], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize %[[D]] : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i32:f32:1, {2.500000e-01,1.250000e-01}>>
func.func @dot_general_per_axis(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.25, 0.125}>> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.25, 0.125}>>
  func.return %0 : tensor<2x2x!quant.uniform<i32:f32:1, {0.25, 0.125}>>
}

// -----

// A hybrid dot_general (float lhs, quantized rhs, float result): only the rhs is
// dequantized, the spec's hybrid_dequantize_then_op.

// CHECK-LABEL: func.func @dot_general_hybrid
// CHECK-NEXT:    %[[B:.*]] = stablehlo.uniform_dequantize %arg1
// CHECK-NEXT:    %[[D:.*]] = stablehlo.dot_general %arg0, %[[B]], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    return %[[D]] : tensor<2x2xf32>
func.func @dot_general_hybrid(%arg0: tensor<2x3xf32>, %arg1: tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2xf32>
  func.return %0 : tensor<2x2xf32>
}

// -----

// convolution with a per-axis kernel: attributes (dimension numbers, window) are
// kept as they are.

// CHECK-LABEL: func.func @convolution
// CHECK-NEXT:    %[[A:.*]] = stablehlo.uniform_dequantize %arg0
// CHECK-NEXT:    %[[B:.*]] = stablehlo.uniform_dequantize %arg1
// CHECK-NEXT:    %[[C:.*]] = stablehlo.convolution(%[[A]], %[[B]]) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]}
// CHECK-SAME:      (tensor<1x3x3x1xf32>, tensor<2x2x1x2xf32>) -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize %[[C]] : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 4.000000e+00>>
func.func @convolution(%arg0: tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<2x2x1x2x!quant.uniform<i8:f32:3, {0.5, 0.25}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 4.0>> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5>>, tensor<2x2x1x2x!quant.uniform<i8:f32:3, {0.5, 0.25}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 4.0>>
  func.return %0 : tensor<1x2x2x2x!quant.uniform<i8:f32, 4.0>>
}

// -----

// Ops written in the generic form (as upstream's tests write them) keep their
// attributes.

// CHECK-LABEL: func.func @cholesky
// CHECK-NEXT:    %[[A:.*]] = stablehlo.uniform_dequantize %arg0
// CHECK-NEXT:    %[[C:.*]] = stablehlo.cholesky %[[A]], lower = true : tensor<2x2xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize %[[C]]
func.func @cholesky(%arg0: tensor<2x2x!quant.uniform<i8:f32, 1.0:17>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:17>> {
  %0 = "stablehlo.cholesky"(%arg0) {lower = true} : (tensor<2x2x!quant.uniform<i8:f32, 1.0:17>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:17>>
  func.return %0 : tensor<2x2x!quant.uniform<i8:f32, 1.0:17>>
}

// -----

// batch_norm_training has three results; each quantized one is quantized back.

// CHECK-LABEL: func.func @batch_norm_training
// CHECK-COUNT-3: stablehlo.uniform_dequantize
// CHECK-NEXT:    %[[O:[^ ,:]*]], %[[M:[^ ,:]*]], %[[V:[^ ,:]*]] = "stablehlo.batch_norm_training"
// CHECK-SAME:      -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    stablehlo.uniform_quantize %[[O]]
// CHECK-NEXT:    stablehlo.uniform_quantize %[[M]]
// CHECK-NEXT:    stablehlo.uniform_quantize %[[V]]
func.func @batch_norm_training(%arg0: tensor<2x2x!quant.uniform<i8:f32, 1.0:17>>, %arg1: tensor<2x!quant.uniform<i8:f32, 1.0:17>>, %arg2: tensor<2x!quant.uniform<i8:f32, 1.0:17>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:17>> {
  %0:3 = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg2) {epsilon = 1.0e-03 : f32, feature_index = 1 : i64} : (tensor<2x2x!quant.uniform<i8:f32, 1.0:17>>, tensor<2x!quant.uniform<i8:f32, 1.0:17>>, tensor<2x!quant.uniform<i8:f32, 1.0:17>>) -> (tensor<2x2x!quant.uniform<i8:f32, 1.0:17>>, tensor<2x!quant.uniform<i8:f32, 1.0:17>>, tensor<2x!quant.uniform<i8:f32, 1.0:17>>)
  func.return %0#0 : tensor<2x2x!quant.uniform<i8:f32, 1.0:17>>
}

// -----

// Ops that only move quantized values, the quantize/dequantize ops and float ops
// are left alone.

// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %[[T:.*]] = stablehlo.transpose %arg0, dims = [1, 0]
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %[[T]]
// CHECK-NEXT:    %[[D:.*]] = stablehlo.uniform_dequantize %[[R]]
// CHECK-NEXT:    %[[N:.*]] = stablehlo.negate %[[D]] : tensor<4xf32>
// CHECK-NEXT:    return %[[N]]
func.func @untouched(%arg0: tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32> {
  %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.5>>
  %1 = stablehlo.reshape %0 : (tensor<2x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  %2 = stablehlo.uniform_dequantize %1 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
  %3 = stablehlo.negate %2 : tensor<4xf32>
  func.return %3 : tensor<4xf32>
}
