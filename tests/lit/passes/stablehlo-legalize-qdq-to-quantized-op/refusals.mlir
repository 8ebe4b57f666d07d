// RUN: qcomp-opt %s --stablehlo-legalize-qdq-to-quantized-op --split-input-file | FileCheck %s

// Patterns this pass leaves as they are. The first group is refused by upstream
// too (the shape of the pattern is wrong); the second would be fused by upstream
// into an op that is not legal under the StableHLO spec.

// --- Shape of the pattern -----------------------------------------------------

// The quantized value is a function argument: nothing to fuse.

// CHECK-LABEL: func.func @operand_not_defined_by_op
// CHECK-NEXT:    stablehlo.uniform_quantize %arg0
func.func @operand_not_defined_by_op(%arg0: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

// One operand of the float op is not dequantized.

// CHECK-LABEL: func.func @operand_not_dequantized
// CHECK:         stablehlo.add %arg0, %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @operand_not_dequantized(%arg0: tensor<4xf32>, %arg1: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  %0 = stablehlo.uniform_dequantize %arg1 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
  %1 = stablehlo.add %arg0, %0 : tensor<4xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %2 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

// Ops with regions are not fused.

// CHECK-LABEL: func.func @op_with_region
// CHECK:         stablehlo.reduce
// CHECK:         stablehlo.uniform_quantize
func.func @op_with_region(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<!quant.uniform<i8:f32, 0.5>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<!quant.uniform<i8:f32, 0.5>>) -> tensor<f32>
  %2 = "stablehlo.reduce"(%0, %1) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = stablehlo.add %a, %b : tensor<f32>
    "stablehlo.return"(%s) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<f32>) -> tensor<!quant.uniform<i8:f32, 0.5>>
  func.return %3 : tensor<!quant.uniform<i8:f32, 0.5>>
}

// -----

// uniform_quantize of a quantized value is a requantization, not a QDQ pattern.

// CHECK-LABEL: func.func @requantize
// CHECK-NEXT:    stablehlo.uniform_quantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 5.000000e-01>>) -> tensor<4x!quant.uniform<i8:f32, 2.500000e-01>>
func.func @requantize(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.25>> {
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.25>>
  func.return %0 : tensor<4x!quant.uniform<i8:f32, 0.25>>
}

// --- Not a legal quantized op (upstream fuses these) ----------------------------

// -----

// dot_general needs rhs zero points 0 (spec C15).

// CHECK-LABEL: func.func @dot_general_rhs_zero_point
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}}, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @dot_general_rhs_zero_point(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>, %arg1: tensor<3x4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2x4x!quant.uniform<i32:f32, 0.25>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<2x3xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<3x4x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<3x4xf32>
  %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i32:f32, 0.25>>
  func.return %3 : tensor<2x4x!quant.uniform<i32:f32, 0.25>>
}

// -----

// A per-axis rhs must not be quantized along a contracting dimension (spec C16).

// CHECK-LABEL: func.func @dot_general_rhs_axis_contracted
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
func.func @dot_general_rhs_axis_contracted(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<3x4x!quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<2x4x!quant.uniform<i32:f32, 0.25>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<3x4x!quant.uniform<i8:f32:0, {0.5, 0.25, 1.0}>>) -> tensor<3x4xf32>
  %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x4xf32>) -> tensor<2x4x!quant.uniform<i32:f32, 0.25>>
  func.return %3 : tensor<2x4x!quant.uniform<i32:f32, 0.25>>
}

// -----

// A per-tensor rhs needs a per-tensor result (spec C19).

// CHECK-LABEL: func.func @dot_general_per_axis_result_per_tensor_rhs
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
func.func @dot_general_per_axis_result_per_tensor_rhs(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.25, 0.5}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<3x2xf32>
  %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i32:f32:1, {0.25, 0.5}>>
  func.return %3 : tensor<2x2x!quant.uniform<i32:f32:1, {0.25, 0.5}>>
}

// -----

// lhs of a contraction must be per-tensor.

// CHECK-LABEL: func.func @dot_general_per_axis_lhs
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
func.func @dot_general_per_axis_lhs(%arg0: tensor<2x3x!quant.uniform<i8:f32:0, {0.5, 0.25}>>, %arg1: tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.25>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x3xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<3x2xf32>
  %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i32:f32, 0.25>>
  func.return %3 : tensor<2x2x!quant.uniform<i32:f32, 0.25>>
}

// -----

// lhs and rhs of a contraction must share a storage type (spec C17).

// CHECK-LABEL: func.func @dot_general_storage_mismatch
// CHECK:         stablehlo.dot_general %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
func.func @dot_general_storage_mismatch(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<3x2x!quant.uniform<i16:f32, 0.5>>) -> tensor<2x2x!quant.uniform<i32:f32, 0.25>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<3x2x!quant.uniform<i16:f32, 0.5>>) -> tensor<3x2xf32>
  %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i32:f32, 0.25>>
  func.return %3 : tensor<2x2x!quant.uniform<i32:f32, 0.25>>
}

// -----

// A convolution kernel may be per-axis only along its output feature dimension
// (spec C29); here it is quantized along the input feature dimension i (2).

// CHECK-LABEL: func.func @convolution_kernel_axis
// CHECK:         stablehlo.convolution(%{{.*}}, %{{.*}}) {{.*}} -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @convolution_kernel_axis(%arg0: tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<2x2x2x2x!quant.uniform<i8:f32:2, {0.5, 0.25}>>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 4.0>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<1x3x3x2x!quant.uniform<i8:f32, 0.5>>) -> tensor<1x3x3x2xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<2x2x2x2x!quant.uniform<i8:f32:2, {0.5, 0.25}>>) -> tensor<2x2x2x2xf32>
  %2 = stablehlo.convolution(%0, %1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x3x3x2xf32>, tensor<2x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2x!quant.uniform<i8:f32, 4.0>>
  func.return %3 : tensor<1x2x2x2x!quant.uniform<i8:f32, 4.0>>
}

