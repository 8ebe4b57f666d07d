// RUN: qcomp-opt %s --lower-quant-ops --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --lower-quant-ops --split-input-file --verify-numerics 10 > /dev/null
// Unranked tensors, as upstream's LowerQuantOps.cpp handles them: reshaped to a ranked
// tensor with dynamic extents (per-tensor: 1-D of all elements; per-axis: 3-D, the
// extents before the quantized dimension, its scales, the extents after it), converted
// there as dynamic tensors are (dynamic.mlir), and reshaped back to their own extents.
// (jaxlib's MLIR prints and verifies this output as it is, the unsigned `uiN` scast
// of qcomp's aside.)

// CHECK-LABEL: func.func @qcast_per_tensor
// CHECK-SAME:    (%arg0: tensor<*xf32>)
// CHECK-NEXT:    %0 = shape.shape_of %arg0 : tensor<*xf32> -> tensor<?xindex>
// CHECK-NEXT:    %1 = shape.num_elements %0 : tensor<?xindex> -> index
// CHECK-NEXT:    %from_elements = tensor.from_elements %1 : tensor<1xindex>
// CHECK-NEXT:    %reshape = tensor.reshape %arg0(%from_elements) : (tensor<*xf32>, tensor<1xindex>) -> tensor<?xf32>
// CHECK-NEXT:    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT:    %2 = chlo.broadcast_divide %reshape, %cst : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NEXT:    %cst_0 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
// CHECK-NEXT:    %3 = chlo.broadcast_add %2, %cst_0 : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NEXT:    %cst_1 = stablehlo.constant dense<-1.280000e+02> : tensor<f32>
// CHECK-NEXT:    %cst_2 = stablehlo.constant dense<1.270000e+02> : tensor<f32>
// CHECK-NEXT:    %4 = stablehlo.clamp %cst_1, %3, %cst_2 : (tensor<f32>, tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NEXT:    %5 = stablehlo.round_nearest_even %4 : tensor<?xf32>
// CHECK-NEXT:    %6 = stablehlo.convert %5 : (tensor<?xf32>) -> tensor<?xi8>
// CHECK-NEXT:    %reshape_3 = tensor.reshape %6(%0) : (tensor<?xi8>, tensor<?xindex>) -> tensor<*xi8>
// CHECK-NEXT:    %7 = quant.scast %reshape_3 : tensor<*xi8> to tensor<*x!quant.uniform<i8:f32, 5.000000e-01:3>>
func.func @qcast_per_tensor(%arg0: tensor<*xf32>) -> tensor<*x!quant.uniform<i8:f32, 0.5:3>> {
  %0 = quant.qcast %arg0 : tensor<*xf32> to tensor<*x!quant.uniform<i8:f32, 0.5:3>>
  return %0 : tensor<*x!quant.uniform<i8:f32, 0.5:3>>
}

// -----

