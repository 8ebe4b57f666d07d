// RUN: qcomp-opt %s --normalize-quant-types --split-input-file | FileCheck %s

// normalize-quant-types rewrites sub-channel types that say no more than a
// per-tensor or per-axis type into that type, everywhere a tensor type appears:
// function signatures (also of declarations), block arguments and op results.

// One scale/zero-point pair: per-tensor. `{}` (no blocked dimension) and a block
// that covers the whole dimension both qualify.

// CHECK-LABEL: func.func private @callee
// CHECK-SAME:    (tensor<?x?x!quant.uniform<i8:f32, 2.000000e+00:127>>, tensor<?x?x!quant.uniform<i8:f32, 2.000000e+00:127>>) -> tensor<?x?x!quant.uniform<i8:f32, 2.000000e+00:127>>
// CHECK-LABEL: func.func @to_per_tensor
// CHECK-SAME:    (%[[A:.*]]: tensor<?x?x!quant.uniform<i8:f32, 2.000000e+00:127>>, %[[B:.*]]: tensor<?x?x!quant.uniform<i8:f32, 2.000000e+00:127>>)
// CHECK-NEXT:    %[[C:.*]] = "test.op"(%[[A]]) : (tensor<?x?x!quant.uniform<i8:f32, 2.000000e+00:127>>) -> tensor<?x?x!quant.uniform<i8:f32, 2.000000e+00:127>>
// CHECK-NEXT:    %[[R:.*]] = call @callee(%[[C]], %[[B]]) : ({{.*}}) -> tensor<?x?x!quant.uniform<i8:f32, 2.000000e+00:127>>
// CHECK-NEXT:    return %[[R]] : tensor<?x?x!quant.uniform<i8:f32, 2.000000e+00:127>>
func.func private @callee(tensor<?x?x!quant.uniform<i8:f32:{}, {{2.0:127}}>>, tensor<?x?x!quant.uniform<i8:f32:{0:1, 1:4}, {{2.0:127}}>>) -> tensor<?x?x!quant.uniform<i8:f32:{}, {{2.0:127}}>>

func.func @to_per_tensor(%arg0: tensor<?x?x!quant.uniform<i8:f32:{}, {{2.0:127}}>>, %arg1: tensor<?x?x!quant.uniform<i8:f32:{0:1, 1:4}, {{2.0:127}}>>) -> tensor<?x?x!quant.uniform<i8:f32:{}, {{2.0:127}}>> {
  %0 = "test.op"(%arg0) : (tensor<?x?x!quant.uniform<i8:f32:{}, {{2.0:127}}>>) -> tensor<?x?x!quant.uniform<i8:f32:{}, {{2.0:127}}>>
  %1 = func.call @callee(%0, %arg1) : (tensor<?x?x!quant.uniform<i8:f32:{}, {{2.0:127}}>>, tensor<?x?x!quant.uniform<i8:f32:{0:1, 1:4}, {{2.0:127}}>>) -> tensor<?x?x!quant.uniform<i8:f32:{}, {{2.0:127}}>>
  return %1 : tensor<?x?x!quant.uniform<i8:f32:{}, {{2.0:127}}>>
}

// -----

// Parameters that vary along exactly one dimension, with block size 1 there:
// per-axis on that dimension, parameters in order. Storage range and expressed
// type are kept.

