// RUN: qcomp-opt %s --strip-func-quant-types --split-input-file -allow-unregistered-dialect | FileCheck %s

// strip-func-quant-types gives functions storage types at their boundaries:
// quantized arguments and results (scalars or tensors, per-tensor, per-axis or
// sub-channel) take their storage integer type, and quant.scast ops keep the body
// working on quantized values. The integers themselves do not change.

// Arguments: the entry block gets storage-typed arguments, cast back to the
// quantized types first thing; non-quantized arguments stay.

// CHECK-LABEL: func.func @strip_arguments
// CHECK-SAME:    (%[[A:.*]]: i8, %[[B:.*]]: tensor<4xi16>, %[[C:.*]]: f32)
// CHECK-NEXT:    %[[QA:.*]] = quant.scast %[[A]] : i8 to !quant.uniform<i8:f32, 2.000000e+00:10>
// CHECK-NEXT:    %[[QB:.*]] = quant.scast %[[B]] : tensor<4xi16> to tensor<4x!quant.uniform<i16:f32, 3.000000e+00:128>>
// CHECK-NEXT:    "test.op"(%[[QA]], %[[QB]], %[[C]])
func.func @strip_arguments(%arg0: !quant.uniform<i8:f32, 2.0:10>, %arg1: tensor<4x!quant.uniform<i16:f32, 3.0:128>>, %arg2: f32) {
  "test.op"(%arg0, %arg1, %arg2) : (!quant.uniform<i8:f32, 2.0:10>, tensor<4x!quant.uniform<i16:f32, 3.0:128>>, f32) -> ()
  return
}

// -----

// Results: each quantized operand of func.return is cast to its storage type.
// Per-axis and unsigned (u8 → ui8 on tensors) storage work the same way.

// CHECK-LABEL: func.func @strip_results
// CHECK-SAME:    () -> (tensor<4xi8>, tensor<2x3xui8>, tensor<4xf32>)
// CHECK-NEXT:    %[[R0:.*]] = "test.op"() : () -> tensor<4x!quant.uniform<i8:f32, 2.000000e+00:10>>
// CHECK-NEXT:    %[[R1:.*]] = "test.op"() : () -> tensor<2x3x!quant.uniform<u8:f32:1, {1.000000e+00:1,2.000000e+00:2,3.000000e+00:3}>>
// CHECK-NEXT:    %[[R2:.*]] = "test.op"() : () -> tensor<4xf32>
// CHECK-NEXT:    %[[S0:.*]] = quant.scast %[[R0]] : tensor<4x!quant.uniform<i8:f32, 2.000000e+00:10>> to tensor<4xi8>
// CHECK-NEXT:    %[[S1:.*]] = quant.scast %[[R1]] : tensor<2x3x!quant.uniform<u8:f32:1, {{.*}}>> to tensor<2x3xui8>
// CHECK-NEXT:    return %[[S0]], %[[S1]], %[[R2]] : tensor<4xi8>, tensor<2x3xui8>, tensor<4xf32>
func.func @strip_results() -> (tensor<4x!quant.uniform<i8:f32, 2.0:10>>, tensor<2x3x!quant.uniform<u8:f32:1, {1.0:1, 2.0:2, 3.0:3}>>, tensor<4xf32>) {
  %0 = "test.op"() : () -> tensor<4x!quant.uniform<i8:f32, 2.0:10>>
  %1 = "test.op"() : () -> tensor<2x3x!quant.uniform<u8:f32:1, {1.0:1, 2.0:2, 3.0:3}>>
  %2 = "test.op"() : () -> tensor<4xf32>
  return %0, %1, %2 : tensor<4x!quant.uniform<i8:f32, 2.0:10>>, tensor<2x3x!quant.uniform<u8:f32:1, {1.0:1, 2.0:2, 3.0:3}>>, tensor<4xf32>
}

// -----

// Calls: the declaration's signature is stripped, the call passes storage values
// and its storage results are cast back for the quantized uses.

