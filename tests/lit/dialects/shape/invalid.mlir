// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// tensor.reshape's and tensor.from_elements' verifiers, in MLIR's words (jaxlib's MLIR
// gives these messages).

func.func @element_types(%arg0: tensor<*xf32>, %arg1: tensor<1xindex>) {
  // expected-error@+1 {{'tensor.reshape' op element types of source and destination tensor types should be the same}}
  %0 = tensor.reshape %arg0(%arg1) : (tensor<*xf32>, tensor<1xindex>) -> tensor<?xi8>
  return
}

// -----

func.func @element_count(%arg0: tensor<2x3xf32>, %arg1: tensor<1xindex>) {
  // expected-error@+1 {{'tensor.reshape' op source and destination tensor should have the same number of elements}}
  %0 = tensor.reshape %arg0(%arg1) : (tensor<2x3xf32>, tensor<1xindex>) -> tensor<5xf32>
  return
}

// -----

func.func @dynamic_length_to_ranked(%arg0: tensor<*xf32>, %arg1: tensor<?xindex>) {
  // expected-error@+1 {{'tensor.reshape' op cannot use shape operand with dynamic length to reshape to statically-ranked tensor type}}
  %0 = tensor.reshape %arg0(%arg1) : (tensor<*xf32>, tensor<?xindex>) -> tensor<?xf32>
  return
}

// -----

func.func @length_rank(%arg0: tensor<*xf32>, %arg1: tensor<2xindex>) {
  // expected-error@+1 {{'tensor.reshape' op length of shape operand differs from the result's tensor rank}}
  %0 = tensor.reshape %arg0(%arg1) : (tensor<*xf32>, tensor<2xindex>) -> tensor<?xf32>
  return
}
