// RUN: qcomp-opt %s --lower-quant-ops --split-input-file --verify-diagnostics

// Sub-channel parameters are expanded block by block into a constant of the
// tensor's shape, which needs that shape to be static: with a dynamic dimension the
// pass stops with an error at the cast.

func.func @sub_channel_dynamic(%arg0: tensor<?x4xf32>) -> tensor<?x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}}>> {
  // expected-error @+1 {{lower-quant-ops: sub-channel quantization needs a static shape}}
  %0 = quant.qcast %arg0 : tensor<?x4xf32> to tensor<?x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}}>>
  return %0 : tensor<?x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}}>>
}

// -----

func.func @sub_channel_dynamic_dcast(%arg0: tensor<2x?x!quant.uniform<i8:f32:{0:1}, {{0.5}, {0.25}}>>) -> tensor<2x?xf32> {
  // expected-error @+1 {{lower-quant-ops: sub-channel quantization needs a static shape}}
  %0 = quant.dcast %arg0 : tensor<2x?x!quant.uniform<i8:f32:{0:1}, {{0.5}, {0.25}}>> to tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}

// -----

// StableHLO has 2, 4, 8, 16, 32 and 64-bit integers only; a 3-bit storage tensor
// has no StableHLO type to hold its integers.

func.func @odd_storage_width(%arg0: tensor<4xf32>) -> tensor<4x!quant.uniform<u3:f32, 0.5>> {
  // expected-error @+1 {{lower-quant-ops: 3-bit storage has no StableHLO integer type (2, 4, 8, 16, 32 or 64 bits)}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<u3:f32, 0.5>>
  return %0 : tensor<4x!quant.uniform<u3:f32, 0.5>>
}

// -----

// q - zero_point is computed in i64 at most: a zero point so far from the storage
// range that the difference can leave i64 is refused.

func.func @zero_point_past_i64(%arg0: tensor<4x!quant.uniform<i8:f32, 1.0:9223372036854775807>>) -> tensor<4xf32> {
  // expected-error @+1 {{lower-quant-ops: zero point 9223372036854775807 is too far from the storage range [-128, 127] for 64-bit arithmetic}}
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<i8:f32, 1.0:9223372036854775807>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @odd_storage_width_unranked(%arg0: tensor<*xf32>) -> tensor<*x!quant.uniform<i3:f32, 0.5>> {
  // expected-error @+1 {{lower-quant-ops: 3-bit storage has no StableHLO integer type (2, 4, 8, 16, 32 or 64 bits)}}
  %0 = quant.qcast %arg0 : tensor<*xf32> to tensor<*x!quant.uniform<i3:f32, 0.5>>
  return %0 : tensor<*x!quant.uniform<i3:f32, 0.5>>
}
