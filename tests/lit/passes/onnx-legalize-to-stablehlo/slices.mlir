// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file | FileCheck %s

// Slice with constant starts / ends / axes / steps is one stablehlo.slice, the bounds
// resolved as ONNX says (negative: from the end; clamped to the dimension). The
// constants stay (as stablehlo.constant) for a later dce.

// CHECK-LABEL: func.func @slice_positive
// CHECK-SAME:    (%[[X:.*]]: tensor<3x6xf32>)
// CHECK:         %[[R:.*]] = stablehlo.slice %[[X]] [0:3, 1:5:2] : (tensor<3x6xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    return %[[R]]
func.func @slice_positive(%x: tensor<3x6xf32>) -> tensor<3x2xf32> {
  %s = onnx.Constant dense<1> : tensor<1xi64>
  %e = onnx.Constant dense<-1> : tensor<1xi64>
  %a = onnx.Constant dense<1> : tensor<1xi64>
  %k = onnx.Constant dense<2> : tensor<1xi64>
  %0 = "onnx.Slice"(%x, %s, %e, %a, %k) : (tensor<3x6xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// A negative step reverses its dimension, then slices it with a positive stride:
// x[:, 4:0:-2] is reverse(x, dims = [1])[:, 1:5:2] (start' = 6 - 1 - 4, limit' =
// 6 - 1 - 0); x[::-1] along dim 0 with the INT_MIN end is the whole dimension reversed.

// CHECK-LABEL: func.func @slice_negative
// CHECK-SAME:    (%[[X:.*]]: tensor<3x6xf32>)
// CHECK:         %[[REV:.*]] = stablehlo.reverse %[[X]], dims = [0, 1] : tensor<3x6xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.slice %[[REV]] [0:3, 1:5:2] : (tensor<3x6xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    return %[[R]]
func.func @slice_negative(%x: tensor<3x6xf32>) -> tensor<3x2xf32> {
  %s = onnx.Constant dense<[4, -1]> : tensor<2xi64>
  %e = onnx.Constant dense<[0, -9223372036854775808]> : tensor<2xi64>
  %a = onnx.Constant dense<[1, 0]> : tensor<2xi64>
  %k = onnx.Constant dense<[-2, -1]> : tensor<2xi64>
  %0 = "onnx.Slice"(%x, %s, %e, %a, %k) : (tensor<3x6xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
