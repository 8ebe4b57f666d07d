// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s
// Quantized programs: uniform_quantize/dequantize, quantized constants (generic body with storage values), per-axis types on the ops that allow them, hybrid convolution.
// CHECK lines are upstream stablehlo-opt's printing of this file.

// CHECK-LABEL: func.func @quantized
func.func @quantized(%f: tensor<4xf32>, %q: tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, %k: tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>, %img: tensor<1x8x8x3x!quant.uniform<i8:f32, 5.000000e-01:-128>>, %w: tensor<3x3x3x2x!quant.uniform<i8:f32:3, {1.000000e-01,2.000000e-01}>>, %fimg: tensor<1x8x8x3xf32>, %x: tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:-3>>, %y: tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) {
  // CHECK: = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %a = stablehlo.uniform_quantize %f : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>
  // CHECK: = stablehlo.uniform_quantize %0 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4x!quant.uniform<i16:f32, 2.500000e-01>>
  %rq = stablehlo.uniform_quantize %a : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4x!quant.uniform<i16:f32, 2.500000e-01>>
  // CHECK: = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>
  %pa = stablehlo.uniform_quantize %f : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>
  // CHECK: = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>>
  %u8 = stablehlo.uniform_quantize %f : (tensor<4xf32>) -> tensor<4x!quant.uniform<u8:f32, 5.000000e-01:128>>
  // CHECK: = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>
  %nr = stablehlo.uniform_quantize %f : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>
  // CHECK: = stablehlo.uniform_dequantize %0 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4xf32>
  %dq = stablehlo.uniform_dequantize %a : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4xf32>
  // CHECK: = stablehlo.uniform_dequantize %2 : (tensor<4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>) -> tensor<4xf32>
  %dqa = stablehlo.uniform_dequantize %pa : (tensor<4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>) -> tensor<4xf32>
  // CHECK: = stablehlo.add %0, %arg1 : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %add = stablehlo.add %a, %q : tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>
  // CHECK: = stablehlo.add %0, %arg1 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e+00>>
  %addr = stablehlo.add %a, %q : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>, tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4x!quant.uniform<i8:f32, 1.000000e+00>>
  // CHECK: = stablehlo.add %2, %2 : tensor<4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>
  %addpa = stablehlo.add %pa, %pa : tensor<4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01,3.000000e-01,4.000000e-01}>>
  // CHECK: = stablehlo.negate %arg1 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  %neg = stablehlo.negate %q : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:-3>>
  // CHECK: = stablehlo.tanh %arg1 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4x!quant.uniform<i8:f32, 7.812500e-03>>
  %tanh = stablehlo.tanh %q : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>) -> tensor<4x!quant.uniform<i8:f32, 7.812500e-03>>
  // CHECK: = stablehlo.constant() <{value = dense<[1, 2, 3, 4]> : tensor<4xi8>}> : () -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %c = stablehlo.constant() <{value = dense<[1, 2, 3, 4]> : tensor<4xi8>}> : () -> tensor<4x!quant.uniform<i8:f32, 5.000000e-01:3>>
  // CHECK: = stablehlo.constant() <{value = dense<{{\[\[}}1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi8>}> : () -> tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>
  %cpa = stablehlo.constant() <{value = dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi8>}> : () -> tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>
  // CHECK: = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>) -> tensor<4x2x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01}>>
  %t = stablehlo.transpose %k, dims = [1, 0] : (tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>) -> tensor<4x2x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01}>>
  // CHECK: = stablehlo.reshape %arg2 : (tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>) -> tensor<2x2x2x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>
  %r = stablehlo.reshape %k : (tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>) -> tensor<2x2x2x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>
  // CHECK: = stablehlo.broadcast_in_dim %arg2, dims = [1, 2] : (tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>) -> tensor<3x2x4x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01}>>
  %b = stablehlo.broadcast_in_dim %k, dims = [1, 2] : (tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>) -> tensor<3x2x4x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01}>>
  // CHECK: = stablehlo.bitcast_convert %arg2 : (tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>) -> tensor<2x4xi8>
  %bc = stablehlo.bitcast_convert %k : (tensor<2x4x!quant.uniform<i8:f32:0, {1.000000e-01,2.000000e-01}>>) -> tensor<2x4xi8>
  // CHECK: = stablehlo.dot_general %arg6, %arg7, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:-3>>, tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2x4x!quant.uniform<i32:f32, 1.250000e-01>>
  %dg = stablehlo.dot_general %x, %y, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 2.500000e-01:-3>>, tensor<3x4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<2x4x!quant.uniform<i32:f32, 1.250000e-01>>
  // CHECK: = stablehlo.convolution(%arg3, %arg4) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = {{\[\[}}1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3x!quant.uniform<i8:f32, 5.000000e-01:-128>>, tensor<3x3x3x2x!quant.uniform<i8:f32:3, {1.000000e-01,2.000000e-01}>>) -> tensor<1x8x8x2x!quant.uniform<i32:f32:3, {5.000000e-02,1.000000e-01}>>
  %cv = stablehlo.convolution(%img, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3x!quant.uniform<i8:f32, 5.000000e-01:-128>>, tensor<3x3x3x2x!quant.uniform<i8:f32:3, {1.000000e-01,2.000000e-01}>>) -> tensor<1x8x8x2x!quant.uniform<i32:f32:3, {5.000000e-02,1.000000e-01}>>
  // CHECK: = stablehlo.convolution(%arg5, %arg4) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x2x!quant.uniform<i8:f32:3, {1.000000e-01,2.000000e-01}>>) -> tensor<1x6x6x2xf32>
  %hy = stablehlo.convolution(%fimg, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x2x!quant.uniform<i8:f32:3, {1.000000e-01,2.000000e-01}>>) -> tensor<1x6x6x2xf32>
  // CHECK: = stablehlo.custom_call @check.eq(%5, %5) : (tensor<4xf32>, tensor<4xf32>) -> tensor<i1>
  %chk = stablehlo.custom_call @check.eq(%dq, %dq) : (tensor<4xf32>, tensor<4xf32>) -> tensor<i1>
  return
}
