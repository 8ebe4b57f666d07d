// RUN: qcomp-opt %s --onnx-legalize-to-stablehlo --split-input-file | FileCheck %s

// MaxPool (onnx-mlir's MaxPoolSingleOut) is reduce_window with maximum from -inf over
// the padded input.

// CHECK-LABEL: func.func @max_pool_pad
// CHECK:         %[[NINF:.*]] = stablehlo.constant dense<0xFF800000> : tensor<f32>
// CHECK-NEXT{LITERAL}: %0 = "stablehlo.reduce_window"(%arg0, %cst) <{padding = dense<[[0, 0], [0, 0], [1, 1], [1, 1]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 3, 3>, window_strides = array<i64: 1, 1, 1, 1>}> ({
// CHECK:           stablehlo.maximum
// CHECK:         }) : (tensor<5x5x32x32xf32>, tensor<f32>) -> tensor<5x5x32x32xf32>
func.func @max_pool_pad(%x: tensor<5x5x32x32xf32>) -> tensor<5x5x32x32xf32> {
  %0 = "onnx.MaxPoolSingleOut"(%x) {auto_pad = "NOTSET", ceil_mode = 0 : si64, kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : (tensor<5x5x32x32xf32>) -> tensor<5x5x32x32xf32>
  return %0 : tensor<5x5x32x32xf32>
}

// -----

// AveragePool divides the window sums by the window's element count: a reduce_window
// over ones with the same padding (count_include_pad = 0: padding is not counted) ...

// CHECK-LABEL: func.func @average_pool_pad
// CHECK:         %[[S:.*]] = "stablehlo.reduce_window"(%arg0,
// CHECK:           stablehlo.add
// CHECK:         %[[ONES:.*]] = stablehlo.constant dense<1.000000e+00> : tensor<5x5x32x32xf32>
// CHECK:         %[[N:.*]] = "stablehlo.reduce_window"(%[[ONES]],
// CHECK-SAME:      padding = dense<{{\[}}[0, 0], [0, 0], [1, 1], [1, 1]]>
// CHECK:         stablehlo.divide %[[S]], %[[N]] : tensor<5x5x32x32xf32>
func.func @average_pool_pad(%x: tensor<5x5x32x32xf32>) -> tensor<5x5x32x32xf32> {
  %0 = "onnx.AveragePool"(%x) {kernel_shape = [3, 3], pads = [1, 1, 1, 1]} : (tensor<5x5x32x32xf32>) -> tensor<5x5x32x32xf32>
  return %0 : tensor<5x5x32x32xf32>
}

// -----

// ... and by the kernel size when count_include_pad = 1.

// CHECK-LABEL: func.func @average_pool_count_include_pad
// CHECK:         %[[N:.*]] = stablehlo.constant dense<9.000000e+00> : tensor<5x5x30x30xf32>
// CHECK-NEXT:    stablehlo.divide %{{.*}}, %[[N]] : tensor<5x5x30x30xf32>
func.func @average_pool_count_include_pad(%x: tensor<5x5x32x32xf32>) -> tensor<5x5x30x30xf32> {
  %0 = "onnx.AveragePool"(%x) {kernel_shape = [3, 3], count_include_pad = 1 : si64} : (tensor<5x5x32x32xf32>) -> tensor<5x5x30x30xf32>
  return %0 : tensor<5x5x30x30xf32>
}

// -----

// ceil_mode: the last window may run past the end; the extra room is padding that the
// window sums and counts skip (2 more columns here: windows start at 0, 2, 4, 6 of 8).

// CHECK-LABEL: func.func @average_pool_ceil_mode
// CHECK:         "stablehlo.reduce_window"(%arg0,
// CHECK-SAME:      padding = dense<{{\[}}[0, 0], [0, 0], [1, 2], [1, 2]]>
func.func @average_pool_ceil_mode(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32> {
  %0 = "onnx.AveragePool"(%x) {kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1], ceil_mode = 1 : si64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

// GlobalAveragePool: reduce add over the spatial dimensions, reshape back to rank 4,
// divide by their element count.

// CHECK-LABEL: func.func @global_average_pool
// CHECK:         %[[S:.*]] = stablehlo.reduce(%arg0 init: %{{.*}}) applies stablehlo.add across dimensions = [2, 3] : (tensor<1x3x5x5xf32>, tensor<f32>) -> tensor<1x3xf32>
// CHECK-NEXT:    %[[R:.*]] = stablehlo.reshape %[[S]] : (tensor<1x3xf32>) -> tensor<1x3x1x1xf32>
// CHECK-NEXT:    %[[N:.*]] = stablehlo.constant dense<2.500000e+01> : tensor<1x3x1x1xf32>
// CHECK-NEXT:    stablehlo.divide %[[R]], %[[N]] : tensor<1x3x1x1xf32>
func.func @global_average_pool(%x: tensor<1x3x5x5xf32>) -> tensor<1x3x1x1xf32> {
  %0 = "onnx.GlobalAveragePool"(%x) : (tensor<1x3x5x5xf32>) -> tensor<1x3x1x1xf32>
  return %0 : tensor<1x3x1x1xf32>
}

// -----

// MaxPool on stored integers (onnx-fuse-qdq drops the QDQ pair around it) starts from
// the type's lowest value.

// CHECK-LABEL: func.func @max_pool_ui8
// CHECK:         %[[LO:.*]] = stablehlo.constant dense<0> : tensor<ui8>
// CHECK-NEXT:    "stablehlo.reduce_window"(%arg0, %[[LO]])
// CHECK:         stablehlo.maximum %{{.*}}, %{{.*}} : tensor<ui8>
func.func @max_pool_ui8(%x: tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8> {
  %0 = "onnx.MaxPoolSingleOut"(%x) {kernel_shape = [2, 2], strides = [2, 2]} : (tensor<1x1x4x4xui8>) -> tensor<1x1x2x2xui8>
  return %0 : tensor<1x1x2x2xui8>
}
