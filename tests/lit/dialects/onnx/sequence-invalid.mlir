// RUN: qcomp-opt %s --split-input-file --verify-diagnostics

// LSTM's and the com.microsoft sequence ops' verifiers: attributes and operand shapes.

func.func @lstm_w_shape(%x: tensor<2x1x3xf32>, %w: tensor<1x8x3xf32>, %r: tensor<1x4x1xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.LSTM' op W must have shape [1, 4, 3], got [1, 8, 3]}}
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %r, %none, %none, %none, %none, %none) {hidden_size = 1 : si64} : (tensor<2x1x3xf32>, tensor<1x8x3xf32>, tensor<1x4x1xf32>, none, none, none, none, none) -> (tensor<2x1x1x1xf32>, none, none)
  return
}

// -----

func.func @lstm_direction(%x: tensor<2x1x1xf32>, %w: tensor<1x4x1xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.LSTM' op direction must be forward, reverse or bidirectional, got "backward"}}
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %w, %none, %none, %none, %none, %none) {hidden_size = 1 : si64, direction = "backward"} : (tensor<2x1x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>, none, none, none, none, none) -> (tensor<2x1x1x1xf32>, none, none)
  return
}

// -----

func.func @lstm_activation(%x: tensor<2x1x1xf32>, %w: tensor<1x4x1xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.LSTM' op activation 'Gelu' is not one of Sigmoid, Tanh, Relu, HardSigmoid, LeakyRelu, Affine, ThresholdedRelu, ScaledTanh, Elu, Softsign, Softplus}}
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %w, %none, %none, %none, %none, %none) {hidden_size = 1 : si64, activations = ["Sigmoid", "Gelu", "Tanh"]} : (tensor<2x1x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>, none, none, none, none, none) -> (tensor<2x1x1x1xf32>, none, none)
  return
}

// -----

func.func @lstm_result(%x: tensor<2x1x1xf32>, %w: tensor<1x4x1xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.LSTM' op result shape [2, 1, 1, 2] is not [2, 1, 1, 1]}}
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %w, %none, %none, %none, %none, %none) {hidden_size = 1 : si64} : (tensor<2x1x1xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>, none, none, none, none, none) -> (tensor<2x1x1x2xf32>, none, none)
  return
}

// -----

