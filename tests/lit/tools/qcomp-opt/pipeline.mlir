// RUN: qcomp-opt %s --stablehlo-legalize-quantized-op-to-qdq | FileCheck %s
// RUN: qcomp-opt %s -stablehlo-legalize-quantized-op-to-qdq | FileCheck %s
// RUN: qcomp-opt %s -pass-pipeline='builtin.module(func.func(stablehlo-legalize-quantized-op-to-qdq))' | FileCheck %s
// RUN: qcomp-opt %s -p stablehlo-legalize-quantized-op-to-qdq | FileCheck %s
// RUN: not qcomp-opt %s -pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: qcomp-opt %s --stablehlo-legalize-quantized-op-to-qdq --print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: qcomp-opt %s --timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING

// The pass can be named as a flag (MLIR's one or two dashes), in a pipeline with
// MLIR's op nesting, or with -p.

// CHECK-LABEL: func.func @add
// CHECK: stablehlo.uniform_dequantize
// CHECK: stablehlo.add {{.*}} : tensor<2xf32>
// CHECK: stablehlo.uniform_quantize

// UNKNOWN: qcomp-opt: error: 'no-such-pass' does not refer to a registered pass or pass pipeline

// DUMP: // -----// IR Dump After {{.*}} (stablehlo-legalize-quantized-op-to-qdq) //----- //
// DUMP-NEXT: module {

// TIMING: ... Execution time report ...
// TIMING: Parser
// TIMING: Total
func.func @add(%arg0: tensor<2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-3>> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2x!quant.uniform<i8:f32, 0.5:-3>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 0.5:-3>>
}