// CHECK-LABEL: func.func @to_per_axis
// CHECK-SAME:    (%[[A:.*]]: tensor<2x4x!quant.uniform<i8<-127:127>:f32:0, {2.000000e+00:12,3.000000e+00:-1}>>)
// CHECK-SAME:    -> tensor<2x4x!quant.uniform<i8<-127:127>:f32:0, {2.000000e+00:12,3.000000e+00:-1}>>
// CHECK-NEXT:    "test.op"(%[[A]]) : (tensor<2x4x!quant.uniform<i8<-127:127>:f32:0, {2.000000e+00:12,3.000000e+00:-1}>>) -> tensor<2x4x!quant.uniform<i8<-127:127>:f32:0, {2.000000e+00:12,3.000000e+00:-1}>>
func.func @to_per_axis(%arg0: tensor<2x4x!quant.uniform<i8<-127:127>:f32:{0:1, 1:4}, {{2.0:12}, {3.0:-1}}>>) -> tensor<2x4x!quant.uniform<i8<-127:127>:f32:{0:1, 1:4}, {{2.0:12}, {3.0:-1}}>> {
  %0 = "test.op"(%arg0) : (tensor<2x4x!quant.uniform<i8<-127:127>:f32:{0:1, 1:4}, {{2.0:12}, {3.0:-1}}>>) -> tensor<2x4x!quant.uniform<i8<-127:127>:f32:{0:1, 1:4}, {{2.0:12}, {3.0:-1}}>>
  return %0 : tensor<2x4x!quant.uniform<i8<-127:127>:f32:{0:1, 1:4}, {{2.0:12}, {3.0:-1}}>>
}

// -----

// The varying dimension may be any one: here dimension 1 of a 1x3 parameter tensor.

// CHECK-LABEL: func.func @to_per_axis_dim_1
// CHECK-SAME:    tensor<5x3x!quant.uniform<u8:f16:1, {1.000000e+00:1,5.000000e-01:2,2.500000e-01:3}>>
func.func @to_per_axis_dim_1(%arg0: tensor<5x3x!quant.uniform<u8:f16:{1:1}, {{1.0:1, 0.5:2, 0.25:3}}>>) {
  return
}

// -----

// Left alone: parameters that vary along two dimensions are truly sub-channel.

// CHECK-LABEL: func.func @stays_sub_channel
// CHECK-SAME:    tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{\{}}{1.000000e+00:1, 2.000000e+00:2}, {3.000000e+00:3, 4.000000e+00:4}}>>
func.func @stays_sub_channel(%arg0: tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>>) {
  return
}

// -----

// Left alone (unlike upstream): one varying dimension, but with block size 2 each
// scale covers two elements of it, which no per-axis type can express. Upstream
// would produce a per-axis type with 2 scales on a dimension of size 4.

// CHECK-LABEL: func.func @stays_blocked
// CHECK-SAME:    tensor<1x4x!quant.uniform<i8:f32:{1:2}, {{\{}}{2.000000e+00:12, 3.000000e+00:13}}>>
func.func @stays_blocked(%arg0: tensor<1x4x!quant.uniform<i8:f32:{1:2}, {{2.0:12, 3.0:13}}>>) {
  return
}

// -----

// Per-tensor and per-axis types, and non-quantized types, are unchanged.

// CHECK-LABEL: func.func @unchanged
// CHECK-SAME:    (%{{.*}}: tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>, %{{.*}}: tensor<2x!quant.uniform<i8:f32:0, {5.000000e-01,2.500000e-01}>>, %{{.*}}: tensor<2xf32>)
func.func @unchanged(%arg0: tensor<2x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>, %arg2: tensor<2xf32>) {
  return
}

// -----

// The storage keeps its spelling (`ui8`, `si4`) and its range. (A sub-channel type with
// float storage normalizes the same way, tests/passes/test_normalize_float_storage.py:
// upstream MLIR aborts on reading one, so it is not a lit input.)

// CHECK-LABEL: func.func @keeps_storage
// CHECK-SAME:    tensor<4x!quant.uniform<ui8<1:200>:f32, 2.000000e+00:100>>
// CHECK-SAME:    tensor<2x3x!quant.uniform<si4:f16:1, {5.000000e-01,2.500000e-01,1.000000e+00:7}>>
func.func @keeps_storage(%arg0: tensor<4x!quant.uniform<ui8<1:200>:f32:{0:4}, {2.0:100}>>,
                         %arg1: tensor<2x3x!quant.uniform<si4:f16:{1:1}, {{0.5, 0.25, 1.0:7}}>>) {
  return
}
