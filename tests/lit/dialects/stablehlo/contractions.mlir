// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s
// dot, dot_general (batching_dims = [..] x [..], contracting_dims, precision = [..]) and convolution (dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {..}; #stablehlo.conv<raw ...> in the generic form).
// CHECK lines are upstream stablehlo-opt's printing of this file.

// CHECK-LABEL: func.func @contractions
func.func @contractions(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %x: tensor<2x4x3xf32>, %y: tensor<2x3x5xf32>, %v: tensor<8xf32>, %img: tensor<1x8x8x3xf32>, %k: tensor<3x3x3x4xf32>, %nchw: tensor<1x3x8x8xf32>, %oihw: tensor<4x3x3x3xf32>, %dimg: tensor<?x8x8x3xf32>) {
  // CHECK: = stablehlo.dot %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %d = stablehlo.dot %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  // CHECK: = stablehlo.dot %a, %v, precision = [HIGHEST, DEFAULT] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  %dv = stablehlo.dot %a, %v, precision = [HIGHEST, DEFAULT] : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4xf32>
  // CHECK: = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %g = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  // CHECK: = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGH, HIGH] : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  %gb = stablehlo.dot_general %x, %y, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGH, HIGH] : (tensor<2x4x3xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
  // CHECK: = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  %c0 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  // CHECK: = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = {{\[\[}}1, 1], [0, 2]], lhs_dilate = [1, 1], rhs_dilate = [2, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x8x4xf32>
  %c1 = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [0, 2]], lhs_dilate = [1, 1], rhs_dilate = [2, 1], reverse = [false, true]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x3x8x4xf32>
  // CHECK: = stablehlo.convolution(%nchw, %oihw) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
  %c2 = stablehlo.convolution(%nchw, %oihw) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x6x6x4xf32>
  // CHECK: = stablehlo.convolution(%dimg, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x6x6x4xf32>
  %c3 = stablehlo.convolution(%dimg, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<?x6x6x4xf32>
  // CHECK: = stablehlo.convolution(%img, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  %c4 = "stablehlo.convolution"(%img, %k) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64}> : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) -> tensor<1x6x6x4xf32>
  return
}
