// RUN: qcomp-opt %s --lower-quant-ops --split-input-file | FileCheck %s

// Scalar (non-tensor) quantized values lower to `arith` and `math` ops on the
// signless storage integer, as upstream: quant.scast to/from the storage type,
// `arith.constant` scale and zero point. The formulas are the spec's.

// quantize: divf, addf zero point, clamp with maximumf/minimumf, math.roundeven,
// then fptosi (fptoui for unsigned storage).

// CHECK-LABEL: func.func @qcast_scalar
// CHECK-SAME:    (%[[X:.*]]: f32)
// CHECK-NEXT:    %[[S:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT:    %[[DIV:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-NEXT:    %[[ADD:.*]] = arith.addf %[[DIV]], %[[Z]] : f32
// CHECK-NEXT:    %[[LO:.*]] = arith.constant -1.280000e+02 : f32
// CHECK-NEXT:    %[[MAX:.*]] = arith.maximumf %[[ADD]], %[[LO]] : f32
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 1.270000e+02 : f32
// CHECK-NEXT:    %[[MIN:.*]] = arith.minimumf %[[MAX]], %[[HI]] : f32
// CHECK-NEXT:    %[[R:.*]] = math.roundeven %[[MIN]] : f32
// CHECK-NEXT:    %[[I:.*]] = arith.fptosi %[[R]] : f32 to i8
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %[[I]] : i8 to !quant.uniform<i8:f32, 2.500000e-01:10>
// CHECK-NEXT:    return %[[Q]]
func.func @qcast_scalar(%arg0: f32) -> !quant.uniform<i8:f32, 0.25:10> {
  %0 = quant.qcast %arg0 : f32 to !quant.uniform<i8:f32, 0.25:10>
  return %0 : !quant.uniform<i8:f32, 0.25:10>
}

// -----

// dequantize: the zero point is subtracted after widening to i32 (extui for
// unsigned storage), then sitofp and mulf.

// CHECK-LABEL: func.func @dcast_scalar_unsigned
// CHECK-SAME:    (%[[Q:.*]]: !quant.uniform<u8:f32, 2.000000e+00:10>)
// CHECK-NEXT:    %[[I:.*]] = quant.scast %[[Q]] : !quant.uniform<u8:f32, 2.000000e+00:10> to i8
// CHECK-NEXT:    %[[W:.*]] = arith.extui %[[I]] : i8 to i32
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 10 : i32
// CHECK-NEXT:    %[[D:.*]] = arith.subi %[[W]], %[[Z]] : i32
// CHECK-NEXT:    %[[F:.*]] = arith.sitofp %[[D]] : i32 to f32
// CHECK-NEXT:    %[[S:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:    %[[X:.*]] = arith.mulf %[[F]], %[[S]] : f32
// CHECK-NEXT:    return %[[X]] : f32
func.func @dcast_scalar_unsigned(%arg0: !quant.uniform<u8:f32, 2.0:10>) -> f32 {
  %0 = quant.dcast %arg0 : !quant.uniform<u8:f32, 2.0:10> to f32
  return %0 : f32
}

// -----

// Unsigned storage with a range that excludes 0 clamps the integer too (maxui,
// minui), so NaN (converted to 0) stays in range.

// CHECK-LABEL: func.func @qcast_scalar_unsigned_bounds
// CHECK:         %[[I:.*]] = arith.fptoui %{{.*}} : f32 to i8
// CHECK-NEXT:    %[[LO:.*]] = arith.constant 2 : i8
// CHECK-NEXT:    %[[HI:.*]] = arith.constant 10 : i8
// CHECK-NEXT:    %[[A:.*]] = arith.maxui %[[I]], %[[LO]] : i8
// CHECK-NEXT:    %[[B:.*]] = arith.minui %[[A]], %[[HI]] : i8
// CHECK-NEXT:    quant.scast %[[B]] : i8 to !quant.uniform<u8<2:10>:f32, 2.000000e+00:5>
func.func @qcast_scalar_unsigned_bounds(%arg0: f32) -> !quant.uniform<u8<2:10>:f32, 2.0:5> {
  %0 = quant.qcast %arg0 : f32 to !quant.uniform<u8<2:10>:f32, 2.0:5>
  return %0 : !quant.uniform<u8<2:10>:f32, 2.0:5>
}
