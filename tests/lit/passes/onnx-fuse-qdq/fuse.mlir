// RUN: qcomp-opt %s --onnx-fuse-qdq --split-input-file --verify-diagnostics | FileCheck %s

// DequantizeLinear -> MatMul -> QuantizeLinear is QLinearMatMul: the DequantizeLinear
// inputs (value, scale, zero point) and the QuantizeLinear's scale and zero point.

// CHECK-LABEL: func.func @matmul
// CHECK-SAME:    (%[[A:.*]]: tensor<2x4xui8>, %[[B:.*]]: tensor<4x3xi8>)
// CHECK:         %[[Y:.*]] = "onnx.QLinearMatMul"(%[[A]], %[[SA:.*]], %[[ZA:.*]], %[[B]], %[[SB:.*]], %[[ZB:.*]], %[[SY:.*]], %[[ZY:.*]]) : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>, tensor<4x3xi8>, tensor<3xf32>, tensor<3xi8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
// CHECK-NEXT:    return %[[Y]]
func.func @matmul(%a: tensor<2x4xui8>, %b: tensor<4x3xi8>) -> tensor<2x3xui8> {
  %sa = onnx.Constant dense<0.5> : tensor<f32>
  %za = onnx.Constant dense<128> : tensor<ui8>
  %sb = onnx.Constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %zb = onnx.Constant dense<0> : tensor<3xi8>
  %sy = onnx.Constant dense<0.25> : tensor<f32>
  %zy = onnx.Constant dense<10> : tensor<ui8>
  %da = "onnx.DequantizeLinear"(%a, %sa, %za) : (tensor<2x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x4xf32>
  %db = "onnx.DequantizeLinear"(%b, %sb, %zb) {axis = 1 : si64} : (tensor<4x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<4x3xf32>
  %m = "onnx.MatMul"(%da, %db) : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %q = "onnx.QuantizeLinear"(%m, %sy, %zy) : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %q : tensor<2x3xui8>
}

// -----

// Add (and Mul, Sigmoid, GlobalAveragePool, Concat) become onnxruntime's com.microsoft
// contrib ops, as onnx.Custom.

// CHECK-LABEL: func.func @add
// CHECK:         "onnx.Custom"(%arg0, %{{.*}}, %{{.*}}, %arg1, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{function_name = "QLinearAdd"}> {domain_name = "com.microsoft"}
// CHECK-NOT:     onnx.Add
func.func @add(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<i8>
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %db = "onnx.DequantizeLinear"(%b, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %y = "onnx.Add"(%da, %db) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %q = "onnx.QuantizeLinear"(%y, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  return %q : tensor<4xi8>
}

// -----

// Data movement between a DequantizeLinear and a QuantizeLinear of one scale and zero
// point: the pair is dropped and the op moves the stored integers.

// CHECK-LABEL: func.func @reshape_drops_qdq
// CHECK:         %[[R:.*]] = "onnx.Reshape"(%arg0, %{{.*}}) : (tensor<2x3xui8>, tensor<1xi64>) -> tensor<6xui8>
// CHECK-NEXT:    return %[[R]]
func.func @reshape_drops_qdq(%x: tensor<2x3xui8>) -> tensor<6xui8> {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<7> : tensor<ui8>
  %shape = onnx.Constant dense<[6]> : tensor<1xi64>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %r = "onnx.Reshape"(%d, %shape) : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<6xf32>
  %q = "onnx.QuantizeLinear"(%r, %s, %z) : (tensor<6xf32>, tensor<f32>, tensor<ui8>) -> tensor<6xui8>
  return %q : tensor<6xui8>
}

// -----

// onnxruntime's refusals stay, each with its selector's reason.

// CHECK-LABEL: func.func @refusals
func.func @refusals(%a: tensor<4xi8>, %b: tensor<4xui8>, %w: tensor<4x4xui8>) -> (tensor<4xi8>, tensor<4xf32>, tensor<4xi8>, tensor<16xui8>, tensor<4xi8>) {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %s2 = onnx.Constant dense<0.25> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<i8>
  %zu = onnx.Constant dense<0> : tensor<ui8>
  %da = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %db = "onnx.DequantizeLinear"(%b, %s, %zu) : (tensor<4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4xf32>
  // CHECK: "onnx.Mul"
  // expected-remark @+1 {{onnx-fuse-qdq: 'onnx.Mul' is not fused: inputs and output must have one element type, got int8, uint8, int8}}
  %m = "onnx.Mul"(%da, %db) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %qm = "onnx.QuantizeLinear"(%m, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %da2 = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  // CHECK: "onnx.Sigmoid"
  // expected-remark @+1 {{the result has users other than QuantizeLinear (or is a graph output)}}
  %g = "onnx.Sigmoid"(%da2) : (tensor<4xf32>) -> tensor<4xf32>
  %qg = "onnx.QuantizeLinear"(%g, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %dx = "onnx.DequantizeLinear"(%a, %s, %z) : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf32>
  %dw = "onnx.DequantizeLinear"(%w, %s, %zu) : (tensor<4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x4xf32>
  // CHECK: "onnx.MatMul"
  // expected-remark @+1 {{an int8 input needs int8 weights}}
  %mm = "onnx.MatMul"(%dx, %dw) : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
  %qmm = "onnx.QuantizeLinear"(%mm, %s, %z) : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
  %d6 = "onnx.DequantizeLinear"(%w, %s, %zu) : (tensor<4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x4xf32>
  %sl = onnx.Constant dense<[16]> : tensor<1xi64>
  // CHECK: "onnx.Reshape"
  // expected-remark @+1 {{DequantizeLinear and QuantizeLinear must have the same constant scale and zero point}}
  %r = "onnx.Reshape"(%d6, %sl) : (tensor<4x4xf32>, tensor<1xi64>) -> tensor<16xf32>
  %qr = "onnx.QuantizeLinear"(%r, %s2, %zu) : (tensor<16xf32>, tensor<f32>, tensor<ui8>) -> tensor<16xui8>
  return %qm, %g, %qmm, %qr, %qg : tensor<4xi8>, tensor<4xf32>, tensor<4xi8>, tensor<16xui8>, tensor<4xi8>
}

// -----

// DequantizeLinear -> ArgMax (onnxruntime's DropDQ rule): the DequantizeLinear goes,
// ArgMax runs on the stored integers. TopK, CumSum, InstanceNormalization have no rule:
// their group stays, without a remark.

// CHECK-LABEL: func.func @argmax_drops_dq
// CHECK:         %[[A:.*]] = "onnx.ArgMax"(%arg0) <{axis = 1 : si64}> : (tensor<2x3xui8>) -> tensor<2x1xi64>
// CHECK-NEXT:    "onnx.TopK"
// CHECK-NEXT:    "onnx.QuantizeLinear"
// CHECK-NEXT:    return %[[A]]
func.func @argmax_drops_dq(%x: tensor<2x3xui8>) -> (tensor<2x1xi64>, tensor<2x1xui8>) {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<128> : tensor<ui8>
  %k = onnx.Constant dense<[1]> : tensor<1xi64>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<2x3xui8>, tensor<f32>, tensor<ui8>) -> tensor<2x3xf32>
  %a = "onnx.ArgMax"(%d) {axis = 1 : si64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  %v, %i = "onnx.TopK"(%d, %k) : (tensor<2x3xf32>, tensor<1xi64>) -> (tensor<2x1xf32>, tensor<2x1xi64>)
  %q = "onnx.QuantizeLinear"(%v, %s, %z) : (tensor<2x1xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x1xui8>
  return %a, %q : tensor<2x1xi64>, tensor<2x1xui8>
}

// -----

// onnxruntime's DropDQ rule refuses 16-bit inputs and a per-axis DequantizeLinear (its
// scale and zero point must be constant scalars): those ArgMax stay on the floats.

// CHECK-LABEL: func.func @argmax_keeps_dq
// CHECK-COUNT-2: "onnx.ArgMax"(%{{.*}}) <{axis = 1 : si64}> : (tensor<2x3xf32>)
func.func @argmax_keeps_dq(%x: tensor<2x3xi16>, %y: tensor<2x3xi8>) -> (tensor<2x1xi64>, tensor<2x1xi64>) {
  %s = onnx.Constant dense<0.5> : tensor<f32>
  %z = onnx.Constant dense<0> : tensor<i16>
  %sa = onnx.Constant dense<[0.5, 0.25]> : tensor<2xf32>
  %za = onnx.Constant dense<0> : tensor<2xi8>
  %d = "onnx.DequantizeLinear"(%x, %s, %z) : (tensor<2x3xi16>, tensor<f32>, tensor<i16>) -> tensor<2x3xf32>
  // expected-remark @+1 {{onnx-fuse-qdq: 'onnx.ArgMax' is not fused: int16: 16-bit and 4-bit types are not fused}}
  %a = "onnx.ArgMax"(%d) {axis = 1 : si64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  %e = "onnx.DequantizeLinear"(%y, %sa, %za) {axis = 0 : si64} : (tensor<2x3xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2x3xf32>
  // expected-remark @+1 {{onnx-fuse-qdq: 'onnx.ArgMax' is not fused: the DequantizeLinear's scale and zero point must be constant scalars}}
  %b = "onnx.ArgMax"(%e) {axis = 1 : si64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return %a, %b : tensor<2x1xi64>, tensor<2x1xi64>
}
