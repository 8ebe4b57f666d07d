// RUN: qcomp-opt %s --lower-quant-ops --split-input-file | FileCheck %s

// lower-quant-ops on sub-channel (blockwise) types. `{0:2, 1:3}` on a 4x6 tensor
// means element (i, j) uses parameter [i floordiv 2][j floordiv 3]. The pass
// broadcasts the 2x2 parameter tensor into (count, block) pairs, 2x2x2x3, with
// dims = [0, 2], and reshapes that to 4x6: element (2a + b, 3c + d) then holds
// parameter [a][c].

// CHECK-LABEL: func.func @dcast_sub_channel
// CHECK-NEXT:    %[[I:.*]] = quant.scast %{{.*}} to tensor<4x6xi8>
// CHECK-NEXT:    %[[W:.*]] = stablehlo.convert %[[I]] : (tensor<4x6xi8>) -> tensor<4x6xi32>
// CHECK-NEXT:    %[[Z:.*]] = stablehlo.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT:    %[[ZW:.*]] = stablehlo.broadcast_in_dim %[[Z]], dims = [0, 2] : (tensor<2x2xi32>) -> tensor<2x2x2x3xi32>
// CHECK-NEXT:    %[[ZB:.*]] = stablehlo.reshape %[[ZW]] : (tensor<2x2x2x3xi32>) -> tensor<4x6xi32>
// CHECK-NEXT:    %[[D:.*]] = stablehlo.subtract %[[W]], %[[ZB]] : tensor<4x6xi32>
// CHECK-NEXT:    %[[F:.*]] = stablehlo.convert %[[D]] : (tensor<4x6xi32>) -> tensor<4x6xf32>
// CHECK-NEXT:    %[[S:.*]] = stablehlo.constant dense<{{\[}}[1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT:    %[[SW:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [0, 2] : (tensor<2x2xf32>) -> tensor<2x2x2x3xf32>
// CHECK-NEXT:    %[[SB:.*]] = stablehlo.reshape %[[SW]] : (tensor<2x2x2x3xf32>) -> tensor<4x6xf32>
// CHECK-NEXT:    stablehlo.multiply %[[F]], %[[SB]] : tensor<4x6xf32>
func.func @dcast_sub_channel(%arg0: tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>>) -> tensor<4x6xf32> {
  %0 = quant.dcast %arg0 : tensor<4x6x!quant.uniform<i8:f32:{0:2, 1:3}, {{1.0:1, 2.0:2}, {3.0:3, 4.0:4}}>> to tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Only dimension 1 is blocked (block size 2); dimension 0, absent from the block
// list, has a single parameter row that covers all of it. Dimensions whose
// parameter count is 1 or the full size need no (count, block) split.

// CHECK-LABEL: func.func @qcast_sub_channel_one_dim
// CHECK-NEXT:    %[[S:.*]] = stablehlo.constant dense<{{\[}}[5.000000e-01, 2.500000e-01]]> : tensor<1x2xf32>
// CHECK-NEXT:    %[[SW:.*]] = stablehlo.broadcast_in_dim %[[S]], dims = [0, 1] : (tensor<1x2xf32>) -> tensor<3x2x2xf32>
// CHECK-NEXT:    %[[SB:.*]] = stablehlo.reshape %[[SW]] : (tensor<3x2x2xf32>) -> tensor<3x4xf32>
// CHECK-NEXT:    stablehlo.divide %{{.*}}, %[[SB]] : tensor<3x4xf32>
// CHECK-NOT:     stablehlo.add
// CHECK:         stablehlo.round_nearest_even
func.func @qcast_sub_channel_one_dim(%arg0: tensor<3x4xf32>) -> tensor<3x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}}>> {
  %0 = quant.qcast %arg0 : tensor<3x4xf32> to tensor<3x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}}>>
  return %0 : tensor<3x4x!quant.uniform<i8:f32:{1:2}, {{0.5, 0.25}}>>
}
