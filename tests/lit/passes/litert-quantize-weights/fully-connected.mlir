// RUN: qcomp-opt %s --litert-quantize-weights --split-input-file | FileCheck %s
// RUN: qcomp-opt %s --litert-quantize-weights --litert-verify-int8 --split-input-file | FileCheck %s
// RUN: qcomp-opt %s -p 'litert-quantize-weights{per-channel=false}' --split-input-file | FileCheck %s --check-prefix=TENSOR
// RUN: qcomp-opt %s --litert-quantize-weights | qcomp-run - --entry fc --input=1x2xf32=0.5,1 | FileCheck %s --check-prefix=EXEC

// A float FULLY_CONNECTED with a bias becomes LiteRT's int8 form, which
// litert-verify-int8 accepts (second RUN line). Weights per output channel (the
// rhs's free dimension 1): s_w = max|w| / 127 = [1/127, 2/127], so
// [[1.0, -2.0], [0.25, 0.5]] is stored as [[127, -127], [32, 32]] (31.75 rounds to 32).
// The input's calibrated range [-1, 1.55] gives s_in = 2.55 / 255 = 0.01 and
// z_in = -128 + 1 / 0.01 = -28; the bias [0.5, -0.3] is stored at s_in * s_w:
// 0.5 / (0.01 / 127) = 6350, -0.3 / (0.02 / 127) = -1905; the result's range
// [-1.27, 1.28] gives s_out = 0.01, z_out = -128 + 127 = -1. The calibration
// (quant.qcast / quant.dcast to !quant.calibrated) is gone.

// Run on x = [0.5, 1]: the float program gives [1.25, -0.8]. Quantized: x_q = [50, 100]
// - 28; the accumulator (x_q + 28) . w_q + b_q = [50*127 + 100*32 + 6350,
// -50*127 + 100*32 - 1905] = [15900, -5055], times s_in * s_w = [0.01/127, 0.02/127]:
// [1.2519685, -0.7960630], requantized at (0.01, -1): [125 - 1, -80 - 1] = [124, -81],
// dequantized (q + 1) * 0.01 in f32: [1.25, -0.79999995] (-80 * f32(0.01) is a tie
// between two f32 values, rounded to the even one).
// EXEC: @fc result[0]: 1x2xf32={{\[}}[1.25 -0.79999995]]

// CHECK-LABEL: func.func @fc(%arg0: tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK-NOT:     quant.calibrated
// CHECK:         %[[X:.*]] = stablehlo.uniform_quantize %arg0 : (tensor<1x2xf32>) -> tensor<1x2x!quant.uniform<i8:f32, {{.*}}:-28>>
// CHECK:         %[[W:.*]] = stablehlo.constant() <{value = dense<{{\[}}[127, -127], [32, 32]]> : tensor<2x2xi8>}> : () -> tensor<2x2x!quant.uniform<i8<-127:127>:f32:1, {{.*}}>>
// CHECK:         %[[ACC:.*]] = stablehlo.dot_general %[[X]], %[[W]], contracting_dims = [1] x [0] : {{.*}} -> tensor<1x2x!quant.uniform<i32:f32:1, {{.*}}>>
// CHECK:         %[[B:.*]] = stablehlo.constant() <{value = dense<[6350, -1905]> : tensor<2xi32>}> : () -> tensor<2x!quant.uniform<i32:f32:0, {{.*}}>>
// CHECK:         %[[BB:.*]] = stablehlo.broadcast_in_dim %[[B]], dims = [1]
// CHECK:         %[[S:.*]] = stablehlo.add %[[ACC]], %[[BB]]
// CHECK:         %[[Y:.*]] = stablehlo.uniform_quantize %[[S]] : {{.*}} -> tensor<1x2x!quant.uniform<i8:f32, {{.*}}:-1>>
// CHECK:         %[[R:.*]] = stablehlo.uniform_dequantize %[[Y]]
// CHECK-NEXT:    return %[[R]]

// per-channel=false: one scale, max|w| / 127 = 2/127: [[64, -127], [16, 32]]
// (63.5 rounds away from zero; 15.875 to 16).
// TENSOR-LABEL: func.func @fc
// TENSOR:         stablehlo.constant() <{value = dense<{{\[}}[64, -127], [16, 32]]> : tensor<2x2xi8>}> : () -> tensor<2x2x!quant.uniform<i8<-127:127>:f32, {{[^:]*}}>>
func.func @fc(%arg0: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %0 = quant.qcast %arg0 : tensor<1x2xf32> to tensor<1x2x!quant.calibrated<f32<-1.0:1.55>>>
  %1 = quant.dcast %0 : tensor<1x2x!quant.calibrated<f32<-1.0:1.55>>> to tensor<1x2xf32>
  %w = stablehlo.constant dense<[[1.0, -2.0], [0.25, 0.5]]> : tensor<2x2xf32>
  %2 = stablehlo.dot_general %1, %w, contracting_dims = [1] x [0] : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
  %b = stablehlo.constant dense<[0.5, -0.3]> : tensor<2xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
  %3 = stablehlo.add %2, %bb : tensor<1x2xf32>
  %4 = quant.qcast %3 : tensor<1x2xf32> to tensor<1x2x!quant.calibrated<f32<-1.27:1.28>>>
  %5 = quant.dcast %4 : tensor<1x2x!quant.calibrated<f32<-1.27:1.28>>> to tensor<1x2xf32>
  return %5 : tensor<1x2xf32>
}