// CHECK-LABEL: func.func @dcast_per_tensor
// CHECK-NEXT:    %0 = quant.scast %arg0 : tensor<*x!quant.uniform<i16:f32, 2.500000e-01:-7>> to tensor<*xi16>
// CHECK-NEXT:    %1 = shape.shape_of %0 : tensor<*xi16> -> tensor<?xindex>
// CHECK-NEXT:    %2 = shape.num_elements %1 : tensor<?xindex> -> index
// CHECK-NEXT:    %from_elements = tensor.from_elements %2 : tensor<1xindex>
// CHECK-NEXT:    %reshape = tensor.reshape %0(%from_elements) : (tensor<*xi16>, tensor<1xindex>) -> tensor<?xi16>
// CHECK-NEXT:    %3 = stablehlo.convert %reshape : (tensor<?xi16>) -> tensor<?xi32>
// CHECK-NEXT:    %c = stablehlo.constant dense<-7> : tensor<i32>
// CHECK-NEXT:    %4 = chlo.broadcast_subtract %3, %c : (tensor<?xi32>, tensor<i32>) -> tensor<?xi32>
// CHECK-NEXT:    %5 = stablehlo.convert %4 : (tensor<?xi32>) -> tensor<?xf32>
// CHECK-NEXT:    %cst = stablehlo.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT:    %6 = chlo.broadcast_multiply %5, %cst : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NEXT:    %reshape_0 = tensor.reshape %6(%1) : (tensor<?xf32>, tensor<?xindex>) -> tensor<*xf32>
// CHECK-NEXT:    return %reshape_0 : tensor<*xf32>
func.func @dcast_per_tensor(%arg0: tensor<*x!quant.uniform<i16:f32, 0.25:-7>>) -> tensor<*xf32> {
  %0 = quant.dcast %arg0 : tensor<*x!quant.uniform<i16:f32, 0.25:-7>> to tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK-LABEL: func.func @per_axis
// CHECK-NEXT:    %0 = shape.shape_of %arg0 : tensor<*xf32> -> tensor<?xindex>
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %head, %tail = "shape.split_at"(%0, %c1) : (tensor<?xindex>, index) -> (tensor<?xindex>, tensor<?xindex>)
// CHECK-NEXT:    %1 = shape.num_elements %head : tensor<?xindex> -> index
// CHECK-NEXT:    %head_0, %tail_1 = "shape.split_at"(%0, %c2) : (tensor<?xindex>, index) -> (tensor<?xindex>, tensor<?xindex>)
// CHECK-NEXT:    %2 = shape.num_elements %tail_1 : tensor<?xindex> -> index
// CHECK-NEXT:    %c3 = arith.constant 3 : index
// CHECK-NEXT:    %from_elements = tensor.from_elements %1, %c3, %2 : tensor<3xindex>
// CHECK-NEXT:    %reshape = tensor.reshape %arg0(%from_elements) : (tensor<*xf32>, tensor<3xindex>) -> tensor<?x3x?xf32>
// CHECK-NEXT:    %cst = stablehlo.constant dense<[5.000000e-01, 2.500000e-01, 1.000000e+00]> : tensor<3xf32>
// CHECK-NEXT:    %3 = chlo.broadcast_divide %reshape, %cst {broadcast_dimensions = array<i64: 1>} : (tensor<?x3x?xf32>, tensor<3xf32>) -> tensor<?x3x?xf32>
// CHECK:         %7 = stablehlo.convert %6 : (tensor<?x3x?xf32>) -> tensor<?x3x?xi8>
// CHECK-NEXT:    %reshape_5 = tensor.reshape %7(%0) : (tensor<?x3x?xi8>, tensor<?xindex>) -> tensor<*xi8>
// CHECK-NEXT:    %8 = quant.scast %reshape_5 : tensor<*xi8> to tensor<*x!quant.uniform<i8:f32:1, {5.000000e-01:3,2.500000e-01:-2,1.000000e+00}>>
// CHECK:         %reshape_14 = tensor.reshape %9(%from_elements_13) : (tensor<*xi8>, tensor<3xindex>) -> tensor<?x3x?xi8>
// CHECK:         %reshape_16 = tensor.reshape %16(%10) : (tensor<?x3x?xf32>, tensor<?xindex>) -> tensor<*xf32>
// CHECK-NEXT:    return %reshape_16 : tensor<*xf32>
func.func @per_axis(%arg0: tensor<*xf32>) -> tensor<*xf32> {
  %0 = quant.qcast %arg0 : tensor<*xf32> to tensor<*x!quant.uniform<i8:f32:1, {0.5:3, 0.25:-2, 1.0}>>
  %1 = quant.dcast %0 : tensor<*x!quant.uniform<i8:f32:1, {0.5:3, 0.25:-2, 1.0}>> to tensor<*xf32>
  return %1 : tensor<*xf32>
}

// -----

// Unsigned storage (qcomp keeps it in `uiN`), a per-axis type on a high axis.
// CHECK-LABEL: func.func @unsigned_axis_4
// CHECK:         %c4 = arith.constant 4 : index
// CHECK-NEXT:    %c5 = arith.constant 5 : index
// CHECK:         tensor.reshape %arg0(%from_elements) : (tensor<*xf16>, tensor<3xindex>) -> tensor<?x2x?xf16>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<?x2x?xf16>) -> tensor<?x2x?xui8>
// CHECK-NEXT:    %reshape_{{.*}} = tensor.reshape %{{.*}}(%0) : (tensor<?x2x?xui8>, tensor<?xindex>) -> tensor<*xui8>
// CHECK-NEXT:    quant.scast %{{.*}} : tensor<*xui8> to tensor<*x!quant.uniform<ui8:f16:4, {1.000000e+00,2.000000e+00:300}>>
func.func @unsigned_axis_4(%arg0: tensor<*xf16>) -> tensor<*x!quant.uniform<ui8:f16:4, {1.0, 2.0:300}>> {
  %0 = quant.qcast %arg0 : tensor<*xf16> to tensor<*x!quant.uniform<ui8:f16:4, {1.0, 2.0:300}>>
  return %0 : tensor<*x!quant.uniform<ui8:f16:4, {1.0, 2.0:300}>>
}
