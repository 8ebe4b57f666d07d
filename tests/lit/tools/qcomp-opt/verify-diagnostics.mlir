// RUN: qcomp-opt %s -split-input-file -verify-diagnostics

// Every way of placing an expectation: next line, same line, lines above and
// below, @above and @below (the nearest line, blank or not, that is not itself a
// designator).

func.func @next_line(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  // expected-error @+1 {{type of return operand 0 ('tensor<2xf32>') doesn't match function result type ('tensor<2xi8>') in function @next_line}}
  return %arg0 : tensor<2xf32>
}

// -----

func.func @same_line(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  return %arg0 : tensor<2xf32> // expected-error {{doesn't match function result type ('tensor<2xi8>')}}
}

// -----

func.func @line_above(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  return %arg0 : tensor<2xf32>

  // expected-error @-2 {{doesn't match function result type}}
}

// -----

func.func @above(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  return %arg0 : tensor<2xf32>
  // expected-error @above {{doesn't match}}
}

// -----

func.func @below(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  // expected-error @below {{function result type ('tensor<2xi8>')}}
  return %arg0 : tensor<2xf32>
}

// -----

// Parse errors point at the offending token.
func.func @undefined(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{use of undeclared SSA value name}}
  %0 = stablehlo.add %arg0, %nothing : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// Literal errors point at the element.
func.func @literal() -> tensor<2xi8> {
  // expected-error @+1 {{integer constant out of range for type}}
  %0 = stablehlo.constant dense<[1, 300]> : tensor<2xi8>
  return %0 : tensor<2xi8>
}

// -----

// -re: the parts in {{...}} are regular expressions.
func.func @regex(%arg0: tensor<2xf32>) -> tensor<2xi8> {
  // expected-error-re @+1 {{type of return operand 0 ('tensor<2x{{f(16|32)}}>') doesn't match function result type ('tensor<{{[0-9]+}}xi8>')}}
  return %arg0 : tensor<2xf32>
}

// -----

// A chunk without errors is fine too.
func.func @clean(%arg0: tensor<2xf32>) -> tensor<2xf32> {
  return %arg0 : tensor<2xf32>
}
