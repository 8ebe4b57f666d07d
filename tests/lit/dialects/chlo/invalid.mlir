// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// chlo ops: messages are upstream's (jaxlib 0.10.2's MLIR). Like upstream, operands
// that cannot be broadcast are accepted (nothing is inferred); see the last case.

func.func @result_shape(%a: tensor<2xf32>, %m: tensor<2x2x2xf32>) {
  // expected-error@+1 {{inferred type(s) 'tensor<2x2x2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  %0 = chlo.broadcast_add %a, %m : (tensor<2xf32>, tensor<2x2x2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @element_types(%a: tensor<2xf32>, %i: tensor<2xi32>) {
  // expected-error@+1 {{requires the same element type for all operands and results}}
  %0 = chlo.broadcast_multiply %a, %i : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @broadcast_dimensions_shape(%a: tensor<4xf32>, %m: tensor<4x8xf32>) {
  // expected-error@+1 {{inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<8x8xf32>'}}
  %0 = chlo.broadcast_subtract %m, %a {broadcast_dimensions = array<i64: 0>} : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<8x8xf32>
  return
}

// -----

// No diagnostic: sizes 2 and 3 do not broadcast, upstream infers nothing.
func.func @unbroadcastable_accepted(%a: tensor<2xf32>, %t: tensor<3xf32>) {
  %0 = chlo.broadcast_add %a, %t : (tensor<2xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @case0(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{requires compatible element types for all operands and results}}
  %0 = chlo.broadcast_add %a, %i : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xf32>
  return
}

// -----

func.func @case1(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{'chlo.erf' op operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi32>'}}
  %0 = chlo.erf %i : tensor<2xi32> -> tensor<2xi32>
  return
}

// -----

func.func @case2(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{operand #0 must be tensor of 4/6/8/16/32/64-bit float or complex type with 32/64-bit float elements values, but got 'tensor<2xi32>'}}
  %0 = chlo.acos %i : tensor<2xi32> -> tensor<2xi32>
  return
}

// -----

func.func @case3(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{'chlo.acos' op requires compatible types for all operands and results}}
  %0 = chlo.acos %a : tensor<2xf32> -> tensor<2xf64>
  return
}

// -----

func.func @case4(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{result #0 must be tensor of bool values, but got 'tensor<2xf32>'}}
  %0 = chlo.is_inf %a : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @case5(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{all non-scalar operands/results must have the same shape and base type}}
  %0 = chlo.is_neg_inf %a : tensor<2xf32> -> tensor<3xi1>
  return
}

// -----

func.func @case6(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{operand #1 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi32>'}}
  %0 = chlo.next_after %a, %i : tensor<2xf32>, tensor<2xi32> -> tensor<2xf32>
  return
}

// -----

func.func @case7(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{'chlo.zeta' op requires compatible types for all operands and results}}
  %0 = chlo.zeta %a, %a : tensor<2xf32>, tensor<2xf32> -> tensor<3xf32>
  return
}

// -----

func.func @case8(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{inferred type(s) 'tensor<2x2xf32>', 'tensor<2x2xi32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>', 'tensor<2x2xi32>'}}
  %0:2 = chlo.top_k(%m, k = 2) : tensor<2x2xf32> -> (tensor<2x3xf32>, tensor<2x2xi32>)
  return
}

// -----

func.func @case9(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{value's type doesn't match element return type}}
  %0 = "chlo.constant_like"(%a) <{value = 1 : i32}> : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case10(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{result #0 must be tensor of bool values, but got 'tensor<2xf32>'}}
  %0 = chlo.broadcast_compare %a, %a {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case11(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{mismatched operand types}}
  %0 = chlo.broadcast_compare %a, %i {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2xf32>, tensor<2xi32>) -> tensor<2xi1>
  return
}

// -----

func.func @case12(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{operand #0 must be tensor of bool or 2/4/8/16/32/64-bit integer values, but got 'tensor<2xf32>'}}
  %0 = chlo.broadcast_and %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case13(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of bool values, but got 'tensor<2xf32>'}}
  %0 = chlo.broadcast_select %a, %a, %a : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case14(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{inferred type(s) 'tensor<2x2xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  %0 = chlo.broadcast_select %p, %a, %m : (tensor<2xi1>, tensor<2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @case15(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{inferred type(s) 'tensor<2x2xcomplex<f32>>' are incompatible with return type(s) of operation 'tensor<2x2xcomplex<f64>>'}}
  %0 = chlo.broadcast_complex %a, %m : (tensor<2xf32>, tensor<2x2xf32>) -> tensor<2x2xcomplex<f64>>
  return
}

// -----

func.func @case16(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{operand #0 must be tensor of 4/6/8/16/32/64-bit float values, but got 'tensor<2xi32>'}}
  %0 = chlo.broadcast_zeta %i, %i : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return
}

// -----

func.func @case17(%a: tensor<2xf32>, %i: tensor<2xi32>, %m: tensor<2x2xf32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{requires the same element type for all operands and results}}
  %0 = chlo.broadcast_atan2 %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf64>
  return
}
