// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Scales outside the narrow expressed type's range, in MLIR's words at MLIR's column
// (just after the scale); types MLIR aborts on; sub-channel types qcomp does not take.

// expected-error@+1 {{scale 1.000000e+01 out of expressed type range [5.000000e-01, 6.000000e+00]}}
func.func private @f4(tensor<4x!quant.uniform<i8:f4E2M1FN, 10.0>>)

// -----

// expected-error@+1 {{scale 1.000000e-09 out of expressed type range [1.525879e-05, 5.734400e+04]}}
func.func private @f8(tensor<4x!quant.uniform<i8:f8E5M2:0, {1.0, 1.0e-9}>>)

// -----

// expected-error@+1 {{scale 1.000000e-45 out of expressed type range [1.147944e-41, 3.401162e+38]}}
func.func private @tf32(tensor<4x!quant.uniform<i8:tf32, 1.0e-45>>)

// -----

// expected-error@+1 {{unsupported expressed type f80 (MLIR aborts on it)}}
func.func private @f80(tensor<4x!quant.uniform<i8:f80, 1.0>>)

// -----

// expected-error@+1 {{sub-channel quantization with expressed type f8E5M2 is not supported by qcomp}}
func.func private @sub(tensor<4x!quant.uniform<i8:f8E5M2:{0:2}, {{1.0}, {2.0}}>>)

