// A quantized elementwise add in StableHLO, as JAX/TF export it: float inputs are
// quantized to i8 (scale 0.5, zero point -3 and scale 0.25, zero point 2), added in
// the quantized domain into a third i8 type, and dequantized back to f32.
//
//   qcomp-run examples/quantized_add.mlir --input=4xf32=1,2.5,-3,0.2 --input=4xf32=0.5,-1,7.25,2
//       run it: 4xf32=[1.5 1.5 4.5 2.25] (the sums 4.25 and 2.2 rounded to the 0.75 scale);
//       add --compare-lowered --print-lowered to see the integer program and its results
//   qcomp-opt examples/quantized_add.mlir                          # parse, verify, print
//   qcomp-opt examples/quantized_add.mlir --stablehlo-lower-quant  # lower to integer math
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %qx = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  %qy = stablehlo.uniform_quantize %y : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.25:2>>
  %sum = stablehlo.add %qx, %qy : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x!quant.uniform<i8:f32, 0.25:2>>) -> tensor<4x!quant.uniform<i8:f32, 0.75:1>>
  %r = stablehlo.uniform_dequantize %sum : (tensor<4x!quant.uniform<i8:f32, 0.75:1>>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
