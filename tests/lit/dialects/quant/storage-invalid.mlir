// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Storage types MLIR 24 rejects, with its messages (this file also passes
// `tosa-opt --split-input-file --verify-diagnostics` once a tosa op loads the quant
// dialect in each chunk).

// expected-error@+1 {{illegal storage type size: 33}}
func.func @i33(%arg0: tensor<4x!quant.uniform<i33:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type size: 64}}
func.func @i64(%arg0: tensor<4x!quant.uniform<i64:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type size: 40}}
func.func @si40(%arg0: tensor<4x!quant.uniform<si40:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type size: 0}}
func.func @ui0(%arg0: tensor<4x!quant.uniform<ui0:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type size: 33}}
func.func @u33(%arg0: tensor<4x!quant.any<u33:f32>>) {
  return
}

// -----

// expected-error@+1 {{expected storage type width}}
func.func @u_alone(%arg0: tensor<4x!quant.uniform<u:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{expected storage type width}}
func.func @ui_alone(%arg0: tensor<4x!quant.uniform<ui:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{expected storage type width}}
func.func @u_not_a_number(%arg0: tensor<4x!quant.uniform<u8x:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type prefix}}
func.func @si_alone(%arg0: tensor<4x!quant.uniform<si:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{expected valid keyword}}
func.func @number(%arg0: tensor<4x!quant.uniform<8:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{integer bitwidth is limited to 16777215 bits}}
func.func @huge_width(%arg0: tensor<4x!quant.uniform<i16777216:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{invalid integer width}}
func.func @width_past_32_bits(%arg0: tensor<4x!quant.uniform<ui4294967296:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type prefix}}
func.func @f16(%arg0: tensor<4x!quant.uniform<f16:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type prefix}}
func.func @bf16(%arg0: tensor<4x!quant.uniform<bf16:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type prefix}}
func.func @f8E4M3FNUZ(%arg0: tensor<4x!quant.uniform<f8E4M3FNUZ:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type prefix}}
func.func @f8E5M2FNUZ(%arg0: tensor<4x!quant.uniform<f8E5M2FNUZ:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type prefix}}
func.func @f8E8M0FNU(%arg0: tensor<4x!quant.uniform<f8E8M0FNU:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type prefix}}
func.func @f6E2M3FN(%arg0: tensor<4x!quant.uniform<f6E2M3FN:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type prefix}}
func.func @index(%arg0: tensor<4x!quant.uniform<index:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type minimum: -57345}}
func.func @f8E5M2_min(%arg0: tensor<4x!quant.uniform<f8E5M2<-57345:0>:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type maximum: 449}}
func.func @f8E4M3FN_max(%arg0: tensor<4x!quant.uniform<f8E4M3FN<0:449>:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type maximum: 7}}
func.func @f4E2M1FN_max(%arg0: tensor<4x!quant.any<f4E2M1FN<-6:7>>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage min and storage max: (3:3)}}
func.func @f8E5M2_empty(%arg0: tensor<4x!quant.uniform<f8E5M2<3:3>:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type minimum: -2}}
func.func @i1_min(%arg0: tensor<4x!quant.uniform<i1<-2:0>:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{illegal storage type maximum: 2}}
func.func @u1_max(%arg0: tensor<4x!quant.uniform<u1<0:2>:f32, 1.0>>) {
  return
}

// -----

// expected-error@+1 {{integer value too large}}
func.func @zero_point_past_int64(%arg0: tensor<4x!quant.uniform<u8:f32, 1.0:9223372036854775808>>) {
  return
}
