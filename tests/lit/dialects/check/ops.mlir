// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: qcomp-opt %s --print-op-generic | qcomp-opt | FileCheck %s

// The check ops of StableHLO's interpreter tests (stablehlo/tests/CheckOps.td).

// CHECK-LABEL: func.func @eq
func.func @eq(%a: tensor<4xi2>, %b: tensor<2xi8>, %c: tensor<2xi8>) {
  // the generic form of the conformance files prints in the custom form
  // CHECK: check.expect_eq_const %{{.*}}, dense<[0, 1, 0, -1]> : tensor<4xi2>
  // GENERIC: "check.expect_eq_const"(%{{.*}}) <{value = dense<[0, 1, 0, -1]> : tensor<4xi2>}> : (tensor<4xi2>) -> ()
  "check.expect_eq_const"(%a) <{value = dense<[0, 1, 0, -1]> : tensor<4xi2>}> : (tensor<4xi2>) -> ()
  // CHECK: check.expect_eq_const %{{.*}}, dense<10> : tensor<2xi8>
  check.expect_eq_const %b, dense<[10, 10]> : tensor<2xi8>
  // CHECK: check.expect_eq %{{.*}}, %{{.*}} : tensor<2xi8>
  // GENERIC: "check.expect_eq"(%{{.*}}, %{{.*}}) : (tensor<2xi8>, tensor<2xi8>) -> ()
  check.expect_eq %b, %c : tensor<2xi8>
  return
}

// CHECK-LABEL: func.func @almost_eq
func.func @almost_eq(%x: tensor<2xf32>, %y: tensor<2xf32>, %z: tensor<2xcomplex<f32>>) {
  // CHECK: check.expect_almost_eq_const %{{.*}}, dense<[4.000000e+00, 1.500000e+01]> : tensor<2xf32>{{$}}
  // GENERIC: "check.expect_almost_eq_const"(%{{.*}}) <{value = dense<[4.000000e+00, 1.500000e+01]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  check.expect_almost_eq_const %x, dense<[4.0, 15.0]> : tensor<2xf32>
  // CHECK: check.expect_almost_eq_const %{{.*}}, dense<[4.000000e+00, 1.500000e+01]> : tensor<2xf32>, tolerance = 1.000000e-01{{$}}
  // GENERIC: "check.expect_almost_eq_const"(%{{.*}}) <{tolerance = 1.000000e-01 : f64, value = dense<[4.000000e+00, 1.500000e+01]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  check.expect_almost_eq_const %x, dense<[4.0, 15.0]> : tensor<2xf32>, tolerance = 0.1
  // the tolerance may also come in the attribute dictionary
  // CHECK: check.expect_almost_eq_const %{{.*}}, dense<[4.000000e+00, 1.500000e+01]> : tensor<2xf32>, tolerance = 1.000000e-03{{$}}
  check.expect_almost_eq_const %x, dense<[4.0, 15.0]> : tensor<2xf32> {tolerance = 0.001 : f64}
  // the default tolerance (1e-4) is left out of the custom form
  // CHECK: check.expect_almost_eq_const %{{.*}}, dense<[4.000000e+00, 1.500000e+01]> : tensor<2xf32>{{$}}
  // GENERIC: "check.expect_almost_eq_const"(%{{.*}}) <{tolerance = 1.000000e-04 : f64, value = dense<[4.000000e+00, 1.500000e+01]> : tensor<2xf32>}> : (tensor<2xf32>) -> ()
  check.expect_almost_eq_const %x, dense<[4.0, 15.0]> : tensor<2xf32>, tolerance = 1.0e-4
  // CHECK: check.expect_almost_eq %{{.*}}, %{{.*}} : tensor<2xf32>
  // GENERIC: "check.expect_almost_eq"(%{{.*}}, %{{.*}}) : (tensor<2xf32>, tensor<2xf32>) -> ()
  check.expect_almost_eq %x, %y : tensor<2xf32>
  // CHECK: check.expect_almost_eq %{{.*}}, %{{.*}}, tolerance = 5.000000e-01 : tensor<2xf32>
  check.expect_almost_eq %x, %y, tolerance = 0.5 : tensor<2xf32>
  // CHECK: check.expect_almost_eq_const %{{.*}}, dense<(0.000000e+00,0.000000e+00)> : tensor<2xcomplex<f32>>
  "check.expect_almost_eq_const"(%z) <{value = dense<(0.000000e+00,0.000000e+00)> : tensor<2xcomplex<f32>>}> : (tensor<2xcomplex<f32>>) -> ()
  return
}

// CHECK-LABEL: func.func @close
func.func @close(%h: tensor<f16>) {
  // CHECK: check.expect_close %{{.*}}, %{{.*}}, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
  // GENERIC: "check.expect_close"(%{{.*}}, %{{.*}}) <{max_ulp_difference = 3 : ui64}> : (tensor<f16>, tensor<f16>) -> ()
  check.expect_close %h, %h, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
  // CHECK: check.expect_close %{{.*}}, %{{.*}}, max_ulp_difference = 1, min_ulp_difference = 2 : tensor<f16>, tensor<f16>
  // GENERIC: <{max_ulp_difference = 1 : ui64, min_ulp_difference = 2 : ui64}>
  check.expect_close %h, %h, max_ulp_difference = 1, min_ulp_difference = 2 : tensor<f16>, tensor<f16>
  // max_ulp_difference defaults to 1 and is always materialized
  // CHECK: check.expect_close %{{.*}}, %{{.*}}, max_ulp_difference = 1 : tensor<f16>, tensor<f16>
  // GENERIC: "check.expect_close"(%{{.*}}, %{{.*}}) <{max_ulp_difference = 1 : ui64}> : (tensor<f16>, tensor<f16>) -> ()
  "check.expect_close"(%h, %h) : (tensor<f16>, tensor<f16>) -> ()
  return
}

// CHECK-LABEL: func.func @serialized
func.func @serialized(%a: tensor<2xi32>) {
  // CHECK: check.expect_serialized_eq %{{.*}}, probe_id = "probe0" : tensor<2xi32>
  // GENERIC: "check.expect_serialized_eq"(%{{.*}}) <{probe_id = "probe0"}> : (tensor<2xi32>) -> ()
  check.expect_serialized_eq %a, probe_id = "probe0" : tensor<2xi32>
  // CHECK: check.expect_serialized_eq %{{.*}}, probe_id = "probe1", iter = 2 : tensor<2xi32>
  // GENERIC: "check.expect_serialized_eq"(%{{.*}}) <{iteration = 2 : ui32, probe_id = "probe1"}> : (tensor<2xi32>) -> ()
  check.expect_serialized_eq %a, probe_id = "probe1", iter = 2 : tensor<2xi32>
  return
}
