// RUN: qcomp-run %s --input=2xf32=1,2 | FileCheck %s
// RUN: not qcomp-run %s --input=2xf32=1,2 --output %t.npz 2>&1 | FileCheck %s --check-prefix=OUTPUT
// Tuples and tokens as results: printed, not written to --output.

// CHECK: @main result[0]: !stablehlo.token
// CHECK-NEXT: @main result[1]: (2xf32=[1 2], (i64=7))
// CHECK-NEXT: @main result[2]: i64=7
// OUTPUT: qcomp-run: error: --output writes tensors only; the entry returns a tuple or a token

func.func @main(%x: tensor<2xf32>) -> (!stablehlo.token, tuple<tensor<2xf32>, tuple<tensor<i64>>>, tensor<i64>) {
  %a = stablehlo.after_all : !stablehlo.token
  %b = stablehlo.after_all %a, %a : !stablehlo.token
  %c = stablehlo.constant dense<7> : tensor<i64>
  %t0 = stablehlo.tuple %c : tuple<tensor<i64>>
  %t1 = stablehlo.tuple %x, %t0 : tuple<tensor<2xf32>, tuple<tensor<i64>>>
  %e = stablehlo.get_tuple_element %t1[1] : (tuple<tensor<2xf32>, tuple<tensor<i64>>>) -> tuple<tensor<i64>>
  %v = stablehlo.get_tuple_element %e[0] : (tuple<tensor<i64>>) -> tensor<i64>
  return %b, %t1, %v : !stablehlo.token, tuple<tensor<2xf32>, tuple<tensor<i64>>>, tensor<i64>
}
