// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=fixed-point' --split-input-file --verify-numerics | FileCheck %s
// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=stablehlo' --split-input-file | FileCheck %s --check-prefix=UPSTREAM

// rescale=fixed-point folds as it emits (qcomp.passes.utils.folding), every fold exact:
// - a constant of one value is one splat constant of the shape it is used at;
// - a clamp whose bounds hold every value its operand can have is left out (the i32
//   clamp of an i32 accumulator converted to i64; the int8 activation clamp to
//   [-128, 127] of an int8 value);
// - convert(convert(y: iN -> iM) -> iN) is y when iM holds y's values;
// - (y + c1) + c2 of integer constants is y + (c1 + c2), the sum wrapped to the type
//   (and x + 0, 0 + x, x - 0 are x);
// - a constant is made once in a block (the second rescale of @clamps_kept uses the
//   first one's constants).
// rescale=stablehlo emits upstream's ops one for one, unfolded.

// A dot_general with its bias, requantized to int8 and clamped to int8's range (as a
// TFLite FULLY_CONNECTED with no activation imports): the zero-point term
// -z_l * sum_k w[k, j] = -3 * [9, 12] and the bias [5, -7] are one constant add,
// [-22, -43]; the i32 accumulator is not clamped to the i32 range nor converted back
// to i32; the requantize's constants (M = 2^30, shift -2) are splats of the result's
// shape; the clamp to [-128, 127] after the convert to i8 is left out.

// CHECK-LABEL: func.func @bias(%arg0: tensor<2x3xi8>) -> tensor<2x2xi8>
// CHECK:         %[[ACC:.*]] = stablehlo.dot_general %arg0, %{{.*}} -> tensor<2x2xi32>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.constant dense<[-22, -43]> : tensor<2xi32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.broadcast_in_dim %[[C]], dims = [1] : (tensor<2xi32>) -> tensor<2x2xi32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add %[[ACC]], %[[B]] : tensor<2x2xi32>
// CHECK-NEXT:    %[[V:.*]] = stablehlo.convert %[[S]] : (tensor<2x2xi32>) -> tensor<2x2xi64>
// CHECK-NEXT:    %[[M:.*]] = stablehlo.constant dense<1073741824> : tensor<2x2xi64>
// CHECK-NEXT:    stablehlo.multiply %[[V]], %[[M]] : tensor<2x2xi64>
// CHECK-NOT:     stablehlo.broadcast_in_dim
// CHECK:         stablehlo.constant dense<-128> : tensor<i64>
// CHECK-NEXT:    stablehlo.constant dense<127> : tensor<i64>
// CHECK-NEXT:    %[[CL:.*]] = stablehlo.clamp
// CHECK-NEXT:    %[[R:.*]] = stablehlo.convert %[[CL]] : (tensor<2x2xi64>) -> tensor<2x2xi8>
// CHECK-NEXT:    return %[[R]] : tensor<2x2xi8>

// UPSTREAM-LABEL: func.func @bias
// UPSTREAM:         stablehlo.constant dense<0> : tensor<i32>
// UPSTREAM-NEXT:    stablehlo.broadcast_in_dim %{{.*}}, dims = [] : (tensor<i32>) -> tensor<2x2xi32>
// UPSTREAM:         stablehlo.constant dense<[5, -7]> : tensor<2xi32>
// UPSTREAM:         stablehlo.clamp {{.*}} : (tensor<f32>, tensor<2x2xf32>, tensor<f32>) -> tensor<2x2xf32>

