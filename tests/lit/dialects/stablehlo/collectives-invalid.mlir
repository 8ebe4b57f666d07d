// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Verifiers of the collective ops; messages are upstream's (checked with jaxlib's MLIR).

func.func @all_gather_groups(%x: tensor<2x2xi64>) {
  // expected-error@+1 {{replica id #1 seen more than once}}
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  return
}

// -----

func.func @all_gather_missing_id(%x: tensor<2x2xi64>) {
  // expected-error@+1 {{replica id #1 not seen in replica groups}}
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 2]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  return
}

// -----

func.func @all_gather_dim(%x: tensor<2x2xi64>) {
  // expected-error@+1 {{all_gather_dim must be a valid index of operand}}
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x4xi64>
  return
}

// -----

func.func @all_gather_multiple(%x: tensor<2x2xi64>) {
  // expected-error@+1 {{result gather dimension has size 5, expected to be a multiple of operand gather dimension size 2}}
  %0 = "stablehlo.all_gather"(%x) {all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2x2xi64>) -> tensor<2x5xi64>
  return
}

// -----

func.func @all_reduce_global_ids(%x: tensor<4xf32>) {
  // expected-error@+1 {{channel_id must be positive when useGlobalDeviceIds is set but got: 0}}
  %0 = "stablehlo.all_reduce"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @all_to_all_split(%x: tensor<3x4xf32>) {
  // expected-error@+1 {{split dimension has size 3, expected to be a multiple of split_count 2}}
  %0 = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<3x4xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @all_to_all_group_size(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{group size of replica_groups must be 2}}
  %0 = "stablehlo.all_to_all"(%x) {split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<4x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @collective_permute_duplicate(%x: tensor<2xf32>) {
  // expected-error@+1 {{duplicate sources not allowed.}}
  %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1], [0, 2]]> : tensor<2x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @collective_permute_shape(%x: tensor<2xf32>) {
  // expected-error@+1 {{expect source_target_pairs attribute of shape (N, 2), but got (1, 3)}}
  %0 = "stablehlo.collective_permute"(%x) {source_target_pairs = dense<[[0, 1, 2]]> : tensor<1x3xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @collective_broadcast_negative(%x: tensor<2xf32>) {
  // expected-error@+1 {{replica_groups values must be positive, but was given -1}}
  %0 = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[0, -1]]> : tensor<1x2xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_scatter_multiple(%x: tensor<5xf32>) {
  // expected-error@+1 {{operand scatter dimension has size 5, expected to be a multiple of result scatter dimension size 2}}
  %0 = "stablehlo.reduce_scatter"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<5xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @replica_id_type() {
  // expected-error@+1 {{result #0 must be ranked tensor of 32-bit unsigned integer values, but got 'tensor<i32>'}}
  %0 = stablehlo.replica_id : tensor<i32>
  return
}
