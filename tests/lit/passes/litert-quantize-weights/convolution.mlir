// RUN: qcomp-opt %s --litert-quantize-weights='activation-min=-1.0 activation-max=1.0' --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --litert-quantize-weights='activation-min=-1.0 activation-max=1.0' --litert-verify-int8 --split-input-file | FileCheck %s

// Convolutions: the weight's output channel is kernel_output_feature_dimension, for a
// plain and a depthwise (feature_group_count = input features) convolution alike;
// the accumulator is per-axis on the result's output_feature_dimension. Ranges from
// the pass options here: [-1, 1] for input and result.

// Depthwise, HWIO kernel [1, 1, 1, 4] (multiplier 2): per channel [0.5, -1, 0.25, 2] is
// max|w| itself, so every weight is stored as +-127.
// CHECK-LABEL: func.func @depthwise
// CHECK:         stablehlo.constant() <{value = dense<{{\[}}[{{\[}}[127, -127, 127, 127]]]]> : tensor<1x1x1x4xi8>}> : () -> tensor<1x1x1x4x!quant.uniform<i8<-127:127>:f32:3, {{.*}}>>
// CHECK:         stablehlo.convolution({{.*}}) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], {{.*}}feature_group_count = 2 : i64{{.*}} -> tensor<1x2x2x4x!quant.uniform<i32:f32:3, {{.*}}>>
// CHECK:         stablehlo.uniform_quantize %{{.*}} -> tensor<1x2x2x4x!quant.uniform<i8:f32, {{.*}}>>
func.func @depthwise(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x4xf32> {
  %w = stablehlo.constant dense<[[[[0.5, -1.0, 0.25, 2.0]]]]> : tensor<1x1x1x4xf32>
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 2 : i64} : (tensor<1x2x2x2xf32>, tensor<1x1x1x4xf32>) -> tensor<1x2x2x4xf32>
  return %0 : tensor<1x2x2x4xf32>
}

// -----

// CONV_2D in TFLite's OHWI layout: output channel o = dimension 0 of the kernel,
// feature dimension 3 of the NHWC result. Channel 0 max|w| = 1: [1, 0.5] -> [127, 64]
// (0.5 / (1/127) is 63.5 up to the float32 rounding of the scale); channel 1
// max|w| = 0.2: [-0.2, 0.1] -> [-127, 64].
// CHECK-LABEL: func.func @conv_ohwi
// CHECK:         stablehlo.constant() <{value = dense<{{\[}}[{{\[}}[127, 64]]], {{\[}}[{{\[}}-127, 64]]]]> : tensor<2x1x1x2xi8>}> : () -> tensor<2x1x1x2x!quant.uniform<i8<-127:127>:f32:0, {{.*}}>>
// CHECK:         stablehlo.convolution({{.*}}) dim_numbers = [b, 0, 1, f]x[o, 0, 1, i]->[b, 0, 1, f], {{.*}} -> tensor<1x2x2x2x!quant.uniform<i32:f32:3, {{.*}}>>
func.func @conv_ohwi(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = stablehlo.constant dense<[[[[1.0, 0.5]]], [[[-0.2, 0.1]]]]> : tensor<2x1x1x2xf32>
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[o, 0, 1, i]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}
