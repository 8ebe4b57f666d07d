// RUN: qcomp-opt %s --split-input-file --stablehlo-legalize-quant-to-math='rescale=stablehlo' | FileCheck %s
// RUN: qcomp-opt %s --split-input-file --stablehlo-legalize-quant-to-math | FileCheck %s --check-prefix=FLOAT
// Dynamic dimensions: scales and zero points are applied with chlo.broadcast_* (the
// ops and constants upstream's pass emits for this function, checked with jaxlib).

// CHECK-LABEL: func.func @main
// CHECK: %[[S:.*]] = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: %[[D:.*]] = chlo.broadcast_divide %arg0, %[[S]] {broadcast_dimensions = array<i64: 1>} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: %[[Z:.*]] = stablehlo.constant dense<[3.000000e+00, -2.000000e+00, 0.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: chlo.broadcast_add %[[D]], %[[Z]] {broadcast_dimensions = array<i64: 1>} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: stablehlo.constant dense<[1.66666663, 0.833333313, 3.33333325]> : tensor<3xf32>
// CHECK: chlo.broadcast_multiply
// CHECK: chlo.broadcast_subtract %{{.*}}, %{{.*}} : (tensor<?x3xi32>, tensor<i32>) -> tensor<?x3xi32>
// CHECK: stablehlo.exponential %{{.*}} : tensor<?x3xf32>
// CHECK: return %{{.*}} : tensor<?x3xf32>
// FLOAT-LABEL: func.func @main
// FLOAT: chlo.broadcast_divide %arg0, %{{.*}} {broadcast_dimensions = array<i64: 1>} : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %q = stablehlo.uniform_quantize %x : (tensor<?x3xf32>) -> tensor<?x3x!quant.uniform<i8:f32:1, {0.5:3, 0.25:-2, 1.0:0}>>
  %r = stablehlo.uniform_quantize %q : (tensor<?x3x!quant.uniform<i8:f32:1, {0.5:3, 0.25:-2, 1.0:0}>>) -> tensor<?x3x!quant.uniform<i8:f32, 0.3:1>>
  %a = stablehlo.add %r, %r : tensor<?x3x!quant.uniform<i8:f32, 0.3:1>>
  %e = stablehlo.exponential %a : tensor<?x3x!quant.uniform<i8:f32, 0.3:1>>
  %d = stablehlo.uniform_dequantize %e : (tensor<?x3x!quant.uniform<i8:f32, 0.3:1>>) -> tensor<?x3xf32>
  return %d : tensor<?x3xf32>
}

// -----

// A fully quantized dot_general with dynamic dimensions under rescale=stablehlo:
// upstream's zero-point offset, the rhs sum times z_lhs broadcast to the kernel
// result's run-time shape (get_dimension_size, dynamic_broadcast_in_dim), then the
// combined scale in f32 (jaxlib's pass emits the same ops; it spells the last add
// chlo.broadcast_add).
// CHECK-LABEL: func.func @dynamic_dot
// CHECK: %[[ACC:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0] : (tensor<?x3xi8>, tensor<3x?xi8>) -> tensor<?x?xi32>
// CHECK: %[[SUM:.*]] = stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.add across dimensions = [0] : (tensor<3x?xi32>, tensor<i32>) -> tensor<?xi32>
// CHECK-NEXT: %[[ZL:.*]] = stablehlo.constant dense<3> : tensor<i32>
// CHECK-NEXT: %[[T:.*]] = chlo.broadcast_multiply %[[SUM]], %[[ZL]] : (tensor<?xi32>, tensor<i32>) -> tensor<?xi32>
// CHECK-NEXT: %[[D0:.*]] = stablehlo.get_dimension_size %[[ACC]], dim = 0 : (tensor<?x?xi32>) -> tensor<i32>
// CHECK: %[[DIMS:.*]] = stablehlo.concatenate %{{.*}}, %{{.*}}, dim = 0 : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
// CHECK-NEXT: stablehlo.dynamic_broadcast_in_dim %[[T]], %[[DIMS]], dims = [1] : (tensor<?xi32>, tensor<2xi64>) -> tensor<?x?xi32>
// CHECK: chlo.broadcast_multiply %{{.*}}, %{{.*}} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
// CHECK: chlo.broadcast_subtract %{{.*}}, %{{.*}} : (tensor<i32>, tensor<?x?xi32>) -> tensor<?x?xi32>
// CHECK: stablehlo.convert %{{.*}} : (tensor<?x?xi32>) -> tensor<?x?xi8>
// FLOAT-LABEL: func.func @dynamic_dot
// FLOAT: chlo.broadcast_subtract
func.func @dynamic_dot(%a: tensor<?x3x!quant.uniform<i8:f32, 0.5:3>>, %w: tensor<3x?x!quant.uniform<i8:f32, 0.25>>) -> tensor<?x?x!quant.uniform<i8:f32, 2.0:1>> {
  %r = stablehlo.dot_general %a, %w, contracting_dims = [1] x [0] : (tensor<?x3x!quant.uniform<i8:f32, 0.5:3>>, tensor<3x?x!quant.uniform<i8:f32, 0.25>>) -> tensor<?x?x!quant.uniform<i8:f32, 2.0:1>>
  return %r : tensor<?x?x!quant.uniform<i8:f32, 2.0:1>>
}
