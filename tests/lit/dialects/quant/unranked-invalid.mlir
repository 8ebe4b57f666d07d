// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Unranked tensors in the quant ops: what MLIR 24 rejects, in its words (this file also
// passes `tosa-opt --split-input-file --verify-diagnostics` once a tosa op loads the
// quant dialect). MLIR writes the quant verifiers' own messages without the
// `'quant.qcast' op ` prefix (emitError), the ODS ones with it.

func.func @sub_channel_unranked(%arg0: tensor<*xf32>) {
  // expected-error@+1 {{tensor containing the sub-channel quantized type must be ranked}}
  %0 = quant.qcast %arg0 : tensor<*xf32> to tensor<*x!quant.uniform<i8:f32:{0:1, 1:2}, {{1.0, 2.0}}>>
  return
}

// -----

func.func @sub_channel_unranked_scast(%arg0: tensor<*x!quant.uniform<i8:f32:{0:1}, {1.0}>>) {
  // expected-error@+1 {{tensor containing the sub-channel quantized type must be ranked}}
  %0 = quant.scast %arg0 : tensor<*x!quant.uniform<i8:f32:{0:1}, {1.0}>> to tensor<*xi8>
  return
}

// -----

func.func @ranked_to_unranked(%arg0: tensor<4xf32>) {
  // expected-error@+1 {{'quant.qcast' op failed to verify that input and result are both scalars or both tensors with matching shape}}
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<*x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @unranked_to_ranked(%arg0: tensor<*x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error@+1 {{'quant.dcast' op failed to verify that input and result are both scalars or both tensors with matching shape}}
  %0 = quant.dcast %arg0 : tensor<*x!quant.uniform<i8:f32, 1.0>> to tensor<4xf32>
  return
}

// -----

// `?` matches only `?`
func.func @dynamic_to_static(%arg0: tensor<?xf32>) {
  // expected-error@+1 {{'quant.qcast' op failed to verify that input and result are both scalars or both tensors with matching shape}}
  %0 = quant.qcast %arg0 : tensor<?xf32> to tensor<4x!quant.uniform<i8:f32, 1.0>>
  return
}

// -----

func.func @unranked_expressed_mismatch(%arg0: tensor<*x!quant.uniform<i8:f32:0, {1.0}>>) {
  // expected-error@+1 {{expressed type in quantized type expected to match float type}}
  %0 = quant.dcast %arg0 : tensor<*x!quant.uniform<i8:f32:0, {1.0}>> to tensor<*xf64>
  return
}

// -----

func.func @unranked_storage_mismatch(%arg0: tensor<*x!quant.uniform<i8:f32, 1.0>>) {
  // expected-error@+1 {{storage type in quantized type expected to match integer type}}
  %0 = quant.scast %arg0 : tensor<*x!quant.uniform<i8:f32, 1.0>> to tensor<*xi16>
  return
}

// -----

func.func @scalar_per_axis(%arg0: f32) {
  // expected-error@+1 {{scalar types may not use per-axis quantization}}
  %0 = quant.qcast %arg0 : f32 to !quant.uniform<i8:f32:0, {1.0}>
  return
}

// -----

func.func @scalar_sub_channel(%arg0: !quant.uniform<i8:f32:{0:1}, {1.0}>) {
  // expected-error@+1 {{scalar types may not use sub-channel quantization}}
  %0 = quant.scast %arg0 : !quant.uniform<i8:f32:{0:1}, {1.0}> to i8
  return
}
