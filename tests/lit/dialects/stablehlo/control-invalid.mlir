// RUN: qcomp-opt %s --split-input-file --verify-diagnostics
// Verifiers of the control flow, scatter, sort and tuple ops; every message is the one
// jaxlib's MLIR gives for the same chunk.

func.func @while_cond_type(%x: tensor<i64>) {
  // expected-error@+1 {{expect condition block return a zero-ranked tensor of i1 but got 'tensor<i64>'}}
  %0 = stablehlo.while(%i = %x) : tensor<i64>
  cond {
    stablehlo.return %i : tensor<i64>
  } do {
    stablehlo.return %i : tensor<i64>
  }
  return
}

// -----

func.func @while_body_types(%x: tensor<i64>) {
  // expected-error@+1 {{expect operands to be compatible with body block return types but got 'tensor<i64>' vs 'tensor<i32>'}}
  %0 = stablehlo.while(%i = %x) : tensor<i64>
  cond {
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %c = stablehlo.constant dense<1> : tensor<i32>
    stablehlo.return %c : tensor<i32>
  }
  return
}

// -----

func.func @if_branch_types(%p: tensor<i1>, %x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error@+1 {{branch 0 and branch 1 have mismatched return types: 'tensor<2xf32>' vs 'tensor<3xf32>'}}
  %0 = "stablehlo.if"(%p) ({
    stablehlo.return %x : tensor<2xf32>
  }, {
    stablehlo.return %y : tensor<3xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return
}

// -----

func.func @case_index_type(%k: tensor<i64>, %x: tensor<2xf32>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 32-bit signless integer values, but got 'tensor<i64>'}}
  %0 = "stablehlo.case"(%k) ({
    stablehlo.return %x : tensor<2xf32>
  }) : (tensor<i64>) -> tensor<2xf32>
  return
}

// -----

