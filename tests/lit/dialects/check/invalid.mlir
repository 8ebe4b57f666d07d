// RUN: qcomp-opt %s --split-input-file --verify-diagnostics

func.func @eq_const_type(%a: tensor<2xi8>) {
  // expected-error@+1 {{failed to verify that all of {lhs, value} have same type}}
  "check.expect_eq_const"(%a) <{value = dense<[1, 2]> : tensor<2xi16>}> : (tensor<2xi8>) -> ()
  return
}

// -----

func.func @eq_const_shape(%a: tensor<2xi8>) {
  // expected-error@+1 {{failed to verify that all of {lhs, value} have same type}}
  "check.expect_eq_const"(%a) <{value = dense<1> : tensor<3xi8>}> : (tensor<2xi8>) -> ()
  return
}

// -----

func.func @eq_operand_types(%a: tensor<2xi8>, %b: tensor<2xi16>) {
  // expected-error@+1 {{requires all operands to have the same type}}
  "check.expect_eq"(%a, %b) : (tensor<2xi8>, tensor<2xi16>) -> ()
  return
}

// -----

func.func @almost_eq_integer(%a: tensor<2xi32>) {
  // expected-error@+1 {{operand #0 must be tensor of floating-point or complex-type values, but got 'tensor<2xi32>'}}
  check.expect_almost_eq_const %a, dense<[1, 2]> : tensor<2xi32>
  return
}

// -----

func.func @almost_eq_types(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error@+1 {{requires all operands to have the same type}}
  "check.expect_almost_eq"(%a, %b) : (tensor<2xf32>, tensor<2xf16>) -> ()
  return
}

// -----

func.func @almost_eq_tolerance_type(%a: tensor<2xf32>) {
  // expected-error@+1 {{attribute 'tolerance' failed to satisfy constraint: 64-bit float attribute}}
  "check.expect_almost_eq_const"(%a) <{tolerance = 1.0 : f32, value = dense<1.0> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  return
}

// -----

func.func @close_types(%a: tensor<2xf32>, %b: tensor<2xf16>) {
  // expected-error@+1 {{failed to verify that all of {actual, expected} have same type}}
  check.expect_close %a, %b, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf16>
  return
}

// -----

func.func @close_integer(%a: tensor<2xi32>) {
  // expected-error@+1 {{operand #0 must be tensor of floating-point or complex-type values, but got 'tensor<2xi32>'}}
  check.expect_close %a, %a, max_ulp_difference = 3 : tensor<2xi32>, tensor<2xi32>
  return
}

// -----

func.func @close_negative(%a: tensor<2xf32>) {
  // expected-error@+1 {{integer constant out of range for attribute}}
  check.expect_close %a, %a, max_ulp_difference = -1 : tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @serialized_probe_id(%a: tensor<2xi32>) {
  // expected-error@+1 {{expected string literal}}
  check.expect_serialized_eq %a, probe_id = probe0 : tensor<2xi32>
  return
}
