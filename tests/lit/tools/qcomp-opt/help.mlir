// RUN: qcomp-opt --help | FileCheck %s
// RUN: qcomp-opt -help | FileCheck %s
// RUN: qcomp-opt --list-passes | FileCheck %s --check-prefix=LIST
// RUN: qcomp-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: not qcomp-opt %s --stablehlo-legalize-quant-to-mth 2>&1 | FileCheck %s --check-prefix=TYPO

// The options mlir-opt users expect, and every registered pass with its whole summary,
// its aliases and its options (type, allowed values, default).

// CHECK: usage: qcomp-opt
// CHECK-DAG: --split-input-file
// CHECK-DAG: --verify-diagnostics
// CHECK-DAG: --print-op-generic
// CHECK-DAG: --allow-unregistered-dialect
// CHECK-DAG: --print-ir-after-all
// CHECK-DAG: --timing
// CHECK-DAG: --no-verify-each
// CHECK-DAG: --list-passes
// CHECK-DAG: --version
// CHECK: passes (run with
// CHECK:      --stablehlo-legalize-quant-to-math
// CHECK-NEXT:     Lower quantized StableHLO to integer and float StableHLO math (no `!quant` left).
// CHECK-NEXT:     alias: --stablehlo-legalize-quant-to-int
// CHECK-NEXT:     rescale: str (float|fixed-point|stablehlo), default float
// CHECK:      --stablehlo-legalize-quantized-op-to-qdq
// CHECK-NEXT:     Decompose quantized ops
// CHECK: pipelines
// CHECK:      --stablehlo-lower-quant

// LIST:      stablehlo-legalize-quant-to-int {{ +}}alias of stablehlo-legalize-quant-to-math
// LIST-NEXT: stablehlo-legalize-quant-to-math {{ +}}Lower quantized StableHLO to integer and float StableHLO math (no `!quant` left).

// VERSION: qcomp-opt (qcomp) {{[0-9]+\.[0-9]+}}

// TYPO: qcomp-opt: error: unknown pass or option '--stablehlo-legalize-quant-to-mth'; did you mean '--stablehlo-legalize-quant-to-math'? (qcomp-opt --help lists them)
