// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// MLIR's limits on builtin types, with its messages: integer widths up to 2^24 - 1 bits
// (a width past 32 bits of digits is not a width at all), dimensions up to 2^63 - 1.

// expected-error@+1 {{integer bitwidth is limited to 16777215 bits}}
func.func @width(%a: i16777216) {
  return
}

// -----

// expected-error@+1 {{invalid integer width}}
func.func @width_digits(%a: ui4294967296) {
  return
}

// -----

// expected-error@+1 {{invalid dimension}}
func.func @dimension(%a: tensor<9223372036854775808xf32>) {
  return
}

// -----

func.func @at_the_limits(%a: i16777215, %b: tensor<9223372036854775807xf32>) {
  return
}

// -----

// A non-splat literal past 4 GiB is refused where it is written, not with a MemoryError
// at the next line (its text alone would be gigabytes: qcomp stores it element by element).
func.func @huge_list() {
  // expected-error@+1 {{dense literal of 10000000000 elements is larger than qcomp holds (4 GiB): only a splat is held as one element}}
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<100000x100000xf32>
  return
}

// -----

// A list far shorter than its type is a shape mismatch, found without writing out the
// type's 10^9 elements.
func.func @short_list() {
  // expected-error@+1 {{inferred shape of elements literal ([1, 2]) does not match type ([536870912, 2])}}
  %0 = stablehlo.constant dense<[[0, 1]]> : tensor<536870912x2xi32>
  return
}

// -----

// A splat of any size is one element, as in MLIR (tests/lit/ir/splat.mlir prints them).
func.func @huge_splat() {
  %0 = stablehlo.constant dense<1.0> : tensor<100000x100000xf32>
  %1 = stablehlo.constant dense<1.0> : tensor<9223372036854775807x4xf32>
  return
}
