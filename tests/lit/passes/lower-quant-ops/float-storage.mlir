// RUN: qcomp-opt %s --lower-quant-ops --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --lower-quant-ops --split-input-file --verify-numerics 30 > /dev/null
// Float storage (f8E5M2, f8E4M3FN, f4E2M1FN; what ONNX's float8 QuantizeLinear makes):
//   quant.qcast:  q = round_to_float(clamp(storage_min, x / scale + zero_point, storage_max))
//   quant.dcast:  x = (convert(q) - zero_point) * scale
// The clamp to the storage range (the type's finite range by default) makes the
// conversion saturate; `convert` / `arith.truncf` round to nearest even and keep NaN.
// There is no round_nearest_even and no integer step. quant.scast between the
// quantized type and its float type is qcomp's extension (MLIR's scast takes
// integers only).

// CHECK-LABEL: func.func @qcast_f8E4M3FN
// CHECK:         %[[S:.*]] = stablehlo.divide %arg0, %{{.*}} : tensor<4xf32>
// CHECK:         %[[Z:.*]] = stablehlo.add %[[S]], %{{.*}} : tensor<4xf32>
// CHECK:         %[[LO:.*]] = stablehlo.constant dense<-4.480000e+02> : tensor<f32>
// CHECK-NEXT:    %[[HI:.*]] = stablehlo.constant dense<4.480000e+02> : tensor<f32>
// CHECK-NEXT:    %[[C:.*]] = stablehlo.clamp %[[LO]], %[[Z]], %[[HI]]
// CHECK-NEXT:    %[[F:.*]] = stablehlo.convert %[[C]] : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %[[F]] : tensor<4xf8E4M3FN> to tensor<4x!quant.uniform<f8E4M3FN:f32, 2.000000e+00:3>>
// CHECK-NEXT:    return %[[Q]]
func.func @qcast_f8E4M3FN(%arg0: tensor<4xf32>) -> tensor<4x!quant.uniform<f8E4M3FN:f32, 2.0:3>> {
  %0 = quant.qcast %arg0 : tensor<4xf32> to tensor<4x!quant.uniform<f8E4M3FN:f32, 2.0:3>>
  return %0 : tensor<4x!quant.uniform<f8E4M3FN:f32, 2.0:3>>
}

// -----

// CHECK-LABEL: func.func @dcast_f8E5M2
// CHECK:         %[[F:.*]] = quant.scast %arg0 : tensor<4x!quant.uniform<f8E5M2:f32, 5.000000e-01:-2>> to tensor<4xf8E5M2>
// CHECK-NEXT:    %[[X:.*]] = stablehlo.convert %[[F]] : (tensor<4xf8E5M2>) -> tensor<4xf32>
// CHECK:         %[[D:.*]] = stablehlo.subtract %[[X]], %{{.*}} : tensor<4xf32>
// CHECK:         %[[R:.*]] = stablehlo.multiply %[[D]], %{{.*}} : tensor<4xf32>
// CHECK-NEXT:    return %[[R]]
func.func @dcast_f8E5M2(%arg0: tensor<4x!quant.uniform<f8E5M2:f32, 0.5:-2>>) -> tensor<4xf32> {
  %0 = quant.dcast %arg0 : tensor<4x!quant.uniform<f8E5M2:f32, 0.5:-2>> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A narrowed range clamps to it; per-axis scales broadcast along the quantized dimension.
// CHECK-LABEL: func.func @roundtrip_f4E2M1FN_per_axis
// CHECK:         stablehlo.constant dense<[5.000000e-01, 2.000000e+00]> : tensor<2xf32>
// CHECK:         stablehlo.constant dense<-4.000000e+00> : tensor<f32>
// CHECK-NEXT:    stablehlo.constant dense<4.000000e+00> : tensor<f32>
// CHECK-NEXT:    stablehlo.clamp
// CHECK-NEXT:    stablehlo.convert %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf4E2M1FN>
// CHECK:         stablehlo.convert %{{.*}} : (tensor<2x3xf4E2M1FN>) -> tensor<2x3xf32>
// CHECK-NOT:     stablehlo.subtract
// CHECK:         stablehlo.multiply
func.func @roundtrip_f4E2M1FN_per_axis(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = quant.qcast %arg0 : tensor<2x3xf32> to tensor<2x3x!quant.uniform<f4E2M1FN<-4:4>:f32:0, {0.5,2.0}>>
  %1 = quant.dcast %0 : tensor<2x3x!quant.uniform<f4E2M1FN<-4:4>:f32:0, {0.5,2.0}>> to tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Scalars: arith, with truncf / extf as the conversions.
// CHECK-LABEL: func.func @scalar_f8E4M3FN
// CHECK:         arith.divf
// CHECK-NEXT:    %[[ZP:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    arith.addf
// CHECK:         arith.maximumf
// CHECK:         arith.minimumf
// CHECK-NEXT:    %[[T:.*]] = arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK-NEXT:    %[[Q:.*]] = quant.scast %[[T]] : f8E4M3FN to !quant.uniform<f8E4M3FN:f32, 2.500000e-01:1>
// CHECK-NEXT:    %[[B:.*]] = quant.scast %[[Q]] : !quant.uniform<f8E4M3FN:f32, 2.500000e-01:1> to f8E4M3FN
// CHECK-NEXT:    %[[E:.*]] = arith.extf %[[B]] : f8E4M3FN to f32
// CHECK-NEXT:    arith.constant 1.000000e+00 : f32
// CHECK-NEXT:    arith.subf
// CHECK:         arith.mulf
func.func @scalar_f8E4M3FN(%arg0: f32) -> f32 {
  %0 = quant.qcast %arg0 : f32 to !quant.uniform<f8E4M3FN:f32, 0.25:1>
  %1 = quant.dcast %0 : !quant.uniform<f8E4M3FN:f32, 0.25:1> to f32
  return %1 : f32
}

// -----

// Dynamic dimensions broadcast the parameters with chlo, as for integer storage.
// CHECK-LABEL: func.func @dynamic_f8E5M2
// CHECK:         chlo.broadcast_divide
// CHECK:         stablehlo.convert %{{.*}} : (tensor<?xf32>) -> tensor<?xf8E5M2>
func.func @dynamic_f8E5M2(%arg0: tensor<?xf32>) -> tensor<?x!quant.uniform<f8E5M2:f32, 4.0>> {
  %0 = quant.qcast %arg0 : tensor<?xf32> to tensor<?x!quant.uniform<f8E5M2:f32, 4.0>>
  return %0 : tensor<?x!quant.uniform<f8E5M2:f32, 4.0>>
}
