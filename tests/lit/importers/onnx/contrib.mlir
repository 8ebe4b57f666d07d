// REQUIRES: onnx
// RUN: %python %S/Inputs/make_model.py contrib %t.onnx %t.npz
// RUN: qcomp-opt %t.onnx | FileCheck %s
// RUN: qcomp-run %t.onnx --inputs %t.npz | FileCheck %s --check-prefix=RESULT

// A node of another domain (onnxruntime's com.microsoft QLinearAdd) imports as
// onnx.Custom, named by function_name, its domain as domain_name.

// CHECK-LABEL: func.func @main_graph(%arg0: tensor<4xui8> {onnx.name = "a"}, %arg1: tensor<4xui8> {onnx.name = "b"}) -> (tensor<4xui8> {onnx.name = "c"})
// CHECK: "onnx.Custom"(%arg0, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{function_name = "QLinearAdd"}> {domain_name = "com.microsoft", onnx_node_name = "add0"}
// CHECK-SAME: -> tensor<4xui8>

// (a - 128) * 0.5 + (b - 128) * 0.25 + 100, as onnxruntime computes it:
// RESULT: @main_graph result[0]: 4xui8=[100 102 4 195]
