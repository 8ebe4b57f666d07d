// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo | FileCheck %s
// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --stablehlo-legalize-qdq-to-quantized-op | FileCheck %s --check-prefix=FUSED

// A constant Pad between uniform_dequantize and uniform_quantize of one type pads with
// the padding value quantized and dequantized (the same bits after the final
// quantize), so stablehlo-legalize-qdq-to-quantized-op makes it the quantized pad.

// CHECK-LABEL: func.func @pad_quantized
// CHECK:         %[[D:.*]] = stablehlo.uniform_dequantize %arg0
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT:    %[[QZ:.*]] = stablehlo.uniform_quantize %[[Z]] : (tensor<f32>) -> tensor<!quant.uniform<u8:f32, 5.000000e-01:128>>
// CHECK-NEXT:    %[[DZ:.*]] = stablehlo.uniform_dequantize %[[QZ]] : (tensor<!quant.uniform<u8:f32, 5.000000e-01:128>>) -> tensor<f32>
// CHECK-NEXT:    %[[P:.*]] = stablehlo.pad %[[D]], %[[DZ]], low = [0, 1], high = [0, 2], interior = [0, 0] : (tensor<1x3xf32>, tensor<f32>) -> tensor<1x6xf32>
// CHECK-NEXT:    stablehlo.uniform_quantize %[[P]]

// FUSED-LABEL: func.func @pad_quantized
// FUSED:         %[[QZ:.*]] = stablehlo.uniform_quantize %{{.*}} : (tensor<f32>) -> tensor<!quant.uniform<u8:f32, 5.000000e-01:128>>
// FUSED-NEXT:    %[[P:.*]] = stablehlo.pad %arg0, %[[QZ]], low = [0, 1], high = [0, 2], interior = [0, 0] : (tensor<1x3x!quant.uniform<u8:f32, 5.000000e-01:128>>, tensor<!quant.uniform<u8:f32, 5.000000e-01:128>>) -> tensor<1x6x!quant.uniform<u8:f32, 5.000000e-01:128>>
// FUSED-NEXT:    return %[[P]]
func.func @pad_quantized(%x: tensor<1x3x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<1x6x!quant.uniform<u8:f32, 0.5:128>> {
  %p = onnx.Constant dense<[0, 1, 0, 2]> : tensor<4xi64>
  %n = "onnx.NoValue"() {value} : () -> none
  %d = stablehlo.uniform_dequantize %x : (tensor<1x3x!quant.uniform<u8:f32, 0.5:128>>) -> tensor<1x3xf32>
  %0 = "onnx.Pad"(%d, %p, %n, %n) {mode = "constant"} : (tensor<1x3xf32>, tensor<4xi64>, none, none) -> tensor<1x6xf32>
  %q = stablehlo.uniform_quantize %0 : (tensor<1x6xf32>) -> tensor<1x6x!quant.uniform<u8:f32, 0.5:128>>
  return %q : tensor<1x6x!quant.uniform<u8:f32, 0.5:128>>
}
