// RUN: qcomp-run %s --semantics stablehlo --compare-lowered --input=2x3xf32=1,2,3,-4,5,6 | FileCheck %s
// RUN: not qcomp-run %s --input=2x4xf32=1,2,3,4,5,6,7,8 2>&1 | FileCheck %s --check-prefix=SHAPE
// A `?` dimension takes the size of the input given; the quantized program and its
// lowering (scales and zero points through chlo.broadcast_*) agree.

// CHECK: @main result[0] quantized: 2x3xf32=[[1 2 3][-4 5 6]]
// CHECK: @main result[0] lowered:   2x3xf32=[[1 2 3][-4 5 6]]
// CHECK: @main: quantized and lowered results agree bit for bit
// SHAPE: @main argument 0 (%x): expected ?x3xf32, got 2x4xf32
func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %q = stablehlo.uniform_quantize %x : (tensor<?x3xf32>) -> tensor<?x3x!quant.uniform<i8:f32:1, {0.5:3, 0.25:-2, 1.0:0}>>
  %d = stablehlo.uniform_dequantize %q : (tensor<?x3x!quant.uniform<i8:f32:1, {0.5:3, 0.25:-2, 1.0:0}>>) -> tensor<?x3xf32>
  return %d : tensor<?x3xf32>
}