// CHECK-LABEL: func.func private @callee
// CHECK-SAME:    (tensor<4xi8>, tensor<?xi16>) -> (tensor<4xi8>, tensor<4xf32>)
// CHECK-LABEL: func.func @strip_call
// CHECK-NEXT:    %[[A:.*]] = "test.op"() : () -> tensor<4x!quant.uniform<i8:f32, 2.000000e+00:10>>
// CHECK-NEXT:    %[[B:.*]] = "test.op"() : () -> tensor<?x!quant.uniform<i16:f32, 3.000000e+00:128>>
// CHECK-NEXT:    %[[SA:.*]] = quant.scast %[[A]] : tensor<4x!quant.uniform<i8:f32, 2.000000e+00:10>> to tensor<4xi8>
// CHECK-NEXT:    %[[SB:.*]] = quant.scast %[[B]] : tensor<?x!quant.uniform<i16:f32, 3.000000e+00:128>> to tensor<?xi16>
// CHECK-NEXT:    %[[R:[^ ,:]*]]:2 = call @callee(%[[SA]], %[[SB]]) : (tensor<4xi8>, tensor<?xi16>) -> (tensor<4xi8>, tensor<4xf32>)
// CHECK-NEXT:    %[[QR:.*]] = quant.scast %[[R]]#0 : tensor<4xi8> to tensor<4x!quant.uniform<i8:f32, 2.000000e+00:10>>
// CHECK-NEXT:    "test.op"(%[[QR]], %[[R]]#1)
func.func private @callee(tensor<4x!quant.uniform<i8:f32, 2.0:10>>, tensor<?x!quant.uniform<i16:f32, 3.0:128>>) -> (tensor<4x!quant.uniform<i8:f32, 2.0:10>>, tensor<4xf32>)

func.func @strip_call() {
  %0 = "test.op"() : () -> tensor<4x!quant.uniform<i8:f32, 2.0:10>>
  %1 = "test.op"() : () -> tensor<?x!quant.uniform<i16:f32, 3.0:128>>
  %2:2 = func.call @callee(%0, %1) : (tensor<4x!quant.uniform<i8:f32, 2.0:10>>, tensor<?x!quant.uniform<i16:f32, 3.0:128>>) -> (tensor<4x!quant.uniform<i8:f32, 2.0:10>>, tensor<4xf32>)
  "test.op"(%2#0, %2#1) : (tensor<4x!quant.uniform<i8:f32, 2.0:10>>, tensor<4xf32>) -> ()
  return
}

// -----

// Sub-channel types strip to their storage type too.

// CHECK-LABEL: func.func @strip_sub_channel
// CHECK-SAME:    (%[[A:.*]]: tensor<4x6xi8>) -> tensor<4x6xi8>
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %[[A]] : tensor<4x6xi8> to tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{.*}}>>
// CHECK-NEXT:    %[[S:.*]] = quant.scast %[[Q]] : tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{.*}}>> to tensor<4x6xi8>
// CHECK-NEXT:    return %[[S]] : tensor<4x6xi8>
func.func @strip_sub_channel(%arg0: tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>>) -> tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>> {
  return %arg0 : tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>>
}

// -----

// Functions without quantized types in their signature are left as they are.

// CHECK-LABEL: func.func @unchanged
// CHECK-SAME:    (%[[A:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[A]] : tensor<4xf32>
func.func @unchanged(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  return %arg0 : tensor<4xf32>
}

// -----

// Unranked tensors, as upstream's type converter (it takes every TensorType): the
// storage type on an unranked tensor.

// CHECK-LABEL: func.func @strip_unranked
// CHECK-SAME:    (%arg0: tensor<*xi8>) -> tensor<*xi8>
// CHECK-NEXT:    %0 = quant.scast %arg0 : tensor<*xi8> to tensor<*x!quant.uniform<i8:f32:1, {2.000000e+00,3.000000e+00}>>
// CHECK-NEXT:    %1 = quant.scast %0 : tensor<*x!quant.uniform<i8:f32:1, {2.000000e+00,3.000000e+00}>> to tensor<*xi8>
// CHECK-NEXT:    return %1 : tensor<*xi8>
func.func @strip_unranked(%arg0: tensor<*x!quant.uniform<i8:f32:1, {2.0, 3.0}>>) -> tensor<*x!quant.uniform<i8:f32:1, {2.0, 3.0}>> {
  return %arg0 : tensor<*x!quant.uniform<i8:f32:1, {2.0, 3.0}>>
}
