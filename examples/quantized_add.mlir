// A quantized elementwise add in StableHLO, as JAX/TF export it: float inputs are
// quantized to i8 (scale 0.5, zero point -3 and scale 0.25, zero point 2), added in
// the quantized domain into a third i8 type, and dequantized back to f32.
//
//   qcomp-opt examples/quantized_add.mlir                                      # parse, verify, print
//   qcomp-opt examples/quantized_add.mlir --stablehlo-legalize-quant-to-math   # lower to integer math
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %qx = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  %qy = stablehlo.uniform_quantize %y : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.25:2>>
  %sum = stablehlo.add %qx, %qy : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x!quant.uniform<i8:f32, 0.25:2>>) -> tensor<4x!quant.uniform<i8:f32, 0.75:1>>
  %r = stablehlo.uniform_dequantize %sum : (tensor<4x!quant.uniform<i8:f32, 0.75:1>>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
