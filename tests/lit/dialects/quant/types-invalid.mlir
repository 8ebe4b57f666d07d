// RUN: qcomp-opt %s --split-input-file --verify-diagnostics

// Diagnostics of the quant types, in upstream MLIR's words (checked with tosa-opt,
// LLVM 24) except where a comment says otherwise. Each bad type sits in an op.

func.func @scale_zero(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{scale 0.000000e+00 out of expressed type range [1.401298e-45, 3.402823e+38]}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.0>>
  return
}

// -----

func.func @scale_negative(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{scale -1.000000e+00 out of expressed type range [1.401298e-45, 3.402823e+38]}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, -1.0:3>>
  return
}

// -----

func.func @scale_infinite(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{scale INF out of expressed type range [1.401298e-45, 3.402823e+38]}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0x7FF0000000000000>>
  return
}

// -----

// qcomp rejects a NaN scale; upstream MLIR accepts it (its range test is false for NaN)
func.func @scale_nan(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{scale nan out of expressed type range [1.401298e-45, 3.402823e+38]}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0x7FF8000000000000>>
  return
}

// -----

func.func @scale_above_f32(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{scale 1.000000e+39 out of expressed type range [1.401298e-45, 3.402823e+38]}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1.0e39>>
  return
}

// -----

func.func @scale_below_f32(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{scale 1.000000e-46 out of expressed type range [1.401298e-45, 3.402823e+38]}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1.0e-46>>
  return
}

// -----

func.func @scale_above_f16(%arg0: tensor<4xf16>) {
  // expected-error@+1 {{scale 7.000000e+04 out of expressed type range [5.960464e-08, 6.550400e+04]}}
  %0 = quant.qcast %arg0 : tensor<4xf16> to tensor<4x!quant.uniform<i8:f16, 70000.0>>
  return
}

// -----

// hex scales are f64 bit patterns whatever the expressed type
func.func @scale_hex_is_f64_bits(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{scale 4.985032e-315 out of expressed type range [1.401298e-45, 3.402823e+38]}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0x3C23D70A>>
  return
}

// -----

func.func @per_axis_scale(%arg0: tensor<2xf32>) {
  // expected-error@+1 {{scale 0.000000e+00 out of expressed type range [1.401298e-45, 3.402823e+38]}}
  %0 = quant.qcast %arg0 : tensor<2xf32> to tensor<2x!quant.uniform<i8:f32:0, {1.0, 0.0}>>
  return
}

// -----

func.func @sub_channel_scale_f16(%arg0: tensor<4xf16>) {
  // expected-error@+1 {{scale 1.000000e+06 out of expressed type range [5.960464e-08, 6.550400e+04]}}
  %0 = quant.qcast %arg0 : tensor<4xf16> to tensor<4x!quant.uniform<i8:f16:{0:2}, {1.0, 1.0e6}>>
  return
}

// -----

func.func @storage_min(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type minimum: -129}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8<-129:127>:f32, 1.0>>
  return
}

// -----

func.func @storage_max(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type maximum: 128}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8<-128:128>:f32, 1.0>>
  return
}

// -----

func.func @storage_max_u4(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type maximum: 16}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<u4<1:16>:f32, 1.0>>
  return
}

// -----

func.func @storage_min_u8(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type minimum: -1}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<u8<-1:15>:f32, 1.0>>
  return
}

// -----

func.func @storage_range_empty(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage min and storage max: (5:3)}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8<5:3>:f32, 1.0>>
  return
}

// -----

func.func @storage_range_single(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage min and storage max: (3:3)}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8<3:3>:f32, 1.0>>
  return
}

// -----

func.func @storage_width_0(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type size: 0}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i0:f32, 1.0>>
  return
}

// -----

func.func @storage_width_33(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type size: 33}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i33:f32, 1.0>>
  return
}

// -----

func.func @storage_width_u64(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type size: 64}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<u64:f32, 1.0>>
  return
}

// -----

func.func @storage_prefix(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type prefix}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<f8:f32, 1.0>>
  return
}

// -----

func.func @expressed_integer(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{invalid kind of type specified}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:i32, 1.0>>
  return
}

// -----

func.func @per_axis_negative_axis(%arg0: tensor<2xf32>) {
  // expected-error@+1 {{illegal quantized dimension: -1}}
  %0 = quant.qcast %arg0 : tensor<2xf32> to tensor<2x!quant.uniform<i8:f32:-1, {1.0, 2.0}>>
  return
}

