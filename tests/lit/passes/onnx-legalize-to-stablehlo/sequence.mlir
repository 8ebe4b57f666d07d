// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file --verify-numerics=4 | FileCheck %s
// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file | qcomp-run - --split-input-file --print-results | FileCheck %s --check-prefix=RESULT

// LSTM: X @ W^T for every step first, then a stablehlo.while over the time steps
// carrying (t, H, C, Y, the last Y row); each step adds H @ R^T, takes the gates i, o,
// f, c (sigmoid, tanh), C' = f * C + i * c, H' = o * tanh(C'), and writes H' into Y at
// t. The absent Y_c (none) is not computed. One unit, gates in ONNX's order i, o, f, c:
//   t = 0 (x = 1):  gates [0.5, 1, -1, 2], C = sigmoid(0.5) * tanh(2) = 0.6001,
//                   H = sigmoid(1) * tanh(C) = 0.3927
//   t = 1 (x = -1): gates -[0.5, 1, -1, 2] + [0.25, 1, 0.5, -1] * H, H = 0.0234

// CHECK-LABEL: func.func @lstm
// CHECK:         stablehlo.dot_general %{{.*}}, contracting_dims = [1] x [1] : (tensor<2x1xf32>, tensor<4x1xf32>) -> tensor<2x4xf32>
// CHECK:         stablehlo.while(%iterArg = %{{.*}}, %iterArg_{{.*}}) : tensor<i64>, tensor<1x1xf32>, tensor<1x1xf32>, tensor<2x1x1xf32>, tensor<1x1xf32>
// CHECK:           stablehlo.dynamic_slice
// CHECK:           stablehlo.dot_general
// CHECK:           stablehlo.logistic
// CHECK:           stablehlo.tanh
// CHECK:           stablehlo.dynamic_update_slice
// CHECK-NOT:     onnx.
// RESULT: @lstm result[0]: 2x1x1x1xf32={{\[\[\[\[}}0.39265{{[0-9]*}}]]]{{\[\[\[}}0.02343{{[0-9]*}}]]]]
// RESULT: @lstm result[1]: 1x1x1xf32={{\[\[\[}}0.02343{{[0-9]*}}]]]
func.func @lstm() -> (tensor<2x1x1x1xf32>, tensor<1x1x1xf32>) {
  %x = onnx.Constant dense<[[[1.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %w = onnx.Constant dense<[[[0.5], [1.0], [-1.0], [2.0]]]> : tensor<1x4x1xf32>
  %r = onnx.Constant dense<[[[0.25], [1.0], [0.5], [-1.0]]]> : tensor<1x4x1xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %r, %none, %none, %none, %none, %none) {hidden_size = 1 : si64} : (tensor<2x1x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>, none, none, none, none, none) -> (tensor<2x1x1x1xf32>, tensor<1x1x1xf32>, none)
  return %y, %yh : tensor<2x1x1x1xf32>, tensor<1x1x1xf32>
}

// -----

// com.microsoft Attention (one head of 2): Q|K|V = X @ W + B, then softmax(Q K^T / sqrt(2)
// + mask) as reduce max, subtract, exponential, reduce add, divide, and the probabilities
// @ V. mask_index [1] = key lengths: key 1 is masked (-10000), so each query attends to
// key 0 only and the output is V's row 0 = X[0] @ W_v = [1, 2].

// CHECK-LABEL: func.func @attention
// CHECK:         stablehlo.dot_general %{{.*}}, contracting_dims = [2] x [0] : (tensor<1x2x2xf32>, tensor<2x6xf32>) -> tensor<1x2x6xf32>
// CHECK:         stablehlo.dot_general %{{.*}}, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3] : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
// CHECK:         stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.maximum across dimensions = [3]
// CHECK:         stablehlo.exponential
// CHECK:         stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.add across dimensions = [3]
// CHECK:         stablehlo.divide
// CHECK-NOT:     onnx.
// RESULT: @attention result[0]: 1x2x2xf32={{\[\[\[}}1 2][1 2]]]
func.func @attention() -> tensor<1x2x2xf32> {
  %x = onnx.Constant dense<[[[1.0, 0.0], [0.0, 1.0]]]> : tensor<1x2x2xf32>
  %w = onnx.Constant dense<[[1.0, 0.0, 1.0, 0.0, 1.0, 2.0], [0.0, 1.0, 0.0, 1.0, 3.0, 4.0]]> : tensor<2x6xf32>
  %m = onnx.Constant dense<[1]> : tensor<1xi32>
  %none = "onnx.NoValue"() {value} : () -> none
  %y = "onnx.Custom"(%x, %w, %none, %m) {domain_name = "com.microsoft", function_name = "Attention", num_heads = 1 : si64} : (tensor<1x2x2xf32>, tensor<2x6xf32>, none, tensor<1xi32>) -> tensor<1x2x2xf32>
  return %y : tensor<1x2x2xf32>
}

// -----

// com.microsoft Attention with past [2, B, N, P, H] (P = 1): K and V are the past's
// rows followed by the input's (concatenated along the sequence), present = [K, V].
// q = [1, 0] scores both keys [1, 5] and [1, 0] alike (1), so the probabilities are
// 1/2 each and the output is ([0, 2] + [2, 4]) / 2 = [1, 3].

// CHECK-LABEL: func.func @attention_past
// CHECK-COUNT-2: stablehlo.concatenate {{.*}}dim = 2 : (tensor<1x1x1x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x1x2x2xf32>
// CHECK:         stablehlo.concatenate {{.*}}dim = 0 : (tensor<1x1x1x2x2xf32>, tensor<1x1x1x2x2xf32>) -> tensor<2x1x1x2x2xf32>
// CHECK-NOT:     onnx.
// RESULT: @attention_past result[0]: 1x1x2xf32={{\[\[\[}}1 3]]]
// RESULT: @attention_past result[1]: 2x1x1x2x2xf32={{\[\[\[\[\[}}1 5][1 0]]]][{{\[\[\[}}0 2][2 4]]]]]
func.func @attention_past() -> (tensor<1x1x2xf32>, tensor<2x1x1x2x2xf32>) {
  %x = onnx.Constant dense<[[[1.0, 0.0]]]> : tensor<1x1x2xf32>
  %w = onnx.Constant dense<[[1.0, 0.0, 1.0, 0.0, 2.0, 4.0], [0.0, 1.0, 0.0, 1.0, 0.0, 0.0]]> : tensor<2x6xf32>
  %past = onnx.Constant dense<[[[[[1.0, 5.0]]]], [[[[0.0, 2.0]]]]]> : tensor<2x1x1x1x2xf32>
  %none = "onnx.NoValue"() {value} : () -> none
  %y:2 = "onnx.Custom"(%x, %w, %none, %none, %past) {domain_name = "com.microsoft", function_name = "Attention", num_heads = 1 : si64} : (tensor<1x1x2xf32>, tensor<2x6xf32>, none, none, tensor<2x1x1x1x2xf32>) -> (tensor<1x1x2xf32>, tensor<2x1x1x2x2xf32>)
  return %y#0, %y#1 : tensor<1x1x2xf32>, tensor<2x1x1x2x2xf32>
}

// -----

// com.microsoft EmbedLayerNormalization: the word, position and segment rows gathered
// and added, then layer normalization over the hidden dimension (reduce add for the
// means, sqrt); mask_index counts the mask's ones per batch row.
//   ids [1, 0]: rows [1, 3] + [0, 0] and [0, 0] + [2, 0] -> normalized [-1, 1], [1, -1]

// CHECK-LABEL: func.func @embed_layer_norm
// CHECK:         "stablehlo.gather"
// CHECK:         stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.add across dimensions = [2]
// CHECK:         stablehlo.sqrt
// CHECK-NOT:     onnx.
// RESULT: @embed_layer_norm result[0]: 1x2x2xf32={{\[\[\[}}-1 1][1 -1]]]
// RESULT: @embed_layer_norm result[1]: 1xi32=[1]
func.func @embed_layer_norm() -> (tensor<1x2x2xf32>, tensor<1xi32>) {
  %ids = onnx.Constant dense<[[1, 0]]> : tensor<1x2xi32>
  %word = onnx.Constant dense<[[0.0, 0.0], [1.0, 3.0]]> : tensor<2x2xf32>
  %pos = onnx.Constant dense<[[0.0, 0.0], [2.0, 0.0]]> : tensor<2x2xf32>
  %gamma = onnx.Constant dense<1.0> : tensor<2xf32>
  %beta = onnx.Constant dense<0.0> : tensor<2xf32>
  %mask = onnx.Constant dense<[[1, 0]]> : tensor<1x2xi32>
  %none = "onnx.NoValue"() {value} : () -> none
  %y, %mi = "onnx.Custom"(%ids, %none, %word, %pos, %none, %gamma, %beta, %mask) {domain_name = "com.microsoft", function_name = "EmbedLayerNormalization", epsilon = 0.0 : f32} : (tensor<1x2xi32>, none, tensor<2x2xf32>, tensor<2x2xf32>, none, tensor<2xf32>, tensor<2xf32>, tensor<1x2xi32>) -> (tensor<1x2x2xf32>, tensor<1xi32>)
  return %y, %mi : tensor<1x2x2xf32>, tensor<1xi32>
}

// -----

// com.microsoft DynamicQuantizeLSTM (quantize_dynamic's LSTM; W, R int8 as [D, K, 4H]):
// each product quantizes its float operand to uint8 on the fly (DynamicQuantizeLinear's
// range, scale and zero point: reduce min / max, divide, round_nearest_even, clamp),
// multiplies it with the weight in int32 (dot_general of i32) and scales the sums by
// a_scale * w_scale. Inside the loop the last Y row is quantized each step.

// CHECK-LABEL: func.func @dynamic_quantize_lstm
// CHECK:         stablehlo.round_nearest_even
// CHECK:         stablehlo.dot_general %{{.*}}, contracting_dims = [1] x [0] : (tensor<2x1xi32>, tensor<1x4xi32>) -> tensor<2x4xi32>
// CHECK:         stablehlo.while
// CHECK:           stablehlo.round_nearest_even
// CHECK:           stablehlo.dot_general %{{.*}}, contracting_dims = [1] x [0] : (tensor<1x1xi32>, tensor<1x4xi32>) -> tensor<1x4xi32>
// CHECK-NOT:     onnx.
func.func @dynamic_quantize_lstm(%x: tensor<2x1x1xf32>) -> tensor<2x1x1x1xf32> {
  %w = onnx.Constant dense<[[[64, 127, -127, 100]]]> : tensor<1x1x4xi8>
  %r = onnx.Constant dense<[[[32, 127, 64, -127]]]> : tensor<1x1x4xi8>
  %ws = onnx.Constant dense<[0.015625]> : tensor<1xf32>
  %wz = onnx.Constant dense<[0]> : tensor<1xi8>
  %none = "onnx.NoValue"() {value} : () -> none
  %y, %yh, %yc = "onnx.Custom"(%x, %w, %r, %none, %none, %none, %none, %none, %ws, %wz, %ws, %wz) {domain_name = "com.microsoft", function_name = "DynamicQuantizeLSTM", hidden_size = 1 : si64} : (tensor<2x1x1xf32>, tensor<1x1x4xi8>, tensor<1x1x4xi8>, none, none, none, none, none, tensor<1xf32>, tensor<1xi8>, tensor<1xf32>, tensor<1xi8>) -> (tensor<2x1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>)
  return %y : tensor<2x1x1x1xf32>
}

// -----

// com.microsoft QAttention (quantize_dynamic's Attention, after DynamicQuantizeLinear):
// Q|K|V = float((x - x_zp) @ (w - w_zp)) (an int32 dot_general) * (x_scale * w_scale)
// + bias, then as Attention.

// CHECK-LABEL: func.func @q_attention
// CHECK:         stablehlo.dot_general %{{.*}}, contracting_dims = [2] x [0] : (tensor<1x2x2xi32>, tensor<2x6xi32>) -> tensor<1x2x6xi32>
// CHECK:         stablehlo.exponential
// CHECK-NOT:     onnx.
func.func @q_attention(%x: tensor<1x2x2xui8>, %xz: tensor<ui8>) -> tensor<1x2x2xf32> {
  %w = onnx.Constant dense<[[1, 0, 1, 0, 1, 2], [0, 1, 0, 1, 3, 4]]> : tensor<2x6xi8>
  %b = onnx.Constant dense<0.5> : tensor<6xf32>
  %xs = onnx.Constant dense<0.25> : tensor<f32>
  %ws = onnx.Constant dense<0.5> : tensor<f32>
  %wz = onnx.Constant dense<0> : tensor<i8>
  %none = "onnx.NoValue"() {value} : () -> none
  %y = "onnx.Custom"(%x, %w, %b, %xs, %ws, %none, %xz, %wz) {domain_name = "com.microsoft", function_name = "QAttention", num_heads = 2 : si64} : (tensor<1x2x2xui8>, tensor<2x6xi8>, tensor<6xf32>, tensor<f32>, tensor<f32>, none, tensor<ui8>, tensor<i8>) -> tensor<1x2x2xf32>
  return %y : tensor<1x2x2xf32>
}