func.func @sort_dimension(%x: tensor<3xf32>) {
  // expected-error@+1 {{dimension attribute value must be in range [-1, 1), but found 1}}
  %0 = "stablehlo.sort"(%x) <{dimension = 1 : i64}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @sort_comparator_type(%x: tensor<3xf32>) {
  // expected-error@+1 {{comparator block argument #1 should be of type 'tensor<f32>' but got 'tensor<i32>'}}
  %0 = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<i32>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @scatter_window_dims_sorted(%x: tensor<5x3x2xf32>, %i: tensor<4x1xi32>, %u: tensor<4x3x2xf32>) {
  // expected-error@+1 {{Expects update_window_dims to be sorted; got: [2, 1].}}
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2, 1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<5x3x2xf32>, tensor<4x1xi32>, tensor<4x3x2xf32>) -> tensor<5x3x2xf32>
  return
}

// -----

func.func @scatter_updates_rank(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>, %u: tensor<4xf32>) {
  // expected-error@+1 {{expects updates tensor must be of rank 2 ( == rank-of('scatter_indices') - 1 + size-of('update_window_dims'), where 'scatter_indices' is expanded by a trailing 1 dimension if 'index_vector_dim' == rank-of('scatter_indices')), but got 1.}}
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @scatter_region_arity(%x: tensor<5x3xf32>, %i: tensor<4x1xi32>, %u: tensor<4x3xf32>) {
  // expected-error@+1 {{Reduction-region must take 2 parameters, but takes 1 parameter(s)}}
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<5x3xf32>, tensor<4x1xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @scatter_index_vector_size(%x: tensor<5x3xf32>, %i: tensor<4x2xi32>, %u: tensor<4x3xf32>) {
  // expected-error@+1 {{Scatter op has 1 elements in scatter_dims_to_operand_dims and the bound of dimension index_vector_dim=1 of scatter_indices is 2. These two numbers must be equal.}}
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %b : tensor<f32>
  }) : (tensor<5x3xf32>, tensor<4x2xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  return
}

// -----

func.func @select_and_scatter_select_type(%x: tensor<4xf32>, %s: tensor<2xf32>, %i: tensor<f32>) {
  // expected-error@+1 {{expects the return-type of select-region to be tensor<i1>, but got: 'tensor<f32>'}}
  %0 = "stablehlo.select_and_scatter"(%x, %s, %i) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<4xf32>, tensor<2xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @select_and_scatter_source_shape(%x: tensor<4xf32>, %s: tensor<3xf32>, %i: tensor<f32>) {
  // expected-error@+1 {{expects source-type to be 'tensor<2xf32>', but got'tensor<3xf32>'}}
  %0 = "stablehlo.select_and_scatter"(%x, %s, %i) <{window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<4xf32>, tensor<3xf32>, tensor<f32>) -> tensor<4xf32>
  return
}

// -----

func.func @map_arity(%x: tensor<4xf32>) {
  // expected-error@+1 {{expects number of operands to match the arity of map computation, but got: 1 and 2}}
  %0 = "stablehlo.map"(%x) <{dimensions = array<i64: 0>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @map_dimensions(%x: tensor<4x2xf32>) {
  // expected-error@+1 {{requires monotonically increasing dimension numbers, but got: 1, 0}}
  %0 = "stablehlo.map"(%x) <{dimensions = array<i64: 1, 0>}> ({
  ^bb0(%a: tensor<f32>):
    stablehlo.return %a : tensor<f32>
  }) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return
}

// -----

func.func @get_tuple_element_index(%t: tuple<tensor<f32>>) {
  // expected-error@+1 {{index 1 is out of bounds of operand with size 1}}
  %0 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<f32>>) -> tensor<f32>
  return
}

// -----

func.func @tuple_type(%x: tensor<f32>) {
  // expected-error@+1 {{inferred type(s) 'tuple<tensor<f32>>' are incompatible with return type(s) of operation 'tuple<tensor<i32>>'}}
  %0 = "stablehlo.tuple"(%x) : (tensor<f32>) -> tuple<tensor<i32>>
  return
}

// -----

func.func @scatter_per_axis(%x: tensor<5x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>, %i: tensor<4x1xi32>, %u: tensor<4x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>) {
  // expected-error@+1 {{operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<5x3x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01,3.000000e-01}>>'}}
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}> ({
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.1>>, %b: tensor<!quant.uniform<i8:f32, 0.1>>):
    stablehlo.return %b : tensor<!quant.uniform<i8:f32, 0.1>>
  }) : (tensor<5x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>, tensor<4x1xi32>, tensor<4x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>) -> tensor<5x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>
  return
}

// -----

func.func @sort_per_axis(%x: tensor<5x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>) {
  // expected-error@+1 {{operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<5x3x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01,3.000000e-01}>>'}}
  %0 = "stablehlo.sort"(%x) ({
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.1>>, %b: tensor<!quant.uniform<i8:f32, 0.1>>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) : (tensor<5x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>) -> tensor<5x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>
  return
}

// -----

func.func @map_per_axis(%x: tensor<5x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>) {
  // expected-error@+1 {{operand #0 must be variadic of ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<5x3x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01,3.000000e-01}>>'}}
  %0 = "stablehlo.map"(%x) <{dimensions = array<i64: 0, 1>}> ({
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.1>>):
    stablehlo.return %a : tensor<!quant.uniform<i8:f32, 0.1>>
  }) : (tensor<5x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>) -> tensor<5x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>
  return
}

// -----

func.func @select_and_scatter_per_axis(%x: tensor<4x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>, %s: tensor<2x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>, %i: tensor<!quant.uniform<i8:f32, 0.1>>) {
  // expected-error@+1 {{operand #0 must be ranked tensor of 4/6/8/16/32/64-bit float or bool or 2/4/8/16/32/64-bit integer or complex type with 32/64-bit float elements or per-tensor integer quantized values, but got 'tensor<4x3x!quant.uniform<i8:f32:1, {1.000000e-01,2.000000e-01,3.000000e-01}>>'}}
  %0 = "stablehlo.select_and_scatter"(%x, %s, %i) <{window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>}> ({
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.1>>, %b: tensor<!quant.uniform<i8:f32, 0.1>>):
    %c = stablehlo.constant dense<true> : tensor<i1>
    stablehlo.return %c : tensor<i1>
  }, {
  ^bb0(%a: tensor<!quant.uniform<i8:f32, 0.1>>, %b: tensor<!quant.uniform<i8:f32, 0.1>>):
    stablehlo.return %a : tensor<!quant.uniform<i8:f32, 0.1>>
  }) : (tensor<4x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>, tensor<2x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>, tensor<!quant.uniform<i8:f32, 0.1>>) -> tensor<4x3x!quant.uniform<i8:f32:1, {0.1,0.2,0.3}>>
  return
}
