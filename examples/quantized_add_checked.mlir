// examples/quantized_add.mlir on fixed inputs, with its expected results as checks:
// qcomp-run reports "2 passed, 0 failed" on either backend. (Under --semantics stablehlo
// both checks fail on both backends: upstream's add rounds each operand to the result's
// scale before adding, the spec adds the real values.)
//
//   qcomp-run examples/quantized_add_checked.mlir                   # NumPy interpreter
//   qcomp-run examples/quantized_add_checked.mlir --backend xla     # XLA (pip install -e '.[xla]')
func.func @main() {
  %x = stablehlo.constant dense<[1.0, -2.25, 3.7, 100.0]> : tensor<4xf32>
  %y = stablehlo.constant dense<[0.5, 0.3, -1.0, 2.0]> : tensor<4xf32>
  %qx = stablehlo.uniform_quantize %x : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5:-3>>
  %qy = stablehlo.uniform_quantize %y : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.25:2>>
  %sum = stablehlo.add %qx, %qy : (tensor<4x!quant.uniform<i8:f32, 0.5:-3>>, tensor<4x!quant.uniform<i8:f32, 0.25:2>>) -> tensor<4x!quant.uniform<i8:f32, 0.75:1>>
  %bits = stablehlo.bitcast_convert %sum : (tensor<4x!quant.uniform<i8:f32, 0.75:1>>) -> tensor<4xi8>
  check.expect_eq_const %bits, dense<[3, -2, 4, 90]> : tensor<4xi8>
  %r = stablehlo.uniform_dequantize %sum : (tensor<4x!quant.uniform<i8:f32, 0.75:1>>) -> tensor<4xf32>
  check.expect_almost_eq_const %r, dense<[1.5, -2.25, 2.25, 66.75]> : tensor<4xf32>
  func.return
}
