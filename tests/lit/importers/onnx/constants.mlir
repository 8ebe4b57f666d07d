// REQUIRES: onnx
// RUN: %python %S/Inputs/make_model.py constants %t.onnx
// RUN: qcomp-opt %t.onnx | FileCheck %s
// RUN: qcomp-opt %t.onnx | qcomp-run - --print-results | FileCheck %s --check-prefix=RESULT

// Initializers print as MLIR prints elements attributes: more than 100 elements (and
// not a splat) as raw little-endian hex, `dense<"0x...">`; 100 or fewer as a list. A
// Constant node keeps its name. The printed hex reads back to the same values (the results:
// onnxruntime gives -32 -31.5 ... for the 128-element weight at scale 0.5).

// CHECK-LABEL: func.func @main_graph() -> (tensor<2xf32> {onnx.name = "c"}, tensor<2x64xf32> {onnx.name = "y128"}, tensor<4x25xf32> {onnx.name = "y100"})
// CHECK: onnx.Constant dense<"0xC0C1C2C3{{[0-9A-F]*}}3C3D3E3F"> : tensor<2x64xi8>
// CHECK: onnx.Constant dense<{{\[\[}}0, 1, 2, {{.*}}, 99]]> : tensor<4x25xui8>
// CHECK: onnx.Constant dense<5.000000e-01> : tensor<f32>
// CHECK: onnx.Constant {value = dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf32>, onnx_node_name = "c0"} : tensor<2xf32>
// CHECK: "onnx.NoValue"() <{value}> : () -> none

// RESULT: @main_graph result[0]: 2xf32=[1.5 -2]
// RESULT: @main_graph result[1]: 2x64xf32={{\[\[}}-32 -31.5 -31 -30.5
// RESULT-SAME: 31 31.5]]
// RESULT: @main_graph result[2]: 4x25xf32={{\[\[}}0 0.5 1
