// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --mlir-print-op-generic | qcomp-opt | FileCheck %s
// Control flow and structure ops: while (its own form, %iterArg names), if, case and map
// (generic), tuple / get_tuple_element, after_all and !stablehlo.token, composite.
// CHECK lines are jaxlib's MLIR printing of this file.

// CHECK-LABEL: func.func @control(
// CHECK-NEXT: %c = stablehlo.constant dense<0> : tensor<i64>
// CHECK-NEXT: %c_0 = stablehlo.constant dense<1> : tensor<i64>
// CHECK-NEXT: %0:2 = stablehlo.while(%iterArg = %c, %iterArg_1 = %arg0) : tensor<i64>, tensor<4xf32>
// CHECK-NEXT: cond {
// CHECK-NEXT: %3 = stablehlo.compare LT, %iterArg, %arg1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
// CHECK-NEXT: stablehlo.return %3 : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: %3 = stablehlo.add %iterArg, %c_0 : tensor<i64>
// CHECK-NEXT: %4 = stablehlo.multiply %iterArg_1, %iterArg_1 : tensor<4xf32>
// CHECK-NEXT: stablehlo.return %3, %4 : tensor<i64>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: %1 = "stablehlo.if"(%arg3) ({
// CHECK-NEXT: %3 = stablehlo.exponential %arg0 : tensor<4xf32>
// CHECK-NEXT: stablehlo.return %3 : tensor<4xf32>
// CHECK-NEXT: }, {
// CHECK-NEXT: stablehlo.return %arg0 : tensor<4xf32>
// CHECK-NEXT: }) : (tensor<i1>) -> tensor<4xf32>
// CHECK-NEXT: %2:2 = "stablehlo.case"(%arg2) ({
// CHECK-NEXT: stablehlo.return %1, %arg0 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }, {
// CHECK-NEXT: %3 = "stablehlo.map"(%arg0, %1) <{dimensions = array<i64: 0>}> ({
// CHECK-NEXT: ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
// CHECK-NEXT: %4 = stablehlo.atan2 %arg4, %arg5 : tensor<f32>
// CHECK-NEXT: stablehlo.return %4 : tensor<f32>
// CHECK-NEXT: }) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: stablehlo.return %3, %0#1 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }) : (tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: return %2#0, %2#1 : tensor<4xf32>, tensor<4xf32>
// CHECK-NEXT: }
func.func @control(%x: tensor<4xf32>, %n: tensor<i64>, %k: tensor<i32>, %p: tensor<i1>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %w:2 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i64>, tensor<4xf32>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %j = stablehlo.add %i, %one : tensor<i64>
    %s = stablehlo.multiply %acc, %acc : tensor<4xf32>
    stablehlo.return %j, %s : tensor<i64>, tensor<4xf32>
  }
  %f = "stablehlo.if"(%p) ({
    %e = stablehlo.exponential %x : tensor<4xf32>
    stablehlo.return %e : tensor<4xf32>
  }, {
    stablehlo.return %x : tensor<4xf32>
  }) : (tensor<i1>) -> tensor<4xf32>
  %c:2 = "stablehlo.case"(%k) ({
    stablehlo.return %f, %x : tensor<4xf32>, tensor<4xf32>
  }, {
    %m = "stablehlo.map"(%x, %f) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %t = stablehlo.atan2 %a, %b : tensor<f32>
      stablehlo.return %t : tensor<f32>
    }) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %m, %w#1 : tensor<4xf32>, tensor<4xf32>
  }) : (tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %c#0, %c#1 : tensor<4xf32>, tensor<4xf32>
}


// CHECK-LABEL: func.func @empty_while(
// CHECK-NEXT: stablehlo.while()
// CHECK-NEXT: cond {
// CHECK-NEXT: %c = stablehlo.constant dense<false> : tensor<i1>
// CHECK-NEXT: stablehlo.return %c : tensor<i1>
// CHECK-NEXT: } do {
// CHECK-NEXT: stablehlo.return
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @empty_while() {
  stablehlo.while() cond {
    %t = stablehlo.constant dense<false> : tensor<i1>
    stablehlo.return %t : tensor<i1>
  } do {
    stablehlo.return
  }
  return
}


// CHECK-LABEL: func.func @tuples_and_tokens(
// CHECK-NEXT: %0 = stablehlo.tuple %arg1 : tuple<tensor<i64>>
// CHECK-NEXT: %1 = stablehlo.tuple %arg0, %0 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
// CHECK-NEXT: %2 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
// CHECK-NEXT: %3 = stablehlo.get_tuple_element %2[0] : (tuple<tensor<i64>>) -> tensor<i64>
// CHECK-NEXT: %4 = stablehlo.tuple  : tuple<>
// CHECK-NEXT: %5 = stablehlo.after_all  : !stablehlo.token
// CHECK-NEXT: %6 = stablehlo.after_all %5, %5 : !stablehlo.token
// CHECK-NEXT: %7:2 = stablehlo.optimization_barrier %3, %6 : tensor<i64>, !stablehlo.token
// CHECK-NEXT: return %7#0, %7#1 : tensor<i64>, !stablehlo.token
// CHECK-NEXT: }
func.func @tuples_and_tokens(%x: tensor<2xf64>, %y: tensor<i64>) -> (tensor<i64>, !stablehlo.token) {
  %t0 = stablehlo.tuple %y : tuple<tensor<i64>>
  %t1 = stablehlo.tuple %x, %t0 : tuple<tensor<2xf64>, tuple<tensor<i64>>>
  %e = stablehlo.get_tuple_element %t1[1] : (tuple<tensor<2xf64>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %v = stablehlo.get_tuple_element %e[0] : (tuple<tensor<i64>>) -> tensor<i64>
  %empty = stablehlo.tuple  : tuple<>
  %a = stablehlo.after_all  : !stablehlo.token
  %b = stablehlo.after_all %a, %a : !stablehlo.token
  %o:2 = stablehlo.optimization_barrier %v, %b : tensor<i64>, !stablehlo.token
  return %o#0, %o#1 : tensor<i64>, !stablehlo.token
}


// CHECK-LABEL: func.func private @add_n.impl(
// CHECK-NEXT: %c = stablehlo.constant dense<2> : tensor<i64>
// CHECK-NEXT: %0 = stablehlo.add %arg0, %c : tensor<i64>
// CHECK-NEXT: return %0 : tensor<i64>
// CHECK-NEXT: }
func.func private @add_n.impl(%arg0: tensor<i64>) -> tensor<i64> {
  %c = stablehlo.constant dense<2> : tensor<i64>
  %0 = stablehlo.add %arg0, %c : tensor<i64>
  return %0 : tensor<i64>
}


// CHECK-LABEL: func.func @composite(
// CHECK-NEXT: %0 = stablehlo.composite "my.add_n" %arg0 {composite_attributes = {n = 2 : i64}, decomposition = @add_n.impl, version = 1 : i32} : (tensor<i64>) -> tensor<i64>
// CHECK-NEXT: %1 = call @add_n.impl(%0) : (tensor<i64>) -> tensor<i64>
// CHECK-NEXT: return %1 : tensor<i64>
// CHECK-NEXT: }
func.func @composite(%x: tensor<i64>) -> tensor<i64> {
  %0 = stablehlo.composite "my.add_n" %x {composite_attributes = {n = 2 : i64}, decomposition = @add_n.impl, version = 1 : i32} : (tensor<i64>) -> tensor<i64>
  %1 = call @add_n.impl(%0) : (tensor<i64>) -> tensor<i64>
  return %1 : tensor<i64>
}

