// RUN: qcomp-opt %s --split-input-file --stablehlo-legalize-quant-to-math | FileCheck %s
// RUN: qcomp-opt %s --split-input-file --strip-func-quant-types | FileCheck %s --check-prefix=STRIP
// Float storage at function boundaries becomes its float type, as integer storage
// becomes its integer type (StableHLO's ops take integer storage only, so the
// quantized values themselves reach the ops through quant.dcast / lower-quant-ops).
// strip-func-quant-types keeps the body's types with quant.scast (qcomp's extension
// of scast to float storage).

// CHECK-LABEL: func.func @boundary
// CHECK-SAME:    (%arg0: tensor<4xf8E4M3FN>, %arg1: tensor<2xi8>) -> tensor<4xf8E4M3FN>
// CHECK-NEXT:    return %arg0 : tensor<4xf8E4M3FN>

// STRIP-LABEL: func.func @boundary
// STRIP-SAME:    (%arg0: tensor<4xf8E4M3FN>, %arg1: tensor<2xi8>) -> tensor<4xf8E4M3FN>
// STRIP-NEXT:    %0 = quant.scast %arg0 : tensor<4xf8E4M3FN> to tensor<4x!quant.uniform<f8E4M3FN:f32, 2.000000e+00:1>>
// STRIP-NEXT:    %1 = quant.scast %arg1 : tensor<2xi8> to tensor<2x!quant.uniform<i8:f32, 1.000000e+00>>
// STRIP-NEXT:    %2 = quant.scast %0 : tensor<4x!quant.uniform<f8E4M3FN:f32, 2.000000e+00:1>> to tensor<4xf8E4M3FN>
// STRIP-NEXT:    return %2 : tensor<4xf8E4M3FN>
func.func @boundary(%arg0: tensor<4x!quant.uniform<f8E4M3FN:f32, 2.0:1>>, %arg1: tensor<2x!quant.uniform<i8:f32, 1.0>>) -> tensor<4x!quant.uniform<f8E4M3FN:f32, 2.0:1>> {
  return %arg0 : tensor<4x!quant.uniform<f8E4M3FN:f32, 2.0:1>>
}
