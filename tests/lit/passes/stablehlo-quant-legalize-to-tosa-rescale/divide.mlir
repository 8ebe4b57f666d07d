// RUN: qcomp-opt %s --stablehlo-quant-legalize-to-tosa-rescale --split-input-file | FileCheck %s

// divide. The real quotient is
//   (s_l v_l) / (s_r v_r) = (s_l / s_r) * (v_l / v_r)        (v = x - zero_point)
// so the i32 quotient must be rescaled by (s_l / s_r) / s_res, and v_l / v_r must keep
// its fraction. Upstream uses the multiply formula (s_l s_r / s_res) on trunc(v_l / v_r):
// wrong scale and no fraction (3/2 with all scales 0.5, 0.5 -> 0.25 gives 1 instead of 6).
// Here:
//   lhs    rescaled by 2^K (K fractional bits), rhs by 1.0
//   q      = trunc(v_l 2^K / v_r)               (stablehlo.divide on i32)
//   result = rescale(q, (s_l / s_r) / (s_res 2^K)) + zp_res
// K is the largest value <= 29 for which every rescale meets TOSA's REQUIRE
// |value| < 2^(shift-1) and the zero-divisor quotient below fits i32: K = 21 for i8
// (2^21 -> M = 2^30, shift 9, so |x - zp| < 2^8), K = 14 for i16. The truncation costs
// less than (s_l/s_r)/(s_res 2^K) output steps (here 2^-20), so the result is the
// correctly rounded quotient except that close to a rounding tie.
//
// Zero divisor (v_r = 0): the float reference gives +-inf, quantized to the storage
// extremes, and 0/0 = NaN, which qcomp's and upstream's interpreters quantize to the
// storage integer 0 (APFloat's NaN -> int). The divisor is replaced by 1 (no division
// by zero at run time) and the quotient by +Q when v_l > 0, -Q when v_l < 0, Q the least
// i32 value that the result rescale maps to storage_max (and -Q to storage_min), and
// for 0/0 by the least quotient that rescales to storage 0.

