// RUN: qcomp-run %s --input=2x3xf32=1,2,3,4,5,6 | FileCheck %s
// RUN: not qcomp-run %s --input=2x4xf32=1 2>&1 | FileCheck %s --check-prefix=MISFIT

// An argument of a dynamic type takes any array that fits it; results print the sizes
// the run produced; the dynamic ops read their shape operands at run time.

// CHECK: @main result[0]: 2x3xf32=[[2 4 6][8 10 12]]
// CHECK: @main result[1]: i32=2
// CHECK: @main result[2]: 2x3xf32=[[1 1 1][1 1 1]]
// MISFIT: error: @main argument 0 (%x): expected ?x3xf32, got 2x4xf32 from --input=2x4xf32=1
func.func @main(%x: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<i32>, tensor<?x3xf32>) {
  %n = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
  %y = stablehlo.add %x, %x : tensor<?x3xf32>
  %n64 = stablehlo.convert %n : (tensor<i32>) -> tensor<i64>
  %r = stablehlo.reshape %n64 : (tensor<i64>) -> tensor<1xi64>
  %c3 = stablehlo.constant dense<3> : tensor<1xi64>
  %shape = stablehlo.concatenate %r, %c3, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %b = stablehlo.dynamic_broadcast_in_dim %one, %shape, dims = [] : (tensor<f32>, tensor<2xi64>) -> tensor<?x3xf32>
  return %y, %n, %b : tensor<?x3xf32>, tensor<i32>, tensor<?x3xf32>
}
