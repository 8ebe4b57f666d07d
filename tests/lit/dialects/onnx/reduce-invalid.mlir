// RUN: qcomp-opt %s --split-input-file --verify-diagnostics

func.func @axes_twice(%x: tensor<2x3xf32>, %axes: tensor<1xi64>) -> tensor<2x1xf32> {
  // expected-error@+1 {{'onnx.ReduceMin' op takes axes as an input or as an attribute, not both}}
  %r = "onnx.ReduceMin"(%x, %axes) {axes = [1]} : (tensor<2x3xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// -----

func.func @axes_type(%x: tensor<2x3xf32>, %axes: tensor<1xi32>) -> tensor<2x1xf32> {
  // expected-error@+1 {{'onnx.ReduceMax' operand #1 must be a tensor of one of tensor(int64), but got 'tensor<1xi32>'}}
  %r = "onnx.ReduceMax"(%x, %axes) : (tensor<2x3xf32>, tensor<1xi32>) -> tensor<2x1xf32>
  return %r : tensor<2x1xf32>
}

// -----

func.func @min_types(%a: tensor<2xf32>, %b: tensor<2xf16>) -> tensor<2xf32> {
  // expected-error@+1 {{'onnx.Min' op inputs and result must have one element type}}
  %r = "onnx.Min"(%a, %b) : (tensor<2xf32>, tensor<2xf16>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

func.func @round_int(%a: tensor<2xi32>) -> tensor<2xi32> {
  // expected-error@+1 {{'onnx.Round' operand #0 must be a tensor of one of tensor(bfloat16), tensor(double), tensor(float), tensor(float16), but got 'tensor<2xi32>'}}
  %r = "onnx.Round"(%a) : (tensor<2xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
