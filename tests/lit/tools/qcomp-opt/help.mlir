// RUN: qcomp-opt --help | FileCheck %s
// RUN: qcomp-opt -help | FileCheck %s

// The options mlir-opt users expect, and every registered pass with its summary.

// CHECK: usage: qcomp-opt
// CHECK-DAG: --split-input-file
// CHECK-DAG: --verify-diagnostics
// CHECK-DAG: --print-op-generic
// CHECK-DAG: --allow-unregistered-dialect
// CHECK-DAG: --print-ir-after-all
// CHECK-DAG: --timing
// CHECK-DAG: --no-verify-each
// CHECK: registered passes
// CHECK: --stablehlo-legalize-quantized-op-to-qdq {{ +}}Decompose quantized ops
