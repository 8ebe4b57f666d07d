// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Splat attributes of a billion elements are held as one element (qcomp.ir.splat); the
// verifiers read them as the billion values they stand for, with upstream's messages
// (a 2x2 splat gives the same ones), in little time and memory.

func.func @padding(%x: tensor<1x4x4x1xf32>, %w: tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32> {
  // expected-error@+1 {{expects padding-entries to have same dimension-size as size of window dimensions (2), but got: 1000000000.}}
  %0 = "stablehlo.convolution"(%x, %w) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, padding = dense<0> : tensor<1000000000x2xi64>} : (tensor<1x4x4x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x3x3x1xf32>
  return %0 : tensor<1x3x3x1xf32>
}

// -----

func.func @reduce_window_padding(%x: tensor<4x4xf32>, %z: tensor<f32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{expects padding-entries to have same dimension-size as size of window dimensions (2), but got: 1000000000.}}
  %rw = "stablehlo.reduce_window"(%x, %z) <{padding = dense<0> : tensor<1000000000x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) : (tensor<4x4xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %rw : tensor<2x3xf32>
}

// -----

func.func @replica_groups(%x: tensor<2x2xi64>) -> tensor<2x4xi64> {
  // expected-error@+1 {{replica id #3 seen more than once}}
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<3> : tensor<100000x100000xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

func.func @source_target_pairs(%x: tensor<2x2xi64>) -> tensor<2x2xi64> {
  // expected-error@+1 {{duplicate sources not allowed.}}
  %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<0> : tensor<1000000000x2xi64>} : (tensor<2x2xi64>) -> tensor<2x2xi64>
  return %0 : tensor<2x2xi64>
}

// -----

func.func @shape_operand(%x: tensor<4xf32>) -> tensor<?x?xf32> {
  %s = stablehlo.constant dense<2> : tensor<1000000000xi64>
  // expected-error@+1 {{output shape [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, ... (1000000000 values)] is incompatible with return type of operation 'tensor<?x?xf32>'}}
  %0 = stablehlo.dynamic_broadcast_in_dim %x, %s, dims = [1] : (tensor<4xf32>, tensor<1000000000xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