// -----

func.func @per_axis_empty(%arg0: tensor<2xf32>) {
  // expected-error@+1 {{expected floating point literal}}
  %0 = quant.qcast %arg0 : tensor<2xf32> to tensor<2x!quant.uniform<i8:f32:0, {}>>
  return
}

// -----

func.func @per_axis_count(%arg0: tensor<2x3xf32>) {
  // expected-error@+1 {{quantized dimension size does not match number of scales}}
  %0 = quant.qcast %arg0 : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 2.0}>>
  return
}

// -----

func.func @per_axis_axis_out_of_range(%arg0: tensor<2x3xf32>) {
  // expected-error@+1 {{quantized dimension must be less than tensor rank}}
  %0 = quant.qcast %arg0 : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32:2, {1.0, 2.0}>>
  return
}

// -----

func.func @per_axis_scalar(%arg0: tensor<f32>) {
  // expected-error@+1 {{quantized dimension must be less than tensor rank}}
  %0 = quant.qcast %arg0 : tensor<f32> to tensor<!quant.uniform<i8:f32:0, {1.0, 2.0}>>
  return
}

// -----

func.func @block_not_dividing(%arg0: tensor<4x6xf32>) {
  // expected-error@+1 {{tensor dimension size 6 at axis 1 must be divisible by the corresponding block size 4}}
  %0 = quant.qcast %arg0 : tensor<4x6xf32> to tensor<4x6x!quant.uniform<i8:f32:{1:4}, {{1.0, 2.0}}>>
  return
}

// -----

// qcomp says `dimension size 3 ...`; upstream prints the expected count (2) in both places
func.func @block_count(%arg0: tensor<4x6xf32>) {
  // expected-error@+1 {{of scales tensor at axis 1 should match (tensor dimension at axis / block sizes at axis) = 2}}
  %0 = quant.qcast %arg0 : tensor<4x6xf32> to tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0, 2.0, 3.0}, {3.0, 4.0, 5.0}}>>
  return
}

// -----

func.func @block_axis_out_of_range(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{quantized dimension 1 must be less than tensor rank 1}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32:{1:2}, {{1.0, 2.0}}>>
  return
}

// -----

func.func @block_scales_rank(%arg0: tensor<4x6xf32>) {
  // expected-error@+1 {{Rank of scales 1 must match the rank of the tensor 2}}
  %0 = quant.qcast %arg0 : tensor<4x6xf32> to tensor<4x6x!quant.uniform<i8:f32:{1:3}, {1.0, 2.0}>>
  return
}

// -----

func.func @block_nesting(%arg0: tensor<4x6xf32>) {
  // expected-error@+1 {{tensor literal is invalid; ranks are not consistent between elements}}
  %0 = quant.qcast %arg0 : tensor<4x6xf32> to tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0, 2.0}, {3.0}}>>
  return
}

// -----

func.func @block_nesting_depth(%arg0: tensor<4x6xf32>) {
  // expected-error@+1 {{tensor literal is invalid; ranks are not consistent between elements}}
  %0 = quant.qcast %arg0 : tensor<4x6xf32> to tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0, 2.0}, 3.0}>>
  return
}

// -----

func.func @block_size_zero(%arg0: tensor<4x6xf32>) {
  // expected-error@+1 {{illegal block size: 0}}
  %0 = quant.qcast %arg0 : tensor<4x6xf32> to tensor<4x6x!quant.uniform<i8:f32:{0:0}, {1.0, 2.0}>>
  return
}

// -----

func.func @block_negative_axis(%arg0: tensor<4x6xf32>) {
  // expected-error@+1 {{illegal quantized dimension: -1}}
  %0 = quant.qcast %arg0 : tensor<4x6xf32> to tensor<4x6x!quant.uniform<i8:f32:{-1:2}, {1.0, 2.0}>>
  return
}

// -----

func.func @calibrated_range(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal min and max: (1.000000e+00:-1.000000e+00)}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.calibrated<f32<1.0:-1.0>>>
  return
}

// -----

// a scale needs a '.', as every MLIR float literal (upstream adds the note: add a trailing dot to make the literal a float)
func.func @scale_integer_literal(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{unexpected decimal integer literal for a floating point value}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 1:2>>
  return
}

// -----

func.func @scale_exponent_without_point(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{unexpected decimal integer literal for a floating point value}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 5e-3>>
  return
}

// -----

func.func @scale_overflowing_literal(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{scale INF out of expressed type range [4.940656e-324, 1.797693e+308]}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f64, 1.8e+308>>
  return
}

