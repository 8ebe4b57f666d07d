// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=stablehlo' --split-input-file | FileCheck %s

// rescale=stablehlo reproduces upstream's stablehlo-legalize-quant-to-math bit for
// bit (the numbers of jaxlib's reference interpreter; qcomp.quant.stablehlo): all
// float math in f32, storage as signless iN (u8 too, as upstream).

// requantize: f32(q) * f32(s_in / s_out) + f32(zp_out - zp_in * s_in / s_out) =
// q * 0.25 + (-1 - 3 * 0.25) = q * 0.25 - 1.75; clamped (output narrower than 32
// bits), round_nearest_even, convert.

// CHECK-LABEL: func.func @requantize(%arg0: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         %[[F:.*]] = stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xf32>
// CHECK:         stablehlo.constant dense<2.500000e-01> : tensor<f32>
// CHECK:         %[[M:.*]] = stablehlo.multiply %[[F]], %{{.*}} : tensor<4xf32>
// CHECK:         stablehlo.constant dense<-1.750000e+00> : tensor<f32>
// CHECK:         %[[A:.*]] = stablehlo.add %[[M]], %{{.*}} : tensor<4xf32>
// CHECK:         stablehlo.clamp %{{.*}}, %[[A]], %{{.*}}
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi8>

func.func @requantize(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 2.0:-1>> {
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<4x!quant.uniform<i8:f32, 2.0:-1>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 2.0:-1>>
}

// -----

// add: each operand requantized to the result's parameters in i32 (rounded on its
// own, not clamped; the rhs has the result's type, so just converted), then
// l + r - zp_res, clamped to the u8 range [0, 255] and converted to signless i8
// (255 is stored as -1, as upstream computes).

// CHECK-LABEL: func.func @add(%arg0: tensor<4xi8>, %arg1: tensor<4xi8>) -> tensor<4xi8>
// CHECK:         stablehlo.convert %arg0 : (tensor<4xi8>) -> tensor<4xf32>
// CHECK:         stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         stablehlo.multiply
// CHECK:         stablehlo.add
// CHECK-NOT:     stablehlo.clamp
// CHECK:         stablehlo.round_nearest_even
// CHECK:         %[[L:.*]] = stablehlo.convert %{{.*}} : (tensor<4xf32>) -> tensor<4xi32>
// CHECK:         %[[R:.*]] = stablehlo.convert %arg1 : (tensor<4xi8>) -> tensor<4xi32>
// CHECK:         %[[S:.*]] = stablehlo.add %[[L]], %[[R]] : tensor<4xi32>
// CHECK:         stablehlo.constant dense<1> : tensor<i32>
// CHECK:         %[[D:.*]] = stablehlo.subtract %[[S]], %{{.*}} : tensor<4xi32>
// CHECK:         %[[LO:.*]] = stablehlo.constant dense<0> : tensor<i32>
// CHECK:         %[[HI:.*]] = stablehlo.constant dense<255> : tensor<i32>
// CHECK:         %[[C:.*]] = stablehlo.clamp %[[LO]], %[[D]], %[[HI]]
// CHECK:         stablehlo.convert %[[C]] : (tensor<4xi32>) -> tensor<4xi8>

func.func @add(%arg0: tensor<4x!quant.uniform<u8:f32, 1.0:1>>, %arg1: tensor<4x!quant.uniform<u8:f32, 2.0:1>>) -> tensor<4x!quant.uniform<u8:f32, 2.0:1>> {
  %0 = stablehlo.add %arg0, %arg1 : (tensor<4x!quant.uniform<u8:f32, 1.0:1>>, tensor<4x!quant.uniform<u8:f32, 2.0:1>>) -> tensor<4x!quant.uniform<u8:f32, 2.0:1>>
  func.return %0 : tensor<4x!quant.uniform<u8:f32, 2.0:1>>
}

// -----

// dot_general: i32 kernel; zp_offset = z_l Σ q_r = 3 Σ q_r; cs = 1 * 1 / 2 = 0.5,
// so the accumulator and zp_offset are each multiplied by f32(0.5) and truncated
// to i32; out = acc + (zp_res - zp_offset), converted to i8 without clamping.

// CHECK-LABEL: func.func @dot_general(%arg0: tensor<2x3xi8>, %arg1: tensor<3x4xi8>) -> tensor<2x4xi8>
// CHECK:         %[[ACC:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xi8>, tensor<3x4xi8>) -> tensor<2x4xi32>
// CHECK:         stablehlo.reduce
// CHECK:         stablehlo.constant dense<3> : tensor<i32>
// CHECK:         %[[OFF:.*]] = stablehlo.multiply %{{.*}} : tensor<2x4xi32>
// CHECK:         %[[AF:.*]] = stablehlo.convert %[[ACC]] : (tensor<2x4xi32>) -> tensor<2x4xf32>
// CHECK:         stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         %[[AM:.*]] = stablehlo.multiply %[[AF]], %{{.*}} : tensor<2x4xf32>
// CHECK:         %[[AT:.*]] = stablehlo.convert %[[AM]] : (tensor<2x4xf32>) -> tensor<2x4xi32>
// CHECK:         %[[OF:.*]] = stablehlo.convert %[[OFF]] : (tensor<2x4xi32>) -> tensor<2x4xf32>
// CHECK:         %[[OM:.*]] = stablehlo.multiply %[[OF]], %{{.*}} : tensor<2x4xf32>
// CHECK:         %[[OT:.*]] = stablehlo.convert %[[OM]] : (tensor<2x4xf32>) -> tensor<2x4xi32>
// CHECK:         stablehlo.constant dense<5> : tensor<i32>
// CHECK:         %[[CZ:.*]] = stablehlo.subtract %{{.*}}, %[[OT]] : tensor<2x4xi32>
// CHECK:         %[[OUT:.*]] = stablehlo.add %[[AT]], %[[CZ]] : tensor<2x4xi32>
// CHECK-NOT:     stablehlo.clamp
// CHECK:         stablehlo.convert %[[OUT]] : (tensor<2x4xi32>) -> tensor<2x4xi8>

func.func @dot_general(%arg0: tensor<2x3x!quant.uniform<i8:f32, 1.0:3>>, %arg1: tensor<3x4x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x4x!quant.uniform<i8:f32, 2.0:5>> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3x!quant.uniform<i8:f32, 1.0:3>>, tensor<3x4x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x4x!quant.uniform<i8:f32, 2.0:5>>
  func.return %0 : tensor<2x4x!quant.uniform<i8:f32, 2.0:5>>
}

// -----

// Hybrid: an optimization_barrier keeps the weights from being folded, then the
// rhs is dequantized in f32 and the float dot_general runs.

// CHECK-LABEL: func.func @hybrid(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4xi8>) -> tensor<2x4xf32>
// CHECK-NEXT:    %[[B:.*]] = stablehlo.optimization_barrier %arg1 : tensor<3x4xi8>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.convert %[[B]] : (tensor<3x4xi8>) -> tensor<3x4xf32>
// CHECK:         %[[R:.*]] = stablehlo.multiply %[[F]], %{{.*}} : tensor<3x4xf32>
// CHECK-NEXT:    stablehlo.dot_general %arg0, %[[R]], contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>

func.func @hybrid(%arg0: tensor<2x3xf32>, %arg1: tensor<3x4x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x4xf32>
  func.return %0 : tensor<2x4xf32>
}

// -----

// Per-axis add (operands and result of one i32 per-axis type, upstream's only
// per-axis case): l + r - zp along the quantized dimension.

// CHECK-LABEL: func.func @add_per_axis_i32(%arg0: tensor<2x3xi32>, %arg1: tensor<2x3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.add %arg0, %arg1 : tensor<2x3xi32>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<[1, 0, -2]> : tensor<3xi32>
// CHECK-NEXT:    %[[ZB:.*]] = stablehlo.broadcast_in_dim %[[Z]], dims = [1] : (tensor<3xi32>) -> tensor<2x3xi32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.subtract %[[S]], %[[ZB]] : tensor<2x3xi32>
// CHECK-NEXT:    return %[[R]] : tensor<2x3xi32>
func.func @add_per_axis_i32(%arg0: tensor<2x3x!quant.uniform<i32:f32:1, {0.5:1, 0.25:0, 2.0:-2}>>, %arg1: tensor<2x3x!quant.uniform<i32:f32:1, {0.5:1, 0.25:0, 2.0:-2}>>) -> tensor<2x3x!quant.uniform<i32:f32:1, {0.5:1, 0.25:0, 2.0:-2}>> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<2x3x!quant.uniform<i32:f32:1, {0.5:1, 0.25:0, 2.0:-2}>>
  func.return %0 : tensor<2x3x!quant.uniform<i32:f32:1, {0.5:1, 0.25:0, 2.0:-2}>>
}

