// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Custom-syntax errors; messages are upstream stablehlo-opt's.

func.func @constant_not_elements(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.constant' invalid kind of attribute specified}}
  stablehlo.constant 1 : i32
  return
}

// -----

func.func @add_operand_count(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.add' 2 operands present, but expected 1}}
  %0 = stablehlo.add %a, %a : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @add_two_results(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.add' expected single output}}
  %0 = stablehlo.add %a, %a : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @compare_direction(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.compare' expected ::mlir::stablehlo::ComparisonDirection to be one of: EQ, NE, GE, GT, LE, LT}}
  %0 = stablehlo.compare XX, %a, %a : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return
}

// -----

func.func @conv_missing_feature(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.convolution' Expected dimensions f not specified}}
  %0 = stablehlo.convolution(%a, %a) dim_numbers = [b, 0]x[0, i, o]->[b, 0, f], window = {} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @conv_window_keyword(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.convolution' Unexpected keyword foo}}
  %0 = stablehlo.convolution(%a, %a) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {foo = [1]} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @conv_pad_pair(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.convolution' Expected array with 2 elements, got 3 elements instead}}
  %0 = stablehlo.convolution(%m, %m) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {pad = [[1, 2, 3]]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x1x2xf32>
  return
}

// -----

func.func @reduce_not_commutative(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.reduce' expected the inner-op to be a commutative binary-op from the stablehlo dialect, with zero region, producing single result}}
  %0 = stablehlo.reduce(%a init: %s) applies stablehlo.subtract across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

func.func @reduce_precision_format(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.reduce_precision' expected exponent mantissa in format e#m#, saw e5}}
  %0 = stablehlo.reduce_precision %a, format = e5 : tensor<2xf32>
  return
}

// -----

func.func @dot_general_precision(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.dot_general' expected ::mlir::stablehlo::Precision to be one of: DEFAULT, HIGH, HIGHEST}}
  %0 = stablehlo.dot_general %a, %a, contracting_dims = [0] x [0], precision = [FAST, DEFAULT] : (tensor<2xf32>, tensor<2xf32>) -> tensor<f32>
  return
}

// -----

func.func @custom_call_target(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.custom_call' expected valid '@'-identifier for symbol name}}
  %0 = stablehlo.custom_call "x"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @barrier_type_count(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.optimization_barrier' number of operands and types do not match: got 1 operands and 2 types}}
  %0 = stablehlo.optimization_barrier %a : tensor<2xf32>, tensor<2xf32>
  return
}

// -----

func.func @select_type_count(%a: tensor<2xf32>, %s: tensor<f32>, %m: tensor<2x2x2xf32>, %i: tensor<2xi32>, %p: tensor<2xi1>) {
  // expected-error@+1 {{custom op 'stablehlo.select' number of operands and types do not match: got 2 operands and 3 types}}
  %0 = stablehlo.select %p, %a : tensor<2xi1>, tensor<2xf32>
  return
}
