// RUN: qcomp-opt %s --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --split-input-file --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: not qcomp-run %s --split-input-file 2>&1 | FileCheck %s --check-prefix=EXEC
// interpreter.probe records a value per run; check.expect_serialized_eq compares with the
// record of iteration `iter` (upstream's interpret/probe.mlir).

// CHECK-LABEL: func.func @probe_loop
// CHECK: %{{.*}} = interpreter.probe %{{.*}}, probe_id = "sum" : tensor<i64>
// GENERIC: "interpreter.probe"(%{{.*}}) <{probe_id = "sum"}> : (tensor<i64>) -> tensor<i64>
func.func @probe_loop() {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %three = stablehlo.constant dense<3> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %s = %zero) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %three : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %t = stablehlo.add %s, %i : tensor<i64>
    %p = interpreter.probe %t, probe_id = "sum" : tensor<i64>
    %j = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %j, %p : tensor<i64>, tensor<i64>
  }
  %c0 = stablehlo.constant dense<0> : tensor<i64>
  %c1 = stablehlo.constant dense<1> : tensor<i64>
  %c3 = stablehlo.constant dense<3> : tensor<i64>
  check.expect_serialized_eq %c0, probe_id = "sum" : tensor<i64>
  check.expect_serialized_eq %c1, probe_id = "sum", iter = 1 : tensor<i64>
  check.expect_serialized_eq %c3, probe_id = "sum", iter = 2 : tensor<i64>
  check.expect_eq_const %r#1, dense<3> : tensor<i64>
  func.return
}

// -----

// EXEC: probe.mlir:[[# @LINE + 5]]:3: error: Failed to find serialized data for probe other.
// EXEC: 4 passed, 1 failed
func.func @missing_record() {
  %x = stablehlo.constant dense<1> : tensor<i64>
  %p = interpreter.probe %x, probe_id = "p" : tensor<i64>
  check.expect_serialized_eq %x, probe_id = "other" : tensor<i64>
  func.return
}
