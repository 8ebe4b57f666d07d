// RUN: qcomp-opt %s | FileCheck %s
// RUN: qcomp-opt %s --mlir-print-op-generic | qcomp-opt | FileCheck %s
// A splat is one value however large its type, as in MLIR: these constants would take
// 10 to 80 GB element by element; qcomp holds each as one element (qcomp.ir.splat) and
// prints them as upstream does (tests/ir/test_splat.py compares with jaxlib's MLIR and
// bounds the memory). qcomp-run refuses them under --max-memory (tools/qcomp-run).

// CHECK-LABEL: func.func @huge
func.func @huge() -> (tensor<100000x100000xf32>, tensor<100000x100000xbf16>, tensor<100000x100000xi1>, tensor<100000x100000xui8>, tensor<100000x100000xi4>, tensor<100000x100000xf64>, tensor<100000x100000xcomplex<f32>>) {
  // CHECK-NEXT: stablehlo.constant dense<1.000000e+00> : tensor<100000x100000xf32>
  %0 = stablehlo.constant dense<1.0> : tensor<100000x100000xf32>
  // CHECK-NEXT: stablehlo.constant dense<2.500000e+00> : tensor<100000x100000xbf16>
  %1 = stablehlo.constant dense<2.5> : tensor<100000x100000xbf16>
  // CHECK-NEXT: stablehlo.constant dense<true> : tensor<100000x100000xi1>
  %2 = stablehlo.constant dense<true> : tensor<100000x100000xi1>
  // CHECK-NEXT: stablehlo.constant dense<200> : tensor<100000x100000xui8>
  %3 = stablehlo.constant dense<200> : tensor<100000x100000xui8>
  // CHECK-NEXT: stablehlo.constant dense<-3> : tensor<100000x100000xi4>
  %4 = stablehlo.constant dense<-3> : tensor<100000x100000xi4>
  // one element's bytes in hex are a splat too
  // CHECK-NEXT: stablehlo.constant dense<-0.000000e+00> : tensor<100000x100000xf64>
  %5 = stablehlo.constant dense<"0x0000000000000080"> : tensor<100000x100000xf64>
  // CHECK-NEXT: stablehlo.constant dense<(1.000000e+00,-2.000000e+00)> : tensor<100000x100000xcomplex<f32>>
  %6 = stablehlo.constant dense<(1.0, -2.0)> : tensor<100000x100000xcomplex<f32>>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<100000x100000xf32>, tensor<100000x100000xbf16>, tensor<100000x100000xi1>, tensor<100000x100000xui8>, tensor<100000x100000xi4>, tensor<100000x100000xf64>, tensor<100000x100000xcomplex<f32>>
}

// CHECK-LABEL: func.func @quantized
func.func @quantized() -> tensor<100000x100000x!quant.uniform<i8:f32, 5.000000e-01:3>> {
  // CHECK-NEXT: stablehlo.constant() <{value = dense<7> : tensor<100000x100000xi8>}> : () -> tensor<100000x100000x!quant.uniform<i8:f32, 5.000000e-01:3>>
  %0 = stablehlo.constant() <{value = dense<7> : tensor<100000x100000xi8>}> : () -> tensor<100000x100000x!quant.uniform<i8:f32, 5.000000e-01:3>>
  return %0 : tensor<100000x100000x!quant.uniform<i8:f32, 5.000000e-01:3>>
}