func.func @bias(%x: tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:-1>> {
  %w = stablehlo.constant() <{value = dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>}> : () -> tensor<3x2x!quant.uniform<i8:f32, 0.25>>
  %acc = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>, tensor<3x2x!quant.uniform<i8:f32, 0.25>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.125>>
  %b = stablehlo.constant() <{value = dense<[5, -7]> : tensor<2xi32>}> : () -> tensor<2x!quant.uniform<i32:f32, 0.125>>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<2x!quant.uniform<i32:f32, 0.125>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.125>>
  %s = stablehlo.add %acc, %bb : tensor<2x2x!quant.uniform<i32:f32, 0.125>>
  %q = stablehlo.uniform_quantize %s : (tensor<2x2x!quant.uniform<i32:f32, 0.125>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:-1>>
  %lo = stablehlo.constant() <{value = dense<-128> : tensor<i8>}> : () -> tensor<!quant.uniform<i8:f32, 1.0:-1>>
  %hi = stablehlo.constant() <{value = dense<127> : tensor<i8>}> : () -> tensor<!quant.uniform<i8:f32, 1.0:-1>>
  %r = stablehlo.clamp %lo, %q, %hi : (tensor<!quant.uniform<i8:f32, 1.0:-1>>, tensor<2x2x!quant.uniform<i8:f32, 1.0:-1>>, tensor<!quant.uniform<i8:f32, 1.0:-1>>) -> tensor<2x2x!quant.uniform<i8:f32, 1.0:-1>>
  return %r : tensor<2x2x!quant.uniform<i8:f32, 1.0:-1>>
}

// -----

// Where the bounds do not hold the operand's values the clamps stay: an i32 -> i32
// requantize clamps its i64 MBQM result to the i32 range (then the convert to i32 and
// back to i64 for the next rescale is left out: the clamp bounds the value), and a
// clamp to [-100, 127] of an int8 value is kept.

// CHECK-LABEL: func.func @clamps_kept(%arg0: tensor<4xi32>) -> tensor<4xi8>
// CHECK:         stablehlo.constant dense<-2147483648> : tensor<i64>
// CHECK-NEXT:    stablehlo.constant dense<2147483647> : tensor<i64>
// CHECK-NEXT:    %[[W:.*]] = stablehlo.clamp %{{.*}} : (tensor<i64>, tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
// CHECK-NEXT:    stablehlo.multiply %[[W]], %{{.*}} : tensor<4xi64>
// CHECK:         stablehlo.shift_right_arithmetic
// CHECK:         stablehlo.constant dense<-128> : tensor<i64>
// CHECK-NEXT:    stablehlo.constant dense<127> : tensor<i64>
// CHECK-NEXT:    stablehlo.clamp
// CHECK-NEXT:    %[[Q:.*]] = stablehlo.convert %{{.*}} : (tensor<4xi64>) -> tensor<4xi8>
// CHECK-NEXT:    stablehlo.constant dense<-100> : tensor<i8>
// CHECK-NEXT:    stablehlo.constant dense<127> : tensor<i8>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.clamp %{{.*}}, %[[Q]], %{{.*}} : (tensor<i8>, tensor<4xi8>, tensor<i8>) -> tensor<4xi8>
// CHECK-NEXT:    return %[[R]] : tensor<4xi8>

func.func @clamps_kept(%x: tensor<4x!quant.uniform<i32:f32, 0.125>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:-1>> {
  %r = stablehlo.uniform_quantize %x : (tensor<4x!quant.uniform<i32:f32, 0.125>>) -> tensor<4x!quant.uniform<i32:f32, 0.25>>
  %q = stablehlo.uniform_quantize %r : (tensor<4x!quant.uniform<i32:f32, 0.25>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:-1>>
  %lo = stablehlo.constant() <{value = dense<-100> : tensor<i8>}> : () -> tensor<!quant.uniform<i8:f32, 1.0:-1>>
  %hi = stablehlo.constant() <{value = dense<127> : tensor<i8>}> : () -> tensor<!quant.uniform<i8:f32, 1.0:-1>>
  %c = stablehlo.clamp %lo, %q, %hi : (tensor<!quant.uniform<i8:f32, 1.0:-1>>, tensor<4x!quant.uniform<i8:f32, 1.0:-1>>, tensor<!quant.uniform<i8:f32, 1.0:-1>>) -> tensor<4x!quant.uniform<i8:f32, 1.0:-1>>
  return %c : tensor<4x!quant.uniform<i8:f32, 1.0:-1>>
}