func.func @attention_heads(%x: tensor<1x2x4xf32>, %w: tensor<4x12xf32>) {
  // expected-error @+1 {{'onnx.Custom' op Attention: hidden sizes [4, 4, 4] are not multiples of num_heads 3}}
  %y = "onnx.Custom"(%x, %w) {domain_name = "com.microsoft", function_name = "Attention", num_heads = 3 : si64} : (tensor<1x2x4xf32>, tensor<4x12xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

func.func @attention_weights(%x: tensor<1x2x4xf32>, %w: tensor<3x12xf32>) {
  // expected-error @+1 {{'onnx.Custom' op weights must have shape [4, 12], got [3, 12]}}
  %y = "onnx.Custom"(%x, %w) {domain_name = "com.microsoft", function_name = "Attention", num_heads = 2 : si64} : (tensor<1x2x4xf32>, tensor<3x12xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

func.func @embed_gamma(%ids: tensor<1x2xi32>, %t: tensor<5x4xf32>, %g: tensor<3xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Custom' op gamma must have shape [4], got [3]}}
  %y, %m = "onnx.Custom"(%ids, %none, %t, %t, %none, %g, %g) {domain_name = "com.microsoft", function_name = "EmbedLayerNormalization"} : (tensor<1x2xi32>, none, tensor<5x4xf32>, tensor<5x4xf32>, none, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x2x4xf32>, tensor<1xi32>)
  return
}

// -----

func.func @dq_lstm_inputs(%x: tensor<2x1x1xf32>, %w: tensor<1x1x4xi8>) {
  // expected-error @+1 {{'onnx.Custom' op DynamicQuantizeLSTM takes 12 to 12 inputs, got 3}}
  %y, %yh, %yc = "onnx.Custom"(%x, %w, %w) {domain_name = "com.microsoft", function_name = "DynamicQuantizeLSTM", hidden_size = 1 : si64} : (tensor<2x1x1xf32>, tensor<1x1x4xi8>, tensor<1x1x4xi8>) -> (tensor<2x1x1x1xf32>, tensor<1x1x1xf32>, tensor<1x1x1xf32>)
  return
}

// -----

func.func @attention_qkv_sizes(%x: tensor<1x2x4xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+1 {{'onnx.Custom' op Attention: qkv_hidden_sizes [1, 1, 4] do not add up to the weights' 3 columns}}
  %y = "onnx.Custom"(%x, %w) {domain_name = "com.microsoft", function_name = "Attention", num_heads = 1 : si64, qkv_hidden_sizes = [1, 1, 4]} : (tensor<1x2x4xf32>, tensor<4x3xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

func.func @embed_epsilon_kind(%ids: tensor<1x2xi32>, %t: tensor<5x4xf32>, %g: tensor<4xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Custom' op EmbedLayerNormalization attribute 'epsilon' must be FLOAT}}
  %y, %m = "onnx.Custom"(%ids, %none, %t, %t, %none, %g, %g) {domain_name = "com.microsoft", function_name = "EmbedLayerNormalization", epsilon = [1, 2]} : (tensor<1x2xi32>, none, tensor<5x4xf32>, tensor<5x4xf32>, none, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x2x4xf32>, tensor<1xi32>)
  return
}

// -----

func.func @lstm_no_r(%x: tensor<2x1x1xf32>, %w: tensor<1x4x1xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.LSTM' operand #2 must be a tensor of one of}}
  %y, %yh, %yc = "onnx.LSTM"(%x, %w, %none, %none, %none, %none, %none, %none) {hidden_size = 1 : si64} : (tensor<2x1x1xf32>, tensor<1x4x1xf32>, none, none, none, none, none, none) -> (tensor<2x1x1x1xf32>, none, none)
  return
}

// -----

func.func @attention_past_and_bias(%x: tensor<1x2x4xf32>, %w: tensor<4x12xf32>, %p: tensor<2x1x2x3x2xf32>, %ab: tensor<1x1x2x5xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Custom' op Attention cannot have both past and attention_bias}}
  %y:2 = "onnx.Custom"(%x, %w, %none, %none, %p, %ab) {domain_name = "com.microsoft", function_name = "Attention", num_heads = 2 : si64} : (tensor<1x2x4xf32>, tensor<4x12xf32>, none, none, tensor<2x1x2x3x2xf32>, tensor<1x1x2x5xf32>) -> (tensor<1x2x4xf32>, tensor<2x1x2x5x2xf32>)
  return
}

// -----

func.func @attention_past_without_present(%x: tensor<1x2x4xf32>, %w: tensor<4x12xf32>, %p: tensor<2x1x2x3x2xf32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Custom' op Attention with past needs the present output (onnxruntime: "Expect to have present state output when past state input is given")}}
  %y = "onnx.Custom"(%x, %w, %none, %none, %p) {domain_name = "com.microsoft", function_name = "Attention", num_heads = 2 : si64} : (tensor<1x2x4xf32>, tensor<4x12xf32>, none, none, tensor<2x1x2x3x2xf32>) -> tensor<1x2x4xf32>
  return
}

// -----

func.func @attention_mask_shape(%x: tensor<1x2x4xf32>, %w: tensor<4x12xf32>, %m: tensor<1x3xi32>) {
  %none = "onnx.NoValue"() {value} : () -> none
  // expected-error @+1 {{'onnx.Custom' op Attention: mask_index of shape [1, 3] is none of [B], [2B], [3B + 2], [B, T], [B, 1], [B, S, T], [B, 1, M, M] (M >= T, not unidirectional)}}
  %y = "onnx.Custom"(%x, %w, %none, %m) {domain_name = "com.microsoft", function_name = "Attention", num_heads = 2 : si64} : (tensor<1x2x4xf32>, tensor<4x12xf32>, none, tensor<1x3xi32>) -> tensor<1x2x4xf32>
  return
}
