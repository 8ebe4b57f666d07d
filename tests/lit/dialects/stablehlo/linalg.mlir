// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --mlir-print-op-generic | qcomp-opt | FileCheck %s
// Complex, linear-algebra, transform, normalization and random ops; reverse; complex literals with hex parts.
// CHECK lines are upstream MLIR's printing (jaxlib) of this file.

// CHECK-LABEL: func.func @linalg_ops
func.func @linalg_ops(%a: tensor<3x3xf32>, %b: tensor<3x2xf32>, %x: tensor<4xf32>, %c: tensor<4xcomplex<f32>>, %st: tensor<2xui64>, %s: tensor<3xi64>, %i: tensor<2x3x4xf32>, %sc: tensor<3xf32>, %d: tensor<2x4xf64>) -> tensor<3x3xf32> {
  // CHECK: {{.*}} = stablehlo.cholesky %arg0, lower = true : tensor<3x3xf32>
  %0 = stablehlo.cholesky %a, lower = true : tensor<3x3xf32>
  // CHECK: {{.*}} = stablehlo.cholesky %arg0 : tensor<3x3xf32>
  %1 = "stablehlo.cholesky"(%a) {lower = false} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  // CHECK: {{.*}} = "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %2 = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  // CHECK: {{.*}} = stablehlo.fft %arg2, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  %3 = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
  // CHECK: {{.*}} = stablehlo.fft %arg3, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %4 = stablehlo.fft %c, type = IFFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  // CHECK: {{.*}} = stablehlo.reverse %arg0, dims = [0, 1] : tensor<3x3xf32>
  %5 = stablehlo.reverse %a, dims = [0, 1] : tensor<3x3xf32>
  // CHECK: {{.*}} = stablehlo.rng_bit_generator %arg4, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  %6:2 = stablehlo.rng_bit_generator %st, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)
  // CHECK: {{.*}} = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  // CHECK: {{.*}} = stablehlo.rng %cst, %cst, %arg5, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  %7 = stablehlo.rng %z, %z, %s, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<2x3x4xf32>
  // CHECK: {{.*}} = "stablehlo.batch_norm_training"(%arg6, %arg7, %arg7) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %8:3 = "stablehlo.batch_norm_training"(%i, %sc, %sc) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: {{.*}} = "stablehlo.batch_norm_grad"(%arg6, %arg7, %arg7, %arg7, %arg6) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  %9:3 = "stablehlo.batch_norm_grad"(%i, %sc, %sc, %sc, %i) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: {{.*}} = stablehlo.complex %arg2, %arg2 : tensor<4xcomplex<f32>>
  %10 = stablehlo.complex %x, %x : tensor<4xcomplex<f32>>
  // CHECK: {{.*}} = stablehlo.complex %arg8, %arg8 : tensor<2x4xcomplex<f64>>
  %11 = stablehlo.complex %d, %d : tensor<2x4xcomplex<f64>>
  // CHECK: {{.*}} = stablehlo.real %arg3 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %12 = stablehlo.real %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  // CHECK: {{.*}} = stablehlo.imag %arg3 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %13 = stablehlo.imag %c : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  // CHECK: {{.*}} = stablehlo.is_finite %arg2 : (tensor<4xf32>) -> tensor<4xi1>
  %14 = stablehlo.is_finite %x : (tensor<4xf32>) -> tensor<4xi1>
  // CHECK: {{.*}} = stablehlo.real %arg2 : tensor<4xf32>
  %15 = stablehlo.real %x : tensor<4xf32>
  // CHECK: {{.*}} = stablehlo.reverse %arg0, dims = [] : tensor<3x3xf32>
  %16 = stablehlo.reverse %a, dims = [] : tensor<3x3xf32>
  // CHECK: {{.*}} = stablehlo.constant dense<[(1.000000e+00,0x7FC00000), (-0.000000e+00,2.500000e+00)]> : tensor<2xcomplex<f32>>
  %17 = stablehlo.constant dense<[(1.0, 0x7FC00000), (0x80000000, 2.5)]> : tensor<2xcomplex<f32>>
  return %0 : tensor<3x3xf32>
}
