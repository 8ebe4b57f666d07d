// RUN: qcomp-run %s --compare-lowered --input=2xf32=1.5,2.5 --input=2xf32=0.5,1 | FileCheck %s --check-prefix=SPEC
// RUN: qcomp-run %s --compare-lowered --print-lowered --semantics stablehlo --input=2xf32=1.5,2.5 --input=2xf32=0.5,1 | FileCheck %s --check-prefix=UP
// RUN: not qcomp-run %s --input=2xf32=1.5,2.5 --input=3xf32=0.5,1,2 2>&1 | FileCheck %s --check-prefix=BAD

// i8 add at scales 1.0 + 1.0 into scale 2.0 (see semantics.mlir): inputs quantize to
// [2, 2] and [0, 1]; the spec adds 2+0, 2+1 and quantizes once (1, 2, round half to
// even), upstream requantizes each operand first (1 + 0, 1 + 0 = 1, 1). Both lowerings
// agree bit for bit with the semantics they implement.

// SPEC:      @main result[0] quantized: 2xf32=[2 4]
// SPEC-NEXT: @main result[0] lowered:   2xf32=[2 4]
// SPEC-NEXT: @main: quantized and lowered results agree bit for bit

// UP:        // qcomp-run: the program lowered by stablehlo-lower-quant{rescale=stablehlo}; --compare-lowered runs it beside the quantized program
// UP-NEXT:   module {
// UP-NOT:    !quant
// UP:        @main result[0] quantized: 2xf32=[2 2]
// UP-NEXT:   @main result[0] lowered:   2xf32=[2 2]
// UP-NEXT:   @main: quantized and lowered results agree bit for bit

// BAD: qcomp-run: error: @main argument 1 (%y): expected 2xf32, got 3xf32 from --input=3xf32=0.5,1,2
func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %qx = stablehlo.uniform_quantize %x : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  %qy = stablehlo.uniform_quantize %y : (tensor<2xf32>) -> tensor<2x!quant.uniform<i8:f32, 1.0>>
  %s = stablehlo.add %qx, %qy : (tensor<2x!quant.uniform<i8:f32, 1.0>>, tensor<2x!quant.uniform<i8:f32, 1.0>>) -> tensor<2x!quant.uniform<i8:f32, 2.0>>
  %r = stablehlo.uniform_dequantize %s : (tensor<2x!quant.uniform<i8:f32, 2.0>>) -> tensor<2xf32>
  func.return %r : tensor<2xf32>
}
