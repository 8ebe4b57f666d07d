// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// String literals as MLIR lexes them, with its messages and positions. A string left
// open on a long line is a diagnostic at the line's end in linear time (xDSL's own
// pattern backtracks through every split of the line: this one would never finish).

// expected-error@+1 {{expected '"' in string literal}}
func.func @open() attributes {note = "the quick brown fox jumps over the lazy dog, again and again} {
  return
}

// -----

// expected-error@+1 {{unknown escape in string literal}}
func.func @escape() attributes {note = "tab\q"} {
  return
}

// -----

func.func @escapes() attributes {note = "tab\t quote\" hex\41 backslash\\ newline\n"} {
  return
}
