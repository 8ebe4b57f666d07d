// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math --split-input-file --verify-numerics | FileCheck %s
// RUN: qcomp-opt %s --stablehlo-legalize-quant-to-math='rescale=fixed-point' --split-input-file --verify-numerics | FileCheck %s --check-prefix=FIXED

// Ops with regions on quantized types move the stored integers: the op keeps its
// regions, their block arguments become storage integers, and the ops inside are lowered
// like any other (a quantized `add` body dequantizes, adds and quantizes once per update,
// so two updates to one index round twice, as the interpreter computes it).

// CHECK-LABEL: func.func @scatter_add
// CHECK:         "stablehlo.scatter"(%{{.*}}, %{{.*}}, %{{.*}}) <{{.*}}> ({
// CHECK-NEXT:    ^bb0(%[[A:.*]]: tensor<i8>, %[[B:.*]]: tensor<i8>):
// CHECK:           stablehlo.add %{{.*}}, %{{.*}} : tensor<f32>
// CHECK:           stablehlo.return %{{.*}} : tensor<i8>
// CHECK-NEXT:    }) : (tensor<4xi8>, tensor<3x1xi64>, tensor<3xi8>) -> tensor<4xi8>
// FIXED-LABEL: func.func @scatter_add
// FIXED:         ^bb0(%{{.*}}: tensor<i8>, %{{.*}}: tensor<i8>):
func.func @scatter_add(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5:1>>, %idx: tensor<3x1xi64>, %upd: tensor<3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>> {
  %0 = "stablehlo.scatter"(%arg0, %idx, %upd) ({
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.5:1>>, %b: tensor<!quant.uniform<i8:f32, 0.5:1>>):
    %s = stablehlo.add %a, %b : tensor<!quant.uniform<i8:f32, 0.5:1>>
    stablehlo.return %s : tensor<!quant.uniform<i8:f32, 0.5:1>>
  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x!quant.uniform<i8:f32, 0.5:1>>, tensor<3x1xi64>, tensor<3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
}

// -----

// The select region compares stored values (a quantized compare gives i1).
// CHECK-LABEL: func.func @select_and_scatter
// CHECK:         "stablehlo.select_and_scatter"
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<i8>, %{{.*}}: tensor<i8>):
// CHECK:           stablehlo.compare  GE, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<i1>
// CHECK:         ^bb0(%{{.*}}: tensor<i8>, %{{.*}}: tensor<i8>):
// CHECK:         (tensor<4x2xi8>, tensor<2x2xi8>, tensor<i8>) -> tensor<4x2xi8>
func.func @select_and_scatter(%operand: tensor<4x2x!quant.uniform<i8:f32, 0.5:-2>>, %source: tensor<2x2x!quant.uniform<i8:f32, 0.5:-2>>, %init: tensor<!quant.uniform<i8:f32, 0.5:-2>>) -> tensor<4x2x!quant.uniform<i8:f32, 0.5:-2>> {
  %0 = "stablehlo.select_and_scatter"(%operand, %source, %init) ({
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.5:-2>>, %b: tensor<!quant.uniform<i8:f32, 0.5:-2>>):
    %c = stablehlo.compare GE, %a, %b : (tensor<!quant.uniform<i8:f32, 0.5:-2>>, tensor<!quant.uniform<i8:f32, 0.5:-2>>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.5:-2>>, %b: tensor<!quant.uniform<i8:f32, 0.5:-2>>):
    %s = stablehlo.add %a, %b : tensor<!quant.uniform<i8:f32, 0.5:-2>>
    stablehlo.return %s : tensor<!quant.uniform<i8:f32, 0.5:-2>>
  }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>} : (tensor<4x2x!quant.uniform<i8:f32, 0.5:-2>>, tensor<2x2x!quant.uniform<i8:f32, 0.5:-2>>, tensor<!quant.uniform<i8:f32, 0.5:-2>>) -> tensor<4x2x!quant.uniform<i8:f32, 0.5:-2>>
  return %0 : tensor<4x2x!quant.uniform<i8:f32, 0.5:-2>>
}

// -----

// while carries stored integers; tuple and get_tuple_element take tuples of them.
// CHECK-LABEL: func.func @while_and_tuple
// CHECK-SAME:    (%{{.*}}: tensor<2xi8>) -> tuple<tensor<2xi8>, tensor<i32>>
// CHECK:         stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : tensor<i32>, tensor<2xi8>
// CHECK:           stablehlo.return %{{.*}}, %{{.*}} : tensor<i32>, tensor<2xi8>
// CHECK:         stablehlo.tuple %{{.*}}, %{{.*}} : tuple<tensor<2xi8>, tensor<i32>>
// CHECK:         stablehlo.get_tuple_element %{{.*}}[0] : (tuple<tensor<2xi8>, tensor<i32>>) -> tensor<2xi8>
// FIXED-LABEL: func.func @while_and_tuple
// FIXED:         stablehlo.while(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) : tensor<i32>, tensor<2xi8>
func.func @while_and_tuple(%x: tensor<2x!quant.uniform<i8:f32, 0.5:1>>) -> tuple<tensor<2x!quant.uniform<i8:f32, 0.5:1>>, tensor<i32>> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %v = %x) : tensor<i32>, tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  cond {
    %p = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %w = stablehlo.add %v, %v : tensor<2x!quant.uniform<i8:f32, 0.5:1>>
    stablehlo.return %j, %w : tensor<i32>, tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  }
  %t = stablehlo.tuple %r#1, %r#0 : tuple<tensor<2x!quant.uniform<i8:f32, 0.5:1>>, tensor<i32>>
  %e = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2x!quant.uniform<i8:f32, 0.5:1>>, tensor<i32>>) -> tensor<2x!quant.uniform<i8:f32, 0.5:1>>
  %u = stablehlo.tuple %e, %r#0 : tuple<tensor<2x!quant.uniform<i8:f32, 0.5:1>>, tensor<i32>>
  return %u : tuple<tensor<2x!quant.uniform<i8:f32, 0.5:1>>, tensor<i32>>
}
