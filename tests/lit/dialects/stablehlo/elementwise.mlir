// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s
// Elementwise ops: one type when operand and result types agree, the functional type otherwise (upstream's SameOperandsAndResultType).
// CHECK lines are upstream stablehlo-opt's printing of this file.

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4xf32>, %i: tensor<4xi32>, %d: tensor<?x4xf32>) {
  // CHECK: = stablehlo.abs %arg0 : tensor<4xf32>
  %abs = stablehlo.abs %x : tensor<4xf32>
  // CHECK: = stablehlo.cbrt %arg0 : tensor<4xf32>
  %cbrt = stablehlo.cbrt %x : tensor<4xf32>
  // CHECK: = stablehlo.ceil %arg0 : tensor<4xf32>
  %ceil = stablehlo.ceil %x : tensor<4xf32>
  // CHECK: = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
  %conv = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi32>
  // CHECK: = stablehlo.cosine %arg0 : tensor<4xf32>
  %cos = stablehlo.cosine %x : tensor<4xf32>
  // CHECK: = stablehlo.exponential %arg0 : tensor<4xf32>
  %exp = stablehlo.exponential %x : tensor<4xf32>
  // CHECK: = stablehlo.exponential_minus_one %arg0 : tensor<4xf32>
  %expm1 = stablehlo.exponential_minus_one %x : tensor<4xf32>
  // CHECK: = stablehlo.floor %arg0 : tensor<4xf32>
  %floor = stablehlo.floor %x : tensor<4xf32>
  // CHECK: = stablehlo.log %arg0 : tensor<4xf32>
  %log = stablehlo.log %x : tensor<4xf32>
  // CHECK: = stablehlo.log_plus_one %arg0 : tensor<4xf32>
  %log1p = stablehlo.log_plus_one %x : tensor<4xf32>
  // CHECK: = stablehlo.logistic %arg0 : tensor<4xf32>
  %logistic = stablehlo.logistic %x : tensor<4xf32>
  // CHECK: = stablehlo.not %arg1 : tensor<4xi32>
  %not = stablehlo.not %i : tensor<4xi32>
  // CHECK: = stablehlo.negate %arg0 : tensor<4xf32>
  %neg = stablehlo.negate %x : tensor<4xf32>
  // CHECK: = stablehlo.popcnt %arg1 : tensor<4xi32>
  %pop = stablehlo.popcnt %i : tensor<4xi32>
  // CHECK: = stablehlo.count_leading_zeros %arg1 : tensor<4xi32>
  %clz = stablehlo.count_leading_zeros %i : tensor<4xi32>
  // CHECK: = stablehlo.round_nearest_afz %arg0 : tensor<4xf32>
  %afz = stablehlo.round_nearest_afz %x : tensor<4xf32>
  // CHECK: = stablehlo.round_nearest_even %arg0 : tensor<4xf32>
  %even = stablehlo.round_nearest_even %x : tensor<4xf32>
  // CHECK: = stablehlo.rsqrt %arg0 : tensor<4xf32>
  %rsqrt = stablehlo.rsqrt %x : tensor<4xf32>
  // CHECK: = stablehlo.sign %arg0 : tensor<4xf32>
  %sign = stablehlo.sign %x : tensor<4xf32>
  // CHECK: = stablehlo.sine %arg0 : tensor<4xf32>
  %sin = stablehlo.sine %x : tensor<4xf32>
  // CHECK: = stablehlo.sqrt %arg0 : tensor<4xf32>
  %sqrt = stablehlo.sqrt %x : tensor<4xf32>
  // CHECK: = stablehlo.tan %arg0 : tensor<4xf32>
  %tan = stablehlo.tan %x : tensor<4xf32>
  // CHECK: = stablehlo.tanh %arg0 : tensor<4xf32>
  %tanh = stablehlo.tanh %x : tensor<4xf32>
  // CHECK: = stablehlo.negate %arg2 : tensor<?x4xf32>
  %dyn = stablehlo.negate %d : tensor<?x4xf32>
  // CHECK: = stablehlo.exponential %arg0 {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
  %acc = stablehlo.exponential %x {result_accuracy = #stablehlo.result_accuracy<atol = 1.000000e-05, ulps = 2, mode = #stablehlo.result_accuracy_mode<TOLERANCE>>} : tensor<4xf32>
  // CHECK: = stablehlo.exponential %arg0 : tensor<4xf32>
  %dflt = stablehlo.exponential %x {result_accuracy = #stablehlo.result_accuracy<mode = #stablehlo.result_accuracy_mode<DEFAULT>>} : tensor<4xf32>
  // CHECK: = stablehlo.reduce_precision %arg0, format = e5m10 : tensor<4xf32>
  %rp = stablehlo.reduce_precision %x, format = e5m10 : tensor<4xf32>
  // CHECK: = stablehlo.negate %arg0 {some.tag = 1 : i32} : tensor<4xf32>
  %attr = stablehlo.negate %x {some.tag = 1 : i32} : tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi32>, %d: tensor<?xf32>, %p: tensor<4xi1>, %s: tensor<f32>) {
  // CHECK: = stablehlo.add %arg0, %arg1 : tensor<4xf32>
  %add = stablehlo.add %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.atan2 %arg0, %arg1 : tensor<4xf32>
  %atan2 = stablehlo.atan2 %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.divide %arg0, %arg1 : tensor<4xf32>
  %div = stablehlo.divide %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.maximum %arg0, %arg1 : tensor<4xf32>
  %max = stablehlo.maximum %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.minimum %arg0, %arg1 : tensor<4xf32>
  %min = stablehlo.minimum %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.multiply %arg0, %arg1 : tensor<4xf32>
  %mul = stablehlo.multiply %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.power %arg0, %arg1 : tensor<4xf32>
  %pow = stablehlo.power %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.remainder %arg0, %arg1 : tensor<4xf32>
  %rem = stablehlo.remainder %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.shift_left %arg2, %arg2 : tensor<4xi32>
  %shl = stablehlo.shift_left %i, %i : tensor<4xi32>
  // CHECK: = stablehlo.shift_right_arithmetic %arg2, %arg2 : tensor<4xi32>
  %sra = stablehlo.shift_right_arithmetic %i, %i : tensor<4xi32>
  // CHECK: = stablehlo.shift_right_logical %arg2, %arg2 : tensor<4xi32>
  %srl = stablehlo.shift_right_logical %i, %i : tensor<4xi32>
  // CHECK: = stablehlo.subtract %arg0, %arg1 : tensor<4xf32>
  %sub = stablehlo.subtract %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.and %arg2, %arg2 : tensor<4xi32>
  %and = stablehlo.and %i, %i : tensor<4xi32>
  // CHECK: = stablehlo.or %arg2, %arg2 : tensor<4xi32>
  %or = stablehlo.or %i, %i : tensor<4xi32>
  // CHECK: = stablehlo.xor %arg2, %arg2 : tensor<4xi32>
  %xor = stablehlo.xor %i, %i : tensor<4xi32>
  // CHECK: = stablehlo.add %arg3, %arg0 : (tensor<?xf32>, tensor<4xf32>) -> tensor<4xf32>
  %mixed = stablehlo.add %d, %x : (tensor<?xf32>, tensor<4xf32>) -> tensor<4xf32>
  // CHECK: = stablehlo.clamp %arg5, %arg0, %arg5 : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %clamp = stablehlo.clamp %s, %x, %s : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: = stablehlo.clamp %arg0, %arg0, %arg1 : tensor<4xf32>
  %clamp2 = stablehlo.clamp %x, %x, %y : tensor<4xf32>
  // CHECK: = stablehlo.select %arg4, %arg0, %arg1 : tensor<4xi1>, tensor<4xf32>
  %sel = stablehlo.select %p, %x, %y : tensor<4xi1>, tensor<4xf32>
  // CHECK: = stablehlo.select %arg4, %arg0, %arg3 : (tensor<4xi1>, tensor<4xf32>, tensor<?xf32>) -> tensor<4xf32>
  %sel2 = stablehlo.select %p, %x, %d : (tensor<4xi1>, tensor<4xf32>, tensor<?xf32>) -> tensor<4xf32>
  // CHECK: = stablehlo.compare GT, %arg0, %arg1, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %gt = stablehlo.compare GT, %x, %y, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  // CHECK: = stablehlo.compare EQ, %arg2, %arg2 : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %eq = stablehlo.compare EQ, %i, %i : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return
}