// s_l = 0.025, s_r = 0.075, s_res = 0.15: (s_l/s_r)/(s_res 2^21) = 2.2222 * 2^-21
//   -> M = 1193046471, shift 50.
// Q: the least q with (q M + 2^49) >> 50 >= 127 - (-3) = 130, i.e.
//   q >= (130 * 2^50 - 2^49) / M = 122211532.9 -> Q = 122211533.
// 0/0: the least q with (q M + 2^49) >> 50 >= 0 - (-3) = 3: (3 * 2^50 - 2^49) / M
//   = 2359296.4 -> 2359297.
// CHECK-LABEL: func.func @divide
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<9> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<-1> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT:    %[[L:.*]] = tosa.rescale %arg0, {{.*}} -> tensor<2x2xi32>
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<30> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<-2> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT:    %[[R:.*]] = tosa.rescale %arg1, {{.*}} -> tensor<2x2xi32>
// CHECK-NEXT:    %[[C0:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK-NEXT:    %[[ZERO:.*]] = stablehlo.broadcast_in_dim %[[C0]], dims = [] : (tensor<i32>) -> tensor<2x2xi32>
// CHECK-NEXT:    %[[C1:.*]] = stablehlo.constant dense<1> : tensor<i32>
// CHECK-NEXT:    %[[ONE:.*]] = stablehlo.broadcast_in_dim %[[C1]], dims = [] : (tensor<i32>) -> tensor<2x2xi32>
// CHECK-NEXT:    %[[ISZ:.*]] = stablehlo.compare EQ, %[[R]], %[[ZERO]], SIGNED : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
// CHECK-NEXT:    %[[SAFE:.*]] = stablehlo.select %[[ISZ]], %[[ONE]], %[[R]] : tensor<2x2xi1>, tensor<2x2xi32>
// CHECK-NEXT:    %[[Q:.*]] = stablehlo.divide %[[L]], %[[SAFE]] : tensor<2x2xi32>
// CHECK-NEXT:    %[[GE:.*]] = stablehlo.compare GE, %[[L]], %[[ZERO]], SIGNED : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
// CHECK-NEXT:    %[[CQ:.*]] = stablehlo.constant dense<122211533> : tensor<i32>
// CHECK-NEXT:    %[[PQ:.*]] = stablehlo.broadcast_in_dim %[[CQ]], dims = [] : (tensor<i32>) -> tensor<2x2xi32>
// CHECK-NEXT:    %[[CN:.*]] = stablehlo.constant dense<-122211533> : tensor<i32>
// CHECK-NEXT:    %[[NQ:.*]] = stablehlo.broadcast_in_dim %[[CN]], dims = [] : (tensor<i32>) -> tensor<2x2xi32>
// CHECK-NEXT:    %[[INF:.*]] = stablehlo.select %[[GE]], %[[PQ]], %[[NQ]] : tensor<2x2xi1>, tensor<2x2xi32>
// CHECK-NEXT:    %[[LZ:.*]] = stablehlo.compare EQ, %[[L]], %[[ZERO]], SIGNED : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
// CHECK-NEXT:    %[[NAN:.*]] = stablehlo.and %[[ISZ]], %[[LZ]] : tensor<2x2xi1>
// CHECK-NEXT:    %[[CZ:.*]] = stablehlo.constant dense<2359297> : tensor<i32>
// CHECK-NEXT:    %[[BZ:.*]] = stablehlo.broadcast_in_dim %[[CZ]], dims = [] : (tensor<i32>) -> tensor<2x2xi32>
// CHECK-NEXT:    %[[SPECIAL:.*]] = stablehlo.select %[[NAN]], %[[BZ]], %[[INF]] : tensor<2x2xi1>, tensor<2x2xi32>
// CHECK-NEXT:    %[[V:.*]] = stablehlo.select %[[ISZ]], %[[SPECIAL]], %[[Q]] : tensor<2x2xi1>, tensor<2x2xi32>
// CHECK-NEXT:    "tosa.const"() <{values = dense<1193046471> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<50> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<-3> : tensor<1xi8>}>
// CHECK-NEXT:    %[[OUT:.*]] = tosa.rescale %[[V]], {{.*}} -> tensor<2x2x!quant.uniform<i8:f32, 1.500000e-01:-3>>
// CHECK-NEXT:    return %[[OUT]]
func.func @divide(%arg0: tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, %arg1: tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>> {
  %0 = stablehlo.divide %arg0, %arg1 : (tensor<2x2x!quant.uniform<i8:f32, 0.025:-1>>, tensor<2x2x!quant.uniform<i8:f32, 0.075:-2>>) -> tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>>
  return %0 : tensor<2x2x!quant.uniform<i8:f32, 0.15:-3>>
}

// -----

// i16 (zero point 0): K = 14, since 2^14 -> M = 2^30, shift 16 admits |x| <= 2^15;
// result (1/1)/(1 * 2^14) -> M = 2^30, shift 44. Q is the larger of
//   Q+ = ceil((32767 * 2^44 - 2^43) / 2^30) = 32766.5 * 2^14 = 536846336  (reaches 32767)
//   Q- = floor((2^43 + 32767 * 2^44) / 2^30) + 1 = 32767.5 * 2^14 + 1 = 536862721
//        (-Q- reaches -32768)
// CHECK-LABEL: func.func @divide_i16
// CHECK-NEXT:    "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<16> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi16>}>
// CHECK:         stablehlo.constant dense<536862721> : tensor<i32>
// CHECK:         "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<44> : tensor<1xi8>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi32>}>
// CHECK-NEXT:    "tosa.const"() <{values = dense<0> : tensor<1xi16>}>
// CHECK-NEXT:    tosa.rescale {{.*}} -> tensor<4x!quant.uniform<i16:f32, 1.000000e+00>>
func.func @divide_i16(%arg0: tensor<4x!quant.uniform<i16:f32, 1.0>>) -> tensor<4x!quant.uniform<i16:f32, 1.0>> {
  %0 = stablehlo.divide %arg0, %arg0 : tensor<4x!quant.uniform<i16:f32, 1.0>>
  return %0 : tensor<4x!quant.uniform<i16:f32, 1.0>>
}