// -----

// A convolution outside upstream's integer pattern (here: kernel zero point -2) takes
// its dequantize -> op -> quantize fallback: f32(i32(q) - zp) * s for each operand,
// the f32 convolution, then quantize (divide, add zp, clamp, round, convert).

// CHECK-LABEL: func.func @convolution_fallback(%arg0: tensor<1x3x3x1xi8>, %arg1: tensor<2x2x1x1xi8>) -> tensor<1x2x2x1xi8>
// CHECK:         %[[L:.*]] = stablehlo.multiply %{{.*}} : tensor<1x3x3x1xf32>
// CHECK:         stablehlo.constant dense<-2> : tensor<i32>
// CHECK:         %[[R:.*]] = stablehlo.multiply %{{.*}} : tensor<2x2x1x1xf32>
// CHECK:         %[[C:.*]] = stablehlo.convolution(%[[L]], %[[R]]) {{.*}} : (tensor<1x3x3x1xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x1xf32>
// CHECK:         stablehlo.divide %[[C]]
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.convert %{{.*}} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xi8>
func.func @convolution_fallback(%arg0: tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<2x2x1x1x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x1x!quant.uniform<i8:f32, 0.5:1>>, tensor<2x2x1x1x!quant.uniform<i8:f32, 0.25:-2>>) -> tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>
  func.return %0 : tensor<1x2x2x1x!quant.uniform<i8:f32, 1.0>>
}
