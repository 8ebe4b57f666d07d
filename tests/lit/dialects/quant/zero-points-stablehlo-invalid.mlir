// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// StableHLO's ops take only its quantized element types (Base.td:
// isValidStablehloQuantizedElementType, the spec's quantized_type C7/C8): every zero
// point in [storage_min, storage_max], storage of 2/4/8/16/32 bits, signed storage
// signless (`i8`, not `si8`), unsigned storage `u8` or `ui8`, no float storage. Another
// type is the op's ODS constraint failure, in StableHLO's words (the messages below are
// what jaxlib's StableHLO prints for these chunks). The quant types themselves are legal
// (zero-points.mlir).

func.func @add_zero_point_below(%arg0: tensor<4x!quant.uniform<u8:f32, 1.0:-120>>) -> tensor<4x!quant.uniform<u8:f32, 1.0:-120>> {
  // expected-error@+1 {{'stablehlo.add' op operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<4x!quant.uniform<u8:f32, 1.000000e+00:-120>>'}}
  %0 = stablehlo.add %arg0, %arg0 : tensor<4x!quant.uniform<u8:f32, 1.0:-120>>
  return %0 : tensor<4x!quant.uniform<u8:f32, 1.0:-120>>
}

// -----

func.func @uniform_quantize_zero_point_above(%arg0: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 1.0:200>> {
  // expected-error@+1 {{'stablehlo.uniform_quantize' op result #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<4x!quant.uniform<i8:f32, 1.000000e+00:200>>'}}
  %0 = stablehlo.uniform_quantize %arg0 : (tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 1.0:200>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 1.0:200>>
}

// -----

func.func @uniform_dequantize_narrowed(%arg0: tensor<4x!quant.uniform<i8<-8:7>:f32, 0.99872:127>>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.uniform_dequantize' op operand #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<4x!quant.uniform<i8<-8:7>:f32, 9.987200e-01:127>>'}}
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i8<-8:7>:f32, 0.99872:127>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @per_axis_one_zero_point_out(%arg0: tensor<2x!quant.uniform<i8:f32:0, {1.0:3, 2.0:128}>>) -> tensor<2xf32> {
  // expected-error@+1 {{'stablehlo.uniform_dequantize' op operand #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<2x!quant.uniform<i8:f32:0, {1.000000e+00:3,2.000000e+00:128}>>'}}
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<2x!quant.uniform<i8:f32:0, {1.0:3, 2.0:128}>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @si8(%arg0: tensor<4x!quant.uniform<si8:f32, 1.0>>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.uniform_dequantize' op operand #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<4x!quant.uniform<si8:f32, 1.000000e+00>>'}}
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<si8:f32, 1.0>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @i3(%arg0: tensor<4x!quant.uniform<i3:f32, 1.0>>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.uniform_dequantize' op operand #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<4x!quant.uniform<i3:f32, 1.000000e+00>>'}}
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<i3:f32, 1.0>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @float_storage(%arg0: tensor<4x!quant.uniform<f8E5M2:f32, 1.0>>) -> tensor<4xf32> {
  // expected-error@+1 {{'stablehlo.uniform_dequantize' op operand #0 must be ranked tensor of per-tensor integer quantized or per-axis integer quantized values, but got 'tensor<4x!quant.uniform<f8E5M2:f32, 1.000000e+00>>'}}
  %0 = stablehlo.uniform_dequantize %arg0 : (tensor<4x!quant.uniform<f8E5M2:f32, 1.0>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