// -----

// Elementwise ops other than add take per-tensor types only.

// CHECK-LABEL: func.func @multiply_per_axis
// CHECK:         stablehlo.multiply %{{.*}}, %{{.*}} : tensor<2x3xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @multiply_per_axis(%arg0: tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>, %arg1: tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>) -> tensor<2x3xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<2x3xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32, 0.5>>
  func.return %3 : tensor<2x3x!quant.uniform<i8:f32, 0.5>>
}

// -----

// add's result is per-axis exactly when an operand is (spec add C5).

// CHECK-LABEL: func.func @add_per_axis_result_only
// CHECK:         stablehlo.add %{{.*}}, %{{.*}} : tensor<2x3xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @add_per_axis_result_only(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5>>, %arg1: tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xf32>
  %1 = stablehlo.uniform_dequantize %arg1 : (tensor<2x3x!quant.uniform<i8:f32, 0.5>>) -> tensor<2x3xf32>
  %2 = stablehlo.add %0, %1 : tensor<2x3xf32>
  %3 = stablehlo.uniform_quantize %2 : (tensor<2x3xf32>) -> tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>
  func.return %3 : tensor<2x3x!quant.uniform<i8:f32:1, {0.5, 0.25, 1.0}>>
}

// -----

// Elementwise operands and result must agree on storage type (here i8 vs i16).

// CHECK-LABEL: func.func @abs_storage_change
// CHECK:         stablehlo.abs %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @abs_storage_change(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i16:f32, 0.5>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
  %1 = stablehlo.abs %0 : tensor<4xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i16:f32, 0.5>>
  func.return %2 : tensor<4x!quant.uniform<i16:f32, 0.5>>
}

// -----

// ...and on the storage range (here i8 vs i8<-127:127>).

// CHECK-LABEL: func.func @abs_storage_range_change
// CHECK:         stablehlo.abs %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @abs_storage_range_change(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
  %1 = stablehlo.abs %0 : tensor<4xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>>
  func.return %2 : tensor<4x!quant.uniform<i8<-127:127>:f32, 0.5>>
}

// -----

// A data-movement op between different quantizations: the quantized reshape would
// keep the stored integers while QDQ requantizes them, so they are not the same.

// CHECK-LABEL: func.func @reshape_requantizes
// CHECK:         stablehlo.reshape %{{.*}} : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @reshape_requantizes(%arg0: tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<6x!quant.uniform<i8:f32, 0.25>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32, 0.5:3>>) -> tensor<2x3xf32>
  %1 = stablehlo.reshape %0 : (tensor<2x3xf32>) -> tensor<6xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<6xf32>) -> tensor<6x!quant.uniform<i8:f32, 0.25>>
  func.return %2 : tensor<6x!quant.uniform<i8:f32, 0.25>>
}

// -----

// Ops with no quantized form in the spec (convert, custom_call, ...) stay float.

// CHECK-LABEL: func.func @no_quantized_form
// CHECK:         stablehlo.custom_call @foo(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @no_quantized_form(%arg0: tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f32, 0.5>>) -> tensor<4xf32>
  %1 = stablehlo.custom_call @foo(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %2 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

// Every quantized type must have the float op's type as expressed type: here the
// op computes in f32 but the inputs are expressed in f16 (through a convert).

// CHECK-LABEL: func.func @expressed_type_mismatch
// CHECK:         stablehlo.convert
// CHECK:         stablehlo.uniform_quantize
func.func @expressed_type_mismatch(%arg0: tensor<4x!quant.uniform<i8:f16, 0.5>>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8:f16, 0.5>>) -> tensor<4xf16>
  %1 = stablehlo.convert %0 : (tensor<4xf16>) -> tensor<4xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>>
  func.return %2 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

// -----

// A per-axis transpose whose result quantizes the wrong dimension: after
// dims = [1, 0] the operand's dimension 0 is the result's dimension 1, not 0
// (spec transpose C4).

// CHECK-LABEL: func.func @transpose_wrong_axis
// CHECK:         stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @transpose_wrong_axis(%arg0: tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x2xf32>
  %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
  func.return %2 : tensor<2x2x!quant.uniform<i8:f32:0, {0.5, 0.25}>>
}

// -----

// A reshape that merges the quantized dimension with its neighbour (2x3 -> 6):
// no per-axis result type can keep each element's scale (spec reshape C3).

// CHECK-LABEL: func.func @reshape_merges_axis
// CHECK:         stablehlo.reshape %{{.*}} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @reshape_merges_axis(%arg0: tensor<2x3x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x3x!quant.uniform<i8:f32:0, {0.5, 0.25}>>) -> tensor<2x3xf32>
  %1 = stablehlo.reshape %0 : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<3x2xf32>) -> tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  func.return %2 : tensor<3x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
}

// -----

// Slicing takes per-tensor quantization only.

// CHECK-LABEL: func.func @slice_per_axis
// CHECK:         stablehlo.slice
// CHECK-NEXT:    stablehlo.uniform_quantize
func.func @slice_per_axis(%arg0: tensor<4x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>> {
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>) -> tensor<4x2xf32>
  %1 = stablehlo.slice %0 [0:2, 0:2] : (tensor<4x2xf32>) -> tensor<2x2xf32>
  %2 = stablehlo.uniform_quantize %1 : (tensor<2x2xf32>) -> tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
  func.return %2 : tensor<2x2x!quant.uniform<i8:f32:1, {0.5, 0.25}>>
}
