// RUN: qcomp-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: qcomp-opt %s -mlir-print-op-generic | qcomp-opt | FileCheck %s

// GENERIC:      "builtin.module"() ({
// GENERIC:        "func.func"() <{{{.*}}sym_name = "f"{{.*}}}> ({
// GENERIC-NEXT:   ^bb0(%arg0: tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>):
// GENERIC-NEXT:     %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>, tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>) -> tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// GENERIC-NEXT:     "func.return"(%0)

// CHECK-LABEL: func.func @f
// CHECK-NEXT:    %0 = stablehlo.add %arg0, %arg0 : tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-3>>
// CHECK-NEXT:    return %0
func.func @f(%arg0: tensor<2x!quant.uniform<i8:f32, 0.5:-3>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:-3>> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<2x!quant.uniform<i8:f32, 0.5:-3>>
  return %0 : tensor<2x!quant.uniform<i8:f32, 0.5:-3>>
}
