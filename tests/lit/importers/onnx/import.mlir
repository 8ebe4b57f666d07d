// REQUIRES: onnx
// RUN: %python %S/Inputs/make_model.py qdq %t.onnx %t.npz
// RUN: qcomp-opt %t.onnx | FileCheck %s
// RUN: qcomp-opt %t.onnx | qcomp-opt | FileCheck %s
// RUN: qcomp-run %t.onnx --inputs %t.npz | FileCheck %s --check-prefix=RESULT

// An .onnx model (per-axis QuantizeLinear -> DequantizeLinear, built by
// Inputs/make_model.py with onnx.helper) imports as one func @main_graph: the graph's
// inputs and outputs in order, named by onnx.name; initializers as onnx.Constant; the
// node's ONNX attributes as properties, its name as onnx_node_name.

// CHECK-LABEL: func.func @main_graph(
// CHECK-SAME: %arg0: tensor<2x3xf32> {onnx.name = "x"})
// CHECK-SAME: -> (tensor<2x3xf32> {onnx.name = "y"}, tensor<2x3xi8> {onnx.name = "q"})
// CHECK: %[[S:.*]] = onnx.Constant dense<[5.000000e-01, 2.500000e-01, 2.000000e+00]> : tensor<3xf32>
// CHECK: %[[Z:.*]] = onnx.Constant dense<[0, -3, 10]> : tensor<3xi8>
// CHECK: %[[Q:.*]] = "onnx.QuantizeLinear"(%arg0, %[[S]], %[[Z]]) <{axis = 1 : si64, saturate = 1 : si64}> {onnx_node_name = "quant"} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xi8>
// CHECK: %[[D:.*]] = "onnx.DequantizeLinear"(%[[Q]], %[[S]], %[[Z]]) <{axis = 1 : si64}> {onnx_node_name = "dequant"}
// CHECK: return %[[D]], %[[Q]] : tensor<2x3xf32>, tensor<2x3xi8>

// qcomp-run takes the inputs by graph name (x); onnxruntime gives the same:
// RESULT: @main_graph result[0]: 2x3xf32={{\[\[}}1 -2.25 234][0 0 -8]]
// RESULT: @main_graph result[1]: 2x3xi8={{\[\[}}2 -12 127][0 -3 6]]
