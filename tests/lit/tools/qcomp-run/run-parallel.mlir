// RUN: qcomp-run %s --split-input-file | FileCheck %s

// interpreter.run_parallel runs programs[replica][partition] as a process grid; the
// collectives meet across the processes. Expected values: the StableHLO spec's examples.

// CHECK-NOT: error
// CHECK: 6 passed, 0 failed

module @broadcast {
  func.func @f(%x: tensor<1x2xi64>) -> tensor<1x2xi64> {
    %r = "stablehlo.collective_broadcast"(%x) {replica_groups = dense<[[2, 1]]> : tensor<1x2xi64>} : (tensor<1x2xi64>) -> tensor<1x2xi64>
    return %r : tensor<1x2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[[1, 2]]> : tensor<1x2xi64>
    %b = stablehlo.constant dense<[[3, 4]]> : tensor<1x2xi64>
    %c = stablehlo.constant dense<[[5, 6]]> : tensor<1x2xi64>
    %d = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
    %r:4 = "interpreter.run_parallel"(%a, %b, %c, %d) {programs = [[@f], [@f], [@f], [@f]]} : (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>) -> (tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>, tensor<1x2xi64>)
    check.expect_eq_const %r#0, dense<[[0, 0]]> : tensor<1x2xi64>
    check.expect_eq_const %r#1, dense<[[5, 6]]> : tensor<1x2xi64>
    check.expect_eq_const %r#2, dense<[[5, 6]]> : tensor<1x2xi64>
    check.expect_eq_const %r#3, dense<[[0, 0]]> : tensor<1x2xi64>
    func.return
  }
}

// -----

module @partitions {
  func.func @f(%x: tensor<2xi64>) -> tensor<4xi64> {
    %r = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 0>, use_global_device_ids} : (tensor<2xi64>) -> tensor<4xi64>
    return %r : tensor<4xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %b = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    // one replica, two partitions: flattened ids 0 and 1 are (0, 0) and (0, 1)
    %r:2 = "interpreter.run_parallel"(%a, %b) {programs = [[@f, @f]]} : (tensor<2xi64>, tensor<2xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %r#0, dense<[1, 2, 3, 4]> : tensor<4xi64>
    check.expect_eq_const %r#1, dense<[1, 2, 3, 4]> : tensor<4xi64>
    func.return
  }
}
