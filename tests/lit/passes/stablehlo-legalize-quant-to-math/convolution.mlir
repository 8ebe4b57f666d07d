// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file | FileCheck %s

// rescale=float: a quantized convolution accumulates the stored integers exactly.
// The window sum Σ (q_l - z_l) q_r equals conv(pad(q_l, z_l), q_r) - z_l Σ q_r once
// every window position holds either an input value or z_l: the lhs is padded (edge
// padding and lhs dilation as interior padding) with z_l explicitly, and the
// convolution runs with zero padding and no lhs dilation. Σ q_r runs over the kernel
// spatial and input-feature dimensions, one value per output feature (folded when
// the kernel is a constant). Then the f64 rescale of dot.mlir, per output channel
// for per-channel kernels. Any layout, strides, dilations and feature groups.

// NHWC, stride 2x1, padding 1, z_l = -3, constant all-ones per-channel kernel:
// -z_l Σ q_r = 3 * (3 * 3 * 2) = 54 for each output channel, folded.
// s_l * s_r = 0.5 * [0.5, 1.0, 0.25], divided by s_res = [1.0, 2.0, 0.5].

// CHECK-LABEL: func.func @conv_nhwc_padding(%arg0: tensor<1x4x4x2xi8>) -> tensor<1x2x4x3xi8>
// CHECK:         %[[W:.*]] = stablehlo.constant dense<1> : tensor<3x3x2x3xi8>
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<-3> : tensor<i8>
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %[[Z]], low = [0, 1, 1, 0], high = [0, 1, 1, 0], interior = [0, 0, 0, 0] : (tensor<1x4x4x2xi8>, tensor<i8>) -> tensor<1x6x6x2xi8>
// CHECK:         %[[ACC:.*]] = stablehlo.convolution(%[[P]], %[[W]]) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = {{\[}}[0, 0], [0, 0]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x6x6x2xi8>, tensor<3x3x2x3xi8>) -> tensor<1x2x4x3xi32>
// CHECK-NOT:     stablehlo.reduce
// CHECK:         %[[C:.*]] = stablehlo.constant dense<54> : tensor<3xi32>
// CHECK:         %[[CB:.*]] = stablehlo.broadcast_in_dim %[[C]], dims = [3] : (tensor<3xi32>) -> tensor<1x2x4x3xi32>
// CHECK:         stablehlo.add %[[ACC]], %[[CB]] : tensor<1x2x4x3xi32>
// CHECK:         stablehlo.constant dense<[2.500000e-01, 5.000000e-01, 1.250000e-01]> : tensor<3xf64>
// CHECK:         stablehlo.broadcast_in_dim %{{.*}}, dims = [3] : (tensor<3xf64>) -> tensor<1x2x4x3xf64>
// CHECK:         stablehlo.multiply
// CHECK:         stablehlo.constant dense<[1.000000e+00, 2.000000e+00, 5.000000e-01]> : tensor<3xf64>
// CHECK:         stablehlo.divide
// CHECK:         stablehlo.clamp
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<1x2x4x3xf64>) -> tensor<1x2x4x3xi8>
func.func @conv_nhwc_padding(%arg0: tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<1x2x4x3x!quant.uniform<i8:f32:3, {1.0:0, 2.0:0, 0.5:0}>> {
  %w = stablehlo.constant() <{value = dense<1> : tensor<3x3x2x3xi8>}> : () -> tensor<3x3x2x3x!quant.uniform<i8:f32:3, {0.5, 1.0, 0.25}>>
  %0 = stablehlo.convolution(%arg0, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [1, 1]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x4x4x2x!quant.uniform<i8:f32, 0.5:-3>>, tensor<3x3x2x3x!quant.uniform<i8:f32:3, {0.5, 1.0, 0.25}>>) -> tensor<1x2x4x3x!quant.uniform<i8:f32:3, {1.0:0, 2.0:0, 0.5:0}>>
  func.return %0 : tensor<1x2x4x3x!quant.uniform<i8:f32:3, {1.0:0, 2.0:0, 0.5:0}>>
}

// -----

// NCHW, lhs dilation 2, padding [[0, 1], [1, 0]], rhs dilation, 2 feature groups,
// kernel as an argument: z_l = 2 fills the edges and the holes of the dilated lhs
// (interior padding 1); Σ q_r over kernel dims (i, 0, 1) = [1, 2, 3] is a run-time
// reduce, one value per output feature (dim 1 of the result).

// CHECK-LABEL: func.func @conv_nchw_lhs_dilation_groups(%arg0: tensor<1x4x3x3xi8>, %arg1: tensor<2x2x2x2xi8>) -> tensor<1x2x5x4xi8>
// CHECK:         %[[Z:.*]] = stablehlo.constant dense<2> : tensor<i8>
// CHECK:         %[[P:.*]] = stablehlo.pad %arg0, %[[Z]], low = [0, 0, 0, 1], high = [0, 0, 1, 0], interior = [0, 0, 1, 1] : (tensor<1x4x3x3xi8>, tensor<i8>) -> tensor<1x4x6x6xi8>
// CHECK:         %[[ACC:.*]] = stablehlo.convolution(%[[P]], %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {pad = {{\[}}[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 2]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x6x6xi8>, tensor<2x2x2x2xi8>) -> tensor<1x2x5x4xi32>
// CHECK:         %[[SUM:.*]] = stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.add across dimensions = [1, 2, 3] : (tensor<2x2x2x2xi32>, tensor<i32>) -> tensor<2xi32>
// CHECK:         stablehlo.broadcast_in_dim %[[SUM]], dims = [1] : (tensor<2xi32>) -> tensor<1x2x5x4xi32>
// CHECK:         stablehlo.constant dense<-2> : tensor<i32>
// CHECK:         stablehlo.multiply
// CHECK:         stablehlo.add %[[ACC]], %{{.*}} : tensor<1x2x5x4xi32>
// CHECK:         stablehlo.constant dense<1.250000e-01> : tensor<f64>
// CHECK:         stablehlo.multiply
// CHECK-NOT:     stablehlo.divide
// CHECK:         stablehlo.constant dense<1.000000e+00> : tensor<f64>
// CHECK:         stablehlo.add
// CHECK:         stablehlo.convert %{{.*}} : (tensor<1x2x5x4xf64>) -> tensor<1x2x5x4xi8>
func.func @conv_nchw_lhs_dilation_groups(%arg0: tensor<1x4x3x3x!quant.uniform<i8:f32, 0.5:2>>, %arg1: tensor<2x2x2x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x2x5x4x!quant.uniform<i8:f32, 1.0:1>> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {lhs_dilate = [2, 2], rhs_dilate = [1, 2], pad = [[0, 1], [1, 0]]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x4x3x3x!quant.uniform<i8:f32, 0.5:2>>, tensor<2x2x2x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<1x2x5x4x!quant.uniform<i8:f32, 1.0:1>>
  func.return %0 : tensor<1x2x5x4x!quant.uniform<i8:f32, 1.0:1>>
}

// -----

// A kernel zero point z_r = 2 would need Σ q_l over every window: the operands are
// centred instead, (q_l - 1) and (q_r - 2) in i32, and the convolution runs on them
// with its own (zero) padding: the same exact sum.

// CHECK-LABEL: func.func @conv_rhs_zero_point(%arg0: tensor<1x3x3x1xi8>, %arg1: tensor<2x2x1x1xi8>) -> tensor<1x2x2x1xi8>
// CHECK:         stablehlo.constant dense<1> : tensor<i32>
// CHECK:         %[[L:.*]] = stablehlo.subtract %{{.*}} : tensor<1x3x3x1xi32>
// CHECK:         stablehlo.constant dense<2> : tensor<i32>
// CHECK:         %[[R:.*]] = stablehlo.subtract %{{.*}} : tensor<2x2x1x1xi32>
// CHECK:         %[[ACC:.*]] = stablehlo.convolution(%[[L]], %[[R]]) {{.*}} : (tensor<1x3x3x1xi32>, tensor<2x2x1x1xi32>) -> tensor<1x2x2x1xi32>
// CHECK-NOT:     stablehlo.reduce
// CHECK:         stablehlo.convert %[[ACC]] : (tensor<1x2x2x1xi32>) -> tensor<1x2x2x1xf64>
func.func @conv_rhs_zero_point(%arg0: tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:1>>, tensor<2x2x1x1x!quant.uniform<i8:f32, 0.5:2>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>
  func.return %0 : tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>
}

