// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// chlo broadcasting ops: messages are upstream stablehlo-opt's. Like upstream, operands
// that cannot be broadcast are accepted (nothing is inferred); see the last case.

func.func @result_shape(%a: tensor<2xf32>, %m: tensor<2x2x2xf32>) {
  // expected-error@+1 {{inferred type(s) 'tensor<2x2x2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  %0 = chlo.broadcast_add %a, %m : (tensor<2xf32>, tensor<2x2x2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @element_types(%a: tensor<2xf32>, %i: tensor<2xi32>) {
  // expected-error@+1 {{requires compatible element types for all operands and results}}
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