// -----

func.func @scale_negative_hex(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{hexadecimal float literal should not have a leading minus}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, -0x3F800000>>
  return
}

// -----

func.func @qcast_result_not_quantized(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{result #0 must be scalar or tensor of quantized type, but got 'tensor<4xi8>'}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4xi8>
  return
}

// -----

func.func @qcast_input_not_float(%arg0: tensor<4xi8>) {
  // expected-error@+1 {{operand #0 must be scalar or tensor of floating-point, but got 'tensor<4xi8>'}}
  %0 = quant.qcast %arg0 : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @qcast_expressed_type(%arg0: tensor<4xf16>) {
  // expected-error@+1 {{expressed type in quantized type expected to match float type}}
  %0 = quant.qcast %arg0 : tensor<4xf16> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @qcast_shape(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{failed to verify that input and result are both scalars or both tensors with matching shape}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<5x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @qcast_scalar_to_tensor(%arg0: f32) {
  // expected-error@+1 {{failed to verify that input and result are both scalars or both tensors with matching shape}}
  %0 = quant.qcast %arg0 : f32 to tensor<4x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @dcast_input_not_quantized(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{operand #0 must be scalar or tensor of quantized type, but got 'tensor<4xf32>'}}
  %0 = quant.dcast %arg0 : tensor<4xf32> to tensor<4xf32>
  return
}

// -----

func.func @dcast_expressed_type(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error@+1 {{expressed type in quantized type expected to match float type}}
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<4xf16>
  return
}

// -----

func.func @dcast_shape(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error@+1 {{failed to verify that input and result are both scalars or both tensors with matching shape}}
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<5xf32>
  return
}

// -----

func.func @dcast_per_axis_count(%arg0: tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 2.0}>>) {
  // expected-error@+1 {{quantized dimension size does not match number of scales}}
  %0 = quant.dcast %arg0 : tensor<2x3x!quant.uniform<i8:f32:1, {1.0, 2.0}>> to tensor<2x3xf32>
  return
}

// -----

func.func @scast_both_integer(%arg0: tensor<4xi8>) {
  // expected-error@+1 {{failed to verify that input must be integer and result must be quantized, or vice versa}}
  %0 = quant.scast %arg0 : tensor<4xi8> to tensor<4xi8>
  return
}

// -----

func.func @scast_both_quantized(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error@+1 {{failed to verify that input must be integer and result must be quantized, or vice versa}}
  %0 = quant.scast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @scast_storage_width(%arg0: tensor<4xi16>) {
  // expected-error@+1 {{storage type in quantized type expected to match integer type}}
  %0 = quant.scast %arg0 : tensor<4xi16> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @scast_float(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error@+1 {{result #0 must be scalar or tensor of signless integer or quantized type, but got 'tensor<4xf32>'}}
  %0 = quant.scast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<4xf32>
  return
}

// -----

func.func @scast_shape(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error@+1 {{failed to verify that input and result are both scalars or both tensors with matching shape}}
  %0 = quant.scast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0>> to tensor<5xi8>
  return
}

// -----

func.func @scast_per_axis_rank(%arg0: tensor<2xi8>) {
  // expected-error@+1 {{quantized dimension must be less than tensor rank}}
  %0 = quant.scast %arg0 : tensor<2xi8> to tensor<2x!quant.uniform<i8:f32:1, {1.0, 2.0}>>
  return
}

// -----

func.func @ui8_zero_point_range(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type minimum: -1}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<ui8<-1:255>:f32, 1.0>>
  return
}

// -----

func.func @si8_range(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type maximum: 128}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<si8<-128:128>:f32, 1.0>>
  return
}

// -----

func.func @ui_width(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{illegal storage type size: 33}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<ui33:f32, 1.0>>
  return
}

// -----

// MLIR's QuantizedType::verifyInvariants holds for !quant.any too
// expected-error@+1 {{illegal storage min and storage max: (2:1)}}
func.func private @any_range(tensor<4x!quant.any<i8<2:1>:f32>>)

// -----

// expected-error@+1 {{illegal storage min and storage max: (-8:-8)}}
func.func private @any_empty(tensor<4x!quant.any<i8<-8:-8>>>)

// -----

// MLIR's QuantDialect::parseType words for a name it does not have
// expected-error@+1 {{unknown quantized type foobar}}
func.func private @unknown(tensor<4x!quant.foobar<i8:f32>>)
