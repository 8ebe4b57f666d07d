// RUN: qcomp-opt %s --stablehlo-quant-legalize-to-tosa-rescale --split-input-file | FileCheck %s

// stablehlo-quant-legalize-to-tosa-rescale: a per-tensor quantized elementwise op
// becomes
//   tosa.rescale (each operand -> i32, zero point removed)
//   the op on i32
//   tosa.rescale (i32 -> the quantized result, result zero point added)
// Every rescale is scale32 = true, SINGLE_ROUND, per_channel = false; its
// (multiplier M, shift) = multiplier_and_shift(scale), i.e. scale ~= M * 2^-shift with
// M in [2^30, 2^31). The operands are `tosa.const` tensors: M tensor<1xi32>, shift
// tensor<1xi8>, zero points in the storage type of the value they apply to.
// S (extra input precision) is 20 for 8-bit results; for 16-bit, 15 (add, subtract)
// or 14 (maximum, minimum, compare).

// add (upstream's own example, same numbers): s_l = 0.025, s_r = 0.075, s_res = 0.15,
// m = 2 max(s_l, s_r) = 0.15
//   lhs    s_l/m * 2^20 = 174762.67  -> M = 1431655765, shift 13 (0.6667 * 2^18)
//   rhs    s_r/m * 2^20 = 2^19       -> M = 1073741824, shift 11
//   result m/(s_res 2^20) = 2^-20    -> M = 1073741824, shift 50
// CHECK-LABEL: func.func @add
// CHECK-NEXT:    %[[M0:.*]] = "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}> : () -> tensor<1xi32>
// CHECK-NEXT:    %[[S0:.*]] = "tosa.const"() <{values = dense<13> : tensor<1xi8>}> : () -> tensor<1xi8>
// CHECK-NEXT:    %[[IZ0:.*]] = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
// CHECK-NEXT:    %[[OZ0:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
// CHECK-NEXT:    %[[L:.*]] = tosa.rescale %arg0, %[[M0]], %[[S0]], %[[IZ0]], %[[OZ0]] {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<2x2x!quant.uniform<i8:f32, 2.500000e-02:-1>>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<2x2xi32>
// CHECK-NEXT:    %[[M1:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    %[[S1:.*]] = "tosa.const"() <{values = dense<11> : tensor<1xi8>}>
// CHECK-NEXT:    %[[IZ1:.*]] = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}>
// CHECK-NEXT:    %[[OZ1:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT:    %[[R:.*]] = tosa.rescale %arg1, %[[M1]], %[[S1]], %[[IZ1]], %[[OZ1]] {{.*}} -> tensor<2x2xi32>
// CHECK-NEXT:    %[[SUM:.*]] = stablehlo.add %[[L]], %[[R]] : tensor<2x2xi32>
// CHECK-NEXT:    %[[M2:.*]] = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    %[[S2:.*]] = "tosa.const"() <{values = dense<50> : tensor<1xi8>}>
// CHECK-NEXT:    %[[IZ2:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT:    %[[OZ2:.*]] = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}>
// CHECK-NEXT:    %[[OUT:.*]] = tosa.rescale %[[SUM]], %[[M2]], %[[S2]], %[[IZ2]], %[[OZ2]] {input_unsigned = false, output_unsigned = false, per_channel = false, rounding_mode = SINGLE_ROUND, scale32 = true} : (tensor<2x2xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<2x2x!quant.uniform<i8:f32, 1.500000e-01:-1>>
// CHECK-NEXT:    return %[[OUT]]
func.func @add(%arg0: tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, %arg1: tensor<2x2x!quant.uniform<i8:f32, 0.075:-1>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-1>> {
  %0 = stablehlo.add %arg0, %arg1 : (tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, tensor<2x2x!quant.uniform<i8:f32, 0.075:-1>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-1>>
  return %0 : tensor<2x2x!quant.uniform<i8:f32, 0.15:-1>>
}

// -----

// subtract: the add formulas; each zero point goes to its own rescale
// (lhs -1, rhs -2 as input_zp; result -3 as output_zp).
// CHECK-LABEL: func.func @subtract
// CHECK:         "tosa.const"() <{values = dense<13> : tensor<1xi8>}>
// CHECK-NEXT:    %[[IZ0:.*]] = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}>
// CHECK:         %[[L:.*]] = tosa.rescale %arg0, %{{.*}}, %{{.*}}, %[[IZ0]]
// CHECK:         "tosa.const"() <{values = dense<11> : tensor<1xi8>}>
// CHECK-NEXT:    %[[IZ1:.*]] = "tosa.const"() <{values = dense<-2> : tensor<1xi8>}>
// CHECK:         %[[R:.*]] = tosa.rescale %arg1, %{{.*}}, %{{.*}}, %[[IZ1]]
// CHECK-NEXT:    %[[D:.*]] = stablehlo.subtract %[[L]], %[[R]] : tensor<2x2xi32>
// CHECK:         "tosa.const"() <{values = dense<50> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT:    %[[OZ:.*]] = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}>
// CHECK-NEXT:    tosa.rescale %[[D]], %{{.*}}, %{{.*}}, %{{.*}}, %[[OZ]]
func.func @subtract(%arg0: tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, %arg1: tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>> {
  %0 = stablehlo.subtract %arg0, %arg1 : (tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>>
  return %0 : tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>>
}

// -----

// multiply: operands rescaled by 1.0 (M = 2^30, shift 30), the i32 product is in
// units of s_l s_r, so the result rescale is s_l s_r / s_res = 0.0125
// -> M = 1717986918, shift 37 (0.8 * 2^-6).
// CHECK-LABEL: func.func @multiply
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<30> : tensor<1xi8>}>
// CHECK:         %[[L:.*]] = tosa.rescale %arg0
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<30> : tensor<1xi8>}>
// CHECK:         %[[R:.*]] = tosa.rescale %arg1
// CHECK-NEXT:    %[[P:.*]] = stablehlo.multiply %[[L]], %[[R]] : tensor<2x2xi32>
// CHECK-NEXT:    "tosa.const"() <{values = dense<1717986918> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<37> : tensor<1xi8>}>
// CHECK:         tosa.rescale %[[P]]
func.func @multiply(%arg0: tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, %arg1: tensor<2x2x!quant.uniform<i8:f32, 0.075:-1>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-1>> {
  %0 = stablehlo.multiply %arg0, %arg1 : (tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, tensor<2x2x!quant.uniform<i8:f32, 0.075:-1>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-1>>
  return %0 : tensor<2x2x!quant.uniform<i8:f32, 0.15:-1>>
}

// -----

// abs: input 1.0, result s_in / s_res = 0.025 / 0.15 = 1/6 -> M = 1431655765, shift 33.
// CHECK-LABEL: func.func @abs
// CHECK:         %[[X:.*]] = tosa.rescale %arg0
// CHECK-NEXT:    %[[A:.*]] = stablehlo.abs %[[X]] : tensor<4xi32>
// CHECK-NEXT:    "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<33> : tensor<1xi8>}>
// CHECK:         %[[OUT:.*]] = tosa.rescale %[[A]]
// CHECK-NEXT:    return %[[OUT]]
func.func @abs(%arg0: tensor<4x!quant.uniform<i8:f32, 0.025:-1>>) -> tensor<4x!quant.uniform<i8:f32, 0.15:-3>> {
  %0 = stablehlo.abs %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.025:-1>>) -> tensor<4x!quant.uniform<i8:f32, 0.15:-3>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.15:-3>>
}

// -----

// A narrowed storage range (i8<-127:127>): tosa.rescale clamps to the full i8 range,
// and -127 * 0.5 + -127 * 0.5 = -127.0 is -254 steps of 0.5, rescaled to -128, so a
// tosa.clamp to [-127, 127] follows.
// CHECK-LABEL: func.func @add_narrow_range
// CHECK:         stablehlo.add
// CHECK:         %[[OUT:.*]] = tosa.rescale
// CHECK-NEXT:    %[[C:.*]] = tosa.clamp %[[OUT]] {max_val = 127 : i8, min_val = -127 : i8} : (tensor<4x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>) -> tensor<4x!quant.uniform<i8<-127:127>:f32, 5.000000e-01>>
// CHECK-NEXT:    return %[[C]]
func.func @add_narrow_range(%arg0: tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>>) -> tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>>
  return %0 : tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>>
}

// -----

// maximum / minimum: m = max(s_l, s_r) = 0.075
//   lhs    s_l/m * 2^20 = 2^20/3  -> M = 1431655765, shift 12
//   rhs    s_r/m * 2^20 = 2^20    -> M = 1073741824, shift 10
//   result m/(s_res 2^20) = 2^-21 -> M = 1073741824, shift 51
// CHECK-LABEL: func.func @maximum
// CHECK-NEXT:    "tosa.const"() <{values = dense<1431655765> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<12> : tensor<1xi8>}>
// CHECK:         %[[L:.*]] = tosa.rescale %arg0
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<10> : tensor<1xi8>}>
// CHECK:         %[[R:.*]] = tosa.rescale %arg1
// CHECK-NEXT:    %[[V:.*]] = stablehlo.maximum %[[L]], %[[R]] : tensor<2x2xi32>
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<51> : tensor<1xi8>}>
// CHECK:         tosa.rescale %[[V]]
func.func @maximum(%arg0: tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, %arg1: tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>> {
  %0 = stablehlo.maximum %arg0, %arg1 : (tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>>
  return %0 : tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>>
}

// -----

// CHECK-LABEL: func.func @minimum
// CHECK:         "tosa.const"() <{values = dense<12> : tensor<1xi8>}>
// CHECK:         "tosa.const"() <{values = dense<10> : tensor<1xi8>}>
// CHECK:         %[[V:.*]] = stablehlo.minimum %{{.*}}, %{{.*}} : tensor<2x2xi32>
// CHECK:         "tosa.const"() <{values = dense<51> : tensor<1xi8>}>
func.func @minimum(%arg0: tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, %arg1: tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>> {
  %0 = stablehlo.minimum %arg0, %arg1 : (tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>>
  return %0 : tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>>
}

// -----

// compare: operands rescaled as for maximum (S from the lhs storage width), compared
// as SIGNED i32; the i1 result needs no rescale.
// CHECK-LABEL: func.func @compare
// CHECK:         "tosa.const"() <{values = dense<12> : tensor<1xi8>}>
// CHECK:         %[[L:.*]] = tosa.rescale %arg0
// CHECK:         "tosa.const"() <{values = dense<10> : tensor<1xi8>}>
// CHECK:         %[[R:.*]] = tosa.rescale %arg1
// CHECK-NEXT:    %[[C:.*]] = stablehlo.compare GE, %[[L]], %[[R]], SIGNED : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
// CHECK-NEXT:    return %[[C]]
func.func @compare(%arg0: tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, %arg1: tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2xi1> {
  %0 = stablehlo.compare GE, %arg0, %arg1, FLOAT : (tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2xi1>
  return %0 : tensor<2x2xi1>
}

// -----

// 16-bit storage: S = 15. s_l = s_r = 0.5, s_res = 1.0: m = 1.0,
// inputs 0.5 * 2^15 = 2^14 -> M = 2^30, shift 16 (TOSA needs |x| < 2^15: the i16 range);
// result 1/(1.0 * 2^15) -> M = 2^30, shift 45. Zero points are i16 tensors.
// CHECK-LABEL: func.func @add_i16
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<16> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi16>}>
// CHECK:         "tosa.const"() <{values = dense<45> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi16>}>
// CHECK-NEXT:    tosa.rescale {{.*}} -> tensor<8x!quant.uniform<i16:f32, 1.000000e+00>>
func.func @add_i16(%arg0: tensor<8x!quant.uniform<i16:f32, 0.5>>) -> tensor<8x!quant.uniform<i16:f32, 1.0>> {
  %0 = stablehlo.add %arg0, %arg0 : (tensor<8x!quant.uniform<i16:f32, 0.5>>, tensor<8x!quant.uniform<i16:f32, 0.5>>) -> tensor<8x!quant.uniform<i16:f32, 1.0>>
  return %0 : tensor<8x!quant.uniform<i16:f32, 1.0>>
}

// -----

// 16-bit maximum/minimum/compare: S = 14. Upstream's S = 15 rescales the larger-scale
// operand by 2^15 (M = 2^30, shift 15), and TOSA requires |x| < 2^14 for shift 15,
// which half of the i16 range breaks. With 2^14: M = 2^30, shift 16, |x| < 2^15.
// s_l = s_r = 0.5, s_res = 1.0: result 0.5/(1.0 * 2^14) = 2^-15 -> M = 2^30, shift 45.
// CHECK-LABEL: func.func @maximum_i16
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<16> : tensor<1xi8>}>
// CHECK:         stablehlo.maximum
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<45> : tensor<1xi8>}>
func.func @maximum_i16(%arg0: tensor<8x!quant.uniform<i16:f32, 0.5>>) -> tensor<8x!quant.uniform<i16:f32, 1.0>> {
  %0 = stablehlo.maximum %arg0, %arg0 : (tensor<8x!quant.uniform<i16:f32, 0.5>>, tensor<8x!quant.uniform<i16:f32, 0.5>>) -> tensor<8x!quant.uniform<i16:f32, 1.0>>
  return %0 : tensor<8x!quant.uniform<i16:f32, 1.0>>
}

// -----

// Unsigned storage: TOSA 1.0 has no u8 -> i32 or i32 -> u8 rescale, so u8 goes
// through i16: u8 -> i16 by 1.0 with input_unsigned (zero point 128 as tensor<1xui8>),
// i16 -> i32 by the op's scale; back: i32 -> i16 by the result scale, then i16 -> u8 by
// 1.0 with output_unsigned adding the zero point. The i16 clamp cannot change the
// result: |x| >= 32767 lands outside [0, 255] either way.
// s_l = 0.5, s_r = 0.25: m = 1.0; lhs 0.5 * 2^20 -> shift 11, rhs 0.25 * 2^20 -> shift 12,
// result 1.0/(0.5 * 2^20) = 2^-19 -> shift 49.
// CHECK-LABEL: func.func @add_u8
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<30> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<128> : tensor<1xui8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi16>}>
// CHECK-NEXT:    %[[A16:.*]] = tosa.rescale %arg0, {{.*}} {input_unsigned = true, output_unsigned = false, {{.*}} -> tensor<2xi16>
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<11> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi16>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT:    %[[A32:.*]] = tosa.rescale %[[A16]], {{.*}} -> tensor<2xi32>
// CHECK:         %[[B16:.*]] = tosa.rescale %arg1, {{.*}} {input_unsigned = true, {{.*}} -> tensor<2xi16>
// CHECK:         "tosa.const"() <{values = dense<12> : tensor<1xi8>}>
// CHECK:         %[[B32:.*]] = tosa.rescale %[[B16]], {{.*}} -> tensor<2xi32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add %[[A32]], %[[B32]] : tensor<2xi32>
// CHECK:         "tosa.const"() <{values = dense<49> : tensor<1xi8>}>
// CHECK:         %[[S16:.*]] = tosa.rescale %[[S]], {{.*}} -> tensor<2xi16>
// CHECK:         "tosa.const"() <{values = dense<128> : tensor<1xui8>}>
// CHECK-NEXT:    %[[OUT:.*]] = tosa.rescale %[[S16]], {{.*}} {input_unsigned = false, output_unsigned = true, {{.*}} -> tensor<2x!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT:    return %[[OUT]]
func.func @add_u8(%arg0: tensor<2x!quant.uniform<u8:f32, 0.5:128>>, %arg1: tensor<2x!quant.uniform<u8:f32, 0.25:100>>) -> tensor<2x!quant.uniform<u8:f32, 0.5:128>> {
  %0 = stablehlo.add %arg0, %arg1 : (tensor<2x!quant.uniform<u8:f32, 0.5:128>>, tensor<2x!quant.uniform<u8:f32, 0.25:100>>) -> tensor<2x!quant.uniform<u8:f32, 0.5:128>>
  return %0 : tensor<2x!quant.uniform<u8:f32, 0.5:128>>
}

// -----

// Ops without quantized types, and quantized ops outside the list, are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %[[A:.*]] = stablehlo.add %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT:    %[[N:.*]] = stablehlo.negate %arg1 : tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>
// CHECK-NEXT:    return %[[A]], %[[N]]
func.func @untouched(%arg0: tensor<4xf32>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> (tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 0.5>>) {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  %1 = stablehlo.negate %arg1 : tensor<4x!quant.uniform<i8:f32, 0.5>>
  return %0, %1 : tensor<4xf32>, tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

// Dynamic dimensions are fine: tosa.rescale and the i32 op keep the shape.
// CHECK-LABEL: func.func @add_dynamic
// CHECK:         %[[L:.*]] = tosa.rescale %arg0, {{.*}} -> tensor<?x4xi32>
// CHECK:         %[[R:.*]] = tosa.rescale %arg0, {{.*}} -> tensor<?x4xi32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add %[[L]], %[[R]] : tensor<?x4xi32>
// CHECK:         tosa.rescale %[[S]], {{.*}} -> tensor<?x4x!quant.uniform<i8:f32, 1.000000e+00>>
func.func @add_dynamic(%arg0: tensor<?x4x!quant.uniform<i8:f32, 0.5>>) -> tensor<?x4x!quant.uniform<i8:f32, 1.0>> {
  %0 = stablehlo.add %arg0, %arg0 : (tensor<?x4x!quant.uniform<i8:f32, 0.5>>, tensor<?x4x!quant.uniform<i8:f32, 0.5>>) -> tensor<?x4x!quant.uniform<i8:f32, 1.0>>
  return %0 : tensor<?x4x!quant.uniform<i8:f32, 1.0>>
}
